"""Measures of a drawing's legibility: edge crossings, arrowheads meeting, length and area.

The layout's own crossing count (``ordering.crossings``) counts crossings of the layered
graph between consecutive ranks; what a reader sees are the drawn curves. These measures
take the drawn routes (the SVG's curves, flattened into short straight pieces) so that a
layout change is judged by the picture, and so they can be compared with Graphviz's
drawing of the same graph (``benchmarks/diagram_quality.py``).

Hand-written (a few segment tests): networkx and shapely do not measure curves drawn this
way, and the drawings measured are small.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .geometry import Layout, Point

__all__ = ["Quality", "arrowhead_crowding", "crossings", "measure", "polyline", "route_lines"]

_STEPS = 12
"""Straight pieces per curve when flattening it."""
_NEAR = 3.0
"""Crossing points closer than this (px) are one crossing."""
_ARROW = 9.0
"""An arrowhead's width (px): arrow tips closer than this touch."""


@dataclass(frozen=True, slots=True)
class Quality:
    """How legible a drawing is; lower is better for every figure.

    Attributes:
        crossings: points where two edges' curves cross.
        arrowheads: the most arrowheads whose tips meet at one point of a node.
        length: the total length of every edge's curve, px.
        area: the drawing's width times height, px².
        width: the drawing's width, px.
        height: the drawing's height, px.
    """

    crossings: int
    arrowheads: int
    length: float
    area: float
    width: float
    height: float


def measure(layout: Layout) -> Quality:
    """The legibility figures of ``layout`` (as :func:`graphnb.diagram.svg` draws it)."""
    lines = route_lines(layout)
    tips = [route.points[-1] for route in layout.routes if route.edge.kind != "join"]
    tips += [points[-1] for points in layout.connectors.values()]
    # Join edges end at their bar without an arrowhead; they count in crossings and length.
    length = sum(_length(line) for line in lines)
    return Quality(
        crossings(lines),
        arrowhead_crowding(tips),
        round(length, 1),
        round(layout.width * layout.height, 1),
        layout.width,
        layout.height,
    )


def route_lines(layout: Layout) -> list[list[Point]]:
    """Each edge's drawn curve (and each join bar's connector) as a polyline."""
    lines = [
        _bezier(route.points) if route.edge.is_loop else polyline(route.points)
        for route in layout.routes
    ]
    lines += [polyline(points) for points in layout.connectors.values()]
    return lines


def polyline(points: Sequence[Point]) -> list[Point]:
    """The curve the SVG draws through ``points``, flattened.

    Consecutive points with the same x are joined by a straight line, others by a vertical
    S curve (a cubic Bezier curve with both control points at the middle height).
    """
    out = [points[0]]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if abs(x1 - x0) < 0.05:
            out.append((x1, y1))
            continue
        mid = (y0 + y1) / 2
        out.extend(_cubic((x0, y0), (x0, mid), (x1, mid), (x1, y1))[1:])
    return out


def _bezier(points: Sequence[Point]) -> list[Point]:
    a, b, c, d = points
    return _cubic(a, b, c, d)


def _cubic(a: Point, b: Point, c: Point, d: Point) -> list[Point]:
    out = []
    for step in range(_STEPS + 1):
        t = step / _STEPS
        s = 1 - t
        out.append(
            (
                s**3 * a[0] + 3 * s * s * t * b[0] + 3 * s * t * t * c[0] + t**3 * d[0],
                s**3 * a[1] + 3 * s * s * t * b[1] + 3 * s * t * t * c[1] + t**3 * d[1],
            )
        )
    return out


def _length(line: Sequence[Point]) -> float:
    return sum(math.dist(a, b) for a, b in itertools.pairwise(line))


def crossings(lines: Sequence[Sequence[Point]]) -> int:
    """How many points two of ``lines`` cross at (touching at an end does not count).

    Two curves leaving one port, or meeting at one arrow tip, share their end point: only
    interior crossings count, and hits nearer than a few px to each other are one.
    """
    boxes = [_bounds(line) for line in lines]
    total = 0
    for i, j in itertools.combinations(range(len(lines)), 2):
        a, b = boxes[i], boxes[j]
        if a[0] > b[2] or b[0] > a[2] or a[1] > b[3] or b[1] > a[3]:
            continue
        ends = (lines[i][0], lines[i][-1], lines[j][0], lines[j][-1])
        hits: list[Point] = []
        for p, q in itertools.pairwise(lines[i]):
            for r, s in itertools.pairwise(lines[j]):
                point = _intersection(p, q, r, s)
                if point is None or any(math.dist(point, end) < _NEAR for end in ends):
                    continue
                if all(math.dist(point, seen) >= _NEAR for seen in hits):
                    hits.append(point)
        total += len(hits)
    return total


def arrowhead_crowding(tips: Iterable[Point]) -> int:
    """The most arrow tips within an arrowhead's width of one tip (0 when there are none)."""
    points = list(tips)
    return max(
        (sum(1 for other in points if math.dist(point, other) < _ARROW) for point in points),
        default=0,
    )


def _bounds(line: Sequence[Point]) -> tuple[float, float, float, float]:
    xs = [x for x, _ in line]
    ys = [y for _, y in line]
    return min(xs), min(ys), max(xs), max(ys)


def _intersection(p: Point, q: Point, r: Point, s: Point) -> Point | None:
    """Where segments pq and rs cross, if they do (parallel ones never count)."""
    dx1, dy1 = q[0] - p[0], q[1] - p[1]
    dx2, dy2 = s[0] - r[0], s[1] - r[1]
    det = dx1 * dy2 - dy1 * dx2
    if abs(det) < 1e-9:
        return None
    t = ((r[0] - p[0]) * dy2 - (r[1] - p[1]) * dx2) / det
    u = ((r[0] - p[0]) * dy1 - (r[1] - p[1]) * dx1) / det
    if 0.0 <= t <= 1.0 and 0.0 <= u <= 1.0:
        return p[0] + t * dx1, p[1] + t * dy1
    return None
