"""Read a LangGraph ``StateGraph`` (or its compiled graph) into a graphnb ``StateGraph``.

Everything graphnb can run the same way is mapped: nodes with their callables, plain
edges, joins, conditional edges with their path maps, START/END, the state schema and
its reducers, ``Send`` (map-reduce), compiled subgraphs as nodes, static interrupts and
the in-memory checkpointer. Everything else is
listed by name with the reason (:class:`~graphnb.interop.Unmapped`), never dropped.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, get_type_hints

from typing_extensions import is_typeddict  # typing's misses typing_extensions' TypedDict

from ..engine.compiled import CompiledGraph
from ..graph import StateGraph
from ..spec import END
from .code import references, wrapper_of
from .errors import LangGraphMissingError, Unmapped, UnmappedFeatureError
from .state import graphnb_state

__all__ = ["Imported", "from_langgraph", "import_langgraph", "is_langgraph"]

# LangGraph functions that only work inside LangGraph's runtime: a router whose code calls
# them would fail on graphnb, so it is reported, not silently carried over. A node calling
# them runs inside the shim of .langgraph_runtime (_SHIMMED).
_RUNTIME_ONLY = {
    ("langgraph.types", "interrupt"): "calls LangGraph's interrupt(); use graphnb.interrupt",
    ("langgraph.types", "Command"): "returns a Command (update + goto); graphnb nodes return "
    "updates and routers pick the next node",
    ("langgraph.config", "get_config"): "reads LangGraph's run config",
    ("langgraph.config", "get_stream_writer"): "writes to LangGraph's custom stream",
    ("langgraph.config", "get_store"): "reads LangGraph's store",
    ("langgraph.runtime", "get_runtime"): "reads LangGraph's runtime",
}

# What the shim gives a node: LangGraph's functions it may call, parameters it may take.
_SHIMMED = {key for key in _RUNTIME_ONLY if key[1] != "Command"}
# What a node may refer to: the shim's functions, and Command (the engine follows it).
_NODE_MAPPED = set(_RUNTIME_ONLY)
_INJECTED = {"config", "runtime", "writer", "store"}

# Node options graphnb has no counterpart for (retry, timeout, cache and metadata are
# mapped by _node_options).
_NODE_OPTIONS = {
    "is_error_handler": ("error handler", "graphnb has no error-handler nodes"),
    "error_handler_node": ("error_handler", "graphnb has no error-handler nodes"),
    "trace_policy": ("trace_policy", "graphnb has no trace policy"),
}


@dataclass(slots=True)
class Imported:
    """A LangGraph graph read into graphnb, with what could not be mapped.

    Attributes:
        graph: the graphnb builder.
        unmapped: every LangGraph feature left out, with the reason.
        compile_options: what the LangGraph graph was compiled with, as graphnb's
            ``compile()`` arguments (``checkpointer``, ``interrupt_before`` ...).
    """

    graph: StateGraph[Any]
    unmapped: list[Unmapped] = field(default_factory=list)
    compile_options: dict[str, Any] = field(default_factory=dict)

    def compile(self, **options: Any) -> CompiledGraph[Any]:
        """Compile the graph with the imported options (``options`` win)."""
        return self.graph.compile(**{**self.compile_options, **options})


class _CompiledLangGraph(StateGraph[Any]):
    """A graph imported from LangGraph: ``compile()`` keeps its options and its calls.

    Read from a compiled graph, ``from_langgraph(app).compile()`` stops where ``app``
    stops (``interrupt_before`` ...) and keeps threads as ``app`` does; an option passed to
    ``compile`` wins. The compiled graph also takes LangGraph's calling conventions
    (``invoke(input, config)``, ``stream_mode=``: :class:`.LangGraphCalls`).
    """

    compile_options: dict[str, Any]
    io_keys: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (None, None)

    @property
    def compile_defaults(self) -> dict[str, Any]:
        """What :meth:`compile` uses unless told otherwise.

        LangGraph's recursion limit and the options the LangGraph graph was compiled with.
        """
        return {"recursion_limit": _langgraph_recursion_limit(), **self.compile_options}

    def compile(self, **options: Any) -> CompiledGraph[Any]:
        """Compile with the options the LangGraph graph was compiled with (``options`` win)."""
        from .langgraph_calls import LangGraphCalls

        compiled = super().compile(**{**self.compile_defaults, **options})
        compiled.__class__ = LangGraphCalls  # the same object, LangGraph's calls on top
        compiled.io_keys = self.io_keys  # type: ignore[attr-defined]
        return compiled


def _langgraph_recursion_limit() -> int:
    """LangGraph's default recursion limit (10,007 in 1.x; its environment may set it).

    An imported program loops as long as it does on LangGraph; graphnb's own graphs keep
    their default of 100.
    """
    from langgraph._internal._config import DEFAULT_RECURSION_LIMIT

    return int(DEFAULT_RECURSION_LIMIT)


def is_langgraph(obj: Any) -> bool:
    """Whether ``obj`` is a LangGraph ``StateGraph`` or compiled state graph."""
    module = type(obj).__module__
    return (
        module.startswith("langgraph.")
        and hasattr(obj, "nodes")
        and (hasattr(obj, "branches") or hasattr(obj, "builder"))
    )


def from_langgraph(graph: Any) -> StateGraph[Any]:
    """Turn a LangGraph ``StateGraph`` (or compiled graph) into a graphnb ``StateGraph``.

    Read from a compiled graph, its ``compile()`` keeps what that graph was compiled with
    (``interrupt_before``/``interrupt_after``, an ``InMemorySaver`` as a ``MemorySaver``);
    options passed to ``compile`` win.

    Raises:
        UnmappedFeatureError: listing every LangGraph feature graphnb cannot map; use
            :func:`import_langgraph` to get the rest of the graph and the list instead.
        TypeError: ``graph`` is not a LangGraph state graph.
    """
    imported = import_langgraph(graph)
    if imported.unmapped:
        raise UnmappedFeatureError(imported.unmapped, graph=imported.graph.spec.name)
    return imported.graph


def import_langgraph(graph: Any) -> Imported:
    """Read a LangGraph graph without raising on unmapped features (they are listed).

    Raises:
        TypeError: ``graph`` is not a LangGraph state graph.
    """
    return _import(graph, top=True)


def _import(graph: Any, *, top: bool) -> Imported:
    """Read ``graph``; a compiled one read at the ``top`` keeps its compile options.

    A subgraph's are left out: graphnb runs a child on its parent's checkpointer.
    """
    try:
        from langgraph.graph.state import CompiledStateGraph
        from langgraph.graph.state import StateGraph as LGStateGraph
    except ImportError:  # pragma: no cover - the extra is installed in the test suite
        raise LangGraphMissingError() from None
    compiled = graph if isinstance(graph, CompiledStateGraph) else None
    builder = graph.builder if compiled is not None else graph
    if not isinstance(builder, LGStateGraph):
        raise TypeError(
            f"from_langgraph expects a LangGraph StateGraph or compiled graph, got "
            f"{type(graph).__name__}"
        )
    unmapped: list[Unmapped] = []
    name = compiled.name if compiled is not None and compiled.name != "LangGraph" else "graph"
    state = _with_private_keys(graphnb_state(builder.state_schema, unmapped), builder)
    _check_schemas(builder, unmapped)
    _check_channels(builder, unmapped)
    result = (_CompiledLangGraph if top else StateGraph)(state, name=name)
    _reducer_start_values(result, builder)
    cached = compiled is None or compiled.cache is not None
    # By name: LangGraph starts a step's triggered nodes and merges their writes in the
    # order of their names, graphnb in node order; so an operator.add key fed by parallel
    # nodes gets their items in LangGraph's order.
    for node_name, node in sorted(builder.nodes.items()):
        fn = _node_callable(node_name, node, builder, unmapped)
        options = _node_options(node_name, node, unmapped, cached=cached)
        if node.ends:
            # Where its Command(goto=...) (or, for a subgraph node, its child's
            # Command(graph=PARENT)) may go; graphnb's engine follows LangGraph's Command
            # as it is, this only draws the dashed edges LangGraph draws.
            options["destinations"] = _destinations(node.ends)
        if isinstance(fn, StateGraph | CompiledGraph):  # a subgraph node takes no policies
            # LangGraph writes a child's whole output through the parent's reducers
            options["writes"] = "state"
            for option in ("retry", "timeout", "cache"):
                if options.pop(option, None) is not None:
                    reason = "graphnb's subgraph nodes take no retry, timeout or cache"
                    unmapped.append(Unmapped(option, f"node {node_name!r}", reason))
        result.add_node(node_name, fn if fn is not None else _unmapped_node(node_name), **options)
    for source, target in sorted(builder.edges):
        result.add_edge(source, target)
    for sources, target in sorted(builder.waiting_edges):
        result.add_edge(list(sources), target)
    for source, branches in sorted(builder.branches.items()):
        _add_branches(result, source, branches, builder, unmapped)
    # LangGraph ends a branch at a node without outgoing edges; graphnb says so with END.
    leaving = {edge.source for edge in result.spec.edges}
    for node_name, node in builder.nodes.items():
        if node_name not in leaving and not node.ends:
            result.add_edge(node_name, END)
    options = _compile_options(compiled, unmapped) if compiled is not None else {}
    if isinstance(result, _CompiledLangGraph):
        result.compile_options = options
        result.io_keys = _io_keys(builder)
    return Imported(result, unmapped, options)


def _destinations(ends: Any) -> dict[str, str] | list[str]:
    """A LangGraph node's ``ends`` (a tuple of names, or a dict of name -> label)."""
    if isinstance(ends, Mapping):
        return {str(target): str(label) for target, label in ends.items()}
    return [str(target) for target in ends]


