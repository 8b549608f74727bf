"""What an export needs from a graph, whatever form the graph comes in.

A :class:`~graphnb.StateGraph`, a :class:`~graphnb.CompiledGraph`, a
:class:`~graphnb.GraphSpec` with the namespace its bindings live in, or any object with a
``spec`` (the widget's builder) and a ``namespace`` or ``callables`` mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..binding import resolve
from ..engine.compiled import DEFAULT_RECURSION_LIMIT, CompiledGraph
from ..errors import BindingError
from ..graph import StateGraph
from ..reducers import Reducer, add, append, merge, replace
from ..schema import StateSchema
from ..spec import GraphSpec
from .errors import ExportError, ExportProblem

__all__ = ["GraphParts", "child_graph_of", "graph_parts", "identifier"]

_BUILTIN_REDUCERS: dict[str, Reducer] = {r.name: r for r in (replace, append, add, merge)}


@dataclass(slots=True)
class GraphParts:
    """A graph's spec and the live objects its bindings name.

    Attributes:
        spec: the graph's structure.
        state_type: the state model, TypedDict, or ``dict``.
        reducers: reducers of ``dict``/``TypedDict`` keys that the type itself does not
            declare (what ``StateGraph(state, reducers=...)`` was given).
        streaming: the streaming key given as ``StateGraph(state, streaming=...)``.
        callables: each node's callable (``None`` when it has none).
        routers: each router's callable, by source node.
        compile_options: the options a compiled graph was compiled with, where they
            differ from the defaults (``recursion_limit``, ``interrupt_before``...).
    """

    spec: GraphSpec
    state_type: Any
    reducers: dict[str, Reducer] = field(default_factory=dict)
    streaming: str | None = None
    callables: dict[str, Callable[..., Any] | None] = field(default_factory=dict)
    routers: dict[str, Callable[..., Any] | None] = field(default_factory=dict)
    compile_options: dict[str, Any] = field(default_factory=dict)


def graph_parts(obj: Any, namespace: Mapping[str, Any] | None = None) -> GraphParts:
    """Gather the parts of ``obj``: a builder, a compiled graph, a spec or a builder-like.

    Args:
        obj: the graph.
        namespace: where bare (notebook) bindings are looked up; ``obj.namespace`` or the
            ``__main__`` module when omitted.

    Raises:
        ExportError: a binding of the spec names nothing.
        TypeError: ``obj`` is not a graph.
    """
    if isinstance(obj, StateGraph):
        return _from_schema(obj.spec, obj.schema, obj.callables, dict(obj.routers))
    if isinstance(obj, CompiledGraph):
        # a node with policies runs a wrapper; the export names the user's callable
        callables = {
            name: getattr(node.fn, "graphnb_node", node.fn) for name, node in obj.nodes.items()
        }
        routers = {source: router.fn for source, router in obj.routers.items()}
        parts = _from_schema(obj.spec, obj.schema, callables, routers)
        parts.compile_options = _compile_options(obj)
        return parts
    for attribute in ("compiled", "graph"):  # objects that wrap a graph (an agent)
        inner = getattr(obj, attribute, None)
        if isinstance(inner, StateGraph | CompiledGraph):
            return graph_parts(inner, namespace)
    to_graph = getattr(obj, "to_graph", None)
    if callable(to_graph) and _callable_without_arguments(to_graph):
        # The widget's builder: it knows its callables best.
        try:
            graph = to_graph()
        except BindingError as error:
            name = getattr(getattr(obj, "spec", None), "name", "graph")
            raise ExportError([ExportProblem("binding", str(error))], graph=name) from None
        if isinstance(graph, StateGraph):
            return graph_parts(graph, namespace)
    spec = obj if isinstance(obj, GraphSpec) else getattr(obj, "spec", None)
    if not isinstance(spec, GraphSpec):
        raise TypeError(
            f"cannot export {obj!r}: expected a StateGraph, a CompiledGraph, a GraphSpec "
            "or an object with a .spec"
        )
    if namespace is None and isinstance(getattr(obj, "namespace", None), Mapping):
        namespace = obj.namespace
    return _from_spec(spec, obj, namespace)


def _compile_options(graph: CompiledGraph[Any]) -> dict[str, Any]:
    """How ``graph`` was compiled, leaving out defaults and the checkpointer (a live object)."""
    options: dict[str, Any] = {}
    if graph.recursion_limit != DEFAULT_RECURSION_LIMIT:
        options["recursion_limit"] = graph.recursion_limit
    if graph.max_concurrency is not None:
        options["max_concurrency"] = graph.max_concurrency
    order = [node.id for node in graph.spec.nodes]
    for name in ("interrupt_before", "interrupt_after"):
        chosen: frozenset[str] = getattr(graph, name, frozenset())
        if chosen:
            options[name] = [node for node in order if node in chosen]
    return options


def _callable_without_arguments(fn: Callable[..., Any]) -> bool:
    import inspect

    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters
    )


def _from_schema(
    spec: GraphSpec,
    schema: StateSchema[Any],
    callables: Mapping[str, Callable[..., Any] | None],
    routers: Mapping[str, Callable[..., Any] | None],
) -> GraphParts:
    state_type = schema.state_type
    declared: dict[str, Any] = {}
    declared_streaming = None
    if schema.model is None and state_type is not dict:
        own = StateSchema.of(state_type)
        declared = {name: f.reducer for name, f in own.fields.items()}
        declared_streaming = own.streaming
    reducers = {}
    streaming = None
    if schema.model is None:
        reducers = {
            name: f.reducer
            for name, f in schema.fields.items()
            if f.reducer is not declared.get(name, replace)
        }
        if schema.streaming != declared_streaming:
            streaming = schema.streaming
    if state_type is dict:
        # A graph rebuilt from a spec (the widget's) knows its dict keys' reducers only by
        # name, from the spec's field summary.
        for summary in spec.state.fields:
            builtin = _BUILTIN_REDUCERS.get(summary.reducer)
            if summary.name not in schema.fields and builtin not in (None, replace):
                reducers[summary.name] = builtin
            if summary.streaming and streaming is None:
                streaming = summary.name
    return GraphParts(
        spec=spec,
        state_type=state_type,
        reducers=reducers,
        streaming=streaming,
        callables={node.id: callables.get(node.id) for node in spec.nodes},
        routers={source: routers.get(source) for source in spec.routers},
    )


def _from_spec(spec: GraphSpec, obj: Any, namespace: Mapping[str, Any] | None) -> GraphParts:
    problems: list[ExportProblem] = []

    def find(binding: str | None, what: str) -> Any:
        if binding is None:
            return None
        try:
            return resolve(binding, namespace)
        except BindingError as error:
            problems.append(ExportProblem(what, str(error)))
            return None

    given_callables = getattr(obj, "callables", None)
    given_routers = getattr(obj, "routers", None)
    callables: dict[str, Any] = {}
    for node in spec.nodes:
        if isinstance(given_callables, Mapping) and given_callables.get(node.id) is not None:
            callables[node.id] = given_callables[node.id]
        else:
            callables[node.id] = find(node.binding, f"node {node.id!r}")
    routers: dict[str, Any] = {}
    for source, binding in spec.routers.items():
        if isinstance(given_routers, Mapping) and given_routers.get(source) is not None:
            routers[source] = given_routers[source]
        else:
            routers[source] = find(binding, f"router of {source!r}")
    schema = getattr(obj, "schema", None)
    if isinstance(schema, StateSchema):
        parts = _from_schema(spec, schema, callables, routers)
    else:
        state_type = find(spec.state.binding, "state") if spec.state.binding else dict
        parts = GraphParts(spec, state_type, callables=callables, routers=routers)
        if spec.state.kind == "dict":
            for summary in spec.state.fields:
                reducer = _BUILTIN_REDUCERS.get(summary.reducer)
                if reducer is None:
                    problems.append(
                        ExportProblem(
                            f"field {summary.name!r}",
                            f"its reducer {summary.reducer!r} is not a built-in one; export "
                            "the StateGraph itself so the reducer's callable is known",
                        )
                    )
                elif reducer is not replace:
                    parts.reducers[summary.name] = reducer
                if summary.streaming:
                    parts.streaming = summary.name
    if problems:
        raise ExportError(problems, graph=spec.name)
    return parts


def identifier(text: str) -> str:
    """``text`` with every character a Python name cannot hold replaced by ``_``."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text)


def child_graph_of(obj: Any, node: str, spec: GraphSpec) -> Any:
    """The child graph of a subgraph node: the object itself when ``obj`` holds it."""
    subgraphs = getattr(obj, "_subgraphs", None)
    if isinstance(subgraphs, dict) and node in subgraphs:
        return subgraphs[node][0]
    nodes = getattr(obj, "nodes", None)
    if isinstance(nodes, dict) and node in nodes:
        bound = getattr(nodes[node], "subgraph", None)
        if bound is not None:
            return bound.child
    return spec
