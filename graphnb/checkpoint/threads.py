"""Threads through a graph's state model: load a checkpoint as typed values, write the next.

:class:`Threads` binds a saver to a :class:`~graphnb.schema.StateSchema`. Loading follows
a checkpoint's parents back to the nearest snapshot, decodes it through the model, then
re-applies every later write through the reducers. Writing stores the step's writes, and a
whole snapshot when a load would otherwise read too many rows (``snapshot_every``, counted
in ``seq`` since the last snapshot, so forks count the rows of other branches) or too
heavy ones (writes outweighing three times the last snapshot), so that reading any
checkpoint stays close to the cost of reading its state once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from datetime import timedelta
from typing import Any, Generic, TypeVar

from pydantic import ConfigDict, TypeAdapter, ValidationError

from ..checkpoint_errors import (
    CheckpointLoadError,
    ThreadNotFoundError,
    ThreadRequiredError,
    UnstorableValueError,
)
from ..checkpoint_meta import CheckpointMeta, LoadedCheckpoint
from ..errors import GraphSetupError
from ..records import (
    Durability,
    Interrupt,
    Loaded,
    NewCheckpoint,
    StateSnapshot,
    StoredCheckpoint,
    is_child_thread,
)
from ..schema import StateSchema, WriteError
from .base import BaseSaver
from .prune import DEFAULT_PRUNE_BATCH, PruneResult, prune
from .rows import to_json
from .serde import (
    StoredValues,
    check_safe,
    encode_update,
    encode_values,
    find_type_marker,
    imports_on_load,
    unstorable_field,
    warn_dropped,
)

__all__ = ["DEFAULT_SNAPSHOT_EVERY", "ThreadWriter", "Threads"]

S = TypeVar("S")

DEFAULT_SNAPSHOT_EVERY = 50
"""A load reads at most this many rows: the ``seq`` distance from a snapshot."""
_SNAPSHOT_RATIO = 3.0

MAX_THREAD_ID = 255
"""The longest thread id every saver can store."""


_WRITES: TypeAdapter[list[tuple[str, dict[str, Any]]]] = TypeAdapter(
    list[tuple[str, dict[str, Any]]], config=ConfigDict(strict=False)
)


class Threads(Generic[S]):
    """Typed access to the threads a saver holds, for one state schema.

    This is what threaded runs call: it satisfies the engine's
    :class:`~graphnb.engine.store.ThreadStore` protocol (and its writer the
    :class:`~graphnb.engine.store.CheckpointWriter` one) without importing the engine.

    Args:
        saver: where the checkpoints live.
        schema: the graph's state schema, the only authority on what a stored value means.
        snapshot_every: store a whole snapshot at least once every this many checkpoints.
    """

    def __init__(
        self,
        saver: BaseSaver,
        schema: StateSchema[S],
        *,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
    ) -> None:
        if snapshot_every < 1:
            raise ValueError(f"snapshot_every must be at least 1, got {snapshot_every}")
        _refuse_importing_fields(schema)
        self.saver = saver
        self.schema = schema
        self.snapshot_every = snapshot_every

    # -- reading -----------------------------------------------------------------------

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> LoadedCheckpoint | None:
        """The thread's last checkpoint (or ``checkpoint_id``), or ``None`` if it has none.

        Raises:
            ThreadNotFoundError: ``checkpoint_id`` is not a checkpoint of the thread.
            CheckpointLoadError: the rows are corrupt or no longer fit the model.
            UnsafeCheckpointError: a row asks to construct a class.
        """
        _check_thread_id(thread_id)
        return self.position(self.saver.load(thread_id, checkpoint_id), thread_id, checkpoint_id)

    async def aload(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> LoadedCheckpoint | None:
        """Async :meth:`load`."""
        _check_thread_id(thread_id)
        loaded = await self.saver.aload(thread_id, checkpoint_id)
        return self.position(loaded, thread_id, checkpoint_id)

    def thread_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold the thread's lock for a run; see :meth:`BaseSaver.thread_lock`."""
        _check_thread_id(thread_id)
        return self.saver.thread_lock(thread_id)

    def athread_lock(self, thread_id: str) -> AbstractAsyncContextManager[None]:
        """Async :meth:`thread_lock`."""
        _check_thread_id(thread_id)
        return self.saver.athread_lock(thread_id)

    def position(
        self, loaded: Loaded | None, thread_id: str, checkpoint_id: str | None
    ) -> LoadedCheckpoint | None:
        """Decode what a saver's ``load`` returned."""
        if loaded is None:
            if checkpoint_id is not None:
                raise ThreadNotFoundError(
                    f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}",
                    thread_id=thread_id,
                    checkpoint_id=checkpoint_id,
                )
            return None
        chain = _chain(loaded.rows, loaded.target)
        dropped: set[str] = set()
        values: dict[str, Any] = {}
        position: LoadedCheckpoint | None = None
        for row in chain:
            meta = _read(row)
            if row.snapshot is not None:
                values = self._values_at(row, dropped)
                size = len(json.dumps(row.snapshot, separators=(",", ":")))
                position = LoadedCheckpoint(row, meta, values, loaded.head_seq, 0, size)
            else:
                self._replay(values, row, dropped)
                assert position is not None  # the chain starts at a snapshot
                position.row, position.meta = row, meta
                position.delta_bytes += len(json.dumps(row.writes, separators=(",", ":")))
        assert position is not None
        warn_dropped(
            self.schema, dropped, thread_id=thread_id, checkpoint_id=position.row.checkpoint_id
        )
        return position

    def _values_at(self, row: StoredCheckpoint, dropped: set[str]) -> dict[str, Any]:
        """The state ``row``'s snapshot holds, decoded through the model."""
        stored = StoredValues(self.schema, row.thread_id, row.checkpoint_id, dropped)
        return stored.snapshot(row.snapshot or {})

    def _replay(self, values: dict[str, Any], row: StoredCheckpoint, dropped: set[str]) -> None:
        stored = StoredValues(self.schema, row.thread_id, row.checkpoint_id, dropped)
        for node, update in _writes(row):
            try:
                self.schema.apply(values, stored.update(update))
            except (WriteError, TypeError, ValueError) as error:
                raise CheckpointLoadError(
                    f"the write of `{node}` in checkpoint {row.checkpoint_id!r} of thread "
                    f"{row.thread_id!r} no longer merges into the state: {error}",
                    thread_id=row.thread_id,
                    checkpoint_id=row.checkpoint_id,
                    field=getattr(error, "field", None),
                ) from None

    def pending(self, position: LoadedCheckpoint) -> list[tuple[str, dict[str, Any]]]:
        """Updates of the nodes that finished in an interrupted step, decoded.

        They are merged when the step completes on resume; those nodes do not run again.
        """
        return self._decoded(position, position.meta.pending, "pending writes")

    def sends(self, position: LoadedCheckpoint) -> list[tuple[str, dict[str, Any]]]:
        """The Send items the next step runs (target node, payload), decoded."""
        return self._decoded(position, position.meta.sends, "sends")

    def _decoded(
        self, position: LoadedCheckpoint, entries: list[list[Any]], what: str
    ) -> list[tuple[str, dict[str, Any]]]:
        row = position.row
        try:
            stored = _WRITES.validate_python(entries)
        except ValidationError:
            raise CheckpointLoadError(
                f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} has malformed "
                f"{what}: expected [[node, {{field: value}}], ...]",
                thread_id=row.thread_id,
                checkpoint_id=row.checkpoint_id,
            ) from None
        values = StoredValues(self.schema, row.thread_id, row.checkpoint_id)
        return [(node, values.update(update)) for node, update in stored]

    def snapshot(self, position: LoadedCheckpoint) -> StateSnapshot[S]:
        """The user's view of a loaded checkpoint."""
        row, meta = position.row, position.meta
        return StateSnapshot(
            values=self.schema.view(position.values),
            next=_next_tasks(meta.next, meta.sends),
            thread_id=row.thread_id,
            checkpoint_id=row.checkpoint_id,
            parent_id=row.parent_id,
            step=row.step,
            source=row.source,
            ran=tuple(meta.ran),
            writes=tuple((node, dict(update)) for node, update in _writes(row)),
            interrupts=position.interrupts,
            metadata=dict(meta.metadata),
            created_at=row.created_at,
            error=dict(meta.error) if meta.error is not None else None,
        )

    def history(self, thread_id: str, *, limit: int | None = None) -> list[StateSnapshot[S]]:
        """Every checkpoint of the thread, newest first (at most ``limit``)."""
        _check_thread_id(thread_id)
        return self._history(self.saver.history(thread_id), thread_id, limit)

    async def ahistory(self, thread_id: str, *, limit: int | None = None) -> list[StateSnapshot[S]]:
        """Async :meth:`history`."""
        _check_thread_id(thread_id)
        return self._history(await self.saver.ahistory(thread_id), thread_id, limit)

    def history_page(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StateSnapshot[S]]:
        """The ``limit`` checkpoints written before ``before`` (or the head), newest first.

        Reads only the page and the rows its states rebuild from
        (:meth:`BaseSaver.history_rows`), so the cost does not grow with the thread.

        Raises:
            ValueError: ``limit`` is not a positive int, or ``before`` is not a checkpoint
                of the thread.
        """
        _check_thread_id(thread_id)
        rows = self.saver.history_rows(thread_id, limit=limit, before=before)
        return self._page(rows, thread_id, limit)

    async def ahistory_page(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StateSnapshot[S]]:
        """Async :meth:`history_page`."""
        _check_thread_id(thread_id)
        rows = await self.saver.ahistory_rows(thread_id, limit=limit, before=before)
        return self._page(rows, thread_id, limit)

    def _page(
        self, rows: list[StoredCheckpoint], thread_id: str, limit: int
    ) -> list[StateSnapshot[S]]:
        # Each page row's state is its chain's, memoised: rows of other branches in the
        # range are decoded only when a page row continues from them.
        by_seq = {row.seq: row for row in rows}
        states: dict[int, dict[str, Any]] = {}
        dropped: set[str] = set()

        def state(row: StoredCheckpoint) -> dict[str, Any]:
            chain = []
            while row.seq not in states and row.snapshot is None:
                chain.append(row)
                row = _parent(row, by_seq)
            if row.seq not in states:
                states[row.seq] = self._values_at(row, dropped)
            values = states[row.seq]
            for link in reversed(chain):
                values = dict(values)
                self._replay(values, link, dropped)
                states[link.seq] = values
            return values

        page = rows[-limit:]
        head = page[-1].seq if page else -1
        out = [self.snapshot(LoadedCheckpoint(row, _read(row), state(row), head)) for row in page]
        if page:
            warn_dropped(
                self.schema, dropped, thread_id=thread_id, checkpoint_id=page[-1].checkpoint_id
            )
        out.reverse()
        return out

    def delete(self, thread_id: str) -> int:
        """Delete a thread's checkpoints and its subgraphs' threads; returns how many.

        A subgraph node's child runs on a thread named after its parent's
        (:func:`~graphnb.records.child_thread`): it goes with the parent, at every depth.
        """
        _check_thread_id(thread_id)
        return sum(self.saver.delete_thread(name) for name in self._family(thread_id))

    def _family(self, thread_id: str) -> list[str]:
        """``thread_id`` and its subgraphs' threads, at every depth: the thread first."""
        return [thread_id] + [
            child
            for child in self.saver.threads()
            if child.startswith(thread_id + "|") and is_child_thread(child)
        ]

    def copy(self, thread_id: str, new_id: str) -> int:
        """Copy a thread's checkpoints, its subgraphs' threads too, to ``new_id``.

        Every checkpoint keeps its id, parent, step and time, so the copy's history and
        forks are the original's; it runs on from there on its own. Returns how many
        checkpoints were copied (0: the thread has none, and nothing is written).

        Raises:
            CheckpointConflictError: ``new_id`` already has checkpoints.
        """
        _check_thread_id(thread_id)
        _check_thread_id(new_id)
        saver = self.saver
        copied = 0
        for name in self._family(thread_id):
            rows = saver.history(name)
            target = new_id + name[len(thread_id) :]
            saver.put_many([dataclasses.replace(row, thread_id=target) for row in rows])
            copied += len(rows)
        return copied

    def drop_since(self, thread_id: str, since: float) -> int:
        """Delete the thread's checkpoints written at ``since`` or later, its subgraphs' too.

        A rolled-back run's checkpoints go this way (``graphnb serve``'s multitask
        strategy ``rollback``): the thread is left where it was before the run. Returns
        how many were deleted.
        """
        _check_thread_id(thread_id)
        saver = self.saver
        dropped = 0
        for name in self._family(thread_id):
            seqs = [row.seq for row in saver.history(name) if row.created_at >= since]
            if seqs:
                dropped += saver._delete_seqs(name, seqs)
        return dropped

    def _history(
        self, rows: list[StoredCheckpoint], thread_id: str, limit: int | None
    ) -> list[StateSnapshot[S]]:
        # Rebuild every state in one pass: a child starts from its parent's values.
        states: dict[int, dict[str, Any]] = {}
        out: list[StateSnapshot[S]] = []
        dropped: set[str] = set()
        for row in rows:
            meta = _read(row)
            if row.snapshot is not None:
                values = self._values_at(row, dropped)
            else:
                parent = states.get(row.parent_seq) if row.parent_seq is not None else None
                if parent is None:
                    raise _broken(row)
                values = dict(parent)
                self._replay(values, row, dropped)
            states[row.seq] = values
            out.append(self.snapshot(LoadedCheckpoint(row, meta, values, rows[-1].seq)))
        if rows:
            warn_dropped(
                self.schema, dropped, thread_id=thread_id, checkpoint_id=rows[-1].checkpoint_id
            )
        out.reverse()
        return out if limit is None else out[:limit]

    # -- pruning -----------------------------------------------------------------------

    def prune(
        self,
        *,
        older_than: float | timedelta | None = None,
        keep_last: int | None = None,
        thread_ids: Iterable[str] | None = None,
        batch_size: int = DEFAULT_PRUNE_BATCH,
    ) -> PruneResult:
        """Remove old checkpoints, rebuilding snapshots so only those asked for stay.

        As :meth:`BaseSaver.prune`, but a kept checkpoint whose ancestors go gets a
        snapshot of its state first, so none of them has to stay (see
        :mod:`graphnb.checkpoint.prune`). Every kept checkpoint loads exactly as before.

        Returns:
            How many checkpoints were removed.

        Raises:
            ValueError: neither ``older_than`` nor ``keep_last`` is given, or one is out
                of range.
        """
        ids = list(self.saver.threads() if thread_ids is None else thread_ids)
        # A subgraph's own thread holds its child's state model, not this one: it keeps
        # the ancestors its kept checkpoints rebuild from rather than be rebuilt wrongly.
        children = [t for t in ids if is_child_thread(t)]
        options: dict[str, Any] = {
            "older_than": older_than,
            "keep_last": keep_last,
            "batch_size": batch_size,
        }
        own = prune(
            self.saver,
            thread_ids=[t for t in ids if not is_child_thread(t)],
            rebuild=self._state_at,
            **options,
        )
        if not children:
            return own
        theirs = prune(self.saver, thread_ids=children, **options)
        return PruneResult(own + theirs, own.kept_ancestors + theirs.kept_ancestors)

    def _state_at(self, row: StoredCheckpoint) -> dict[str, Any]:
        position = self.load(row.thread_id, row.checkpoint_id)
        assert position is not None  # the row was just read
        return encode_values(self.schema, position.values)

    # -- writing -----------------------------------------------------------------------

    def writer(
        self,
        thread_id: str,
        position: LoadedCheckpoint | None,
        *,
        metadata: Mapping[str, Any] | None,
        durability: Durability = "sync",
    ) -> ThreadWriter:
        """A writer appending to ``thread_id`` after ``position`` (``None``: a new thread)."""
        return ThreadWriter(self, thread_id, position, dict(metadata or {}), durability)


