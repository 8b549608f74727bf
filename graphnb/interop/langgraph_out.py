"""Write a module that builds a graphnb graph with LangGraph's API, from the same callables.

The module imports (or holds the source of) the state type, the nodes and the routers,
as :func:`graphnb.export.to_module` does, and replays the graph's construction on
``langgraph.graph.StateGraph``. What LangGraph cannot express the same way is refused,
every problem at once (:class:`~graphnb.export.ExportError`).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, get_origin, get_type_hints

from typing_extensions import is_typeddict  # typing's misses typing_extensions' TypedDict

from ..binding import resolve
from ..engine.node import injected_parameters
from ..engine.policy import RetryPolicy
from ..export.codegen import (
    call_openers,
    call_text,
    destinations_argument,
    docstring_text,
    import_block,
    join_call,
    python_literal,
    schema_arguments,
    string_literal,
)
from ..export.errors import ExportError, ExportProblem
from ..export.formatting import format_source
from ..export.parts import GraphParts, child_graph_of, graph_parts, identifier
from ..export.resolver import Resolver
from ..reducers import replace
from ..spec import END, START, EdgeSpec, GraphSpec, NodeSpec
from ..state import GraphState
from .code import references
from .commands import langgraph_node
from .errors import LangGraphMissingError
from .state import original_state

__all__ = ["to_langgraph_module"]

# graphnb functions a node may call that have no meaning inside a LangGraph run.
_GRAPHNB_ONLY = {
    ("graphnb.human", "interrupt"): "calls graphnb's interrupt(); LangGraph's is "
    "langgraph.types.interrupt",
    ("graphnb.engine.send", "Send"): "returns graphnb's Send; LangGraph's is langgraph.types.Send",
}


# Characters LangGraph keeps for its own task paths and namespaces ("parent|child:id").
_LANGGRAPH_RESERVED = (":", "|")


def to_langgraph_module(
    obj: Any, *, namespace: Mapping[str, Any] | None = None, ruff: bool | None = None
) -> str:
    """The source of a module building ``obj`` with LangGraph's ``StateGraph``.

    Args:
        obj: a graphnb StateGraph, CompiledGraph, GraphSpec or builder (as for
            :func:`graphnb.export.to_module`).
        namespace: where the graph's notebook names live, when ``obj`` does not say.
        ruff: format the module with ruff; ``None`` formats it when ruff is installed.

    Returns:
        The module's text; the same graph always gives the same text. It defines
        ``build_graph()`` (the LangGraph builder) and ``graph`` (compiled).

    Raises:
        ExportError: listing every callable, name or feature LangGraph cannot take.
    """
    try:
        import langgraph.graph as lg
    except ImportError:  # pragma: no cover - the extra is installed in the test suite
        raise LangGraphMissingError() from None
    parts = graph_parts(obj, namespace)
    if namespace is None and isinstance(getattr(obj, "namespace", None), Mapping):
        namespace = obj.namespace
    spec = parts.spec
    resolver = Resolver(namespace)
    # LangGraph's own names first, so that a callable reading START or END (equal
    # strings in both libraries) imports them from LangGraph too. Every graph graphnb
    # compiles starts at START and reaches END, so both are used.
    state_graph = resolver.scaffold("StateGraph", "langgraph.graph", "StateGraph", lg.StateGraph)
    markers = {
        marker: resolver.scaffold(name, "langgraph.graph", name, getattr(lg, name))
        for marker, name in ((START, "START"), (END, "END"))
    }
    children: list[str] = []
    build_name = _graph_builder(
        obj, parts, resolver, namespace, state_graph, markers, children, prefix=""
    )
    saver = _saver(obj, resolver)
    if resolver.problems:
        raise ExportError(resolver.problems, graph=spec.name)
    assert build_name is not None
    graph_name = resolver.fresh("graph")
    compile_args = []
    if saver is not None:
        compile_args.append(f"checkpointer={saver}()")
    if any(node.cache is not None for node in spec.nodes):
        from langgraph.cache.memory import InMemoryCache

        cache = resolver.scaffold(
            "InMemoryCache", "langgraph.cache.memory", "InMemoryCache", InMemoryCache
        )
        compile_args.append(f"cache={cache}()")
    for key in ("interrupt_before", "interrupt_after"):
        if key in parts.compile_options:
            listed = ", ".join(map(string_literal, parts.compile_options[key]))
            compile_args.append(f"{key}=[{listed}]")
    if spec.name != "graph":
        compile_args.append(f"name={string_literal(spec.name)}")
    main = call_text(f"{graph_name} = {build_name}().compile", compile_args)
    limit = parts.compile_options.get("recursion_limit")
    if limit is not None:
        main = main.rstrip("\n") + f".with_config(recursion_limit={int(limit)})\n"
    docstring = (
        f'"""The graph {docstring_text(repr(spec.name))}, exported by graphnb for LangGraph.\n\n'
        f"``{build_name}()`` returns the LangGraph ``StateGraph``; ``{graph_name}`` is it "
        "compiled.\n"
        '"""\n'
    )
    blocks = [docstring]
    if resolver.future_annotations:
        blocks.append("from __future__ import annotations\n")
    blocks.append(import_block(resolver.imports))
    body = [definition.text.rstrip() + "\n" for definition in resolver.definitions]
    body.extend([*children, main])
    text = "\n".join(blocks) + "\n\n" + "\n\n".join(body)
    return format_source(text) if ruff is not False else text


