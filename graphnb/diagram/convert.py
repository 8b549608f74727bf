"""The spec as a ``networkx.DiGraph``, for layout and for analysis."""

from __future__ import annotations

from typing import Any

from ..spec import NodeSpec
from .extract import extract, spec_of

__all__ = ["to_networkx"]

_HINT = "drawing needs networkx: install it with `pip install networkx` (or `pip install graphnb`)"


def import_networkx() -> Any:
    """Import networkx, or fail with an install hint."""
    try:
        import networkx
    except ImportError as error:  # pragma: no cover - networkx is a dependency
        raise ImportError(_HINT) from error
    return networkx


def to_networkx(obj: Any) -> Any:
    """A ``networkx.DiGraph`` of ``obj``'s spec, every attribute kept.

    Node attributes: ``label``, ``binding``, ``position`` (``(x, y)`` or ``None``),
    ``metadata``, and ``kind`` (``start``, ``end``, ``node`` or ``missing`` for a name an
    edge uses without a node). Edge attributes: ``kind``, ``route``, ``label``,
    ``metadata`` of the first edge between the two nodes, and ``edges``: the attributes of
    every edge between them, in spec order (a DiGraph holds one edge per pair; a machine
    may have several transitions). Graph attributes: ``name``, ``metadata``, ``routers``.

    Example:
        >>> from graphnb import StateGraph, START, END
        >>> graph = StateGraph(dict)
        >>> _ = graph.add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
        >>> g = to_networkx(graph)
        >>> list(g.edges), g.nodes["a"]["kind"]
        ([('__start__', 'a'), ('a', '__end__')], 'node')
    """
    nx = import_networkx()
    spec = spec_of(obj)
    graph = nx.DiGraph(name=spec.name, metadata=dict(spec.metadata), routers=dict(spec.routers))
    defined: dict[str, NodeSpec] = {}
    for node in spec.nodes:
        defined.setdefault(node.id, node)
    # Which nodes there are, and of what kind, is the diagram model's decision.
    for item in extract(spec).nodes:
        found = defined.get(item.id) if item.kind == "node" else None
        graph.add_node(
            item.id,
            kind=item.kind,
            label=found.label if found else item.label if item.kind in ("start", "end") else None,
            binding=found.binding if found else None,
            position=(found.position.x, found.position.y) if found and found.position else None,
            metadata=dict(found.metadata) if found else {},
        )
    for edge in spec.edges:
        data = {
            "kind": edge.kind,
            "route": edge.route,
            "label": edge.label,
            "metadata": dict(edge.metadata),
        }
        if graph.has_edge(edge.source, edge.target):
            graph.edges[edge.source, edge.target]["edges"].append(data)
        else:
            graph.add_edge(edge.source, edge.target, **data, edges=[dict(data)])
    return graph