class ThreadWriter:
    """Appends checkpoints to one thread, each a child of the one before.

    The first write continues from the loaded position; it must take the seq after the
    thread's head as it was read, so a concurrent writer makes it fail with
    :class:`~graphnb.checkpoint.CheckpointConflictError` instead of interleaving.

    Its durability (:data:`~graphnb.records.Durability`) says when rows reach the saver.
    Under ``"async"`` a row is encoded (and its id known) at once and stored by one
    background worker, in order; after a failed write the later ones are not attempted,
    so the thread never holds a row whose parent is missing. Under ``"exit"`` each row
    replaces the one held before it, as a whole-state snapshot child of the loaded
    position, and :meth:`flush` stores the last: one row per run.
    """

    def __init__(
        self,
        threads: Threads[Any],
        thread_id: str,
        position: LoadedCheckpoint | None,
        metadata: dict[str, Any],
        durability: Durability = "sync",
    ) -> None:
        self.durability = durability
        self._held: StoredCheckpoint | None = None  # "exit": the row flush() stores
        self._worker: ThreadPoolExecutor | None = None  # "async", sync runs
        self._stored: list[Future[None]] = []
        self._queued: list[StoredCheckpoint] = []  # rows the worker has not taken yet
        self._queue_lock = threading.Lock()
        self._task: asyncio.Future[None] | None = None  # "async", async runs
        self._failed: BaseException | None = None
        self.threads = threads
        self.schema = threads.schema
        self.saver = threads.saver
        self.thread_id = thread_id
        self.metadata = metadata
        self.last: StoredCheckpoint | None = None
        self._sizes = (0, 0)  # JSON sizes of the last row's writes and snapshot
        if position is None:
            self.head_seq = -1
            self.parent: StoredCheckpoint | None = None
            self.base_seq = 0
            self.delta_bytes = self.snapshot_bytes = 0
        else:
            self.head_seq = position.head_seq
            self.parent = position.row
            self.base_seq = position.row.base_seq
            self.delta_bytes = position.delta_bytes
            self.snapshot_bytes = position.snapshot_bytes

    def row(self, checkpoint: NewCheckpoint, *, snapshot: bool = False) -> StoredCheckpoint:
        """Encode the next checkpoint (nothing is stored yet).

        Raises:
            UnstorableValueError: a value cannot be stored as JSON; names the field.
        """
        schema = self.schema
        encoded = [[node, encode_update(schema, update)] for node, update in checkpoint.writes]
        writes_text = _json_text(encoded, self.thread_id)
        size = len(writes_text)
        seq = self.head_seq + 1
        parent = self.parent
        take = (
            snapshot
            or parent is None
            # The distance in seq, not the chain's length: a fork from an old checkpoint
            # would otherwise make every load read all the rows written since its base.
            or seq - self.base_seq >= self.threads.snapshot_every
            or self.delta_bytes + size > _SNAPSHOT_RATIO * max(self.snapshot_bytes, 256)
        )
        snap = encode_values(schema, checkpoint.values) if take else None
        snap_text = _json_text(snap, self.thread_id) if snap is not None else None
        self._sizes = (size, len(snap_text) if snap_text is not None else 0)
        meta: dict[str, Any] = {"ran": list(checkpoint.ran), "next": list(checkpoint.next)}
        if checkpoint.sends:
            meta["sends"] = [[n, encode_update(schema, sent)] for n, sent in checkpoint.sends]
            _json_text(meta["sends"], self.thread_id)  # a bad payload names its field
        if checkpoint.joins:
            meta["joins"] = {target: sorted(seen) for target, seen in checkpoint.joins.items()}
        if checkpoint.deferred:
            meta["deferred"] = sorted(checkpoint.deferred)
        if checkpoint.interrupts:
            meta["interrupts"] = [
                _jsonable_interrupt(i, self.thread_id) for i in checkpoint.interrupts
            ]
        if checkpoint.resumes:
            meta["resumes"] = _stored_answers(checkpoint.resumes, self.thread_id)
        if checkpoint.pending:
            meta["pending"] = [[n, encode_update(schema, u)] for n, u in checkpoint.pending]
            _json_text(meta["pending"], self.thread_id)
        if checkpoint.start_at is not None:
            meta["start_at"] = list(checkpoint.start_at)
        if self.metadata:
            meta["metadata"] = self.metadata
        if checkpoint.error is not None:
            meta["error"] = dict(checkpoint.error)
        return StoredCheckpoint(
            thread_id=self.thread_id,
            seq=seq,
            checkpoint_id=os.urandom(16).hex(),
            parent_id=parent.checkpoint_id if parent is not None else None,
            parent_seq=parent.seq if parent is not None else None,
            base_seq=seq if snap is not None else self.base_seq,
            step=checkpoint.step,
            source=checkpoint.source,
            created_at=time.time(),
            meta=meta,
            writes=encoded,
            snapshot=snap,
            texts=(writes_text, snap_text),
        )

    def advance(self, row: StoredCheckpoint) -> None:
        """Record that ``row`` was stored: the next write is its child."""
        writes_bytes, snapshot_bytes = self._sizes
        if row.snapshot is not None:
            self.delta_bytes, self.snapshot_bytes = 0, snapshot_bytes
        else:
            self.delta_bytes += writes_bytes
        self.head_seq, self.parent, self.base_seq, self.last = row.seq, row, row.base_seq, row

    def put(self, checkpoint: NewCheckpoint) -> StoredCheckpoint:
        """Encode and store the next checkpoint, as the writer's durability says.

        Under ``"exit"`` durability it is held for :meth:`flush` unless ``checkpoint.keep``.
        """
        row, held = self._next(checkpoint)
        if held:
            return row
        if self.durability == "async":
            with self._queue_lock:
                self._queued.append(row)
                idle = len(self._queued) == 1  # else a drain in flight takes it too
            if idle:
                if self._worker is None:
                    self._worker = ThreadPoolExecutor(1, thread_name_prefix="graphnb-checkpoints")
                self._stored.append(self._worker.submit(self._drain))
        else:
            self.saver.put(row)
        self.advance(row)
        return row

    async def aput(self, checkpoint: NewCheckpoint) -> StoredCheckpoint:
        """Async :meth:`put`."""
        row, held = self._next(checkpoint)
        if held:
            return row
        if self.durability == "async":
            self._task = asyncio.ensure_future(self._astore(self._task, row))
        else:
            await self.saver.aput(row)
        self.advance(row)
        return row

    def flush(self) -> None:
        """Store the held row, wait for the rows in flight; raise the first write's error."""
        held, self._held = self._held, None
        if held is not None:
            self.saver.put(held)
            self.advance(held)
        stored, self._stored = self._stored, []
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None
        for future in stored:
            future.result()

    async def aflush(self) -> None:
        """Async :meth:`flush`."""
        held, self._held = self._held, None
        if held is not None:
            await self.saver.aput(held)
            self.advance(held)
        task, self._task = self._task, None
        if task is not None:
            await task
        if self._stored:  # a sync put in an async run (a saver used from both)
            await asyncio.to_thread(self.flush)

    def abandon(self) -> None:
        """Let the rows in flight land; drop the held one (the run ended without a word)."""
        self._held = None
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None

    def _next(self, checkpoint: NewCheckpoint) -> tuple[StoredCheckpoint, bool]:
        """The row :meth:`put` stores, and whether it is held for :meth:`flush` instead.

        Under ``"exit"`` durability every row is a whole snapshot, held unless ``keep``.
        """
        if self.durability != "exit":
            return self.row(checkpoint), False
        row = self.row(checkpoint, snapshot=True)
        if not checkpoint.keep:
            # Not advanced: the next row is again the loaded position's child, replacing this.
            self._held = self.last = row
            return row, True
        self._held = None
        return row, False

    def _drain(self) -> None:
        """Store the queued rows, those queued behind a slow commit in one transaction."""
        while True:
            with self._queue_lock:
                rows = self._queued[:]
                if not rows or self._failed is not None:
                    self._queued = []
                    failed = self._failed
                    break
            try:
                self.saver.put_many(rows)
            except BaseException as error:
                with self._queue_lock:
                    self._failed, self._queued = error, []
                raise
            with self._queue_lock:
                del self._queued[: len(rows)]
        if failed is not None:  # their parents were not stored: neither are they
            raise failed

    async def _astore(self, before: asyncio.Future[None] | None, row: StoredCheckpoint) -> None:
        if before is not None:
            await before  # in order; a failed parent fails this one too
        await self.saver.aput(row)


