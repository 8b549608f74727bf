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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol

from ..checkpoint_errors import CheckpointConflictError

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..records import StoredCheckpoint

__all__ = [
    "DEFAULT_PRUNE_BATCH",
    "PrunableSaver",
    "PruneResult",
    "Rebuild",
    "plan_prune",
    "plan_rebuild",
    "prune",
]

Rebuild = Callable[["StoredCheckpoint"], dict[str, Any]]
"""The encoded state at a stored checkpoint: what its rebuilt snapshot holds."""

DEFAULT_PRUNE_BATCH = 500
"""Rows one delete statement removes at most."""


class PrunableSaver(Protocol):
    """What pruning needs of a saver (:class:`~graphnb.checkpoint.base.BaseSaver` has it).

    Besides reading threads and holding their locks, a saver that prunes deletes single
    checkpoints and moves snapshots: the hooks a saver implements for pruning.
    """

    def threads(self) -> list[str]:
        """Every thread's id."""

    def thread_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold the thread's lock."""

    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """Every checkpoint of the thread, oldest first."""

    def _set_snapshot(self, row: StoredCheckpoint) -> None:
        """Store ``row``'s snapshot and base on the stored checkpoint it names."""

    def _set_base(self, thread_id: str, seqs: Sequence[int], base_seq: int) -> None:
        """Point these checkpoints at the snapshot of ``base_seq``."""

    def _delete_seqs(self, thread_id: str, seqs: Sequence[int]) -> int:
        """Delete these checkpoints; how many there were."""


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
    return _plan_prune(rows, older_than=older_than, keep_last=keep_last, now=now)[0]


def _plan_prune(
    rows: Sequence[StoredCheckpoint],
    *,
    older_than: float | timedelta | None,
    keep_last: int | None,
    now: float | None,
) -> tuple[list[int], int]:
    """:func:`plan_prune`, and how many rows stay only because kept ones rebuild from them."""
    by_seq = {row.seq: row for row in rows}
    kept = _kept(rows, older_than=older_than, keep_last=keep_last, now=now)
    needed: set[int] = set()
    for seq in kept:
        needed.update(_chain(by_seq, seq))
    return sorted(set(by_seq) - needed), len(needed - kept)


class PruneResult(int):
    """How many checkpoints a prune removed (an ``int``), and what it kept and why.

    Attributes:
        kept_ancestors: checkpoints old enough to go that stayed because a kept
            checkpoint is rebuilt from them (it stores what changed since an ancestor's
            snapshot). Pruning through the graph's threads (``app.threads.prune(...)``,
            ``graphnb threads prune --graph FILE``) rebuilds snapshots and removes them.
    """

    kept_ancestors: int

    def __new__(cls, removed: int, kept_ancestors: int = 0) -> PruneResult:
        """``removed`` as an int, with ``kept_ancestors``."""
        result = super().__new__(cls, removed)
        result.kept_ancestors = kept_ancestors
        return result

    def __repr__(self) -> str:
        return f"PruneResult(removed={int(self)}, kept_ancestors={self.kept_ancestors})"

    def __format__(self, spec: str) -> str:
        # f"{removed} gone" and f"{removed:>5}" format the number, as for any int
        return int(self).__format__(spec)

    def __str__(self) -> str:
        """One sentence: what went, what stayed and why, and how to remove it."""
        return self.summary("app.threads.prune(...)")

    def summary(self, how: str) -> str:
        """What went, what stayed and why; ``how`` says how to prune through the graph."""
        removed = int(self)
        text = f"removed {removed} checkpoint{'s' if removed != 1 else ''}"
        if self.kept_ancestors:
            kept = self.kept_ancestors
            text += (
                f"; kept {kept} older checkpoint{'s' if kept != 1 else ''} that the kept ones "
                "are rebuilt from (a checkpoint stores what changed since the last snapshot); "
                "prune through the graph's state model to rebuild snapshots and remove "
                f"{'them' if kept != 1 else 'it'} too: {how}"
            )
        return text


@dataclass(frozen=True)
class RebuildPlan:
    """What pruning one thread with snapshot rebuilding does, in this order."""

    snapshots: list[int] = field(default_factory=list)  # kept rows that get a snapshot
    rebase: dict[int, list[int]] = field(default_factory=dict)  # new base_seq -> rows
    delete: list[int] = field(default_factory=list)


