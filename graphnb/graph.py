"""The code API: build a graph with ``StateGraph``, then ``compile()`` it.

Example:
    >>> from graphnb import StateGraph, START, END
    >>> graph = StateGraph(dict)
    >>> graph.add_node("hello", lambda state: {"greeting": f"hello {state['name']}"})
    ... # doctest: +ELLIPSIS
    <graphnb.graph.StateGraph object at ...>
    >>> _ = graph.add_edge(START, "hello").add_edge("hello", END)
    >>> graph.compile().invoke({"name": "Ada"})["greeting"]
    'hello Ada'
"""

from __future__ import annotations

import numbers
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .binding import binding_of, resolve
from .draft import END, START, Draft, DraftEdge, DraftNode, DraftState
from .engine import display
from .engine.compiled import DEFAULT_RECURSION_LIMIT, CompiledGraph
from .engine.node import (
    Router,
    command_destinations,
    first_parameter_type,
    routes_from_annotation,
)
from .engine.policy import (
    CachePolicy,
    MemoryCache,
    NodeCache,
    RetryPolicy,
    SaverCache,
    bind_saver_cache,
    cache_fields,
    saver_caches,
    with_policies,
)
from .engine.subgraph import Subgraph, mapping_problems
from .errors import GraphSetupError, GraphValidationError
from .reducers import Reducer, add, append, merge, replace
from .schema import StateSchema
from .validate import check_spec

if TYPE_CHECKING:
    from pydantic import JsonValue

    from .engine.store import Saver
    from .spec import EdgeKind, EdgeSpec, GraphSpec, SubgraphWrites

__all__ = ["StateGraph"]

S = TypeVar("S")


