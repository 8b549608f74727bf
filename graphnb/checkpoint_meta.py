"""The ``meta`` column of a stored checkpoint, validated (re-exported by :mod:`graphnb.records`).

Apart from :mod:`graphnb.records` because these models stand on pydantic, which a graph run
without a checkpointer never needs.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from .records import InterruptWhen

__all__ = ["CheckpointMeta", "StoredInterrupt"]


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
