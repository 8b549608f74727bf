"""Listing a saver's threads with their status, for a threads panel.

It asks the saver for one page of its threads' last checkpoints (``Saver.head_page``: on
the SQL savers one query walking a ``(created_at, thread_id)`` index from its newest end),
and reads each one's status from its ``meta``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ..records import StoredCheckpoint
    from .store import Saver

__all__ = ["ThreadInfo", "ThreadStatus", "list_threads_info"]

ThreadStatus = Literal["finished", "interrupted", "failed", "pending", "damaged"]


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    """One thread as a threads panel shows it.

    Attributes:
        thread_id: the thread.
        step: the super-step its last checkpoint closes (for a failed thread, the step
            that failed).
        status: ``"interrupted"`` when the last checkpoint holds pending interrupts (an
            ``interrupt_after`` stop at the last node is none: that run just ends),
            ``"failed"`` when the last run stopped on an error (an ``error`` checkpoint),
            ``"pending"`` when it names nodes still to run (a run stopped by a crash of
            its process, or a seed not run yet), ``"damaged"`` when its last checkpoint's
            ``meta`` cannot be read (a corrupt or forged row: ``get_state`` raises
            ``CheckpointLoadError``), ``"finished"`` otherwise.
        updated_at: Unix time of its last checkpoint.
        checkpoint_id: the id of its last checkpoint.
        error: for a failed thread, what failed: ``{"node", "type", "message", "step"}``;
            for a damaged one, why it cannot be read: ``{"type", "message"}``, the message
            naming the thread and the checkpoint.
    """

    thread_id: str
    step: int
    status: ThreadStatus
    updated_at: float
    checkpoint_id: str
    error: dict[str, Any] | None = None


def list_threads_info(
    saver: Saver, *, search: str | None = None, limit: int | None = None, after: str | None = None
) -> list[ThreadInfo]:
    """The saver's threads, newest first, optionally filtered and paged.

    Args:
        saver: any saver.
        search: keep threads whose id contains this text (case-insensitive).
            Subgraphs' own threads (see :mod:`graphnb.engine.subgraph`) are left out.
        limit: at most this many records; ``None`` for all.
        after: the ``thread_id`` of the last record of the previous page; the page starts
            after it in the same order.

    Raises:
        ValueError: ``limit`` is not a positive int, or ``after`` names no thread.
    """
    if limit is not None and (type(limit) is not int or limit < 1):
        raise ValueError(f"threads(limit=...) must be a positive int or None, got {limit!r}")
    from ..records import is_child_thread

    infos: list[ThreadInfo] = []
    while True:
        page = saver.head_page(search=search, limit=limit, after=after)
        for last in page:
            if is_child_thread(last.thread_id):
                continue  # a subgraph's own thread, listed with its parent's
            infos.append(_info(last))
            if limit is not None and len(infos) == limit:
                return infos
        if limit is None or len(page) < limit:
            return infos
        after = page[-1].thread_id  # the page held subgraph threads: read on


def _info(last: StoredCheckpoint) -> ThreadInfo:
    """A thread's record, read from the ``meta`` of its last checkpoint."""
    if _plain(last.meta):  # most heads: no need to validate what it holds
        # a seed without start_at names no next node, yet its first run is still to come
        waiting = last.meta.get("next") or last.source == "seed"
        status: ThreadStatus = "pending" if waiting else "finished"
        return ThreadInfo(last.thread_id, last.step, status, last.created_at, last.checkpoint_id)
    from pydantic import ValidationError

    from ..checkpoint_meta import CheckpointMeta

    try:
        meta = CheckpointMeta.model_validate(last.meta)
    except ValidationError as error:
        # Damage stays local: the thread is listed as such, the others as they are.
        return _damaged(last, error)
    stops = meta.interrupts
    # A stop after the last node leaves nothing to resume: the thread is finished.
    # (Runs no longer store such a stop; threads saved before may hold one.)
    if any(i.when == "during" for i in stops) or (stops and meta.next):
        status = "interrupted"
    elif meta.error:
        status = "failed"
    elif meta.next or last.source == "seed" or meta.start_at is not None:
        status = "pending"  # (start_at: an edit of a seed not run yet)
    else:
        status = "finished"
    failure = dict(meta.error) if meta.error else None
    return ThreadInfo(
        last.thread_id, last.step, status, last.created_at, last.checkpoint_id, failure
    )


_PLAIN_KEYS = frozenset({"ran", "next", "metadata", "interrupts"})


def _plain(meta: Any) -> bool:
    """Whether ``meta`` is a run's usual one, which validating would pass as it is.

    Only node lists and the run's metadata: no stop, no error. Validating every head
    with the meta's model would double the cost of a page. ``False`` only means
    "validate it".
    """
    return (
        type(meta) is dict
        and meta.keys() <= _PLAIN_KEYS
        and _names(meta.get("ran", []))
        and _names(meta.get("next", []))
        and type(meta.get("metadata", {})) is dict
        and meta.get("interrupts", []) == []
    )


def _names(value: Any) -> bool:
    return type(value) is list and all(type(name) is str for name in value)


def _damaged(last: StoredCheckpoint, error: ValidationError) -> ThreadInfo:
    first = error.errors(include_url=False)[0]
    why = (
        f"checkpoint {last.checkpoint_id!r} of thread {last.thread_id!r} has a malformed "
        f"meta column: {first['msg']} at {first['loc']}"
    )
    return ThreadInfo(
        last.thread_id,
        last.step,
        "damaged",
        last.created_at,
        last.checkpoint_id,
        {"type": "CheckpointLoadError", "message": why},
    )
