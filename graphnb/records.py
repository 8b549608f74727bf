"""What a checkpoint is: the stored row, the interrupts it may hold, and the user's view.

These records are what the engine and the savers exchange, so they sit below both:
:mod:`graphnb.checkpoint` stores :class:`StoredCheckpoint` rows and hands back
:class:`Loaded` chains, and :mod:`graphnb.engine` plans runs from a checkpoint read back
(:class:`~graphnb.checkpoint_meta.LoadedCheckpoint`, beside the pydantic models of its
``meta`` column).

A thread is a list of checkpoints, numbered by ``seq`` in the order they were written.
Each checkpoint but the first has a parent, usually the one written just before it; a run
started from an older checkpoint (time travel) writes children of that older one, so the
thread becomes a tree whose original branch is left as it was.

A checkpoint stores what its step changed (``writes``: each node's update, in the order
they were merged) and, every so often, the whole state (``snapshot``). The state at a
checkpoint is its nearest snapshotted ancestor's state with the writes of every checkpoint
after it re-applied through the reducers.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    Any,
    Generic,
    Literal,
    NamedTuple,
    TypeAlias,
    TypeGuard,
    TypeVar,
    get_args,
)

__all__ = [
    "CHECKPOINT_SOURCES",
    "CHILD_PATTERN",
    "DURABILITIES",
    "INPUT",
    "UPDATE",
    "CheckpointSource",
    "Durability",
    "Interrupt",
    "InterruptWhen",
    "Loaded",
    "NewCheckpoint",
    "StateSnapshot",
    "StoredCheckpoint",
    "check_own_thread",
    "child_thread",
    "is_checkpoint_source",
    "is_child_thread",
]

S = TypeVar("S")

INPUT = "__input__"
"""The pseudo-node whose write is a run's input."""
UPDATE = "__update__"
"""The pseudo-node of a :meth:`~graphnb.CompiledGraph.update_state` without ``as_node``."""

CheckpointSource: TypeAlias = Literal["seed", "input", "loop", "update", "interrupt", "error"]
"""Why a checkpoint was written.

- ``seed``: :meth:`~graphnb.CompiledGraph.seed_thread` put initial values in the thread.
- ``input``: a run's input was merged into the state, before its first step.
- ``loop``: a super-step finished; its nodes' updates were merged.
- ``update``: :meth:`~graphnb.CompiledGraph.update_state` edited the state.
- ``interrupt``: a node called :func:`~graphnb.checkpoint.interrupt`; the step will run
  again on resume.
- ``error``: a node (or a router) raised; ``meta.error`` says which and what, and the
  failed step runs again when the thread is resumed (input ``None``).
"""

CHECKPOINT_SOURCES: frozenset[CheckpointSource] = frozenset(get_args(CheckpointSource))
"""Every :data:`CheckpointSource`: what a saver stores in a row's ``source`` column."""


def is_checkpoint_source(value: object) -> TypeGuard[CheckpointSource]:
    """Whether ``value`` is one of :data:`CHECKPOINT_SOURCES`."""
    return type(value) is str and value in CHECKPOINT_SOURCES


CHILD_PATTERN = re.compile(r"\|([^|]+)@([0-9a-f]{32})")
"""One level of a subgraph's thread id: ``|node@`` and the 32 hex digits of a checkpoint."""


def child_thread(thread_id: str, key: str, base: str) -> str:
    """The thread a subgraph node's child runs on: ``parent|node@base``.

    ``key`` is the subgraph node (a Send instance's ``node[n]``), ``base`` the id of the
    parent's checkpoint the step in flight started from (see :mod:`graphnb.engine.subgraph`).
    """
    return f"{thread_id}|{key}@{base}"


def is_child_thread(thread_id: str) -> bool:
    """Whether ``thread_id`` has the shape of a subgraph's own thread.

    The one rule of what a top-level thread is: listings (``list_threads``,
    ``threads_info``, the widget's threads panel, ``graphnb threads``) leave such threads
    out, ``delete_thread(parent)`` deletes them with their parent, and
    :func:`check_own_thread` refuses the shape for a thread a user starts.
    """
    return "|" in thread_id and CHILD_PATTERN.search(thread_id) is not None


