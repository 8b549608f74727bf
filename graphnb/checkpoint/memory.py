"""Checkpoints in this process's memory: for tests, notebooks and short-lived threads."""

from __future__ import annotations

import json
import threading
from typing import Any

from ..checkpoint_errors import CheckpointConflictError
from ..records import StoredCheckpoint
from .base import BaseSaver, Loaded, row_texts

__all__ = ["MemorySaver"]

_Row = tuple[StoredCheckpoint, str, str, str | None]


class MemorySaver(BaseSaver):
    """Keeps checkpoints in a dict, as JSON text, so what is read back is a fresh copy.

    Example:
        >>> from graphnb.checkpoint import MemorySaver
        >>> saver = MemorySaver()
        >>> saver.threads()
        []
    """

    def __init__(self) -> None:
        self._threads: dict[str, dict[int, _Row]] = {}
        self._seqs: dict[str, dict[str, int]] = {}  # each thread's checkpoint ids -> seq
        self._lock = threading.Lock()

    def put(self, row: StoredCheckpoint) -> None:
        """Store one checkpoint; see :meth:`BaseSaver.put`."""
        stored: _Row = (row, *row_texts(row))
        with self._lock:
            rows = self._threads.setdefault(row.thread_id, {})
            seqs = self._seqs.setdefault(row.thread_id, {})
            if row.seq in rows or row.checkpoint_id in seqs:
                raise CheckpointConflictError.taken(row.thread_id, row.seq)
            rows[row.seq] = stored
            seqs[row.checkpoint_id] = row.seq

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """See :meth:`BaseSaver.load`."""
        with self._lock:
            rows = self._threads.get(thread_id)
            if not rows:
                return None
            if checkpoint_id is None:
                target = rows[max(rows)][0]
            else:
                seq = self._seqs[thread_id].get(checkpoint_id)
                if seq is None:
                    return None
                target = rows[seq][0]
            chain = [
                _copy(rows[seq])
                for seq in range(target.base_seq, target.seq + 1)
                if seq in rows  # a row another tool deleted: the reader reports the gap
            ]
            return Loaded(chain, max(rows))

    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.history`."""
        with self._lock:
            rows = self._threads.get(thread_id, {})
            return [_copy(rows[seq]) for seq in sorted(rows)]

    def threads(self) -> list[str]:
        """See :meth:`BaseSaver.threads`."""
        with self._lock:
            return sorted(thread for thread, rows in self._threads.items() if rows)

    def delete_thread(self, thread_id: str) -> int:
        """See :meth:`BaseSaver.delete_thread`."""
        with self._lock:
            self._seqs.pop(thread_id, None)
            return len(self._threads.pop(thread_id, {}))


def _copy(stored: Any) -> StoredCheckpoint:
    row, meta, writes, snapshot = stored
    return StoredCheckpoint(
        row.thread_id,
        row.seq,
        row.checkpoint_id,
        row.parent_id,
        row.parent_seq,
        row.base_seq,
        row.step,
        row.source,
        row.created_at,
        json.loads(meta),
        json.loads(writes),
        None if snapshot is None else json.loads(snapshot),
    )