def _check_schemas(builder: Any, unmapped: list[Unmapped]) -> None:
    state = builder.state_schema
    for role in ("input_schema", "output_schema"):
        schema = getattr(builder, role, state)
        if schema is not state and not (is_typeddict(schema) and is_typeddict(state)):
            unmapped.append(
                Unmapped(
                    role.replace("_", " "),
                    getattr(schema, "__name__", repr(schema)),
                    "graphnb filters a run's input and result by a TypedDict schema of a "
                    "TypedDict graph only; this one is another kind",
                )
            )


def _io_keys(builder: Any) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """The keys a run takes and returns, as LangGraph filters them (``None``: all).

    A TypedDict graph's input and output schemas (the state's own when not given): its
    state here may hold more (keys its nodes keep outside it).
    """
    state = builder.state_schema
    if not is_typeddict(state):
        return None, None
    keys = []
    for role in ("input_schema", "output_schema"):
        schema = getattr(builder, role, state) or state
        keys.append(tuple(get_type_hints(schema)) if is_typeddict(schema) else None)
    return keys[0], keys[1]
    # context_schema needs no mapping: the compiled graph (LangGraphCalls) takes an
    # instance of it as invoke(context=...), and the node shim hands it to LangGraph's
    # Runtime as runtime.context.


