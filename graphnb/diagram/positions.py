"""Positions for the widget's auto-layout: the SVG's layout, with canvas-sized nodes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .extract import extract
from .geometry import Sizes
from .layered import compute_layout
from .model import DiagramNode
from .text import shorten, text_width

__all__ = ["layout"]


def layout(
    obj: Any,
    *,
    node_size: tuple[float, float] = (150.0, 40.0),
    sizes: Mapping[str, tuple[float, float]] | None = None,
    gap: float = 40.0,
) -> dict[str, tuple[float, float]]:
    """Canvas positions for every node of ``obj``, START and END included.

    Positions are the top-left corners of the nodes' boxes in canvas pixels (x right,
    y down, as React Flow places nodes), laid out top to bottom from START. The same graph
    always gets the same positions.

    Args:
        obj: a ``GraphSpec`` or anything with a ``.spec`` (a builder, a compiled graph...).
        node_size: the (width, height) the canvas draws a node with.
        sizes: the (width, height) of particular nodes, by id, when they differ from
            ``node_size`` (as measured by the canvas, or smaller START and END markers).
        gap: the least horizontal gap between two nodes, px.

    Example:
        >>> from graphnb import StateGraph, START, END
        >>> graph = StateGraph(dict)
        >>> _ = graph.add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
        >>> positions = layout(graph)
        >>> positions[START][1] < positions["a"][1] < positions[END][1]
        True
    """
    known = dict(sizes or {})

    def node(item: DiagramNode) -> tuple[float, float]:
        return known.get(item.id, node_size)

    def label(text: str) -> tuple[float, float]:
        return text_width(shorten(text, 24), 11.0) + 12.0, 20.0

    # The canvas draws each edge's label on the edge itself, halfway: the gap between two
    # layers holds it, so labels get no rank of their own, and no routes are needed.
    result = compute_layout(
        extract(obj),
        Sizes(node, label, node_gap=gap, rank_gap=48.0, margin=0.0),
        labels=False,
        routes=False,
    )
    return {
        node_id: (round(box.left, 1), round(box.top, 1)) for node_id, box in result.nodes.items()
    }