class StateGraph(Generic[S]):
    """A graph under construction over the state type ``S``.

    Args:
        state: a :class:`GraphState` subclass, a ``TypedDict``, or ``dict``.
        reducers: for ``dict``/``TypedDict`` states, the reducer of each key (others replace).
        streaming: for ``dict``/``TypedDict`` states, the key receiving streamed results.
        name: the graph's name, shown in errors, diagrams and exports.
        context_schema: the type of the run context (LangGraph's ``context_schema``):
            ``invoke(..., context=Ctx(...))`` (a mapping is made one), read by nodes as
            ``runtime.context``.
        input_schema: a TypedDict or model naming the state fields a run's input is read
            from (other keys are dropped), as LangGraph's.
        output_schema: likewise the fields ``invoke`` returns (a dict); the ``values``
            stream keeps the whole state, as LangGraph's does.
        input: LangGraph's older name of ``input_schema``.
        output: LangGraph's older name of ``output_schema``.
    """

    def __init__(
        self,
        state: type[S],
        *,
        reducers: Mapping[str, Reducer | Callable[[Any, Any], Any]] | None = None,
        streaming: str | None = None,
        name: str = "graph",
        context_schema: type[Any] | None = None,
        input_schema: type[Any] | None = None,
        output_schema: type[Any] | None = None,
        input: type[Any] | None = None,
        output: type[Any] | None = None,
    ) -> None:
        try:
            self.schema: StateSchema[S] = StateSchema.of(
                state, reducers=reducers, streaming=streaming
            )
        except TypeError as error:
            raise GraphSetupError(str(error)) from None
        # Plain objects while building (no pydantic on a dict state); see graphnb.draft.
        self._spec = Draft(name=name, state=_state_spec(self.schema))
        if context_schema is not None and not isinstance(context_schema, type):
            raise GraphSetupError(
                f"context_schema is a class (a dataclass, TypedDict or pydantic model), "
                f"got {context_schema!r}"
            )
        self.context_schema = context_schema
        if context_schema is not None:
            self._spec.context_schema = binding_of(context_schema)
        # LangGraph's deprecated input=/output= (still taken by LangGraph 1.2)
        self.input_schema = input_schema if input_schema is not None else input
        self.output_schema = output_schema if output_schema is not None else output
        self._input_fields = self._schema_fields("input_schema", self.input_schema)
        self._output_fields = self._schema_fields("output_schema", self.output_schema)
        if self.input_schema is not None:
            self._spec.input_schema = binding_of(self.input_schema)
        if self.output_schema is not None:
            self._spec.output_schema = binding_of(self.output_schema)

        self._callables: dict[str, Callable[..., Any] | None] = {}
        self._routers: dict[str, Callable[..., Any]] = {}
        self._problems: list[str] = []
        self._miscalled: set[str] = set()
        self._subgraphs: dict[
            str,
            tuple[
                StateGraph[Any] | CompiledGraph[Any],
                Mapping[str, str] | None,
                Mapping[str, str] | None,
            ],
        ] = {}
        self._policies: dict[str, tuple[RetryPolicy | None, float | None, CachePolicy | None]] = {}
        self._private: dict[str, type[Any]] = {}  # node -> its private input schema

    def _private_input(self, node: object, fn: object, given: type[Any] | None) -> type[Any] | None:
        """A node's private input schema: ``given``, or its first parameter's annotation."""
        if given is not None:
            self._schema_fields(f"the input_schema of `{node}`", given)
            return given
        found = first_parameter_type(fn) if callable(fn) else None
        if not isinstance(found, type) or found is self.schema.state_type or found is dict:
            return None
        try:
            fields = StateSchema.of(found).fields
        except TypeError:  # not a state type: an annotation like any other
            return None
        # LangGraph would add fields the state lacks as channels; graphnb reads the state
        if not fields or any(name not in self.schema.fields for name in fields):
            return None
        return found

    def _schema_fields(self, what: str, schema: type[Any] | None) -> frozenset[str] | None:
        """The state fields an input or output schema names; refused if it names others."""
        if schema is None:
            return None
        try:
            fields = StateSchema.of(schema).fields
        except TypeError as error:
            raise GraphSetupError(f"{what}: {error}") from None
        outside = [name for name in fields if name not in self.schema.fields]
        if outside:
            names = ", ".join(repr(name) for name in outside)
            raise GraphSetupError(
                f"{what} {schema.__name__} has field(s) {names} that {self.schema.label} "
                "lacks; graphnb's input and output schemas are views of the graph's state "
                "(declare those fields on the state too)"
            )
        return frozenset(fields)

    # -- building ----------------------------------------------------------------------

    def add_node(
        self,
        node: str | Callable[..., Any],
        fn: Callable[..., Any] | StateGraph[Any] | CompiledGraph[Any] | None = None,
        *,
        label: str | None = None,
        position: tuple[float, float] | None = None,
        binding: str | None = None,
        metadata: Mapping[str, JsonValue] | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
        cache: CachePolicy | None = None,
        inputs: Mapping[str, str] | None = None,
        outputs: Mapping[str, str] | None = None,
        destinations: Mapping[str, str] | Sequence[str] | None = None,
        input_schema: type[Any] | None = None,
        writes: SubgraphWrites | None = None,
        defer: bool = False,
    ) -> StateGraph[S]:
        """Add a node. ``add_node(fn)`` names it after the function.

        Args:
            node: the node's name, or its callable (then named by ``__name__``).
            fn: the callable, when ``node`` is a name.
            label: text shown instead of the name in diagrams and the widget.
            position: canvas position ``(x, y)``.
            binding: how exports and the widget find the callable again; derived from the
                function's module and name when omitted.
            metadata: free JSON data kept in the spec (exports and the widget keep it).
            retry: run the node again when it fails (see :class:`RetryPolicy`).
            timeout: seconds an attempt may take before it fails with ``NodeTimeout``.
            cache: reuse the node's results for the same input (see :class:`CachePolicy`).
            inputs: for a subgraph node (``fn`` a ``StateGraph`` or compiled graph): which
                parent field feeds which child field; the fields both share by default.
            outputs: for a subgraph node: which child field is written to which parent
                field; the fields both share by default.
            destinations: where the node's ``Command(goto=...)`` may send the run, for
                drawing (dashed edges) and for the compile's reachability check: node
                names (``END`` too), or a dict of node name -> edge label. Read from a
                ``-> Command[Literal["a", "b"]]`` return annotation when omitted. A
                ``goto`` elsewhere still runs; a destination that is no node is refused
                when the graph compiles.
            input_schema: the node's private input schema (LangGraph's): a TypedDict or
                model whose fields (all of them fields of the state) are all the node
                reads, as that type. Read from the annotation of the function's first
                parameter when omitted, if that names such a type other than the state's.
            writes: for a subgraph node: what it writes back. ``"changes"`` (the default):
                what the child changed, so an ``append`` field gets the child's new items
                once. ``"state"``: the child's final values of its output fields, through
                the parent's reducers, as LangGraph does (an ``append`` field the child
                shares gets the parent's items again); graphs imported from LangGraph use it.
            defer: hold the node, once triggered, until the run has nothing else to run
                (LangGraph's ``defer=True``): a fan-in after branches of different lengths
                runs once, after the longest.
        """
        callee = fn if fn is not None else node
        if destinations is None and callable(callee):
            destinations = command_destinations(callee)
        marks = _destinations(node, destinations)
        private = self._private_input(node, callee, input_schema)
        if not isinstance(defer, bool):
            raise GraphSetupError(f"defer= of `{node}` must be True or False, got {defer!r}")
        if isinstance(fn, (StateGraph, CompiledGraph)):
            _refuse_subgraph_policies(node, retry, timeout, cache)
            _check_writes(node, writes)
            return self._add_subgraph(
                node, fn, label, position, metadata, inputs, outputs, marks, writes, defer
            )
        if writes is not None:
            raise GraphSetupError(f"writes= of `{node}` needs a graph as its callable")
        if inputs is not None or outputs is not None:
            raise GraphSetupError(f"inputs/outputs of `{node}` need a graph as its callable")
        if callable(node) and fn is None:
            fn, node = node, getattr(node, "__name__", None) or ""
        if not isinstance(node, str):
            raise GraphSetupError(f"a node's name must be a string, got {node!r}")
        if node in self._callables:
            self._problems.append(f"`{node}` is added more than once.")
            return self
        if fn is not None and not callable(fn):
            self._problems.append(f"`{node}` is bound to {fn!r}, which is not callable.")
            self._callables[node] = None
            self._miscalled.add(node)
        else:
            self._callables[node] = fn
        _check_policies(node, retry, timeout, cache)
        _check_position(node, position)
        bound = binding or (binding_of(fn) if callable(fn) else None)
        plain = (label is None or isinstance(label, str)) and isinstance(bound, (str, type(None)))
        policies = retry is not None or timeout is not None or cache is not None
        special = marks is not None or private is not None or defer
        if plain and not (position or metadata or policies or special):
            self._spec.nodes.append(DraftNode(node, label, bound))
        else:
            from .spec import NodeSpec, Position

            self._spec.nodes.append(
                NodeSpec(
                    id=node,
                    label=label,
                    binding=bound,
                    position=Position(x=position[0], y=position[1]) if position else None,
                    metadata=dict(metadata or {}),
                    retry=retry.to_spec() if retry is not None else None,
                    timeout=timeout,
                    cache=cache.to_spec() if cache is not None else None,
                    destinations=marks,
                    input_schema=binding_of(private) if private is not None else None,
                    defer=defer,
                )
            )
        if private is not None:
            self._private[node] = private
        if retry is not None or timeout is not None or cache is not None:
            self._policies[node] = (retry, timeout, cache)
        return self

    def _add_subgraph(
        self,
        node: Any,
        child: StateGraph[Any] | CompiledGraph[Any],
        label: str | None,
        position: tuple[float, float] | None,
        metadata: Mapping[str, JsonValue] | None,
        inputs: Mapping[str, str] | None,
        outputs: Mapping[str, str] | None,
        destinations: dict[str, str | None] | None = None,
        writes: SubgraphWrites | None = None,
        defer: bool = False,
    ) -> StateGraph[S]:
        if not isinstance(node, str):
            raise GraphSetupError(f"a node's name must be a string, got {node!r}")
        if node in self._callables:
            self._problems.append(f"`{node}` is added more than once.")
            return self
        _check_position(node, position)
        self._callables[node] = None
        self._subgraphs[node] = (child, inputs, outputs)
        self._spec.version = 2
        from .spec import NodeSpec, Position

        self._spec.nodes.append(
            NodeSpec(
                id=node,
                label=label,
                position=Position(x=position[0], y=position[1]) if position else None,
                metadata=dict(metadata or {}),
                subgraph=child.spec,
                inputs=dict(inputs) if inputs is not None else None,
                outputs=dict(outputs) if outputs is not None else None,
                destinations=destinations,
                writes=writes,
                defer=defer,
            )
        )
        return self

    def _attach_subgraph(self, node: str, child: StateGraph[Any] | CompiledGraph[Any]) -> None:
        """Make the existing node ``node`` run ``child`` (shared fields in and out by name).

        For builders of whole graphs (a machine's composite states): the node keeps its
        place, edges and router; its callable is replaced by the child graph.
        """
        spec = self._spec.node(node)
        spec.binding = None
        spec.subgraph = child.spec
        self._callables[node] = None
        self._subgraphs[node] = (child, None, None)
        self._spec.version = 2

    def _subgraph_problems(self) -> list[str]:
        """The problems of the subgraph nodes, their children validated, not compiled.

        Compiling a child here would compile it again for every level above it (each
        level validates, then compiles): thirteen nested levels took seconds.
        """
        problems: list[str] = []
        for name, (child, inputs, outputs) in self._subgraphs.items():
            label = child._spec.name if isinstance(child, StateGraph) else child.name
            if isinstance(child, StateGraph):
                found = child.validate()
                if found:
                    problems.extend(f"subgraph `{name}` ({label!r}): {p}" for p in found)
                    continue
            problems.extend(
                mapping_problems(
                    name,
                    self.schema,
                    self._spec.name,
                    child.schema,
                    label,
                    inputs=inputs,
                    outputs=outputs,
                )
            )
        return problems

    def _subgraph_nodes(self) -> tuple[dict[str, Subgraph], list[str]]:
        """Each subgraph node bound to its child, compiled once, and the problems found."""
        made: dict[str, Subgraph] = {}
        problems: list[str] = []
        for name, (child, inputs, outputs) in self._subgraphs.items():
            if isinstance(child, StateGraph):
                try:
                    child = child.compile()  # which validates it, and its children once
                except GraphValidationError as error:
                    label = child._spec.name
                    problems.extend(f"subgraph `{name}` ({label!r}): {p}" for p in error.problems)
                    continue
            bound = Subgraph(
                name,
                child,
                self.schema,
                self._spec.name,
                inputs=inputs,
                outputs=outputs,
                writes=getattr(self._spec.node(name), "writes", None) or "changes",
            )
            problems.extend(bound.problems())
            made[name] = bound
        return made, problems

    def add_edge(
        self,
        source: str | Sequence[str],
        target: str,
        *,
        label: str | None = None,
        metadata: Mapping[str, JsonValue] | None = None,
    ) -> StateGraph[S]:
        """Add an edge; a list of sources makes a join (``target`` runs once all ran).

        Args:
            source: the node (or START) the edge leaves, or a list of them for a join.
            target: the node (or END) the edge enters.
            label: text drawn on the edge.
            metadata: free JSON data kept in the spec.
        """
        if not isinstance(source, (str, Iterable)):
            raise GraphSetupError(
                f"the source of an edge to `{target}` must be a node name (or START), or a "
                f"list of them for a join, got {source!r}"
            )
        sources = [source] if isinstance(source, str) else list(source)
        if not sources:
            raise GraphSetupError(f"a join into `{target}` needs at least one source")
        kind: EdgeKind = "join" if len(sources) > 1 else "direct"
        if kind == "join":
            self._check_one_join(sources, target)
        if not metadata and _all_str(target, *sources) and _all_str(label, none=True):
            self._spec.edges.extend(DraftEdge(s, target, kind, label=label) for s in sources)
            return self
        from .spec import EdgeSpec

        self._spec.edges.extend(
            EdgeSpec(source=s, target=target, kind=kind, label=label, metadata=dict(metadata or {}))
            for s in sources
        )
        return self

    def _check_one_join(self, sources: list[str], target: object) -> None:
        """A node has one join: the spec keeps a join as edges into it, one barrier."""
        joined = [e.source for e in self._spec.edges if e.kind == "join" and e.target == target]
        if joined and set(joined) != set(sources):
            self._problems.append(
                f"`{target}` has two joins, from {_names(joined)} and from {_names(sources)}; "
                "a node has one join, which waits for all its sources: join the two groups "
                "in nodes of their own, then add an edge from each to it."
            )

    def add_conditional_edges(
        self,
        source: str,
        router: Callable[..., Any],
        routes: Sequence[str] | Mapping[str, str] | None = None,
        *,
        sends: Sequence[str] = (),
    ) -> StateGraph[S]:
        """Let ``router`` pick the next node(s) after ``source``.

        Args:
            source: the node (or START) whose successors the router picks.
            router: called with the state (and optionally the run context); returns a route,
                or several routes to fan out.
            routes: the declared targets: a list of node names, or a mapping from each value
                the router returns to a node. Read from a ``Literal[...]`` return annotation
                when omitted.
            sends: the nodes the router may return ``Send(node, payload)`` items for
                (map-reduce: one run of the node per item, in the same super-step).
        """
        if source in self._routers:
            self._problems.append(f"`{source}` has more than one router.")
            return self
        if not callable(router):
            raise GraphSetupError(f"the router of `{source}` must be callable, got {router!r}")
        if routes is None:
            routes = routes_from_annotation(router)
        mapping = dict(routes) if isinstance(routes, Mapping) else {r: r for r in routes or ()}
        labels = [label for label in mapping if not isinstance(label, str)]
        if labels:
            raise GraphSetupError(
                f"the routes of `{source}` map {labels[0]!r} ({type(labels[0]).__name__}); a "
                "route is the string its router returns (graphnb keeps routes as JSON text): "
                "have the router return strings, e.g. {'yes': ..., 'no': ...}"
            )
        self._routers[source] = router
        self._spec.routers[source] = binding_of(router)
        edge: type[DraftEdge | EdgeSpec] = DraftEdge
        if not _all_str(source, *mapping, *mapping.values(), *sends):
            from .spec import EdgeSpec

            edge = EdgeSpec  # refuses what is not a name, as it says
        self._spec.edges.extend(
            edge(
                source=source,
                target=target,
                kind="conditional",
                route=route,
                label=None if route == target else route,
            )
            for route, target in mapping.items()
        )
        self._spec.edges.extend(
            edge(source=source, target=target, kind="send") for target in dict.fromkeys(sends)
        )
        return self

    def set_entry_point(self, node: str) -> StateGraph[S]:
        """Start runs at ``node`` (same as ``add_edge(START, node)``)."""
        return self.add_edge(START, node)

    def set_finish_point(self, node: str) -> StateGraph[S]:
        """End runs after ``node`` (same as ``add_edge(node, END)``)."""
        return self.add_edge(node, END)

    # -- the spec ----------------------------------------------------------------------

    @property
    def callables(self) -> dict[str, Callable[..., Any] | None]:
        """Each node's callable (``None`` where a node has none yet), in node order."""
        return dict(self._callables)

    @property
    def routers(self) -> dict[str, Callable[..., Any]]:
        """Each router's callable, keyed by its source node (or START)."""
        return dict(self._routers)

    @property
    def policies(
        self,
    ) -> dict[str, tuple[RetryPolicy | None, float | None, CachePolicy | None]]:
        """Each node's ``(retry, timeout, cache)`` policies, for the nodes that have any."""
        return dict(self._policies)

    @property
    def subgraphs(self) -> dict[str, StateGraph[Any] | CompiledGraph[Any]]:
        """Each subgraph node's child graph, in node order."""
        return {name: child for name, (child, _, _) in self._subgraphs.items()}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return display.mimebundle(self._spec.to_spec())

    @property
    def spec(self) -> GraphSpec:
        """A copy of the graph's spec: plain JSON-able data."""
        return self._spec.to_spec()

    @classmethod
    def from_spec(
        cls,
        spec: GraphSpec | str | Mapping[str, Any],
        *,
        namespace: Mapping[str, Any] | None = None,
        state: type[Any] | None = None,
    ) -> StateGraph[Any]:
        """Rebuild a graph from its spec, resolving every binding.

        Args:
            spec: a :class:`GraphSpec`, its JSON text, or its dict.
            namespace: where bare (notebook) names are looked up.
            state: the state type, when the spec names none that can be resolved.
        """
        from .spec import GraphSpec

        if isinstance(spec, str):
            spec = GraphSpec.from_json(spec)
        elif not isinstance(spec, GraphSpec):
            spec = GraphSpec.model_validate(spec)
        if state is None:
            state = resolve(spec.state.binding, namespace) if spec.state.binding else dict
        reducers, streaming = _dict_state_options(spec) if state is dict else ({}, None)
        context = resolve(spec.context_schema, namespace) if spec.context_schema else None
        graph: StateGraph[Any] = cls(
            state,
            name=spec.name,
            reducers=reducers,
            streaming=streaming,
            context_schema=context,
            input_schema=resolve(spec.input_schema, namespace) if spec.input_schema else None,
            output_schema=resolve(spec.output_schema, namespace) if spec.output_schema else None,
        )
        for node in spec.nodes:
            if node.subgraph is not None:
                _refuse_subgraph_policies(node.id, node.retry, node.timeout, node.cache)
                child = cls.from_spec(node.subgraph, namespace=namespace)
                graph._callables[node.id] = None
                graph._subgraphs[node.id] = (child, node.inputs, node.outputs)
                graph._spec.nodes.append(node.model_copy(deep=True))
                continue
            fn = resolve(node.binding, namespace) if node.binding else None
            graph._callables[node.id] = fn
            graph._spec.nodes.append(node.model_copy(deep=True))
            if node.input_schema is not None:
                graph._private[node.id] = resolve(node.input_schema, namespace)
            if node.retry is not None or node.timeout is not None or node.cache is not None:
                graph._policies[node.id] = (
                    RetryPolicy.from_spec(node.retry, namespace, node=node.id)
                    if node.retry
                    else None,
                    node.timeout,
                    CachePolicy.from_spec(node.cache) if node.cache else None,
                )
        for source, binding in spec.routers.items():
            if binding is not None:
                graph._routers[source] = resolve(binding, namespace)
            graph._spec.routers[source] = binding
        graph._spec.edges.extend(edge.model_copy(deep=True) for edge in spec.edges)
        graph._spec.metadata.update(spec.metadata)
        graph._spec.version = spec.version
        return graph

    def validate(self) -> list[str]:
        """Every problem of the graph as it stands, one sentence each (empty when fine)."""
        return self._validate(self._subgraph_problems)

    def _validate(self, subgraph_problems: Callable[[], list[str]]) -> list[str]:
        problems = list(self._problems)
        problems.extend(p.message for p in check_spec(self._spec))
        for name, fn in self._callables.items():
            if fn is None and name not in self._miscalled and name not in self._subgraphs:
                problems.append(f"`{name}` has no callable.")
        if self._subgraphs:
            problems.extend(subgraph_problems())
        for name, (_, _, policy) in self._policies.items():
            if policy is not None:
                problems.extend(cache_fields(name, policy, self.schema)[1])
        return problems

    def compile(
        self,
        *,
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
        max_concurrency: int | None = None,
        checkpointer: Saver | str | None = None,
        interrupt_before: Sequence[str] | str = (),
        interrupt_after: Sequence[str] | str = (),
        cache: NodeCache | None = None,
        store: Any = None,
    ) -> CompiledGraph[S]:
        """Validate the graph and return it ready to run.

        Args:
            recursion_limit: maximum super-steps per run (overridable per run).
            max_concurrency: at most this many nodes of one step run at once (sync
                nodes on threads; async nodes too in ``ainvoke``/``astream``).
            checkpointer: where threads are kept: a saver (``MemorySaver()``,
                ``SqliteSaver("threads.db")`` ...) or its URL (``"sqlite:///threads.db"``).
                Runs then take ``thread_id=...`` and each step is checkpointed.
            interrupt_before: stop threaded runs before these nodes (``"*"``: all).
            interrupt_after: stop threaded runs after these nodes (``"*"``: all).
            cache: where nodes with a cache policy keep their results (a fresh
                :class:`MemoryCache` per compile when omitted).
            store: the long-term store every run's nodes share across threads, as
                LangGraph's ``compile(store=...)``: any object with LangGraph's
                ``BaseStore`` shape (``put``/``get``/``search``/``delete`` on namespaced
                items), such as ``langgraph.store.memory.InMemoryStore()``. Nodes read it
                as ``context.store`` or through a ``store`` parameter; subgraphs share it.

        Raises:
            GraphValidationError: listing every problem found.
        """
        # Saver caches made while compiling (in subgraphs too) are bound to the saver of
        # the outermost compile, once its compiled graph has opened it.
        scope = saver_caches()
        with scope as slot:
            compiled = self._compile(
                recursion_limit=recursion_limit,
                max_concurrency=max_concurrency,
                checkpointer=checkpointer,
                interrupt_before=interrupt_before,
                interrupt_after=interrupt_after,
                cache=cache,
            )
        compiled.store = store
        if scope.owner:
            bind_saver_cache(slot, compiled.checkpointer, self._spec.name)
        return compiled

    def _compile(
        self,
        *,
        recursion_limit: int,
        max_concurrency: int | None,
        checkpointer: Saver | str | None,
        interrupt_before: Sequence[str] | str,
        interrupt_after: Sequence[str] | str,
        cache: NodeCache | None,
    ) -> CompiledGraph[S]:
        # Each child is compiled once, here; its problems are the graph's problems.
        made: dict[str, Subgraph] = {}

        def children() -> list[str]:
            found, problems = self._subgraph_nodes()
            made.update(found)
            return problems

        problems = self._validate(children)
        if problems:
            raise GraphValidationError(problems, graph=self._spec.name)
        spec = self._spec.copy()  # made a GraphSpec when the compiled graph is asked
        routers = {
            source: Router(
                source,
                fn,
                {
                    e.route or e.target: e.target
                    for e in spec.edges
                    if e.source == source and e.kind == "conditional"
                },
                [e.target for e in spec.edges if e.source == source and e.kind == "send"],
            )
            for source, fn in self._routers.items()
        }
        callables: dict[str, Any] = {
            name: fn for name, fn in self._callables.items() if fn is not None
        }
        if self._subgraphs:
            callables.update(made)
            callables = {name: callables[name] for name in self._callables}  # node order
        if self._policies:
            store: NodeCache = cache if cache is not None else MemoryCache()
            kept: SaverCache | None = None
            for name, (retry, timeout, policy) in self._policies.items():
                if name in callables:
                    chosen = store
                    if policy is not None and policy.store == "saver":
                        kept = kept or saver_caches.make(self._spec.name)
                        chosen = kept.use(name)
                    callables[name] = with_policies(
                        name,
                        callables[name],
                        retry=retry,
                        timeout=timeout,
                        cache=policy,
                        store=chosen,
                        fields=None
                        if policy is None
                        else cache_fields(name, policy, self.schema)[0],
                    )
        compiled = CompiledGraph(
            spec,
            self.schema,
            callables,
            routers,
            recursion_limit=recursion_limit,
            max_concurrency=max_concurrency,
            checkpointer=checkpointer,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )
        compiled.context_schema = self.context_schema
        for name, private in self._private.items():
            compiled.nodes[name].reading(StateSchema.of(private))
        compiled.input_fields, compiled.output_fields = self._input_fields, self._output_fields
        return compiled


