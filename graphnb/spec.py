"""The graph spec: one plain-data description of a graph, JSON in and JSON out.

The code builder writes it, the widget edits it, diagrams and exporters read it. It holds
no code: node callables, routers and the state model appear as *bindings*, strings such as
``"my_package.nodes:plan"`` (or a bare name looked up in a notebook's namespace).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from .terminals import END, START

__all__ = [
    "END",
    "SPEC_VERSION",
    "START",
    "EdgeKind",
    "EdgeSpec",
    "FieldSpec",
    "GraphSpec",
    "CacheSpec",
    "NodeSpec",
    "Position",
    "RetrySpec",
    "StateSpec",
    "SubgraphWrites",
]

SPEC_VERSION: Literal[2] = 2
"""The newest spec version: 2 adds subgraph nodes (``NodeSpec.subgraph``). A spec is
written as version 1 unless it has a subgraph, so graphs without one stay readable by
older graphnb versions; both versions load."""

EdgeKind = Literal["direct", "conditional", "join", "send"]
"""``direct``: always taken. ``conditional``: taken when the source's router picks its route.
``join``: all join edges into one target form one join; the target runs once all sources ran.
``send``: the source's router may ``Send`` items to the target, one run of it per item.
"""


SubgraphWrites = Literal["changes", "state"]
"""What a subgraph node writes to its parent: see :attr:`NodeSpec.writes`."""


class _Spec(BaseModel):
    # Schemas are built on first use, not at import: `import graphnb` stays fast.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Position(_Spec):
    """Where a node sits on the canvas."""

    x: float
    y: float


def _unset(value: Any) -> bool:
    return value is None


class RetrySpec(_Spec):
    """A node's retry policy, as data; see :class:`graphnb.RetryPolicy`."""

    max_attempts: int = Field(default=3, ge=1, description="Attempts in all, the first included.")
    initial_interval: float = Field(default=0.5, ge=0, description="Seconds before the 2nd.")
    backoff_factor: float = Field(default=2.0, ge=1, description="Each wait is this times longer.")
    max_interval: float = Field(default=128.0, ge=0, description="The longest wait, in seconds.")
    jitter: bool = Field(default=True, description="Randomise each wait by up to its half.")
    retry_on: list[str] | None = Field(
        default=None,
        description="Bindings of the exception classes (or one predicate) that retry; "
        "None: any exception but programming errors.",
    )


class CacheSpec(_Spec):
    """A node's cache policy, as data; see :class:`graphnb.CachePolicy`."""

    ttl: float | None = Field(default=None, gt=0, description="Seconds a result is kept.")
    version: str = Field(default="", description="Part of the key: change it to drop results.")
    fields: list[str] | None = Field(
        default=None, description="The input fields the key is made of; None: all of them."
    )
    store: Literal["memory", "saver"] = Field(
        default="memory",
        exclude_if=lambda value: value == "memory",
        description="Where results are kept: in memory, or in the checkpointer's database.",
    )
    keep_answered: bool = Field(
        default=False,
        exclude_if=lambda value: not value,
        description="Keep results of calls that a human answered (interrupt()) too.",
    )