def _json_text(encoded: Any, thread_id: str) -> str:
    """Encoded writes (``[[node, update], ...]``) or a snapshot as JSON text.

    The row keeps the text: its length decides when to snapshot, and savers store it.

    Raises:
        UnstorableValueError: a field holds what JSON cannot (NaN, a huge int ...).
    """
    try:
        return to_json(encoded)
    except (ValueError, RecursionError):
        # Only now look for the field to blame, so that writes that store pay nothing for it.
        raise unstorable_field(encoded, thread_id) from None


def _check_thread_id(thread_id: object) -> None:
    # NUL and lone surrogates are refused everywhere: PostgreSQL's text cannot hold NUL,
    # and SQLite's driver cannot encode a surrogate, so such an id would work in one saver
    # and fail in another.
    if not (
        isinstance(thread_id, str)
        and 0 < len(thread_id) <= MAX_THREAD_ID
        and "\x00" not in thread_id
        and _encodable(thread_id)
    ):
        raise ThreadRequiredError(
            f"a thread_id is a non-empty string of at most {MAX_THREAD_ID} characters, "
            f"without NUL characters or lone surrogates, got {thread_id!r:.80}"
        )


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _refuse_importing_fields(schema: StateSchema[Any]) -> None:
    """Refuse fields whose validation imports what the data names (``ImportString``).

    Loading such a field from a stored row would import whatever the row says, which is
    exactly what persistence must never do.
    """
    importing = [name for name, field in schema.fields.items() if imports_on_load(field)]
    if importing:
        names = ", ".join(f"{name!r}" for name in importing)
        raise GraphSetupError(
            f"{schema.label} cannot be checkpointed: field(s) {names} use ImportString, whose "
            "validation imports the object a stored value names; store the dotted name as "
            "a str and resolve it in a node instead"
        )