_BUILTIN_REDUCERS = {reducer.name: reducer for reducer in (replace, append, add, merge)}


def _dict_state_options(spec: GraphSpec) -> tuple[dict[str, Reducer], str | None]:
    """Reducers and streaming key of a dict state, read back from its spec."""
    reducers = {}
    for field in spec.state.fields:
        reducer = _BUILTIN_REDUCERS.get(field.reducer)
        if reducer is None:
            raise GraphSetupError(
                f"field {field.name!r} of {spec.name!r} uses the reducer {field.reducer!r}; "
                f"a dict state rebuilt from a spec knows only {sorted(_BUILTIN_REDUCERS)} "
                "(pass state=... to use another)"
            )
        reducers[field.name] = reducer
    streaming = next((field.name for field in spec.state.fields if field.streaming), None)
    return reducers, streaming


def _destinations(
    node: object, destinations: Mapping[str, str] | Sequence[str] | None
) -> dict[str, str | None] | None:
    """A node's declared Command destinations as the spec keeps them: name -> label."""
    if destinations is None:
        return None
    if isinstance(destinations, Mapping):
        marks: dict[str, str | None] = {}
        for target, label in destinations.items():
            if not isinstance(target, str) or not isinstance(label, (str, type(None))):
                raise GraphSetupError(
                    f"the destinations of `{node}` map node names to labels (strings), "
                    f"got {target!r}: {label!r}"
                )
            marks[target] = label
        return marks
    if isinstance(destinations, str) or not all(isinstance(t, str) for t in destinations):
        raise GraphSetupError(
            f"the destinations of `{node}` are a tuple of node names or a dict of node "
            f"name -> label, got {destinations!r}"
        )
    return dict.fromkeys(destinations)