def _reducer_start_values(graph: StateGraph[Any], builder: Any) -> None:
    """Give a TypedDict's reducer fields the value LangGraph's channel starts from.

    LangGraph's reducer channel holds its type's empty value (``[]``, ``0``, ``""``)
    before any write, so the first streamed state shows it and a node may read
    ``state["messages"]`` before anyone wrote it; graphnb's TypedDict leaves an unwritten
    key out. The import gives those fields that value as their default, so the imported
    graph reads and streams as LangGraph's does.
    """
    import copy

    from langgraph.channels.binop import BinaryOperatorAggregate

    fields = graph.schema.fields
    if graph.schema.model is not None:
        return  # a GraphState (from a dataclass or a model) has its own defaults
    for key, channel in builder.channels.items():
        start = getattr(channel, "value", None)
        field = fields.get(key)
        if (
            field is None
            or field.default is not None
            or not isinstance(channel, BinaryOperatorAggregate)
            or type(start) not in (list, dict, set, tuple, int, float, str)
        ):
            continue
        field.default = functools.partial(_fresh, copy.copy(start))


def _fresh(value: Any, _: Any) -> Any:
    return type(value)(value)


def _check_channels(builder: Any, unmapped: list[Unmapped]) -> None:
    from langgraph.channels.binop import BinaryOperatorAggregate
    from langgraph.channels.last_value import LastValue

    for key, channel in builder.channels.items():
        if not isinstance(channel, LastValue | BinaryOperatorAggregate):
            unmapped.append(
                Unmapped(
                    type(channel).__name__,
                    f"field {key!r}",
                    "graphnb fields keep a value merged by a reducer; this LangGraph "
                    "channel behaves otherwise",
                )
            )
    for key in getattr(builder, "managed", {}):
        unmapped.append(
            Unmapped("managed value", f"field {key!r}", "graphnb has no managed values")
        )


