"""A user's own ``networkx`` graph read as a :class:`GraphSpec`, to draw it or open it.

A state machine kept as a ``DiGraph`` (states as nodes, events as edge labels) draws like
any graph: each node's ``label`` attribute is its text, each edge's ``label`` is drawn on
it. ``graph.graph["initial"]`` (and a list ``graph.graph["final"]``) make it a state
machine, drawn as one. What :func:`~graphnb.diagram.to_networkx` writes reads back
(START and END, edge kinds and routes, several edges between two nodes).

Nothing here imports networkx: an object is recognised by its class.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any, get_args

from ..spec import END, START, EdgeKind, EdgeSpec, GraphSpec, NodeSpec, Position
from .errors import DiagramError

__all__ = ["NetworkxGraphError", "from_networkx", "is_networkx"]

_KINDS = frozenset(get_args(EdgeKind))


class NetworkxGraphError(DiagramError, ValueError):
    """A networkx graph that cannot be read as a diagram (two nodes with one name)."""


def is_networkx(obj: object) -> bool:
    """Whether ``obj`` is a networkx graph (``Graph``, ``DiGraph``, a multigraph, a subclass)."""
    return any(
        cls.__module__.startswith("networkx.") and cls.__name__ in ("Graph", "DiGraph")
        for cls in type(obj).__mro__
    )


def from_networkx(graph: Any) -> GraphSpec:
    """The :class:`GraphSpec` of a networkx graph: its nodes and edges, with their labels.

    Node ids are the nodes' names (``str()`` of other hashables); a node's ``label``
    attribute is the text drawn, its ``position`` (``(x, y)``) its canvas position. An
    edge's ``label`` is drawn on it; ``kind`` and ``route`` are read when they are
    graphnb's (as :func:`to_networkx` writes them). An undirected graph's edges are drawn
    in the direction networkx lists them.

    Raises:
        NetworkxGraphError: two nodes whose names read the same (``1`` and ``"1"``).

    Example:
        >>> import networkx as nx
        >>> door = nx.DiGraph(name="door", initial="closed")
        >>> door.add_edge("closed", "open", label="push")
        >>> door.add_edge("open", "closed", label="pull")
        >>> spec = from_networkx(door)
        >>> [(e.source, e.target, e.label) for e in spec.edges]
        [('__start__', 'closed', None), ('closed', 'open', 'push'), ('open', 'closed', 'pull')]
    """
    attributes: Mapping[str, Any] = getattr(graph, "graph", {}) or {}
    ids: dict[Hashable, str] = {}
    owners: dict[str, Hashable] = {}
    nodes: list[NodeSpec] = []
    for node, data in graph.nodes(data=True):
        kind = data.get("kind")
        name = START if kind == "start" else END if kind == "end" else _name(node)
        if name in owners:
            raise NetworkxGraphError(
                f"cannot draw the networkx graph: nodes {owners[name]!r} and {node!r} are "
                f"both named {name!r}; relabel one (networkx.relabel_nodes)"
            )
        owners[name] = node
        ids[node] = name
        if name in (START, END):
            continue
        label = data.get("label")
        nodes.append(
            NodeSpec(
                id=name,
                label=None if label is None or str(label) == name else str(label),
                binding=data.get("binding") if isinstance(data.get("binding"), str) else None,
                position=_position(data.get("position")),
                metadata=_json(data.get("metadata")),
            )
        )
    edges: list[EdgeSpec] = []
    initial = attributes.get("initial")
    if initial is not None and initial in ids:
        edges.append(EdgeSpec(source=START, target=ids[initial]))
    for source, target, data in graph.edges(data=True):
        listed = data.get("edges")
        for item in listed if _all_mappings(listed) else [data]:
            given = item.get("kind")
            edge_kind: EdgeKind = given if given in _KINDS else "direct"
            label, route = item.get("label"), item.get("route")
            edges.append(
                EdgeSpec(
                    source=ids[source],
                    target=ids[target],
                    kind=edge_kind,
                    route=str(route) if route is not None else None,
                    label=str(label) if label is not None else None,
                    metadata=_json(item.get("metadata")),
                )
            )
    final = attributes.get("final")
    finals = [ids[f] for f in final if f in ids] if isinstance(final, list | tuple) else []
    edges.extend(EdgeSpec(source=f, target=END) for f in finals)
    metadata = _json(attributes.get("metadata"))
    if initial is not None and initial in ids:
        metadata.update({"kind": "machine", "initial": ids[initial], "final": finals})
    routers = attributes.get("routers")
    return GraphSpec(
        name=str(attributes.get("name") or "graph"),
        nodes=nodes,
        edges=edges,
        routers=dict(routers) if isinstance(routers, Mapping) else {},
        metadata=metadata,
    )


def _name(node: Hashable) -> str:
    return node if isinstance(node, str) else str(node)


def _position(value: Any) -> Position | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        try:
            return Position(x=float(value[0]), y=float(value[1]))
        except (TypeError, ValueError):
            return None
    return None


def _all_mappings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _json(value: Any) -> dict[str, Any]:
    """A metadata mapping kept when it is plain JSON; anything else is left out."""
    if not isinstance(value, Mapping):
        return {}
    try:
        return dict(json.loads(json.dumps(dict(value), allow_nan=False)))
    except (TypeError, ValueError):
        return {}
