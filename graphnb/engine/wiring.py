"""What a compiled graph is made of: its nodes, routers and edges, limits and threads.

The parts of the engine below :class:`~graphnb.engine.compiled.CompiledGraph` (the run,
the threaded driver, subgraphs, state editing, batches) work on this wiring, never on the
compiled graph, which adds the public ways to run it: no module of the engine imports
back up to :mod:`graphnb.engine.compiled`, not even for a type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..draft import Draft
from ..errors import GraphSetupError
from ..schema import StateSchema
from .node import Node, Router
from .policy import bind_node_caches
from .store import Saver, ThreadStore, open_store

if TYPE_CHECKING:
    from ..spec import GraphSpec

__all__ = ["DEFAULT_RECURSION_LIMIT", "Wiring", "positive"]

S = TypeVar("S")

DEFAULT_RECURSION_LIMIT = 100
"""Super-steps a run may take before it is stopped with GraphRecursionError."""


class Wiring(Generic[S]):
    """A graph's nodes, routers, edges, limits and threads, checked and indexed for runs."""

    def __init__(
        self,
        spec: GraphSpec | Draft,
        schema: StateSchema[S],
        nodes: Mapping[str, Any],
        routers: Mapping[str, Router],
        *,
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
        max_concurrency: int | None = None,
        checkpointer: Saver | str | None = None,
        interrupt_before: Sequence[str] | str = (),
        interrupt_after: Sequence[str] | str = (),
    ) -> None:
        self._spec = spec  # a draft becomes a GraphSpec when asked (see graphnb.draft)
        self.schema = schema
        self.recursion_limit = positive(recursion_limit, "recursion_limit")
        # The run context's type (StateGraph(..., context_schema=...)); None: any mapping.
        self.context_schema: type[Any] | None = None
        # The fields of the graph's input and output schemas (StateGraph(...,
        # input_schema=..., output_schema=...)); None: the whole state.
        self.input_fields: frozenset[str] | None = None
        self.output_fields: frozenset[str] | None = None
        self.max_concurrency = (
            None if max_concurrency is None else positive(max_concurrency, "max_concurrency")
        )
        self.nodes: dict[str, Node] = {
            name: Node(name, index, fn) for index, (name, fn) in enumerate(nodes.items())
        }
        self.checkpointer: Saver | None = None
        # The long-term store (compile(store=...)): any object of LangGraph's BaseStore
        # shape, handed to nodes as RunContext.store.
        self.store: Any = None
        self._threads: ThreadStore[S] | None = None
        # a URL lets a batch's workers open the same checkpointer (engine.batch)
        self._checkpointer_url = checkpointer if isinstance(checkpointer, str) else None
        if checkpointer is not None:
            self._threads = open_store(checkpointer, schema)
            self.checkpointer = self._threads.saver
            # Nodes whose cache lives in the saver use this one (see engine.policy).
            bind_node_caches(
                (node.fn for node in self.nodes.values()), self.checkpointer, spec.name
            )
        self.interrupt_before = self.check_node_names(interrupt_before, "interrupt_before")
        self.interrupt_after = self.check_node_names(interrupt_after, "interrupt_after")
        self.routers = dict(routers)
        # Routing needs no awaiting: the threaded loop then routes without a request.
        self.sync_routing = not any(router.is_async for router in self.routers.values())
        successors: dict[str, list[str]] = {}
        join_sources: dict[str, list[str]] = {}
        for edge in spec.edges:
            if edge.kind == "direct":
                successors.setdefault(edge.source, []).append(edge.target)
            elif edge.kind == "join":
                join_sources.setdefault(edge.target, []).append(edge.source)
        self.successors = {name: tuple(dict.fromkeys(ts)) for name, ts in successors.items()}
        self.joins = [(frozenset(sources), target) for target, sources in join_sources.items()]
        # add_node(..., defer=True): held until nothing else runs (see Run._release)
        self.deferred = frozenset(n.id for n in spec.nodes if getattr(n, "defer", False))
        self.joins_of: dict[str, list[int]] = {}
        for index, (sources, _) in enumerate(self.joins):
            for source in sources:
                self.joins_of.setdefault(source, []).append(index)

    @property
    def spec(self) -> GraphSpec:
        """The graph's spec, as it was compiled."""
        spec = self._spec
        if isinstance(spec, Draft):
            spec = self._spec = spec.to_spec()
        return spec

    @property
    def name(self) -> str:
        """The graph's name."""
        return self._spec.name

    def check_node_names(self, names: Sequence[str] | str | None, option: str) -> frozenset[str]:
        """The node names an ``interrupt_before``-like option gives, each checked to exist."""
        if names is None:
            return frozenset()
        if names == "*":
            return frozenset(self.nodes)
        if isinstance(names, str):
            chosen = frozenset([names])
        elif isinstance(names, Iterable) and all(isinstance(name, str) for name in names):
            chosen = frozenset(names)
        else:
            raise GraphSetupError(
                f"{option} takes a node's name, a list of names or '*', got {names!r:.80}"
            )
        unknown = sorted(chosen - set(self.nodes))
        if unknown:
            raise GraphSetupError(
                f"{option} names {', '.join(f'`{n}`' for n in unknown)}, which "
                f"{'is' if len(unknown) == 1 else 'are'} not a node of {self.name!r}"
            )
        return chosen

    # -- threads -----------------------------------------------------------------------

    @property
    def threads(self) -> ThreadStore[S]:
        """Typed access to the checkpointer's threads.

        Raises:
            ThreadRequiredError: the graph was compiled without a checkpointer.
        """
        if self._threads is None:
            from ..checkpoint_errors import ThreadRequiredError  # loads with threads only

            raise ThreadRequiredError(
                f"{self.name!r} has no checkpointer: compile it with "
                "checkpointer=MemorySaver() (or a saver URL such as 'sqlite:///threads.db')"
            )
        return self._threads

    def run_context(self, context: Any) -> Any:
        """The run's ``context=``, as the graph's ``context_schema`` when it has one."""
        schema = self.context_schema
        if schema is None:
            if isinstance(context, (str, bytes, int, float, list, tuple)):
                raise TypeError(
                    "context is a mapping of user data (or an object) nodes see as "
                    f"context.data, got {context!r:.80}"
                )
            return context
        if isinstance(context, schema):
            return context
        if isinstance(context, Mapping):
            try:
                return schema(**context)
            except Exception as error:
                raise TypeError(
                    f"context {context!r:.80} does not make a {schema.__name__} "
                    f"(the graph's context_schema): {error}"
                ) from None
        raise TypeError(
            f"context must be a {schema.__name__} (the graph's context_schema) or a mapping "
            f"of its fields, got {context!r:.80}"
        )


def positive(value: int, option: str) -> int:
    """``value``, checked to be a whole number of at least 1 (``option`` names it)."""
    # 0 must not fall back to a default, nor a negative count of workers run no node at all
    if type(value) is not int:
        raise TypeError(f"{option} must be a whole number, got {value!r:.80}")
    if value < 1:
        raise ValueError(f"{option} must be at least 1, got {value}")
    return value