def _node_callable(
    name: str, node: Any, builder: Any, unmapped: list[Unmapped]
) -> Callable[..., Any] | None:
    for option, (feature, reason) in _NODE_OPTIONS.items():
        if getattr(node, option, None):
            unmapped.append(Unmapped(feature, f"node {name!r}", reason))
    reads: list[str] | None = None  # the keys of a node input schema of its own
    if node.input_schema is not None and node.input_schema is not builder.state_schema:
        if is_typeddict(node.input_schema) and is_typeddict(builder.state_schema):
            reads = list(get_type_hints(node.input_schema))
        else:
            unmapped.append(
                Unmapped(
                    "node input schema",
                    f"node {name!r}",
                    f"it reads {getattr(node.input_schema, '__name__', node.input_schema)}; "
                    "graphnb gives a node of a TypedDict graph the keys of its own TypedDict, "
                    "not those of another kind of schema",
                )
            )
    runnable = node.runnable
    if _is_subgraph(runnable):
        from langgraph.graph.state import CompiledStateGraph

        if not isinstance(runnable, CompiledStateGraph):
            unmapped.append(
                Unmapped(
                    "subgraph",
                    f"node {name!r}",
                    f"a {type(runnable).__name__} is not a compiled StateGraph; only those "
                    "map to graphnb subgraphs",
                )
            )
            return None
        child = _import(runnable, top=False)
        unmapped.extend(
            Unmapped(item.feature, f"{item.where} in subgraph {name!r}", item.reason)
            for item in child.unmapped
        )
        stops = {
            key: value
            for key, value in child.compile_options.items()
            if key in ("interrupt_before", "interrupt_after")
        }
        if stops:
            # The child's own breakpoints: graphnb keeps them on a compiled child graph.
            return child.graph.compile(**stops)  # type: ignore[return-value]
        return child.graph  # type: ignore[return-value]
    fn = getattr(runnable, "func", None) or getattr(runnable, "afunc", None)
    if fn is None or not callable(fn):
        unmapped.append(
            Unmapped(
                type(runnable).__name__,
                f"node {name!r}",
                "only plain functions map to graphnb nodes, not LangChain runnables",
            )
        )
        return None
    accepts = dict(getattr(runnable, "func_accepts", {}) or {})
    others = sorted(set(accepts) - _INJECTED)
    if others:
        unmapped.append(
            Unmapped(
                "injected " + ", ".join(others),
                f"node {name!r}",
                "graphnb gives an imported node LangGraph's config, runtime, writer and "
                "store, not these",
            )
        )
    called = set(references(fn)) & _SHIMMED
    _check_code(fn, f"node {name!r}", unmapped, shimmed=True)
    if reads is not None:
        fn = _reading(fn, reads)
    if called or accepts:
        from .langgraph_runtime import shimmed

        return shimmed(fn, name, {k: v for k, v in accepts.items() if k in _INJECTED})
    return fn