def check_own_thread(thread_id: str, what: str = "a thread id") -> None:
    """Refuse, for a thread a user names, the shape graphnb keeps for subgraphs' threads.

    Such a thread would be hidden from every listing and deleted with the thread its id
    begins with.

    Raises:
        ThreadRequiredError: naming the id and the reserved shape.
    """
    if is_child_thread(thread_id):
        from .checkpoint_errors import ThreadRequiredError

        found = CHILD_PATTERN.search(thread_id)
        assert found is not None
        raise ThreadRequiredError(
            f"{what} {thread_id!r:.160} has the shape graphnb keeps for subgraphs' own "
            f"threads ('parent|node@' and 32 hex digits: {found.group(0)!r:.60}); such a "
            "thread would be hidden from the thread listings and deleted with its 'parent': "
            "choose another id (without '|', say)"
        )


InterruptWhen: TypeAlias = Literal["before", "after", "during"]

Durability: TypeAlias = Literal["sync", "async", "exit"]
"""When a threaded run's checkpoints are stored (LangGraph's names and meanings).

``"sync"``: each step's checkpoint is stored before the next step starts (the default);
``"async"``: stored in the background, in order, while the next step runs, and all of them
before the run returns; ``"exit"``: only the last one, when the run ends, finishes, stops
for a human or fails.
"""
DURABILITIES: tuple[Durability, ...] = ("sync", "async", "exit")
"""Where a run stopped: ``before``/``after`` a node named in ``interrupt_before``/
``interrupt_after``, or ``during`` a node that called :func:`~graphnb.checkpoint.interrupt`.
"""


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A pending stop of a thread, waiting for the run that resumes it.

    Attributes:
        node: the node the run stopped at.
        when: ``before``, ``after`` or ``during`` the node.
        value: what the node passed to ``interrupt(value)`` (``None`` for static stops).
        id: identifies the interrupt when several are answered at once.
    """

    node: str
    when: InterruptWhen
    value: Any = None
    id: str = ""

    @property
    def asks(self) -> bool:
        """Whether it waits for an answer: an ``interrupt()`` call, not a breakpoint.

        (A subgraph's own breakpoint stops its parent ``during`` the subgraph node, with
        an id ending in ``:before`` or ``:after``.)
        """
        return self.when == "during" and not self.id.endswith((":before", ":after"))

    def to_json(self) -> dict[str, Any]:
        """The interrupt as stored."""
        return {"node": self.node, "when": self.when, "value": self.value, "id": self.id}


Update: TypeAlias = Mapping[str, Any]
"""One node's update: field name -> value, as the state model holds them."""


# A NamedTuple: immutable as a frozen dataclass, and built at the cost of a tuple. A run
# builds one per step; a frozen dataclass's __init__ (object.__setattr__ per field)
# measured 0.7 us more per checkpoint, 5% of a MemorySaver's whole write.
class NewCheckpoint(NamedTuple):
    """The next checkpoint of a thread, as the engine hands it to storage.

    Values are the state model's own (not yet encoded): the writer of
    :mod:`graphnb.checkpoint` encodes them into a :class:`StoredCheckpoint`, numbering it
    after the checkpoint it continues from.

    Attributes:
        step: the super-step it closes (-1 for a first input or a seed).
        source: why it is written, see :data:`CheckpointSource`.
        values: the whole state after the writes; stored when a snapshot is due.
        ran: the nodes whose updates it merges (a Send instance as ``node[n]``).
        writes: each node's update, in the order they were merged.
        next: the nodes the next step runs (Send instances are in ``sends``).
        sends: the Send items the next step runs: (target node, payload).
        joins: per join target, the sources already finished.
        deferred: the deferred nodes triggered and held until nothing else runs.
        interrupts: the stops pending at it.
        resumes: each node's answers to its ``interrupt()`` calls so far.
        pending: updates of the nodes that finished in an interrupted or failed step,
            merged when the step completes on resume.
        start_at: a seeded thread's first nodes (``None``: the graph's entry).
        error: for ``source="error"``: ``{"node", "type", "message", "step"}``.
        keep: store it even under ``"exit"`` durability (a subgraph's thread is named
            after the checkpoint its step starts from, so that one must exist).
    """

    step: int
    source: CheckpointSource
    values: Mapping[str, Any]
    ran: Sequence[str] = ()
    writes: Sequence[tuple[str, Update]] = ()
    next: Sequence[str] = ()
    sends: Sequence[tuple[str, Update]] = ()
    joins: Mapping[str, Collection[str]] | None = None
    deferred: Collection[str] = ()
    interrupts: Sequence[Interrupt] = ()
    resumes: Mapping[str, Sequence[Any]] | None = None
    pending: Sequence[tuple[str, Update]] = ()
    start_at: Sequence[str] | None = None
    error: Mapping[str, Any] | None = None
    keep: bool = False