def _jsonable_interrupt(interrupt: Interrupt, thread_id: str) -> dict[str, Any]:
    from pydantic_core import PydanticSerializationError, to_jsonable_python

    try:
        value = to_jsonable_python(interrupt.value)
    except (PydanticSerializationError, TypeError, ValueError, RecursionError) as error:
        if isinstance(error, RecursionError) or "depth exceeded" in str(error):
            error = ValueError("it is nested too deeply")
        raise UnstorableValueError(
            f"the value `{interrupt.node}` passed to interrupt() cannot be stored as JSON "
            f"({error})",
            field="interrupt",
            thread_id=thread_id,
        ) from None
    _refuse_marker(
        value, f"the value node `{interrupt.node}` passed to interrupt()", "interrupt", thread_id
    )
    return {**interrupt.to_json(), "value": value}


def _stored_answers(resumes: Mapping[str, Sequence[Any]], thread_id: str) -> dict[str, list[Any]]:
    """Each node's answers to its ``interrupt()`` calls, as the ``meta`` column holds them."""
    for node, answers in resumes.items():
        for answer in answers:
            _refuse_marker(
                answer, f"the answer to `{node}` (Command(resume=...))", "resume", thread_id
            )
    return {node: list(answers) for node, answers in resumes.items()}


def _refuse_marker(value: Any, what: str, field: str, thread_id: str) -> None:
    """Refuse a value holding a key readers take for a forged class reference.

    Stored, it would make every later read of the thread raise UnsafeCheckpointError.
    """
    marker = find_type_marker(value)
    if marker is not None:
        raise UnstorableValueError(
            f"{what} holds a dict with the key {marker}, which graphnb reserves to recognize "
            "forged class references; rename that key",
            field=field,
            thread_id=thread_id,
        )