def _node_options(
    name: str, node: Any, unmapped: list[Unmapped], *, cached: bool
) -> dict[str, Any]:
    """The ``add_node`` options for LangGraph's retry, timeout, cache and metadata.

    A cache policy is mapped only where LangGraph would use it: on a builder (its compile
    decides), or on a graph compiled with ``cache=...``; without one it caches nothing.
    """
    where = f"node {name!r}"
    options: dict[str, Any] = {}
    retry = _retry_policy(node.retry_policy, where, unmapped)
    if retry is not None:
        options["retry"] = retry
    timeout = node.timeout
    if timeout is not None:
        if timeout.idle_timeout is not None:
            reason = "graphnb's timeout bounds the node's whole run, not the time between events"
            unmapped.append(Unmapped("idle_timeout", where, reason))
        seconds = timeout.run_timeout
        if isinstance(seconds, timedelta):
            seconds = seconds.total_seconds()
        if seconds is not None:
            options["timeout"] = float(seconds)
    cache = node.cache_policy
    if cache is not None and cached:
        from langgraph.types import CachePolicy as LangGraphCachePolicy

        from ..engine.policy import CachePolicy

        if cache.key_func is not LangGraphCachePolicy().key_func:
            reason = (
                "graphnb keys a cached result by the node's input (CachePolicy(fields=...) "
                "picks the fields), not by a key function"
            )
            unmapped.append(Unmapped("cache key_func", where, reason))
        else:
            try:
                options["cache"] = CachePolicy(ttl=cache.ttl)
            except ValueError as error:  # ttl <= 0: LangGraph takes it, graphnb refuses it
                unmapped.append(Unmapped("CachePolicy", where, str(error)))
    if node.defer:
        options["defer"] = True
    if node.metadata:
        if _is_json(node.metadata):
            options["metadata"] = node.metadata
        else:
            reason = "it holds values that are not JSON, which is what a graphnb spec keeps"
            unmapped.append(Unmapped("node metadata", where, reason))
    return options


def _retry_policy(chosen: Any, where: str, unmapped: list[Unmapped]) -> Any:
    """A graphnb RetryPolicy for LangGraph's (the same fields and defaults), or ``None``."""
    from ..engine.policy import RetryPolicy

    if chosen is None:
        return None
    policies = [chosen] if hasattr(chosen, "retry_on") else list(chosen)  # one, or a list
    if not policies:
        return None
    if len(policies) > 1:
        reason = "graphnb takes one retry policy per node; LangGraph tries each in turn"
        unmapped.append(Unmapped("several RetryPolicy", where, reason))
        return None
    (policy,) = policies
    retry_on = policy.retry_on
    # LangGraph's default (default_retry_on) is kept as the predicate it is: it refuses to
    # retry a ValueError, a RuntimeError or an OSError, where graphnb's own default would.
    if not isinstance(retry_on, type) and not callable(retry_on):
        retry_on = tuple(retry_on)
    # Every field carries over by name: a field of a later LangGraph that graphnb lacks is
    # reported below, not dropped without a word.
    fields = policy._replace(retry_on=retry_on)._asdict()
    try:
        return RetryPolicy(**fields)
    except TypeError as error:  # a field graphnb's RetryPolicy does not have
        unmapped.append(Unmapped("RetryPolicy", where, f"graphnb's RetryPolicy: {error}"))
    except ValueError as error:  # max_attempts=0 ...: LangGraph takes it, graphnb refuses it
        unmapped.append(Unmapped("RetryPolicy", where, str(error)))
    return None


def _is_json(value: Any) -> bool:
    try:
        return bool(json.loads(json.dumps(value, allow_nan=False)) == value)
    except (TypeError, ValueError, RecursionError):
        return False


def _is_subgraph(runnable: Any) -> bool:
    from langgraph.pregel import Pregel

    return isinstance(runnable, Pregel)


def _check_code(fn: Any, where: str, unmapped: list[Unmapped], *, shimmed: bool = False) -> None:
    """Report LangGraph runtime functions that ``fn``'s code refers to.

    With ``shimmed``, those the node shim provides are not reported.
    """
    for key in references(fn):
        if shimmed and key in _NODE_MAPPED:
            continue
        reason = _RUNTIME_ONLY.get(key)
        if reason is not None:
            unmapped.append(Unmapped(key[1], where, reason))