def plan_rebuild(
    rows: Sequence[StoredCheckpoint],
    *,
    older_than: float | timedelta | None = None,
    keep_last: int | None = None,
    now: float | None = None,
) -> RebuildPlan:
    """Pruning of one thread that rebuilds snapshots instead of keeping ancestors.

    Only the checkpoints asked for stay. A kept checkpoint whose parent goes (and that
    holds no snapshot) gets one; every kept checkpoint is then based on the nearest
    snapshot up its kept ancestors.

    Raises:
        ValueError: as :func:`plan_prune`.
    """
    kept = _kept(rows, older_than=older_than, keep_last=keep_last, now=now)
    by_seq = {row.seq: row for row in rows}
    snapshots = sorted(
        seq
        for seq in kept
        if by_seq[seq].snapshot is None
        and by_seq[seq].parent_seq is not None
        and by_seq[seq].parent_seq not in kept
    )
    based = set(snapshots) | {seq for seq in kept if by_seq[seq].snapshot is not None}
    rebase: dict[int, list[int]] = {}
    for seq in sorted(kept - based):
        row = by_seq[seq]
        while row.seq not in based:
            parent = by_seq.get(row.parent_seq) if row.parent_seq is not None else None
            if parent is None:  # a chain already broken: leave the row as it is
                break
            row = parent
        if row.seq in based and row.seq != by_seq[seq].base_seq:
            rebase.setdefault(row.seq, []).append(seq)
    return RebuildPlan(snapshots, rebase, sorted(set(by_seq) - kept))


def _kept(
    rows: Sequence[StoredCheckpoint],
    *,
    older_than: float | timedelta | None,
    keep_last: int | None,
    now: float | None,
) -> set[int]:
    """The ``seq`` of the checkpoints the options ask to keep."""
    age = _seconds(older_than)
    if keep_last is not None and (
        not isinstance(keep_last, int) or isinstance(keep_last, bool) or keep_last < 1
    ):
        raise ValueError(f"keep_last must be an integer >= 1, got {keep_last!r}")
    if age is None and keep_last is None:
        raise ValueError("prune needs older_than=..., keep_last=..., or both")
    if not rows:
        return set()
    by_seq = {row.seq: row for row in rows}
    newest = sorted(by_seq, reverse=True)
    kept = set(newest[: max(1, keep_last or 1)])
    if age is not None:
        cutoff = (time.time() if now is None else now) - age
        kept.update(seq for seq, row in by_seq.items() if row.created_at >= cutoff)
    return kept


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
    saver: PrunableSaver,
    *,
    older_than: float | timedelta | None = None,
    keep_last: int | None = None,
    thread_ids: Iterable[str] | None = None,
    batch_size: int = DEFAULT_PRUNE_BATCH,
    rebuild: Rebuild | None = None,
) -> PruneResult:
    """Prune every thread of ``saver`` (or ``thread_ids``); see :meth:`BaseSaver.prune`.

    Args:
        saver: holds the threads.
        older_than: only checkpoints written longer ago than this may go.
        keep_last: keep each thread's newest this many checkpoints.
        thread_ids: prune these threads only (default: every thread).
        batch_size: rows one update or delete statement touches at most.
        rebuild: the encoded state at a checkpoint; given, snapshots are rebuilt and
            only the checkpoints asked for stay (:func:`plan_rebuild`), else ancestors
            stay (:func:`plan_prune`).
    """
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    _kept([], older_than=older_than, keep_last=keep_last, now=None)  # checks the options
    now = time.time()
    removed = ancestors = 0
    for thread_id in list(saver.threads() if thread_ids is None else thread_ids):
        try:
            with saver.thread_lock(thread_id):
                gone, kept = _prune_thread(
                    saver, thread_id, older_than, keep_last, now, batch_size, rebuild
                )
        except CheckpointConflictError:
            continue  # a run holds it and the saver does not wait: prune it next time
        removed, ancestors = removed + gone, ancestors + kept
    return PruneResult(removed, ancestors)


def _prune_thread(
    saver: PrunableSaver,
    thread_id: str,
    older_than: float | timedelta | None,
    keep_last: int | None,
    now: float,
    batch_size: int,
    rebuild: Rebuild | None,
) -> tuple[int, int]:
    """Checkpoints removed, and those kept only because kept ones rebuild from them."""
    rows = saver.history(thread_id)
    ancestors = 0
    if rebuild is None:
        seqs, ancestors = _plan_prune(rows, older_than=older_than, keep_last=keep_last, now=now)
    else:
        plan = plan_rebuild(rows, older_than=older_than, keep_last=keep_last, now=now)
        by_seq = {row.seq: row for row in rows}
        # Every state is read before anything changes: each one is read as it was.
        states = {seq: rebuild(by_seq[seq]) for seq in plan.snapshots}
        for seq, state in states.items():
            saver._set_snapshot(replace(by_seq[seq], snapshot=state, base_seq=seq, texts=None))
        for base, moved in plan.rebase.items():
            for start in range(0, len(moved), batch_size):
                saver._set_base(thread_id, moved[start : start + batch_size], base)
        seqs = plan.delete
    removed = 0
    for start in range(0, len(seqs), batch_size):
        removed += saver._delete_seqs(thread_id, seqs[start : start + batch_size])
    return removed, ancestors