def _names(nodes: Sequence[str]) -> str:
    return ", ".join(f"`{node}`" for node in nodes)


def _all_str(*values: object, none: bool = False) -> bool:
    return all(isinstance(v, str) or (none and v is None) for v in values)


def _state_spec(schema: StateSchema[Any]) -> DraftState:
    state_type = schema.state_type
    if schema.model is not None:
        kind: typing.Literal["model", "typeddict", "dict"] = "model"
    elif state_type is dict:
        kind = "dict"
    else:
        kind = "typeddict"
    binding = binding_of(state_type) if state_type is not dict else None
    return DraftState(kind, binding, tuple(schema.fields.values()))


def _check_policies(node: str, retry: Any, timeout: Any, cache: Any) -> None:
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise GraphSetupError(f"the retry of `{node}` must be a RetryPolicy, got {retry!r}")
    if cache is not None and not isinstance(cache, CachePolicy):
        raise GraphSetupError(f"the cache of `{node}` must be a CachePolicy, got {cache!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0
    ):
        raise GraphSetupError(
            f"the timeout of `{node}` must be a positive number of seconds, got {timeout!r}"
        )


def _check_position(node: str, position: object) -> None:
    if position is None:
        return
    if (
        not isinstance(position, (tuple, list))
        or len(position) != 2
        or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in position)
    ):
        raise GraphSetupError(
            f"the position of `{node}` must be (x, y), two numbers, got {position!r}"
        )


def _check_writes(node: object, writes: object) -> None:
    if writes is not None and writes not in ("changes", "state"):
        raise GraphSetupError(
            f"writes= of subgraph node `{node}` must be 'changes' or 'state', got {writes!r}"
        )


def _refuse_subgraph_policies(node: object, retry: object, timeout: object, cache: object) -> None:
    """Retry, timeout and cache apply to a callable node, not to a subgraph node (yet)."""
    policies = {"retry": retry, "timeout": timeout, "cache": cache}
    given = [name for name, value in policies.items() if value is not None]
    if given:
        raise GraphSetupError(
            f"`{node}` is a subgraph node: {', '.join(given)} apply to callable nodes only; "
            "set them on the nodes inside the subgraph"
        )
