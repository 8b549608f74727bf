"""The saver interface: where checkpoints live.

A saver stores :class:`~graphnb.checkpoint.StoredCheckpoint` rows, plain JSON-compatible
data; it knows nothing of state models. Reading a thread back into typed values is the job
of :class:`~graphnb.checkpoint.Threads`, the same for every saver.

Every method has an async twin (``aput``, ``aload`` ...). The defaults run the sync method
in a worker thread (``asyncio.to_thread``), which suits drivers that are sync only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Self, TypeVar

from ..records import Loaded, StoredCheckpoint
from .locks import DEFAULT_LOCK_TIMEOUT, LocalLocks, OnBusy, busy_error, check_lock_options

if TYPE_CHECKING:
    import asyncio

    from .prune import PruneResult

__all__ = ["BaseSaver", "Loaded"]

T = TypeVar("T")


class BaseSaver(ABC):
    """Stores and lists the checkpoints of threads.

    A write names the ``seq`` it takes; a saver refuses a ``seq`` already taken in that
    thread with :class:`~graphnb.checkpoint.CheckpointConflictError`, which is how two
    writers extending the same thread are kept from interleaving.

    A run also holds its thread's lock (:meth:`thread_lock`) from loading the thread to
    its end, so a second run on the same thread waits for it (``on_busy_thread="wait"``,
    up to ``lock_timeout`` seconds) or is refused at once (``"fail"``); see
    :mod:`graphnb.checkpoint.locks`.
    """

    #: what a run does when another run holds its thread: ``"wait"`` or ``"fail"``
    on_busy_thread: OnBusy = "wait"
    #: seconds a run waits for its thread's lock before failing
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT

    def _set_lock_options(self, on_busy_thread: object, lock_timeout: object) -> None:
        self.on_busy_thread, self.lock_timeout = check_lock_options(on_busy_thread, lock_timeout)

    # -- thread locks ------------------------------------------------------------------

    @contextmanager
    def thread_lock(self, thread_id: str) -> Iterator[None]:
        """Hold ``thread_id``'s lock: no other run (thread, process, machine) advances it.

        Raises:
            CheckpointConflictError: another holder has it, and this saver fails at once
                (``on_busy_thread="fail"``) or waited ``lock_timeout`` seconds in vain.
        """
        held = self._acquire_thread(thread_id)
        try:
            yield
        finally:
            self._release_thread(held)

    @asynccontextmanager
    async def athread_lock(self, thread_id: str) -> AsyncIterator[None]:
        """Async :meth:`thread_lock`: the wait happens in a worker thread, not on the loop."""
        from ..checkpoint_errors import CheckpointConflictError

        try:
            held = await self._aacquire(thread_id)
        except CheckpointConflictError:
            if self.on_busy_thread != "fail":
                raise
            # An async stream left before its end releases its thread only once the event
            # loop has closed its generators, a few turns later: let those turns run
            # before telling a run of this process that its thread is busy.
            for _ in range(_CLOSING_TURNS):
                await _turn()
            held = await self._aacquire(thread_id)
        try:
            yield
        finally:
            self._release_thread(held)

    async def _aacquire(self, thread_id: str) -> Any:
        import asyncio

        task = asyncio.ensure_future(asyncio.to_thread(self._acquire_thread, thread_id))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(self._release_late)  # the worker may still get it
            raise

    def _release_late(self, task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and task.exception() is None:
            self._release_thread(task.result())

    def _acquire_thread(self, thread_id: str) -> Any:
        """Take ``thread_id``'s lock; returns what :meth:`_release_thread` needs.

        This default locks within the process, per saver: right for savers whose threads
        live in the process. Savers shared by processes override it.
        """
        locks: LocalLocks | None = self.__dict__.get("_local_locks")
        if locks is None:
            locks = self.__dict__.setdefault("_local_locks", LocalLocks())
        wait = self.on_busy_thread == "wait"
        if not locks.acquire(thread_id, wait=wait, timeout=self.lock_timeout):
            raise busy_error(thread_id, self.on_busy_thread, self.lock_timeout)
        return (locks, thread_id)

    def _release_thread(self, held: Any) -> None:
        """Release a lock :meth:`_acquire_thread` took."""
        locks, thread_id = held
        locks.release(thread_id)

    @abstractmethod
    def put(self, row: StoredCheckpoint) -> None:
        """Store one checkpoint, atomically.

        Raises:
            CheckpointConflictError: the thread already has a checkpoint at ``row.seq``.
            UnstorableValueError: the row's data is not JSON (nothing is stored).
        """

    def put_many(self, rows: Sequence[StoredCheckpoint]) -> None:
        """Store several checkpoints of one thread, in order, all or none.

        The background writer of ``durability="async"`` stores the checkpoints that
        queued behind a slow commit this way: one transaction for them all. This default
        stores them one by one; the SQL savers override it.
        """
        for row in rows:
            self.put(row)

    @abstractmethod
    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """The chain of the thread's last checkpoint (or of ``checkpoint_id``).

        Returns:
            ``None`` when the thread (or that checkpoint) does not exist.
        """

    @abstractmethod
    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """Every checkpoint of the thread, oldest first (empty when there is none)."""

    @abstractmethod
    def threads(self) -> list[str]:
        """The ids of every thread holding at least one checkpoint, sorted."""

    def heads(self) -> list[StoredCheckpoint]:
        """The last checkpoint of every thread, in no particular order.

        What a threads listing reads. The rows may carry no ``writes`` and no ``snapshot``
        (the SQL savers leave them out); ``meta``, ``step`` and ``created_at`` are whole.
        This default reads each thread in turn; savers answer it in one query.
        """
        found = (self.load(thread_id) for thread_id in self.threads())
        return [loaded.target for loaded in found if loaded is not None]

    def head_page(
        self, *, search: str | None = None, limit: int | None = None, after: str | None = None
    ) -> list[StoredCheckpoint]:
        """One page of :meth:`heads`, newest first (``created_at``, then ``thread_id``).

        Args:
            search: keep threads whose id contains this text, ignoring case.
            limit: at most this many rows; ``None`` for all.
            after: the ``thread_id`` of the last row of the previous page.

        Raises:
            ValueError: ``after`` names no thread.
        """
        heads = self.heads()
        if after is not None:
            stamps = [row.created_at for row in heads if row.thread_id == after]
            if not stamps:
                raise ValueError(f"threads(after=...) names no listed thread: {after!r:.80}")
            cursor = (-stamps[0], after)
            heads = [row for row in heads if (-row.created_at, row.thread_id) > cursor]
        if search:
            needle = search.lower()
            heads = [row for row in heads if needle in row.thread_id.lower()]
        heads.sort(key=lambda row: (-row.created_at, row.thread_id))
        return heads if limit is None else heads[:limit]

    def history_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """One page of a thread's history, and the rows its states are rebuilt from.

        The page is the ``limit`` newest checkpoints of the thread written before the
        checkpoint ``before`` names (before its head when ``None``). The rows come oldest
        first: every row from the lowest ``base_seq`` of the page up to its newest, so the
        page is the last ``limit`` of them (fewer at the thread's start), and each page
        row's chain back to a snapshot is among them. The SQL savers answer in two short
        reads of the primary key, whatever the thread's length; this default reads the
        whole history.

        Raises:
            ValueError: ``limit`` is not a positive int, or ``before`` is not a checkpoint
                of the thread.
        """
        check_history_limit(limit)
        rows = self.history(thread_id)
        return _page_rows(rows, thread_id, limit, before)

    async def ahistory_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """Async :meth:`history_rows`."""
        return await _to_thread(lambda: self.history_rows(thread_id, limit=limit, before=before))

    @abstractmethod
    def delete_thread(self, thread_id: str) -> int:
        """Delete every checkpoint of the thread; returns how many there were."""

    def prune(
        self,
        *,
        older_than: float | timedelta | None = None,
        keep_last: int | None = None,
        thread_ids: Iterable[str] | None = None,
        batch_size: int = 500,
    ) -> PruneResult:
        """Remove old checkpoints; every kept one still loads exactly as before.

        A checkpoint goes when it is older than ``older_than`` (seconds or a timedelta)
        and not among its thread's ``keep_last`` newest, unless a kept checkpoint is
        rebuilt from it (see :mod:`graphnb.checkpoint.prune`). A thread's newest
        checkpoint always stays. A saver knows no state model, so it cannot rebuild
        snapshots: :meth:`graphnb.checkpoint.Threads.prune` (``app.threads.prune``) can,
        and removes those ancestors too.

        Args:
            older_than: only checkpoints written longer ago than this may go.
            keep_last: keep each thread's newest this many checkpoints.
            thread_ids: prune these threads only (default: every thread).
            batch_size: rows one delete statement removes at most.

        Returns:
            How many checkpoints were removed: a
            :class:`~graphnb.checkpoint.prune.PruneResult` (an ``int``) whose
            ``kept_ancestors`` counts the old checkpoints kept because kept ones are
            rebuilt from them, and whose ``str()`` says so.

        Raises:
            ValueError: neither ``older_than`` nor ``keep_last`` is given, or one is out
                of range.
        """
        from .prune import prune

        return prune(
            self,
            older_than=older_than,
            keep_last=keep_last,
            thread_ids=thread_ids,
            batch_size=batch_size,
        )

    def _delete_seqs(self, thread_id: str, seqs: Sequence[int]) -> int:
        """Delete these checkpoints of one thread; returns how many there were."""
        raise NotImplementedError(f"{type(self).__name__} cannot delete single checkpoints")

    def _set_snapshot(self, row: StoredCheckpoint) -> None:
        """Store ``row.snapshot`` on the stored checkpoint ``row`` names, and its ``base_seq``.

        Pruning's snapshot rebuild: the row's other columns are left as they are.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot rebuild snapshots")

    def _set_base(self, thread_id: str, seqs: Sequence[int], base_seq: int) -> None:
        """Point these checkpoints of one thread at the snapshot of ``base_seq``."""
        raise NotImplementedError(f"{type(self).__name__} cannot rebuild snapshots")

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release connections; the saver reconnects if used again."""

    def reopen_args(self) -> tuple[str, dict[str, Any]] | None:
        """The URL and options that open this saver's database again, in another process.

        ``saver_from_url(url, **options)`` makes a saver on the same tables with the same
        settings: what a batch's workers do (see :mod:`graphnb.engine.batch`). ``None``
        for a saver whose threads live in this process.
        """
        return None

    # -- async twins -------------------------------------------------------------------

    async def aput(self, row: StoredCheckpoint) -> None:
        """Async :meth:`put`.

        Cancelled meanwhile, it still waits for the write to be stored or refused before
        the cancellation goes on: the worker thread cannot be stopped, and a run must not
        release its thread's lock while one of its writes may still land.
        """
        await _finish_in_thread(self.put, row)

    async def aload(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """Async :meth:`load`."""
        return await _to_thread(self.load, thread_id, checkpoint_id)

    async def ahistory(self, thread_id: str) -> list[StoredCheckpoint]:
        """Async :meth:`history`."""
        return await _to_thread(self.history, thread_id)

    async def athreads(self) -> list[str]:
        """Async :meth:`threads`."""
        return await _to_thread(self.threads)

    async def adelete_thread(self, thread_id: str) -> int:
        """Async :meth:`delete_thread`."""
        return await _to_thread(self.delete_thread, thread_id)

    async def aclose(self) -> None:
        """Async :meth:`close`."""
        await _to_thread(self.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_CLOSING_TURNS = 8


def check_history_limit(limit: object) -> None:
    if type(limit) is not int or limit < 1:
        raise ValueError(f"history(limit=...) must be a positive int, got {limit!r}")


def _page_rows(
    rows: list[StoredCheckpoint], thread_id: str, limit: int, before: str | None
) -> list[StoredCheckpoint]:
    """:meth:`BaseSaver.history_rows` from a thread's whole history (oldest first)."""
    end = len(rows)
    if before is not None:
        found = [i for i, row in enumerate(rows) if row.checkpoint_id == before]
        if not found:
            raise ValueError(
                f"history(before=...) names no checkpoint of thread {thread_id!r}: {before!r:.80}"
            )
        end = found[0]
    page = rows[max(0, end - limit) : end]
    if not page:
        return []
    low = min(row.base_seq for row in page)
    return [row for row in rows[:end] if row.seq >= low]


async def _turn() -> None:
    import asyncio

    await asyncio.sleep(0)


async def _finish_in_thread(fn: Callable[..., T], /, *args: Any) -> T:
    """:func:`_to_thread`, but a cancellation waits for ``fn`` to return before it goes on."""
    import asyncio

    task = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        while not task.done():
            with suppress(asyncio.CancelledError):  # cancelled again: still wait for it
                await asyncio.wait({task})
        if not task.cancelled():
            task.exception()  # the run is cancelled: its write's outcome goes unreported
        raise


async def _to_thread(fn: Callable[..., T], /, *args: Any) -> T:
    import asyncio  # loaded already wherever a coroutine runs; `import graphnb` stays lean

    return await asyncio.to_thread(fn, *args)
