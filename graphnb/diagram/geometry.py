"""Where things are drawn: boxes, edge routes, and the sizes a layout is made with."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .model import DiagramEdge, DiagramNode

__all__ = ["Box", "Layout", "Point", "Route", "Sizes"]

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle given by its center and size (px, y pointing down)."""

    x: float
    y: float
    width: float
    height: float

    @property
    def left(self) -> float:
        """The left side's x."""
        return self.x - self.width / 2

    @property
    def right(self) -> float:
        """The right side's x."""
        return self.x + self.width / 2

    @property
    def top(self) -> float:
        """The top side's y."""
        return self.y - self.height / 2

    @property
    def bottom(self) -> float:
        """The bottom side's y."""
        return self.y + self.height / 2

    def overlaps(self, other: Box) -> bool:
        """Whether the two rectangles share any interior point."""
        return (
            self.left < other.right
            and other.left < self.right
            and self.top < other.bottom
            and other.top < self.bottom
        )


@dataclass(frozen=True, slots=True)
class Route:
    """Where one edge is drawn.

    Attributes:
        edge: the edge.
        points: from the source to the target. Consecutive points with the same x are
            joined by a straight line, others by a vertical S curve; a self-loop has the
            four points of one cubic Bezier curve.
        label: where the edge's label sits, if it has one.
        back: the edge closes a cycle and runs against the layout's direction.
    """

    edge: DiagramEdge
    points: tuple[Point, ...]
    label: Box | None = None
    back: bool = False


@dataclass(frozen=True, slots=True)
class Layout:
    """Positions of everything in a diagram.

    Attributes:
        nodes: each node's box, by node id.
        joins: each join bar's box, by the id of the node it joins into.
        routes: one route per diagram edge, in edge order (join edges end at their bar).
        connectors: for each join bar, the route from the bar to its node.
        width: the drawing's width, margins included.
        height: the drawing's height, margins included.
    """

    nodes: Mapping[str, Box]
    joins: Mapping[str, Box]
    routes: tuple[Route, ...]
    connectors: Mapping[str, tuple[Point, ...]]
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class Sizes:
    """How big things are; renderers and the widget pass their own.

    Attributes:
        node: the (width, height) of a node's box.
        label: the (width, height) of an edge label's box, given its text.
        node_gap: the least horizontal gap between two nodes.
        dummy_gap: the least horizontal gap next to an edge passing by.
        rank_gap: the vertical gap between two layers (half of it on each side of a rank
            of edge labels).
        margin: the empty border around the drawing.
    """

    node: Callable[[DiagramNode], tuple[float, float]]
    label: Callable[[str], tuple[float, float]]
    node_gap: float = 28.0
    dummy_gap: float = 10.0
    rank_gap: float = 28.0
    margin: float = 12.0
