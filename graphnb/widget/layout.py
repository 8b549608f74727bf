"""Node positions: the diagrams' layout, and where START and END sit on the canvas.

START and END are not nodes of the spec, so their canvas positions are kept in the spec's
metadata under :data:`POSITIONS_KEY`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..spec import END, START, GraphSpec, Position

__all__ = ["POSITIONS_KEY", "apply_layout", "layout", "place"]

POSITIONS_KEY = "graphnb.widget.positions"
"""Spec metadata key holding ``{"__start__": {"x", "y"}, "__end__": {...}}``."""

_GAP_X = 220.0
_GAP_Y = 110.0
_NODE_SIZE = (170.0, 50.0)
"""The (width, height) the canvas draws a step node with, roughly."""
_TERMINAL_WIDTH = 70.0
"""The width the canvas draws START and END with (``.graphnb-terminal``)."""


def layout(spec: GraphSpec) -> dict[str, tuple[float, float]]:
    """Canvas position (top left, in pixels) of every node, START and END included.

    Uses :func:`graphnb.diagram.layout` (the diagrams' networkx layout) when it is there,
    and a layered layout by distance from START otherwise.
    """
    try:
        from .. import diagram
    except ImportError:  # pragma: no cover - diagram is part of the package
        diagram_layout = None
    else:
        diagram_layout = getattr(diagram, "layout", None)
    if diagram_layout is not None:
        return dict(diagram_layout(spec, node_size=_NODE_SIZE))
    return _layered(spec)


def _layered(spec: GraphSpec) -> dict[str, tuple[float, float]]:
    """Top-down layers by shortest distance from START; unreachable nodes go last."""
    forward: dict[str, list[str]] = defaultdict(list)
    for edge in spec.edges:
        forward[edge.source].append(edge.target)
    depth = {START: 0}
    todo = [START]
    while todo:
        current = todo.pop(0)
        for nxt in forward[current]:
            if nxt not in depth and nxt != END:
                depth[nxt] = depth[current] + 1
                todo.append(nxt)
    last = max(depth.values(), default=0)
    for node in spec.nodes:
        if node.id not in depth:
            last += 1
            depth[node.id] = last
    depth[END] = max(depth.values(), default=0) + 1
    rows: dict[int, list[str]] = defaultdict(list)
    for name in [START, *(node.id for node in spec.nodes), END]:
        rows[depth[name]].append(name)
    placed = {}
    for level, names in rows.items():
        width = (len(names) - 1) * _GAP_X
        for index, name in enumerate(names):
            placed[name] = (index * _GAP_X - width / 2, level * _GAP_Y)
    return placed


def apply_layout(spec: GraphSpec, positions: dict[str, tuple[float, float]]) -> GraphSpec:
    """A copy of ``spec`` with nodes (and START/END, in metadata) moved to ``positions``."""
    return place(spec.model_copy(deep=True), positions)


def place(spec: GraphSpec, positions: dict[str, tuple[float, float]]) -> GraphSpec:
    """:func:`apply_layout` in place, for a spec no one else holds; returns ``spec``.

    A deep copy of a 1,000-node spec costs about as much as laying it out.
    """
    new = spec
    for node in new.nodes:
        if node.id in positions:
            x, y = positions[node.id]
            node.position = Position(x=float(x), y=float(y))
    special: dict[str, Any] = {}
    for name in (START, END):
        if name in positions:
            x, y = positions[name]
            # Centred on the column a step would take there: the pill is narrower.
            x += (_NODE_SIZE[0] - _TERMINAL_WIDTH) / 2
            special[name] = {"x": float(x), "y": float(y)}
    if special:
        new.metadata[POSITIONS_KEY] = special
    return new