# A plain slotted dataclass, not a frozen one: a run builds one per step, and a frozen
# dataclass's __init__ (object.__setattr__ per field) cost more than its saver's put. No
# saver keeps the record it is given, so changing one after storing it changes nothing.
@dataclass(slots=True)
class StoredCheckpoint:
    """One checkpoint as a saver stores it: plain JSON-compatible data, no model types.

    Attributes:
        thread_id: the thread it belongs to.
        seq: its position in the thread, 0 for the first; unique per thread.
        checkpoint_id: its id, unique per thread; what ``checkpoint_id=`` selects.
        parent_id: the checkpoint it continues from (``None`` for the first).
        parent_seq: ``seq`` of the parent.
        base_seq: ``seq`` of the nearest checkpoint holding a snapshot on its chain
            (itself when it holds one); where a reader starts re-applying writes.
        step: the super-step it closes (-1 for a first input or a seed).
        source: why it was written, see :data:`CheckpointSource`.
        created_at: Unix time of the write.
        meta: ``ran``, ``next``, ``joins``, ``interrupts``, ``resumes``, ``metadata`` and,
            for a run that failed, ``error``.
        writes: ``[[node, {field: value}], ...]`` in the order they were merged.
        snapshot: the whole state, or ``None``.
        texts: ``writes`` and ``snapshot`` as JSON text, when the writer already encoded
            them (to measure them); savers store these rather than encode them again.
    """

    thread_id: str
    seq: int
    checkpoint_id: str
    parent_id: str | None
    parent_seq: int | None
    base_seq: int
    step: int
    source: CheckpointSource
    created_at: float
    meta: dict[str, Any]
    writes: list[Any]
    snapshot: dict[str, Any] | None = None
    texts: tuple[str, str | None] | None = field(default=None, repr=False, compare=False)

    def with_columns(
        self, meta: dict[str, Any], writes: list[Any], snapshot: dict[str, Any] | None
    ) -> StoredCheckpoint:
        """A new record of this checkpoint holding other JSON columns (and no ``texts``)."""
        return StoredCheckpoint(
            self.thread_id,
            self.seq,
            self.checkpoint_id,
            self.parent_id,
            self.parent_seq,
            self.base_seq,
            self.step,
            self.source,
            self.created_at,
            meta,
            writes,
            snapshot,
        )


@dataclass(frozen=True, slots=True)
class StateSnapshot(Generic[S]):
    """A thread's state at one checkpoint, as :meth:`~graphnb.CompiledGraph.get_state` returns it.

    Attributes:
        values: the state, as the graph's state type.
        next: the nodes the next step runs (empty when the run ended).
        thread_id: the thread.
        checkpoint_id: the checkpoint's id; pass it as ``checkpoint_id=`` to run from here.
        parent_id: the checkpoint this one continues from.
        step: the super-step that produced it (-1 for input or seeded state).
        source: why it was written, see :data:`CheckpointSource`.
        ran: the nodes whose updates it merged.
        writes: each node's update, in merge order (field names, stored values).
        interrupts: pending interrupts; a run with input ``None`` (or a resume
            answer) continues.
        metadata: ``run_id`` of the writing run and any metadata given to it.
        created_at: Unix time of the write.
        subgraphs: with ``get_state(..., subgraphs=True)``, the state of each subgraph
            node's child in the step this checkpoint runs next, by node name (each on the
            child's own thread; see :mod:`graphnb.engine.subgraph`).
        error: for a run that stopped on an error (``source == "error"``), what failed:
            ``{"node", "type", "message", "step"}``; ``None`` otherwise.
    """

    values: S
    next: tuple[str, ...]
    thread_id: str
    checkpoint_id: str
    parent_id: str | None
    step: int
    source: CheckpointSource
    ran: tuple[str, ...] = ()
    writes: tuple[tuple[str, dict[str, Any]], ...] = ()
    interrupts: tuple[Interrupt, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: float = 0.0
    subgraphs: dict[str, StateSnapshot[Any]] = field(default_factory=dict)
    error: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Loaded:
    """What a saver's ``load`` returns.

    Attributes:
        rows: the target checkpoint's chain: rows with ``seq`` from the target's
            ``base_seq`` up to the target, ascending (rows of other branches in that range
            may be included; readers follow ``parent_seq`` from the target).
        head_seq: ``seq`` of the thread's last checkpoint, which the next write must follow.
    """

    rows: list[StoredCheckpoint]
    head_seq: int

    @property
    def target(self) -> StoredCheckpoint:
        """The checkpoint asked for."""
        return self.rows[-1]
