"""Positions for the widget's auto-layout: the SVG's layout, with canvas-sized nodes."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

from .errors import DiagramError
from .extract import extract
from .geometry import Sizes
from .layered import compute_layout
from .model import DiagramNode
from .text import shorten, text_width

__all__ = ["NETWORKX_LAYOUTS", "UnknownLayoutError", "layout"]

NETWORKX_LAYOUTS = (
    "spring",
    "kamada_kawai",
    "circular",
    "shell",
    "spectral",
    "spiral",
    "planar",
    "random",
    "arf",
    "forceatlas2",
)
"""The networkx layouts ``layout(engine=...)`` takes by name (``networkx.<name>_layout``)."""

# Layouts that place nodes at random unless seeded: seeded, so a graph always gets the
# same positions.
_SEEDED = {"spring", "random", "arf", "forceatlas2"}


_RANK_GAP = 48.0
"""The least gap between two layers, px: room for a label between them."""


class UnknownLayoutError(DiagramError, ValueError):
    """``layout(engine=...)`` names no layout this installation has."""


def layout(
    obj: Any,
    *,
    node_size: tuple[float, float] = (150.0, 40.0),
    sizes: Mapping[str, tuple[float, float]] | None = None,
    gap: float = 40.0,
    engine: str | Callable[[Any], Mapping[Any, Any]] = "layered",
    direction: Literal["TB", "LR"] = "TB",
) -> dict[str, tuple[float, float]]:
    """Canvas positions for every node of ``obj``, START and END included.

    Positions are the top-left corners of the nodes' boxes in canvas pixels (x right,
    y down, as React Flow places nodes), laid out top to bottom from START (left to right
    with ``direction="LR"``). The same graph always gets the same positions.

    Args:
        obj: a ``GraphSpec``, anything with a ``.spec`` (a builder, a compiled graph...)
            or a networkx graph.
        node_size: the (width, height) the canvas draws a node with.
        sizes: the (width, height) of particular nodes, by id, when they differ from
            ``node_size`` (as measured by the canvas, or smaller START and END markers).
        gap: the least gap between two nodes of a layer, px.
        direction: ``"TB"``, layers top to bottom, or ``"LR"``, left to right; the gap
            between two layers holds the labels of the edges between them (a route is
            wider than it is tall, so left-right layers are as far apart as the widest).
        engine: ``"layered"`` (graphnb's own: ranks from START, few crossings), one of
            networkx's layouts by name (:data:`NETWORKX_LAYOUTS`: ``"spring"``,
            ``"kamada_kawai"``, ``"circular"``...), or a function taking a
            ``networkx.DiGraph`` and returning ``{node: (x, y)}`` in any unit (y up, as
            networkx draws): it is scaled so that nodes sit about ``gap`` apart.

    Raises:
        UnknownLayoutError: ``engine`` names no layout; the message lists them.

    Example:
        >>> from graphnb import StateGraph, START, END
        >>> graph = StateGraph(dict)
        >>> _ = graph.add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
        >>> positions = layout(graph)
        >>> positions[START][1] < positions["a"][1] < positions[END][1]
        True
        >>> sorted(layout(graph, engine="circular"))
        ['__end__', '__start__', 'a']
    """
    known = dict(sizes or {})

    def node(item: DiagramNode) -> tuple[float, float]:
        return known.get(item.id, node_size)

    if engine != "layered":
        return _networkx_layout(obj, engine, node, gap)

    def label(text: str) -> tuple[float, float]:
        return text_width(shorten(text, 24), 11.0) + 12.0, 20.0

    # The canvas draws each edge's label on the edge itself: the gap between two layers
    # holds it, so labels get no rank of their own, and no routes are needed.
    diagram = extract(obj)
    if direction == "LR":  # laid out top to bottom with every box turned, then turned back
        widest = max((label(edge.label)[0] for edge in diagram.edges if edge.label), default=0)
        result = compute_layout(
            diagram,
            Sizes(
                lambda item: node(item)[::-1],
                label,
                node_gap=gap,
                margin=0.0,
                rank_gap=max(_RANK_GAP, widest + 24.0),
            ),
            labels=False,
            routes=False,
        )
        return {i: (round(box.top, 1), round(box.left, 1)) for i, box in result.nodes.items()}
    result = compute_layout(
        diagram,
        Sizes(node, label, node_gap=gap, rank_gap=_RANK_GAP, margin=0.0),
        labels=False,
        routes=False,
    )
    return {i: (round(box.left, 1), round(box.top, 1)) for i, box in result.nodes.items()}


def _networkx_layout(
    obj: Any,
    engine: str | Callable[[Any], Mapping[Any, Any]],
    size: Callable[[DiagramNode], tuple[float, float]],
    gap: float,
) -> dict[str, tuple[float, float]]:
    """Positions from a networkx layout, scaled to canvas pixels, top-left at (0, 0)."""
    from .convert import import_networkx

    nx = import_networkx()
    diagram = extract(obj)
    graph = nx.DiGraph()
    graph.add_nodes_from(item.id for item in diagram.nodes)
    graph.add_edges_from((edge.source, edge.target) for edge in diagram.edges)
    if callable(engine):
        place = engine
    else:
        function = getattr(nx, f"{engine}_layout", None) if engine in NETWORKX_LAYOUTS else None
        if function is None and engine in NETWORKX_LAYOUTS:
            raise UnknownLayoutError(
                f"networkx {nx.__version__} has no {engine}_layout: upgrade networkx "
                "(pip install -U networkx) or pick another engine"
            )
        if function is None:
            names = ", ".join(repr(name) for name in ("layered", *NETWORKX_LAYOUTS))
            raise UnknownLayoutError(
                f"layout engine {engine!r} is not one of {names} (or a function taking a "
                "networkx graph and returning {node: (x, y)})"
            )
        options = {"seed": 0} if engine in _SEEDED else {}
        if engine == "planar" and not nx.is_planar(graph):
            raise UnknownLayoutError(
                "the 'planar' layout needs a planar graph, and this one is not: pick another"
            )

        def place(g: Any) -> Mapping[Any, Any]:
            return function(g, **options)  # type: ignore[no-any-return]

    found = place(graph) if graph.number_of_nodes() else {}
    centres = {str(n): (float(xy[0]), float(xy[1])) for n, xy in found.items()}
    boxes = {item.id: size(item) for item in diagram.nodes}
    missing = [n for n in boxes if n not in centres]
    if missing:
        raise UnknownLayoutError(f"layout engine {engine!r} gave no position for {missing}")
    if not centres:
        return {}
    # networkx lays out in a unit box whatever the graph's size: spread it to about
    # sqrt(n) nodes across, then further (at most twice) until the closest two nodes are
    # one node plus ``gap`` apart.
    widest = max(w for w, _ in boxes.values()) + gap
    points = list(centres.values())
    extent = max(
        max(x for x, _ in points) - min(x for x, _ in points),
        max(y for _, y in points) - min(y for _, y in points),
        1e-9,
    )
    spread = widest * math.sqrt(len(points)) / extent
    closest = min(
        (math.dist(a, b) for i, a in enumerate(points) for b in points[i + 1 :]),
        default=extent,
    )
    scale = min(max(spread, widest / max(closest, 1e-9)), 2 * spread)
    placed = {
        n: (x * scale - boxes[n][0] / 2, -y * scale - boxes[n][1] / 2)
        for n, (x, y) in centres.items()
        if n in boxes
    }
    left = min(x for x, _ in placed.values())
    top = min(y for _, y in placed.values())
    return {n: (round(x - left, 1), round(y - top, 1)) for n, (x, y) in placed.items()}