def _graph_builder(
    obj: Any,
    parts: GraphParts,
    resolver: Resolver,
    namespace: Mapping[str, Any] | None,
    state_graph: str,
    markers: Mapping[str, str],
    children: list[str],
    *,
    prefix: str,
) -> str | None:
    """Append the ``build_...()`` source of one graph (children first); return its name."""
    spec = parts.spec
    state_type = original_state(parts.state_type)
    _check_state(parts, state_type, resolver.problems)
    state = resolver.reference(state_type, "state") if state_type is not dict else None
    nodes: dict[str, str | None] = {}
    options: dict[str, list[str]] = {}  # retry_policy=..., timeout=..., ... per node
    for node in spec.nodes:
        who = f"node {prefix}{node.id!r}"
        reserved = [char for char in _LANGGRAPH_RESERVED if char in node.id]
        if reserved:
            resolver.problems.append(
                ExportProblem(who, f"LangGraph refuses a node name holding {reserved[0]!r}")
            )
            continue
        if node.subgraph is not None:
            if node.inputs is not None or node.outputs is not None:
                resolver.problems.append(
                    ExportProblem(
                        who,
                        "its inputs/outputs mapping has no LangGraph equivalent (a LangGraph "
                        "subgraph shares the fields both states declare)",
                    )
                )
                continue
            child = child_graph_of(obj, node.id, node.subgraph)
            child_name = _graph_builder(
                child,
                graph_parts(child, namespace),
                resolver,
                namespace,
                state_graph,
                markers,
                children,
                prefix=f"{prefix}{node.id}_",
            )
            nodes[node.id] = f"{child_name}().compile()" if child_name else None
            if node.destinations is not None:
                options[node.id] = [destinations_argument(node.destinations)]
            continue
        fn = parts.callables.get(node.id)
        if fn is None:
            resolver.problems.append(ExportProblem(who, "it has no callable"))
            continue
        # An imported LangGraph node runs wrapped (its shim, its Command): write the node.
        fn = getattr(fn, "__langgraph_node__", fn)
        _check_callable(fn, who, resolver.problems, commands=node.destinations is not None)
        nodes[node.id] = resolver.reference(fn, who)
        if node.destinations is not None and nodes[node.id] is not None:
            # its graphnb Commands become LangGraph's (graphnb.interop.commands)
            wrap = resolver.scaffold(
                "langgraph_node", "graphnb.interop.commands", "langgraph_node", langgraph_node
            )
            nodes[node.id] = f"{wrap}({nodes[node.id]})"
        options[node.id] = _node_options(node, fn, resolver, namespace, who)
    routers: dict[str, str | None] = {}
    for source, router in parts.routers.items():
        who = f"router of {prefix}{source!r}"
        if router is None:
            resolver.problems.append(ExportProblem(who, "it has no callable"))
            continue
        router = getattr(router, "__langgraph_router__", router)
        _check_callable(router, who, resolver.problems)
        routers[source] = resolver.reference(router, who)
    schemas = schema_arguments(obj, spec, namespace, resolver.reference)
    if schemas:  # StateGraph(State, context_schema=..., input_schema=...), as LangGraph's
        state = ", ".join([state or "dict", *schemas])
    if resolver.problems:
        return None
    name = resolver.fresh(f"build_{identifier(prefix)}graph")
    children.append(
        _builder(spec, state or "dict", nodes, options, routers, state_graph, markers, name)
    )
    return name