def _read(row: StoredCheckpoint) -> CheckpointMeta:
    where = {"thread_id": row.thread_id, "checkpoint_id": row.checkpoint_id}
    check_safe(row.meta, part="meta", **where)
    check_safe(row.writes, part="writes", **where)
    if row.snapshot is not None:
        check_safe(row.snapshot, part="snapshot", **where)
        if not isinstance(row.snapshot, dict):
            raise CheckpointLoadError(
                f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} has a malformed "
                f"snapshot column: expected a JSON object of fields, got {row.snapshot!r:.60}",
                **where,
            )
    try:
        return CheckpointMeta.model_validate(row.meta)
    except ValidationError as error:
        raise CheckpointLoadError(
            f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} has a malformed "
            f"meta column: {error.errors(include_url=False)[0]['msg']} at "
            f"{error.errors(include_url=False)[0]['loc']}",
            **where,
        ) from None


def _writes(row: StoredCheckpoint) -> list[tuple[str, dict[str, Any]]]:
    try:
        return _WRITES.validate_python(row.writes)
    except ValidationError:
        raise CheckpointLoadError(
            f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} has a malformed "
            "writes column: expected [[node, {field: value}], ...]",
            thread_id=row.thread_id,
            checkpoint_id=row.checkpoint_id,
        ) from None