class NodeSpec(_Spec):
    """A node of the graph."""

    id: str = Field(description="Unique name of the node; what edges and routers refer to.")
    label: str | None = Field(default=None, description="Text shown instead of the id.")
    binding: str | None = Field(
        default=None, description="The node's callable: `module:qualname` or a notebook name."
    )
    position: Position | None = Field(default=None, description="Canvas position.")
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    # Policies are left out of the JSON when unset, so specs without them read as before.
    retry: RetrySpec | None = Field(default=None, exclude_if=_unset)
    timeout: float | None = Field(
        default=None, gt=0, exclude_if=_unset, description="Seconds the node may run."
    )
    cache: CacheSpec | None = Field(default=None, exclude_if=_unset)
    subgraph: GraphSpec | None = Field(
        default=None, exclude_if=_unset, description="The child graph this node runs."
    )
    inputs: dict[str, str] | None = Field(
        default=None, exclude_if=_unset, description="Subgraph: parent field -> child field."
    )
    outputs: dict[str, str] | None = Field(
        default=None, exclude_if=_unset, description="Subgraph: child field -> parent field."
    )
    defer: bool = Field(
        default=False,
        exclude_if=lambda deferred: not deferred,
        description="Run the node only once the run has nothing else to run (LangGraph's "
        "defer=True): a fan-in after branches of different lengths.",
    )
    writes: SubgraphWrites | None = Field(
        default=None,
        exclude_if=_unset,
        description="Subgraph: what the node writes back. 'changes' (unset): what the child "
        "changed; 'state': the child's final values of its output fields, through the "
        "parent's reducers, as LangGraph does.",
    )
    input_schema: str | None = Field(
        default=None,
        exclude_if=_unset,
        description="`module:qualname` of the node's private input schema: the state fields "
        "it reads.",
    )
    destinations: dict[str, str | None] | None = Field(
        default=None,
        exclude_if=_unset,
        description="Where the node's Command(goto=...) may send the run: node name (or "
        "END) -> label drawn on the edge (None: no label). Drawn as dashed edges; a goto "
        "elsewhere still runs.",
    )


class EdgeSpec(_Spec):
    """An arrow from one node to another."""

    source: str
    target: str
    kind: EdgeKind = "direct"
    route: str | None = Field(
        default=None, description="For a conditional edge: the value its router returns."
    )
    label: str | None = Field(default=None, description="Text drawn on the edge.")
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class FieldSpec(_Spec):
    """A summary of one state field, for display; the model itself stays the authority."""

    name: str
    type: str
    reducer: str = "replace"
    alias: str | None = None
    streaming: bool = False
    required: bool = False


class StateSpec(_Spec):
    """The state the graph runs on."""

    kind: Literal["model", "typeddict", "dict"] = "dict"
    binding: str | None = Field(default=None, description="`module:qualname` of the model.")
    fields: list[FieldSpec] = Field(default_factory=list)


class GraphSpec(_Spec):
    """A whole graph: nodes, edges, routers, the state, metadata."""

    version: Literal[1, 2] = 1
    name: str = "graph"
    nodes: list[NodeSpec] = Field(default_factory=list)
    edges: list[EdgeSpec] = Field(default_factory=list)
    routers: dict[str, str | None] = Field(
        default_factory=dict,
        description="Source node (or START) -> binding of the router picking conditional edges.",
    )
    state: StateSpec = Field(default_factory=StateSpec)
    context_schema: str | None = Field(
        default=None,
        exclude_if=_unset,
        description="`module:qualname` of the run context's type (LangGraph's "
        "context_schema): what invoke(..., context=...) takes and nodes read as "
        "runtime.context.",
    )
    input_schema: str | None = Field(
        default=None,
        exclude_if=_unset,
        description="`module:qualname` of the input schema: the state fields a run's input "
        "is read from (others are dropped).",
    )
    output_schema: str | None = Field(
        default=None,
        exclude_if=_unset,
        description="`module:qualname` of the output schema: the state fields a run returns "
        "and streams as values.",
    )
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @property
    def entry(self) -> list[str]:
        """Nodes a run starts at (targets of edges from START)."""
        return [edge.target for edge in self.edges if edge.source == START]

    @property
    def finish(self) -> list[str]:
        """Nodes that may end a run (sources of edges into END)."""
        return [edge.source for edge in self.edges if edge.target == END]

    def node(self, node_id: str) -> NodeSpec:
        """Return the node named ``node_id``; ``KeyError`` names it when absent."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"{self.name!r} has no node {node_id!r}")

    def to_json(self, *, indent: int | None = 2) -> str:
        """Serialize to JSON text."""
        return self.model_dump_json(indent=indent, exclude_defaults=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> GraphSpec:
        """Parse JSON text, with a clear error for anything that is not a valid spec."""
        return cls.model_validate_json(text)

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON-compatible Python data."""
        return self.model_dump(mode="json")
