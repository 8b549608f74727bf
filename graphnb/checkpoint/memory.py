"""Checkpoints in this process's memory: for tests, notebooks and short-lived threads."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import NamedTuple

from ..checkpoint_errors import CheckpointConflictError
from ..records import StoredCheckpoint
from .base import BaseSaver, Loaded, check_history_limit
from .locks import DEFAULT_LOCK_TIMEOUT, OnBusy
from .rows import check_row, parse_json, row_json

__all__ = ["MemorySaver"]


class _Kept(NamedTuple):
    """A stored checkpoint: its record with the JSON columns emptied, and them as text.

    Nothing of the record given to :meth:`MemorySaver.put` is kept, so changing that
    record afterwards changes nothing stored, and no object of its state stays alive.
    """

    row: StoredCheckpoint
    meta: str
    writes: str
    snapshot: str | None


class MemorySaver(BaseSaver):
    """Keeps checkpoints in a dict, as JSON text, so what is read back is a fresh copy.

    Args:
        on_busy_thread: what a run does when another run of this process holds its
            thread: ``"wait"`` for it (up to ``lock_timeout`` seconds) or ``"fail"`` at
            once with :class:`~graphnb.checkpoint.CheckpointConflictError`.
        lock_timeout: seconds a run waits for its thread.

    Example:
        >>> from graphnb.checkpoint import MemorySaver
        >>> saver = MemorySaver()
        >>> saver.threads()
        []
    """

    def __init__(
        self, *, on_busy_thread: OnBusy = "wait", lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> None:
        self._set_lock_options(on_busy_thread, lock_timeout)
        self._threads: dict[str, dict[int, _Kept]] = {}
        self._seqs: dict[str, dict[str, int]] = {}  # each thread's checkpoint ids -> seq
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, float | None]] = {}

    def put(self, row: StoredCheckpoint) -> None:
        """Store one checkpoint; see :meth:`BaseSaver.put`."""
        check_row(row)
        thread_id, seq, checkpoint_id = row.thread_id, row.seq, row.checkpoint_id
        kept = _Kept(row.with_columns({}, [], None), *row_json(row))
        with self._lock:
            rows = self._threads.setdefault(thread_id, {})
            seqs = self._seqs.setdefault(thread_id, {})
            if seq in rows or checkpoint_id in seqs:
                raise CheckpointConflictError.taken(thread_id, seq)
            rows[seq] = kept
            seqs[checkpoint_id] = seq

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """See :meth:`BaseSaver.load`."""
        with self._lock:
            rows = self._threads.get(thread_id)
            if not rows:
                return None
            if checkpoint_id is None:
                target = rows[max(rows)]
            else:
                seq = self._seqs[thread_id].get(checkpoint_id)
                if seq is None:
                    return None
                target = rows[seq]
            chain = [
                _copy(rows[seq])
                for seq in range(target.row.base_seq, target.row.seq + 1)
                if seq in rows  # a row another tool deleted: the reader reports the gap
            ]
            return Loaded(chain, max(rows))

    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.history`."""
        with self._lock:
            rows = self._threads.get(thread_id, {})
            return [_copy(rows[seq]) for seq in sorted(rows)]

    def history_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.history_rows`; copies only the rows it returns."""
        check_history_limit(limit)
        with self._lock:
            rows = self._threads.get(thread_id, {})
            end = None
            if before is not None:
                end = self._seqs.get(thread_id, {}).get(before)
                if end is None:
                    raise ValueError(
                        f"history(before=...) names no checkpoint of thread {thread_id!r}: "
                        f"{before!r:.80}"
                    )
            seqs = sorted(seq for seq in rows if end is None or seq < end)
            page = seqs[-limit:]
            if not page:
                return []
            low = min(rows[seq].row.base_seq for seq in page)
            return [_copy(rows[seq]) for seq in seqs if seq >= low]

    def threads(self) -> list[str]:
        """See :meth:`BaseSaver.threads`."""
        with self._lock:
            return sorted(thread for thread, rows in self._threads.items() if rows)

    def heads(self) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.heads`."""
        with self._lock:
            return [_copy(rows[max(rows)]) for rows in self._threads.values() if rows]

    def delete_thread(self, thread_id: str) -> int:
        """See :meth:`BaseSaver.delete_thread`."""
        with self._lock:
            self._seqs.pop(thread_id, None)
            return len(self._threads.pop(thread_id, {}))

    def _delete_seqs(self, thread_id: str, seqs: Sequence[int]) -> int:
        """See :meth:`BaseSaver._delete_seqs`."""
        with self._lock:
            rows = self._threads.get(thread_id, {})
            ids = self._seqs.get(thread_id, {})
            removed = 0
            for seq in seqs:
                kept = rows.pop(seq, None)
                if kept is not None:
                    ids.pop(kept.row.checkpoint_id, None)
                    removed += 1
            return removed

    def _set_snapshot(self, row: StoredCheckpoint) -> None:
        """See :meth:`BaseSaver._set_snapshot`."""
        _, _, snapshot = row_json(row)
        with self._lock:
            rows = self._threads[row.thread_id]
            kept = rows[row.seq]  # its row is this saver's own: no reader holds it
            kept.row.base_seq = row.base_seq
            rows[row.seq] = kept._replace(snapshot=snapshot)

    def _set_base(self, thread_id: str, seqs: Sequence[int], base_seq: int) -> None:
        """See :meth:`BaseSaver._set_base`."""
        with self._lock:
            rows = self._threads[thread_id]
            for seq in seqs:
                rows[seq].row.base_seq = base_seq

    # -- node results (CachePolicy(store="saver")) -------------------------------------

    def cache_get(self, key: str) -> tuple[str, float | None] | None:
        """The cached node result under ``key`` (JSON text, expiry), or ``None``."""
        with self._lock:
            return self._cache.get(key)

    def cache_put(self, key: str, value: str, expires_at: float | None) -> None:
        """Store a node result (JSON text) under ``key`` until ``expires_at``."""
        with self._lock:
            self._cache[key] = (value, expires_at)

    def cache_delete(self, key: str) -> None:
        """Drop the node result under ``key``."""
        with self._lock:
            self._cache.pop(key, None)

    def cache_clear(self) -> int:
        """Drop every node result; returns how many there were."""
        with self._lock:
            count = len(self._cache)
            self._cache.clear()
            return count

    def cache_expire(self, now: float) -> int:
        """Drop the node results expired at ``now``; returns how many there were."""
        with self._lock:
            gone = [
                k
                for k, (_, expires) in self._cache.items()
                if expires is not None and expires <= now
            ]
            for key in gone:
                del self._cache[key]
            return len(gone)


def _copy(kept: _Kept) -> StoredCheckpoint:
    """A new record of ``kept``, its JSON parsed: what a reader may change freely."""
    where = {"thread_id": kept.row.thread_id, "checkpoint_id": kept.row.checkpoint_id}
    snapshot = kept.snapshot
    return kept.row.with_columns(
        parse_json(kept.meta, column="meta", **where),
        parse_json(kept.writes, column="writes", **where),
        None if snapshot is None else parse_json(snapshot, column="snapshot", **where),
    )