def _node_options(
    node: NodeSpec,
    fn: Any,
    resolver: Resolver,
    namespace: Mapping[str, Any] | None,
    who: str,
) -> list[str]:
    """LangGraph's ``add_node`` arguments for the node's retry, timeout, cache and metadata."""
    import langgraph.types as lg_types

    arguments = []
    if node.retry is not None:
        policy = resolver.scaffold(
            "RetryPolicy", "langgraph.types", "RetryPolicy", lg_types.RetryPolicy
        )
        # The same fields and defaults in both; an unset retry_on is each library's default
        # (transient errors, not programming ones), so it stays unset.
        fields = node.retry.model_dump(exclude_defaults=True, exclude={"retry_on"})
        items = [f"{key}={value!r}" for key, value in fields.items()]
        if node.retry.retry_on is not None:
            chosen = RetryPolicy.from_spec(node.retry, namespace).retry_on
            names = [
                resolver.reference(item, f"retry_on of {who}") or "None"
                for item in (chosen if isinstance(chosen, tuple) else (chosen,))
            ]
            listed = ", ".join(names)
            items.append(f"retry_on={names[0]}" if len(names) == 1 else f"retry_on=({listed})")
        arguments.append(f"retry_policy={policy}({', '.join(items)})")
    if node.timeout is not None:
        if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            arguments.append(f"timeout={node.timeout!r}")
        else:
            reason = "LangGraph times out only async nodes (it cannot cancel a sync one)"
            resolver.problems.append(ExportProblem(who, reason))
    if node.cache is not None:
        if node.cache.fields is not None or node.cache.store != "memory":
            reason = (
                "its cache is keyed by some fields or kept in the saver; LangGraph's "
                "CachePolicy keys by the whole input in the compiled graph's cache"
            )
            resolver.problems.append(ExportProblem(who, reason))
        else:
            policy = resolver.scaffold(
                "CachePolicy", "langgraph.types", "CachePolicy", lg_types.CachePolicy
            )
            ttl = "" if node.cache.ttl is None else f"ttl={node.cache.ttl!r}"
            arguments.append(f"cache_policy={policy}({ttl})")
    if node.metadata:
        arguments.append(f"metadata={python_literal(dict(node.metadata))}")
    if node.destinations is not None:  # LangGraph's own argument, same shapes
        arguments.append(destinations_argument(node.destinations))
    if node.defer:
        arguments.append("defer=True")
    if node.input_schema is not None:
        schema = resolve(node.input_schema, namespace)
        arguments.append(f"input_schema={resolver.reference(schema, f'input_schema of {who}')}")
    return arguments


def _check_state(parts: GraphParts, state_type: Any, problems: list[ExportProblem]) -> None:
    if state_type is dict:
        problems.append(
            ExportProblem(
                "state",
                "a dict state has no fields for LangGraph's channels; use a TypedDict or "
                "a GraphState",
            )
        )
        return
    extra = sorted(
        key for key, reducer in parts.reducers.items() if not _declared(state_type, key, reducer)
    )
    if extra:
        problems.append(
            ExportProblem(
                "state",
                f"the reducers of {extra} are given to StateGraph(...), "
                "which LangGraph does not take; declare them as Annotated[..., reducer]",
            )
        )
    if parts.streaming:
        problems.append(
            ExportProblem(
                f"field {parts.streaming!r}",
                "LangGraph has no streaming field; stream with stream_mode='custom'",
            )
        )
    hints = _hints(state_type)
    for name, hint in hints.items():
        metadata = getattr(hint, "__metadata__", ()) if get_origin(hint) else ()
        native = [m for m in metadata if callable(m) and not isinstance(m, type) and _two_args(m)]
        graphnb_only = [m for m in metadata if type(m).__module__.startswith("graphnb.")]
        if graphnb_only and not native:
            options = graphnb_only[0]
            reducer = getattr(options, "reducer", replace)
            if reducer is not replace or getattr(options, "streaming", False):
                problems.append(
                    ExportProblem(
                        f"field {name!r}",
                        f"its {type(options).__name__} is graphnb's; LangGraph reads a "
                        "reducer from Annotated[..., fn] with a two-argument function",
                    )
                )


def _declared(state_type: Any, key: str, reducer: Any) -> bool:
    """Whether ``reducer`` is the function the state type's own annotation names."""
    hint = _hints(state_type).get(key)
    metadata = getattr(hint, "__metadata__", ()) if get_origin(hint) else ()
    merge = getattr(reducer, "_merge", reducer)
    return any(item is merge for item in metadata)


