"""Node positions: the diagrams' layout, and where START and END sit on the canvas.

START and END are not nodes of the spec, so their canvas positions are kept in the spec's
metadata under :data:`POSITIONS_KEY`.
"""

from __future__ import annotations

from typing import Any, Literal

from ..spec import END, START, GraphSpec, Position

__all__ = ["POSITIONS_KEY", "apply_layout", "layout", "place"]

POSITIONS_KEY = "graphnb.widget.positions"
"""Spec metadata key holding ``{"__start__": {"x", "y"}, "__end__": {...}}``."""

_NODE_SIZE = (170.0, 50.0)
"""The (width, height) the canvas draws a step node with, roughly."""
_TERMINAL_WIDTH = 70.0
"""The width the canvas draws START and END with (``.graphnb-terminal``)."""


def layout(
    spec: GraphSpec, direction: Literal["TB", "LR"] = "TB"
) -> dict[str, tuple[float, float]]:
    """Canvas position (top left, in pixels) of every node, START and END included.

    The diagrams' layered layout (:func:`graphnb.diagram.layout`), given the canvas's box
    size, top to bottom or left to right.
    """
    from ..diagram import layout as diagram_layout  # the faces load on first use

    return dict(diagram_layout(spec, node_size=_NODE_SIZE, direction=direction))


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