def _add_branches(
    graph: StateGraph[Any],
    source: str,
    branches: Mapping[str, Any],
    builder: Any,
    unmapped: list[Unmapped],
) -> None:
    parts: list[tuple[Callable[..., Any], Any]] = []
    for branch_name, branch in sorted(branches.items()):
        where = f"router {branch_name!r} from {source!r}"
        fn = getattr(branch.path, "func", None) or getattr(branch.path, "afunc", None)
        if fn is None:
            reason = "only plain functions map to graphnb routers"
            unmapped.append(Unmapped(type(branch.path).__name__, where, reason))
            return
        _check_code(fn, where, unmapped)
        parts.append((fn, branch.ends))
    if len(parts) > 1:
        _add_combined_branches(graph, source, parts, builder)
        return
    fn, ends = parts[0]
    routes: Any
    if ends is None:
        # LangGraph lets a router without a path map go anywhere; graphnb declares it.
        from ..engine.node import routes_from_annotation

        routes = routes_from_annotation(fn) or [*builder.nodes, END]
    else:
        routes = dict(ends)
        if any(isinstance(label, bool) for label in routes):
            # {True: ..., False: ...}: a graphnb route is a string, so the router's
            # boolean answer is turned into "True" / "False".
            routes = {
                str(label) if isinstance(label, bool) else label: t for label, t in routes.items()
            }
            fn = _boolean_labels(fn)
        labels = [label for label in routes if not isinstance(label, str)]
        if labels:
            unmapped.append(
                Unmapped(
                    "a path map keyed by non-strings",
                    where,
                    f"it maps {labels[0]!r}; a graphnb route is the string its router returns",
                )
            )
            return
    if ("langgraph.types", "Send") not in set(references(fn)):
        graph.add_conditional_edges(source, fn, routes)
        return
    # A router returning Send packets: any of its targets may be sent to.
    targets = routes.values() if isinstance(routes, dict) else routes
    sends = [target for target in dict.fromkeys(targets) if target != END]
    graph.add_conditional_edges(source, _sending(fn), routes, sends=sends)


def _add_combined_branches(
    graph: StateGraph[Any],
    source: str,
    routers: list[tuple[Callable[..., Any], Any]],
    builder: Any,
) -> None:
    """Several conditional edges from one node as graphnb's one router.

    ``routers`` are the LangGraph routers with their path maps (``None``: none), checked.
    The router asks each LangGraph router in turn, maps each answer through that
    router's path map and goes to all of them, as LangGraph follows every branch.
    """
    from ..engine.node import routes_from_annotation

    parts: list[tuple[Callable[..., Any], dict[Any, str] | None]] = []
    targets: list[str] = []
    for fn, branch_ends in routers:
        ends = dict(branch_ends) if branch_ends is not None else None
        parts.append((fn, ends))
        targets.extend(
            ends.values()
            if ends is not None
            else routes_from_annotation(fn) or [*builder.nodes, END]
        )
    routes = list(dict.fromkeys(str(target) for target in targets))
    sending = any(("langgraph.types", "Send") in set(references(fn)) for fn, _ in parts)
    router = _sending(_every_branch(parts)) if sending else _every_branch(parts)
    sends = [route for route in routes if route != END] if sending else []
    graph.add_conditional_edges(source, router, routes, sends=sends)


def _every_branch(parts: list[tuple[Callable[..., Any], dict[Any, str] | None]]) -> Any:
    def router(state: Any) -> list[Any]:
        chosen: list[Any] = []
        for fn, ends in parts:
            answer = fn(state)
            for item in answer if isinstance(answer, list | tuple) else [answer]:
                chosen.append(
                    ends.get(item, item) if ends is not None and not _is_send(item) else item
                )
        return chosen

    first = parts[0][0]
    router.__name__ = first.__name__
    router.__module__ = first.__module__
    router.__qualname__ = f"{first.__qualname__}.<every branch>"  # no binding: keep it
    return router


def _is_send(item: Any) -> bool:
    return hasattr(item, "node") and hasattr(item, "arg")


def _with_private_keys(state: Any, builder: Any) -> Any:
    """A TypedDict state, with the keys nodes keep outside it (LangGraph's private state).

    LangGraph gives every key of every node's schema a channel: a node may write a key its
    output schema declares and the graph's state does not, which a later node reads
    through its own input schema. graphnb keeps such keys in the state: the same
    TypedDict, with those keys added.
    """
    if not is_typeddict(state):
        return state
    hints = get_type_hints(state, include_extras=True)
    extra: dict[str, Any] = {}
    for schema in getattr(builder, "schemas", {}):
        if schema is state or not is_typeddict(schema):
            continue
        for key, hint in get_type_hints(schema, include_extras=True).items():
            if key not in hints:
                extra.setdefault(key, hint)
    if not extra:
        return state
    from typing_extensions import TypedDict

    derived: Any = TypedDict(state.__name__, {**hints, **extra}, total=False)  # type: ignore[misc]
    derived.__module__ = state.__module__
    # no binding of its own (the builder keeps the type): the module holds only `state`
    derived.__qualname__ = f"{state.__qualname__}.<with private keys>"
    derived.__doc__ = state.__doc__
    return derived


