"""Pruning: remove a thread's old checkpoints without breaking the ones kept.

A checkpoint is read from the nearest snapshot on its chain (``base_seq``) forward,
re-applying each ancestor's writes (see :mod:`graphnb.checkpoint.threads`). Pruning
therefore keeps, besides the checkpoints asked for, every ancestor a kept checkpoint is
rebuilt from, back to its snapshot; it deletes the rest. A kept checkpoint loads exactly
as before, and at most ``snapshot_every`` ancestors (50 by default) stay per kept branch.

Deletes run in batches of ``batch_size`` rows, one short statement each, so pruning a live
database never holds a long lock; a thread's newest checkpoint is always kept, so pruning
never removes a thread nor changes where its next run starts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import StoredCheckpoint
    from .base import BaseSaver

__all__ = ["DEFAULT_PRUNE_BATCH", "plan_prune", "prune"]

DEFAULT_PRUNE_BATCH = 500
"""Rows one delete statement removes at most."""


def _seconds(older_than: float | timedelta | None) -> float | None:
    if older_than is None:
        return None
    seconds = older_than.total_seconds() if isinstance(older_than, timedelta) else older_than
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
        raise ValueError(
            f"older_than must be a number of seconds >= 0 or a timedelta, got {older_than!r}"
        )
    return float(seconds)


def plan_prune(
    rows: Sequence[StoredCheckpoint],
    *,
    older_than: float | timedelta | None = None,
    keep_last: int | None = None,
    now: float | None = None,
) -> list[int]:
    """The ``seq`` of every row of one thread that pruning removes, ascending.

    Args:
        rows: the thread's checkpoints (any order).
        older_than: only checkpoints written more than this long ago may go.
        keep_last: the newest this many checkpoints stay (at least the newest one always
            does).
        now: the current Unix time (``time.time()`` when omitted).

    Raises:
        ValueError: neither option is given, or one is out of range.
    """
    age = _seconds(older_than)
    if keep_last is not None and (
        not isinstance(keep_last, int) or isinstance(keep_last, bool) or keep_last < 1
    ):
        raise ValueError(f"keep_last must be an integer >= 1, got {keep_last!r}")
    if age is None and keep_last is None:
        raise ValueError("prune needs older_than=..., keep_last=..., or both")
    if not rows:
        return []
    by_seq = {row.seq: row for row in rows}
    newest = sorted(by_seq, reverse=True)
    kept = set(newest[: max(1, keep_last or 1)])
    if age is not None:
        cutoff = (time.time() if now is None else now) - age
        kept.update(seq for seq, row in by_seq.items() if row.created_at >= cutoff)
    needed: set[int] = set()
    for seq in kept:
        needed.update(_chain(by_seq, seq))
    return sorted(set(by_seq) - needed)


def _chain(by_seq: dict[int, StoredCheckpoint], seq: int) -> Iterable[int]:
    """``seq`` and its ancestors back to the snapshot it is rebuilt from."""
    row: StoredCheckpoint | None = by_seq[seq]
    base = by_seq[seq].base_seq
    while row is not None:
        yield row.seq
        if row.seq <= base or row.parent_seq is None:
            return
        row = by_seq.get(row.parent_seq)


def prune(
    saver: BaseSaver,
    *,
    older_than: float | timedelta | None = None,
    keep_last: int | None = None,
    thread_ids: Iterable[str] | None = None,
    batch_size: int = DEFAULT_PRUNE_BATCH,
) -> int:
    """Prune every thread of ``saver`` (or ``thread_ids``); see :meth:`BaseSaver.prune`."""
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    plan_prune([], older_than=older_than, keep_last=keep_last)  # checks the options first
    now = time.time()
    removed = 0
    for thread_id in list(saver.threads() if thread_ids is None else thread_ids):
        seqs = plan_prune(
            saver.history(thread_id), older_than=older_than, keep_last=keep_last, now=now
        )
        for start in range(0, len(seqs), batch_size):
            removed += saver._delete_seqs(thread_id, seqs[start : start + batch_size])
    return removed
