"""Listing a saver's threads with their status, for a threads panel.

A first, generic version over the :class:`~graphnb.engine.store.Saver` protocol: it reads
each thread's last checkpoint through ``load``, so it works on every saver today but costs
one read per thread. Savers may later answer the same question from an index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .store import Saver

__all__ = ["ThreadInfo", "ThreadStatus", "list_threads_info"]

ThreadStatus = Literal["finished", "interrupted", "pending"]


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    """One thread as a threads panel shows it.

    Attributes:
        thread_id: the thread.
        step: the super-step its last checkpoint closes.
        status: ``"interrupted"`` when the last checkpoint holds pending interrupts,
            ``"pending"`` when it names nodes still to run (paused, or a run that stopped
            on an error), ``"finished"`` otherwise.
        updated_at: Unix time of its last checkpoint.
        checkpoint_id: the id of its last checkpoint.
    """

    thread_id: str
    step: int
    status: ThreadStatus
    updated_at: float
    checkpoint_id: str


def list_threads_info(
    saver: Saver, *, search: str | None = None, limit: int | None = None, after: str | None = None
) -> list[ThreadInfo]:
    """The saver's threads, newest first, optionally filtered and paged.

    Args:
        saver: any saver.
        search: keep threads whose id contains this text (case-insensitive).
        limit: at most this many records; ``None`` for all.
        after: the ``thread_id`` of the last record of the previous page; the page starts
            after it in the same order.

    Raises:
        ValueError: ``limit`` is not a positive int, or ``after`` is not a listed thread.
    """
    if limit is not None and (type(limit) is not int or limit < 1):
        raise ValueError(f"threads(limit=...) must be a positive int or None, got {limit!r}")
    needle = search.casefold() if search else None
    infos: list[ThreadInfo] = []
    for thread_id in saver.threads():
        if needle is not None and needle not in thread_id.casefold():
            continue
        loaded = saver.load(thread_id)
        if loaded is None:  # deleted between the two reads
            continue
        last = loaded.target
        if last.meta.get("interrupts"):
            status: ThreadStatus = "interrupted"
        elif last.meta.get("next"):
            status = "pending"
        else:
            status = "finished"
        infos.append(ThreadInfo(thread_id, last.step, status, last.created_at, last.checkpoint_id))
    infos.sort(key=lambda info: (-info.updated_at, info.thread_id))
    if after is not None:
        ids = [info.thread_id for info in infos]
        if after not in ids:
            raise ValueError(f"threads(after=...) names no listed thread: {after!r:.80}")
        infos = infos[ids.index(after) + 1 :]
    return infos if limit is None else infos[:limit]
