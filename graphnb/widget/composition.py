"""Composition on the builder: subgraph nodes and the graphs to bind them to.

- :func:`find_graphs` lists the graphs of the notebook (``StateGraph`` or compiled), which
  the subgraph panel offers: binding a node to one copies that graph's spec into the node
  (``NodeSpec.subgraph``), so the drawing stays one spec and the child can be edited in
  place.
- :func:`subgraph_problems` checks each child spec like the top one, each problem pinned
  on the subgraph node that holds it.

Example:
    >>> from graphnb import END, START, StateGraph
    >>> child = StateGraph(dict, name="child").add_node("a", len)
    >>> _ = child.add_edge(START, "a").add_edge("a", END)
    >>> [info["name"] for info in find_graphs({"child": child, "n": 1})]
    ['child']
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..engine.compiled import CompiledGraph
from ..graph import StateGraph
from ..spec import GraphSpec
from ..validate import check_spec
from .layout import apply_layout, layout
from .namespace import try_lookup
from .protocol import GraphInfo, ProblemInfo

__all__ = [
    "GRAPH_KEY",
    "attach_children",
    "bind_children",
    "find_graphs",
    "lay_out_children",
    "subgraph_problems",
]

GRAPH_KEY = "graphnb.widget.graph"
"""Node metadata naming the notebook graph a subgraph node was bound to (for display)."""


def find_graphs(namespace: Mapping[str, Any]) -> list[GraphInfo]:
    """The graphs in ``namespace`` (not private names), sorted by name, each with its spec."""
    found: list[GraphInfo] = []
    for name, obj in namespace.items():
        if name.startswith("_"):
            continue
        if isinstance(obj, StateGraph):
            kind: Any = "StateGraph"
        elif isinstance(obj, CompiledGraph):
            kind = "CompiledGraph"
        else:
            continue
        spec: GraphSpec = lay_out_children(_placed(obj.spec))
        found.append(GraphInfo(name=name, kind=kind, nodes=len(spec.nodes), spec=spec.to_dict()))
    return sorted(found, key=lambda info: info["name"])


def _placed(spec: GraphSpec) -> GraphSpec:
    if spec.nodes and all(node.position is None for node in spec.nodes):
        return apply_layout(spec, layout(spec))
    return spec


def lay_out_children(spec: GraphSpec) -> GraphSpec:
    """``spec`` with every child graph that has no positions laid out, at any depth.

    A child opened for editing is a canvas of its own: its nodes need places there.
    """
    if not any(node.subgraph is not None for node in spec.nodes):
        return spec
    spec = spec.model_copy(deep=True)
    for node in spec.nodes:
        if node.subgraph is not None:
            node.subgraph = lay_out_children(_placed(node.subgraph))
    return spec


Graph = StateGraph[Any] | CompiledGraph[Any]


def _shape(spec: GraphSpec) -> dict[str, Any]:
    """A spec's meaning, without where its nodes are drawn (the canvas lays children out)."""
    data = spec.to_dict()

    def strip(graph: dict[str, Any]) -> None:
        graph["metadata"] = {
            k: v for k, v in graph["metadata"].items() if not k.startswith("graphnb.widget")
        }
        for node in graph["nodes"]:
            node["position"] = None
            if node.get("subgraph"):
                strip(node["subgraph"])

    strip(data)
    return data


def bind_children(
    spec: GraphSpec, scope: Mapping[str, Any], given: Mapping[str, Graph] | None = None
) -> tuple[GraphSpec, Mapping[str, Any], dict[str, Graph]]:
    """Run a subgraph node as the graph object it came from, while its child is unedited.

    A node bound to a notebook graph (its metadata names it, :data:`GRAPH_KEY`) or opened
    from code with a child graph (``given``, by node id) runs that very graph, so children
    whose callables no binding can name (lambdas, closures) run too. Once the child was
    edited on the canvas it no longer matches, and its spec is built like any other.

    Returns the spec with those nodes made plain (bound to a placeholder), the namespace
    holding the placeholder, and the graphs to attach after building (:func:`attach_children`).
    """
    children: dict[str, Graph] = {}
    for node in spec.nodes:
        if node.subgraph is None:
            continue
        name = node.metadata.get(GRAPH_KEY)
        found = scope.get(name) if isinstance(name, str) else None
        if not isinstance(found, (StateGraph, CompiledGraph)):
            found = (given or {}).get(node.id)
        if found is not None and _shape(found.spec) == _shape(node.subgraph):
            children[node.id] = found
    if not children:
        return spec, scope, {}  # not copied: the live check calls this after every edit
    spec = spec.model_copy(deep=True)
    for node in spec.nodes:
        if node.id in children:
            node.subgraph = None
            node.binding = "_graphnb_subgraph_placeholder"
    return spec, {**scope, "_graphnb_subgraph_placeholder": _placeholder}, children


def _placeholder(state: Any) -> None:  # pragma: no cover - replaced by attach_children
    return None


def attach_children(graph: StateGraph[Any], children: Mapping[str, Graph]) -> StateGraph[Any]:
    """Give each node of ``children`` its graph back (see :func:`bind_children`)."""
    for node, child in children.items():
        graph._attach_subgraph(node, child)
    return graph


def subgraph_problems(
    spec: GraphSpec,
    scope: Mapping[str, Any] | None = None,
    *,
    prefix: str = "",
    skip: Collection[str] = (),
) -> list[ProblemInfo]:
    """Every problem of every child spec, at any depth, pinned on its top subgraph node.

    With ``scope``, a child's binding that names nothing there is a problem too. ``skip``:
    nodes that run a graph object as it is (see :func:`bind_children`), checked already.
    """
    problems: list[ProblemInfo] = []
    for node in spec.nodes:
        if node.subgraph is None or node.id in skip:
            continue
        where = f"{prefix}{node.id}"
        top = where.split("/", 1)[0]
        found: list[tuple[str, str]] = [
            (p.code, p.message) for p in check_spec(node.subgraph, require_bindings=True)
        ]
        if scope is not None:
            bindings = [n.binding for n in node.subgraph.nodes]
            bindings += list(node.subgraph.routers.values())
            for binding in bindings:
                if binding is not None:
                    why = try_lookup(binding, scope)[1]
                    if why is not None:
                        found.append(("unresolved", why))
        for code, message in found:
            problems.append(
                ProblemInfo(code=code, message=f"in subgraph `{where}`: {message}", nodes=[top])
            )
        problems.extend(subgraph_problems(node.subgraph, scope, prefix=f"{where}/"))
    return problems
