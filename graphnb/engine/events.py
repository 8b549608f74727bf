"""Typed events a run streams, and the stream modes that filter them.

Events are plain slotted dataclasses, not frozen ones: a run builds one per node and step,
and a frozen dataclass's ``__init__`` (``object.__setattr__`` per field) cost a tenth of a
streamed step. Treat them as read-only: one event goes to every consumer of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeAlias, TypeVar

if TYPE_CHECKING:
    from ..records import Interrupt

__all__ = [
    "CacheHit",
    "Chunk",
    "Event",
    "Interrupted",
    "NodeFailed",
    "NodeFinished",
    "NodeRetrying",
    "NodeStarted",
    "StepFinished",
    "StreamMode",
]

S = TypeVar("S")

StreamMode = Literal["events", "values", "updates", "chunks", "custom"]
"""What :meth:`CompiledGraph.stream` yields.

- ``events``: every typed event below.
- ``values``: the whole state after each super-step (the input state first).
- ``updates``: ``{node: update}`` as each node finishes, and ``{"__interrupt__":
  interrupts}`` when a threaded run stops for a human.
- ``chunks``: :class:`Chunk` events only (streamed fields and custom writes).
- ``custom``: the values nodes write with ``context.write(...)``.
"""


@dataclass(slots=True)
class _InsideSubgraphs:
    """What the events of one node share: its step, the node, where it is."""

    step: int
    node: str
    instance: int | None = field(default=None, kw_only=True)
    """Which of the node's ``Send`` instances this is (0, 1, ...); ``None`` for a plain run."""
    namespace: tuple[str, ...] = field(default=(), kw_only=True)
    """The subgraph nodes the event comes from inside, outermost first; ``()`` at the top."""

    @property
    def path(self) -> tuple[str, ...]:
        """The node's full path: ``namespace`` and the node, e.g. ``("research", "search")``."""
        return (*self.namespace, self.node)


@dataclass(slots=True)
class NodeStarted(_InsideSubgraphs):
    """A node began running."""

    kind: ClassVar[Literal["node_started"]] = "node_started"


@dataclass(slots=True)
class NodeFinished(_InsideSubgraphs):
    """A node finished; ``update`` is what it wrote (field names, checked values)."""

    kind: ClassVar[Literal["node_finished"]] = "node_finished"
    update: dict[str, Any]
    duration: float
    cached: bool = False
    """The update came from the node's cache (a :class:`CacheHit` came first); the node
    did not run. The ``updates`` stream marks it ``"__metadata__": {"cached": True}``, as
    LangGraph's does."""


@dataclass(slots=True)
class Chunk(_InsideSubgraphs):
    """A piece of a node's streamed result (``field`` set) or of a custom write (``None``)."""

    kind: ClassVar[Literal["chunk"]] = "chunk"
    field: str | None
    value: Any


@dataclass(slots=True)
class StepFinished(Generic[S]):
    """A super-step ended; ``state`` is the state after its updates were merged.

    Step ``-1`` is the input, merged into the defaults before the first node runs.
    """

    kind: ClassVar[Literal["step_finished"]] = "step_finished"
    step: int
    nodes: tuple[str, ...]
    state: S
    next: tuple[str, ...] = ()
    wrote: bool = True
    """Whether a node of the step wrote anything (``values`` streams only such steps)."""


@dataclass(slots=True)
class NodeFailed(_InsideSubgraphs):
    """A node (or the merge of its update) failed; the run raises ``error`` next."""

    kind: ClassVar[Literal["node_failed"]] = "node_failed"
    error: BaseException = field(repr=False)

    @property
    def message(self) -> str:
        """The error's text."""
        return str(self.error)


@dataclass(slots=True)
class NodeRetrying(_InsideSubgraphs):
    """A node's attempt failed and its retry policy runs it again after ``delay`` seconds.

    ``attempt`` is the failed attempt's number (1 for the first run).
    """

    kind: ClassVar[Literal["node_retrying"]] = "node_retrying"
    attempt: int
    delay: float
    error: BaseException = field(repr=False)


@dataclass(slots=True)
class CacheHit(_InsideSubgraphs):
    """A node's result came from its cache; the node did not run (``key``: the cache key)."""

    kind: ClassVar[Literal["cache_hit"]] = "cache_hit"
    key: str


@dataclass(slots=True)
class Interrupted:
    """A threaded run stopped to wait for a human; resume it by running the thread again.

    Attributes:
        step: the super-step the resumed run will start with.
        interrupts: why it stopped: each names the node, ``before``/``after``/``during``
            and, for ``interrupt(value)``, the value.
        checkpoint_id: the checkpoint holding the pending interrupts.
    """

    kind: ClassVar[Literal["interrupted"]] = "interrupted"
    step: int
    interrupts: tuple[Interrupt, ...]
    checkpoint_id: str


Event: TypeAlias = (
    NodeStarted
    | NodeFinished
    | Chunk
    | StepFinished[Any]
    | NodeFailed
    | Interrupted
    | NodeRetrying
    | CacheHit
)