def _hints(state_type: Any) -> dict[str, Any]:
    if isinstance(state_type, type) and issubclass(state_type, GraphState):
        return {
            name: typing.Annotated[(info.annotation, *info.metadata)]
            if info.metadata
            else info.annotation
            for name, info in state_type.model_fields.items()
        }
    if is_typeddict(state_type) or isinstance(state_type, type):
        try:
            return get_type_hints(state_type, include_extras=True)
        except Exception:
            return {}
    return {}


def _two_args(fn: Callable[..., Any]) -> bool:
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2


def _check_callable(
    fn: Any, who: str, problems: list[ExportProblem], *, commands: bool = False
) -> None:
    """Refuse what LangGraph cannot call.

    ``commands``: the node is run by ``langgraph_node``, which makes the graphnb Sends of
    its Commands LangGraph's.
    """
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    injected = set(injected_parameters(fn))  # runtime, config ...: LangGraph injects them
    required = [
        p
        for p in parameters[1:]
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.name not in injected
    ]
    if required:
        problems.append(
            ExportProblem(
                who,
                f"it takes graphnb's run context ({required[0].name!r}); LangGraph calls "
                "it with the state alone",
            )
        )
    for key in references(fn):
        reason = _GRAPHNB_ONLY.get(key)
        if reason is not None and not (commands and key == ("graphnb.engine.send", "Send")):
            problems.append(ExportProblem(who, reason))


def _saver(obj: Any, resolver: Resolver) -> str | None:
    saver = getattr(obj, "checkpointer", None)
    if saver is None:
        return None
    from ..checkpoint import MemorySaver

    if isinstance(saver, MemorySaver):
        from langgraph.checkpoint.memory import InMemorySaver

        return resolver.scaffold(
            "InMemorySaver", "langgraph.checkpoint.memory", "InMemorySaver", InMemorySaver
        )
    resolver.problems.append(
        ExportProblem(
            "checkpointer",
            f"{type(saver).__name__} keeps graphnb's tables; compile the exported graph "
            "with a LangGraph checkpointer yourself",
        )
    )
    return None


def _builder(
    spec: GraphSpec,
    state: str,
    nodes: Mapping[str, str | None],
    options: Mapping[str, list[str]],
    routers: Mapping[str, str | None],
    state_graph: str,
    markers: Mapping[str, str],
    name: str,
) -> str:
    def endpoint(node: str) -> str:
        return markers.get(node) or string_literal(node)

    local = "builder"
    lines = [
        f"def {name}() -> {state_graph}:",
        f'    """Build the graph {docstring_text(repr(spec.name))} with LangGraph."""',
        f"    {local} = {state_graph}({state})",
    ]
    for node in spec.nodes:
        lines.append(
            call_text(
                f"    {local}.add_node",
                [string_literal(node.id), nodes[node.id] or "None", *options.get(node.id, ())],
            )
        )
    for edge in call_openers(spec.edges):
        if edge.kind == "direct":
            lines.append(
                call_text(f"    {local}.add_edge", [endpoint(edge.source), endpoint(edge.target)])
            )
        elif edge.kind == "join":
            lines.append(join_call(spec.edges, edge.target, endpoint, local))
        else:
            lines.append(_conditional(edge.source, spec.edges, routers, endpoint, local))
    lines.append(f"    return {local}\n")
    return "\n".join(lines)


def _conditional(
    source: str,
    edges: list[EdgeSpec],
    routers: Mapping[str, str | None],
    endpoint: Callable[[str], str],
    local: str,
) -> str:
    """LangGraph's ``add_conditional_edges`` call: always a path map, Send targets in it.

    graphnb's call (``export.codegen``) may list the routes instead and takes ``sends=``.
    """
    routes = [e for e in edges if e.kind == "conditional" and e.source == source]
    pairs = {e.route or e.target: e.target for e in routes}
    for edge in edges:  # Send targets are in a LangGraph path map too
        if edge.kind == "send" and edge.source == source and edge.target not in pairs.values():
            pairs.setdefault(edge.target, edge.target)
    # Always a path map: LangGraph then knows the targets, as graphnb does.
    mapping = (
        "{"
        + ", ".join(
            f"{string_literal(route)}: {endpoint(target)}" for route, target in pairs.items()
        )
        + "}"
    )
    return call_text(
        f"    {local}.add_conditional_edges",
        [endpoint(source), routers.get(source) or "None", mapping],
    )