def _broken(row: StoredCheckpoint, why: str = "which is missing") -> CheckpointLoadError:
    return CheckpointLoadError(
        f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} continues from "
        f"#{row.parent_seq}, {why}; the thread's rows are damaged",
        thread_id=row.thread_id,
        checkpoint_id=row.checkpoint_id,
    )


def _parent(row: StoredCheckpoint, by_seq: Mapping[int, StoredCheckpoint]) -> StoredCheckpoint:
    """The checkpoint ``row`` continues from, among ``by_seq``.

    A parent is always written before its children, so its seq is lower: walking parents
    always ends, even on rows forged to point at themselves or at each other.
    """
    parent = by_seq.get(row.parent_seq) if row.parent_seq is not None else None
    if parent is None:
        raise _broken(row)
    if parent.seq >= row.seq:
        raise _broken(row, f"which is not older than it (#{row.seq})")
    return parent


def _chain(rows: list[StoredCheckpoint], target: StoredCheckpoint) -> list[StoredCheckpoint]:
    by_seq = {row.seq: row for row in rows}
    chain = [target]
    row = target
    while row.snapshot is None:
        row = _parent(row, by_seq)
        chain.append(row)
    chain.reverse()
    return chain


def _next_tasks(plain: Sequence[str], sends: Sequence[Any]) -> tuple[str, ...]:
    """A snapshot's ``next``: one name per pending Send packet, then the plain next nodes.

    As LangGraph's ``StateSnapshot.next``: a map-reduce step waiting on three packets to
    ``joke`` names ``joke`` three times, in the order the packets were sent.
    """
    return (*(str(send[0]) for send in sends if send), *dict.fromkeys(plain))
