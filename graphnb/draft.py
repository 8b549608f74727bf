"""A graph's spec while it is built: plain objects, made a :class:`GraphSpec` on demand.

``StateGraph`` records its nodes, edges and state here rather than in the pydantic models of
:mod:`graphnb.spec`, so that building and running a graph on a ``dict`` state never imports
pydantic (half of a fresh process's ``import`` time). ``graph.spec`` and ``compiled.spec``
turn a draft into a validated :class:`GraphSpec`. A node or edge given anything pydantic
must check (metadata, a position, policies, a subgraph) is stored as its spec model
straight away, so that a bad value is still refused where it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .terminals import END, START

if TYPE_CHECKING:
    from .schema import FieldSchema
    from .spec import EdgeSpec, GraphSpec, NodeSpec

__all__ = ["END", "START", "Draft", "DraftEdge", "DraftNode", "DraftState"]


@dataclass(slots=True)
class DraftNode:
    """A node with a name, a label and a binding only (what most nodes are)."""

    id: str
    label: str | None = None
    binding: str | None = None
    subgraph: GraphSpec | None = None

    def to_spec(self) -> NodeSpec:
        """The node as its spec model."""
        from .spec import NodeSpec

        subgraph = self.subgraph.model_copy(deep=True) if self.subgraph is not None else None
        return NodeSpec(id=self.id, label=self.label, binding=self.binding, subgraph=subgraph)


@dataclass(slots=True)
class DraftEdge:
    """An edge without metadata."""

    source: str
    target: str
    kind: Literal["direct", "conditional", "join", "send"] = "direct"
    route: str | None = None
    label: str | None = None

    def to_spec(self) -> EdgeSpec:
        """The edge as its spec model."""
        from .spec import EdgeSpec

        return EdgeSpec(**asdict(self))


@dataclass(slots=True)
class DraftState:
    """The state's summary (see :class:`graphnb.spec.StateSpec`).

    ``fields`` are the state schema's own, shared: each becomes a
    :class:`~graphnb.spec.FieldSpec` when the draft becomes a spec.
    """

    kind: Literal["model", "typeddict", "dict"] = "dict"
    binding: str | None = None
    fields: Sequence[FieldSchema] = ()


@dataclass(slots=True)
class Draft:
    """A graph being built: the attributes :func:`graphnb.validate.check_spec` reads."""

    name: str = "graph"
    version: Literal[1, 2] = 1
    nodes: list[DraftNode | NodeSpec] = field(default_factory=list)
    edges: list[DraftEdge | EdgeSpec] = field(default_factory=list)
    routers: dict[str, str | None] = field(default_factory=dict)
    state: DraftState = field(default_factory=DraftState)
    metadata: dict[str, Any] = field(default_factory=dict)
    context_schema: str | None = None
    input_schema: str | None = None
    output_schema: str | None = None

    def node(self, node_id: str) -> DraftNode | NodeSpec:
        """Return the node named ``node_id``; ``KeyError`` names it when absent."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"{self.name!r} has no node {node_id!r}")

    def copy(self) -> Draft:
        """A copy that later edits of this draft do not reach (cheaper than a deepcopy)."""
        return Draft(
            self.name,
            self.version,
            [
                DraftNode(n.id, n.label, n.binding, n.subgraph)
                if isinstance(n, DraftNode)
                else n.model_copy(deep=True)
                for n in self.nodes
            ],
            [
                DraftEdge(e.source, e.target, e.kind, e.route, e.label)
                if isinstance(e, DraftEdge)
                else e.model_copy(deep=True)
                for e in self.edges
            ],
            dict(self.routers),
            DraftState(self.state.kind, self.state.binding, self.state.fields),
            copy.deepcopy(self.metadata),
            self.context_schema,
            self.input_schema,
            self.output_schema,
        )

    def to_spec(self) -> GraphSpec:
        """The graph as a new :class:`GraphSpec`, sharing nothing with the draft."""
        from .schema import type_text
        from .spec import FieldSpec, GraphSpec, StateSpec

        state = self.state
        return GraphSpec(
            version=self.version,
            name=self.name,
            nodes=[
                node.to_spec() if isinstance(node, DraftNode) else node.model_copy(deep=True)
                for node in self.nodes
            ],
            edges=[
                edge.to_spec() if isinstance(edge, DraftEdge) else edge.model_copy(deep=True)
                for edge in self.edges
            ],
            routers=dict(self.routers),
            state=StateSpec(
                kind=state.kind,
                binding=state.binding,
                fields=[
                    FieldSpec(
                        name=f.name,
                        type=type_text(f.annotation),
                        reducer=f.reducer.name,
                        alias=f.alias,
                        streaming=f.streaming,
                        required=f.required,
                    )
                    for f in state.fields
                ],
            ),
            metadata=copy.deepcopy(self.metadata),
            context_schema=self.context_schema,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
        )