def _reading(fn: Callable[..., Any], keys: list[str]) -> Callable[..., Any]:
    """``fn`` given only the state's ``keys`` (its input schema), as LangGraph gives them."""

    def narrow(state: Mapping[str, Any]) -> dict[str, Any]:
        return {key: state[key] for key in keys if key in state}

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def aread(state: Any, **kwargs: Any) -> Any:
            return await fn(narrow(state), **kwargs)

        wrapper_of(aread, fn)
        aread.__langgraph_node__ = fn  # type: ignore[attr-defined]
        return aread

    @functools.wraps(fn)
    def read(state: Any, **kwargs: Any) -> Any:  # the shim passes LangGraph's injections
        return fn(narrow(state), **kwargs)

    wrapper_of(read, fn)
    read.__langgraph_node__ = fn  # type: ignore[attr-defined]
    return read


def _boolean_labels(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` returning ``"True"``/``"False"`` where it returns a bool."""

    @functools.wraps(fn)
    def router(state: Any) -> Any:
        chosen = fn(state)
        return str(chosen) if isinstance(chosen, bool) else chosen

    router.__langgraph_router__ = fn  # type: ignore[attr-defined]
    wrapper_of(router, fn)
    return router


def _sending(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with LangGraph's ``Send`` packets turned into graphnb's.

    The original stays on the wrapper as ``__langgraph_router__`` (the export writes it).
    """
    from langgraph.types import Send as LangGraphSend

    from ..engine.send import Send

    def convert(item: Any) -> Any:
        return Send(item.node, item.arg) if isinstance(item, LangGraphSend) else item

    @functools.wraps(fn)
    def router(state: Any) -> Any:
        chosen = fn(state)
        if isinstance(chosen, list | tuple):
            return [convert(item) for item in chosen]
        return convert(chosen)

    router.__langgraph_router__ = fn  # type: ignore[attr-defined]
    wrapper_of(router, fn)
    return router


def _unmapped_node(name: str) -> Callable[..., Any]:
    def unmapped(state: Any) -> Any:
        raise NotImplementedError(f"the LangGraph node {name!r} was not mapped to graphnb")

    unmapped.__name__ = unmapped.__qualname__ = f"unmapped_{name}"
    return unmapped


def _compile_options(compiled: Any, unmapped: list[Unmapped]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    before = list(compiled.interrupt_before_nodes or ())
    after = list(compiled.interrupt_after_nodes or ())
    if before:
        options["interrupt_before"] = "*" if before == ["*"] else before
    if after:
        options["interrupt_after"] = "*" if after == ["*"] else after
    saver = compiled.checkpointer
    if saver not in (None, False):
        mapped = _saver(saver)
        if mapped is None:
            unmapped.append(
                Unmapped(
                    type(saver).__name__,
                    "checkpointer",
                    "graphnb savers keep their own tables; pass a graphnb saver to "
                    "compile(checkpointer=...) and copy the threads with `graphnb threads "
                    "import`",
                )
            )
        else:
            options["checkpointer"] = mapped
    if compiled.store is not None:
        # The same store, shared: its items are the program's long-term memory, read and
        # written by the nodes through LangGraph's BaseStore API alone.
        options["store"] = compiled.store
    cache = getattr(compiled, "cache", None)
    if cache is not None:
        from langgraph.cache.memory import InMemoryCache

        if isinstance(cache, InMemoryCache):
            from ..engine.policy import MemoryCache

            options["cache"] = MemoryCache()  # empty, as LangGraph's is at compile
        else:
            reason = (
                "graphnb keeps cached results in a MemoryCache or in its saver "
                "(CachePolicy(store='saver')), not in LangGraph's cache backends"
            )
            unmapped.append(Unmapped("cache", type(cache).__name__, reason))
    return options


def _saver(saver: Any) -> Any:
    from langgraph.checkpoint.memory import InMemorySaver

    if isinstance(saver, InMemorySaver):
        from ..checkpoint import MemorySaver

        # A fresh one: LangGraph's threads are in LangGraph's format, not graphnb's.
        return MemorySaver()
    return None
