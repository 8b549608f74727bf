"""A checkpoint read back: its ``meta`` column validated, and the state it holds.

Apart from :mod:`graphnb.records` because these models stand on pydantic, which a graph run
without a checkpointer never needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from .records import Interrupt, InterruptWhen, StoredCheckpoint

__all__ = ["CheckpointMeta", "LoadedCheckpoint", "StoredInterrupt"]


class StoredInterrupt(BaseModel):
    """An interrupt as the ``meta`` column holds it."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
    node: str
    when: InterruptWhen
    value: Any = None
    id: str = ""


class CheckpointMeta(BaseModel):
    """The shape of the ``meta`` column; anything else in it is refused."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
    ran: list[str] = []
    next: list[str] = []
    sends: list[list[Any]] = []  # [[node, payload], ...]: the next step's Send instances
    joins: dict[str, list[str]] = {}
    deferred: list[str] = []  # deferred nodes triggered, held until nothing else runs
    interrupts: list[StoredInterrupt] = []
    resumes: dict[str, list[Any]] = {}
    pending: list[list[Any]] = []
    start_at: list[str] | None = None
    metadata: dict[str, Any] = {}
    error: dict[str, Any] | None = None  # {node, type, message, step} of a failed run


@dataclass(slots=True)
class LoadedCheckpoint:
    """A checkpoint read back: its row, its decoded meta and the state it holds.

    Attributes:
        row: the stored checkpoint.
        meta: its ``meta`` column, validated.
        values: the state at it (field name -> value).
        head_seq: ``seq`` of the thread's last checkpoint when it was read.
        delta_bytes: JSON size of their writes.
        snapshot_bytes: JSON size of that snapshot.
    """

    row: StoredCheckpoint
    meta: CheckpointMeta
    values: dict[str, Any]
    head_seq: int
    delta_bytes: int = 0
    snapshot_bytes: int = 0

    @property
    def next(self) -> tuple[str, ...]:
        """The nodes the next step runs."""
        return tuple(self.meta.next)

    @property
    def interrupts(self) -> tuple[Interrupt, ...]:
        """Pending interrupts."""
        return tuple(Interrupt(i.node, i.when, i.value, i.id) for i in self.meta.interrupts)
