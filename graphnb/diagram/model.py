"""The renderer-independent diagram model: small frozen dataclasses read from a spec.

Every renderer (SVG, Mermaid, DOT) and the layout consume a :class:`Diagram`, never the
spec itself, so what a diagram shows is decided once, in :mod:`graphnb.diagram.extract`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..spec import EdgeKind

__all__ = ["Diagram", "DiagramEdge", "DiagramKind", "DiagramNode", "NodeKind"]

DiagramKind = Literal["graph", "machine"]
"""``graph``: a node graph (flowchart). ``machine``: a state machine (state diagram)."""

NodeKind = Literal["start", "end", "node", "missing"]
"""``start``/``end``: the virtual START and END nodes. ``node``: a node (or a machine's
state). ``missing``: named by an edge but not defined, drawn so a half-built graph still
shows."""


@dataclass(frozen=True, slots=True)
class DiagramNode:
    """A box of the diagram.

    Attributes:
        id: the node's id in the spec (``START``/``END`` for the virtual nodes).
        label: the full text to show (shortened by renderers that must).
        kind: what the box stands for.
        tooltip: the full description shown on hover (label, binding, ...).
        initial: a machine's initial state.
        final: one of a machine's final states.
        child: a subgraph node's own diagram (Mermaid and DOT draw it as a cluster).
    """

    id: str
    label: str
    kind: NodeKind = "node"
    tooltip: str = ""
    initial: bool = False
    final: bool = False
    child: Diagram | None = None


@dataclass(frozen=True, slots=True)
class DiagramEdge:
    """An arrow of the diagram; one per spec edge, in spec order, then the Command edges.

    A node's declared Command destinations (``NodeSpec.destinations``) follow the spec's
    edges, drawn dashed (kind ``conditional``) with ``command`` set.

    Attributes:
        index: the edge's position in ``spec.edges`` (past its end for a Command edge).
        source: the source node's id.
        target: the target node's id.
        kind: ``direct``, ``conditional`` (drawn dashed), ``join`` (drawn into a join bar)
            or ``send`` (a map-reduce edge, drawn dotted and thick, labelled ``Send``).
        label: the text on the arrow (a route, or a machine's ``EVENT [guard]``), if any.
        internal: a machine's internal transition (a self-loop that does not exit).
        command: where the source's ``Command(goto=...)`` may go (a declared destination).
    """

    index: int
    source: str
    target: str
    kind: EdgeKind = "direct"
    label: str | None = None
    internal: bool = False
    command: bool = False

    @property
    def is_loop(self) -> bool:
        """Whether the edge starts and ends at the same node."""
        return self.source == self.target


@dataclass(frozen=True, slots=True)
class Diagram:
    """What to draw: the nodes and edges of one graph or machine.

    Attributes:
        name: the graph's name (the SVG title).
        kind: ``graph`` or ``machine``.
        nodes: every node, START first and END last when edges use them.
        edges: every edge, in spec order.
    """

    name: str
    kind: DiagramKind
    nodes: tuple[DiagramNode, ...]
    edges: tuple[DiagramEdge, ...]

    def node(self, node_id: str) -> DiagramNode:
        """The node named ``node_id``; ``KeyError`` names it when absent."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"diagram {self.name!r} has no node {node_id!r}")

    def joins(self) -> dict[str, tuple[DiagramEdge, ...]]:
        """The join edges grouped by their target, in order of first appearance.

        A join edge from a node to itself is left out: it is drawn as a plain self-loop.
        """
        groups: dict[str, list[DiagramEdge]] = {}
        for edge in self.edges:
            if edge.kind == "join" and not edge.is_loop:
                groups.setdefault(edge.target, []).append(edge)
        return {target: tuple(edges) for target, edges in groups.items()}
