"""The storage a threaded run needs, as protocols the engine owns.

The engine never imports :mod:`graphnb.checkpoint`: it calls a :class:`ThreadStore` (a
thread's checkpoints read back as typed state, and a :class:`CheckpointWriter` appending
the next ones), which :class:`graphnb.checkpoint.Threads` satisfies structurally over any
:class:`Saver`. The records both sides exchange live in :mod:`graphnb.records`.

Turning ``checkpointer=`` (a saver, or its URL such as ``"sqlite:///threads.db"``) into a
store is the job of the layer that knows the savers: the package façade
(``graphnb/__init__.py``) installs that opener with :func:`install_opener` when
``graphnb`` is imported, which is always before any of its submodules runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..errors import GraphSetupError

if TYPE_CHECKING:
    from datetime import timedelta

    from ..checkpoint_meta import LoadedCheckpoint
    from ..records import (
        Durability,
        Loaded,
        NewCheckpoint,
        StateSnapshot,
        StoredCheckpoint,
    )
    from ..schema import StateSchema

__all__ = [
    "CacheRows",
    "CheckpointWriter",
    "Opener",
    "Saver",
    "ThreadStore",
    "install_opener",
    "open_store",
]

S = TypeVar("S")


class Saver(Protocol):
    """Where checkpoint rows live: :class:`graphnb.checkpoint.BaseSaver` and its kin.

    Rows are plain JSON-compatible :class:`~graphnb.records.StoredCheckpoint` data; a
    saver knows nothing of state models.
    """

    def put(self, row: StoredCheckpoint) -> None:
        """Store one checkpoint, refusing a ``seq`` the thread already holds."""

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """The chain of the thread's last checkpoint (or of ``checkpoint_id``)."""

    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """Every checkpoint of the thread, oldest first."""

    def threads(self) -> list[str]:
        """The ids of every thread holding a checkpoint, sorted."""

    def heads(self) -> list[StoredCheckpoint]:
        """The last checkpoint of every thread (writes and snapshot may be left out)."""

    def head_page(
        self, *, search: str | None = None, limit: int | None = None, after: str | None = None
    ) -> list[StoredCheckpoint]:
        """Threads' last checkpoints newest first, filtered by id and paged after a thread."""

    def history_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """One page of the thread's history and the rows its states rebuild from."""

    async def ahistory_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """Async :meth:`history_rows`."""

    def delete_thread(self, thread_id: str) -> int:
        """Delete every checkpoint of the thread; returns how many there were."""

    def close(self) -> None:
        """Release connections."""

    def thread_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold the thread's lock: no other run, anywhere, advances it meanwhile.

        Raises:
            CheckpointConflictError: another run holds it, and the saver does not wait
                (or waited its ``lock_timeout`` in vain).
        """

    def athread_lock(self, thread_id: str) -> AbstractAsyncContextManager[None]:
        """Async :meth:`thread_lock`."""

    async def aput(self, row: StoredCheckpoint) -> None:
        """Async :meth:`put`."""

    async def aload(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """Async :meth:`load`."""

    async def ahistory(self, thread_id: str) -> list[StoredCheckpoint]:
        """Async :meth:`history`."""


class CacheRows(Protocol):
    """Node results kept in a saver's database (``CachePolicy(store="saver")``).

    Rows are a key, the result as JSON text and when it expires (seconds since the epoch,
    ``None``: never); the engine encodes, decodes and expires them. The four savers of
    :mod:`graphnb.checkpoint` have them; a saver without them cannot keep node results.
    Those savers also have ``cache_expire(now) -> int``, which drops the rows expired at
    ``now``; the engine calls it now and then when a saver has it.
    """

    def cache_get(self, key: str) -> tuple[str, float | None] | None:
        """The row under ``key``: its JSON text and expiry, or ``None``."""

    def cache_put(self, key: str, value: str, expires_at: float | None) -> None:
        """Store (or replace) the row under ``key``."""

    def cache_delete(self, key: str) -> None:
        """Drop the row under ``key``, if any."""

    def cache_clear(self) -> int:
        """Drop every row; returns how many there were."""


class CheckpointWriter(Protocol):
    """Appends checkpoints to one thread, each a child of the one before."""

    @property
    def last(self) -> StoredCheckpoint | None:
        """The last checkpoint this writer stored."""

    def put(self, checkpoint: NewCheckpoint) -> StoredCheckpoint:
        """Encode and store the next checkpoint, as the writer's durability says."""

    async def aput(self, checkpoint: NewCheckpoint) -> StoredCheckpoint:
        """Async :meth:`put`."""

    def flush(self) -> None:
        """Store what the durability held back or is storing; raise a write's error."""

    async def aflush(self) -> None:
        """Async :meth:`flush`."""

    def abandon(self) -> None:
        """Let writes in flight land and drop what was held back.

        For a run that ended without a word: a stream left early, Ctrl-C, a cancellation.
        """


class ThreadStore(Protocol[S]):
    """A saver's threads read through one state schema: what threaded runs call."""

    @property
    def saver(self) -> Saver:
        """Where the rows live."""

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> LoadedCheckpoint | None:
        """The thread's last checkpoint (or ``checkpoint_id``), or ``None`` if it has none."""

    async def aload(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> LoadedCheckpoint | None:
        """Async :meth:`load`."""

    def thread_lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold the thread's lock for a run: from loading the thread to the run's end."""

    def athread_lock(self, thread_id: str) -> AbstractAsyncContextManager[None]:
        """Async :meth:`thread_lock`."""

    def pending(self, position: LoadedCheckpoint) -> list[tuple[str, dict[str, Any]]]:
        """Updates of the nodes that finished in an interrupted step, decoded."""

    def sends(self, position: LoadedCheckpoint) -> list[tuple[str, dict[str, Any]]]:
        """The Send items the next step runs (target node, payload), decoded."""

    def snapshot(self, position: LoadedCheckpoint) -> StateSnapshot[S]:
        """The user's view of a loaded checkpoint."""

    def history(self, thread_id: str, *, limit: int | None = None) -> list[StateSnapshot[S]]:
        """Every checkpoint of the thread, newest first."""

    async def ahistory(self, thread_id: str, *, limit: int | None = None) -> list[StateSnapshot[S]]:
        """Async :meth:`history`."""

    def history_page(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StateSnapshot[S]]:
        """The ``limit`` checkpoints written before ``before`` (or the head), newest first."""

    async def ahistory_page(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StateSnapshot[S]]:
        """Async :meth:`history_page`."""

    def delete(self, thread_id: str) -> int:
        """Delete a thread's checkpoints and its subgraphs' threads; returns how many."""

    def copy(self, thread_id: str, new_id: str) -> int:
        """Copy a thread's checkpoints and its subgraphs' threads to ``new_id``."""

    def drop_since(self, thread_id: str, since: float) -> int:
        """Delete the thread's checkpoints written at ``since`` (Unix time) or later."""

    def prune(
        self,
        *,
        older_than: float | timedelta | None = None,
        keep_last: int | None = None,
        thread_ids: Iterable[str] | None = None,
        batch_size: int = 500,
    ) -> int:
        """Remove old checkpoints, rebuilding snapshots; returns how many went."""

    def writer(
        self,
        thread_id: str,
        position: LoadedCheckpoint | None,
        *,
        metadata: Mapping[str, Any] | None,
        durability: Durability = "sync",
    ) -> CheckpointWriter:
        """A writer appending to ``thread_id`` after ``position`` (``None``: a new thread)."""


Opener = Callable[[Any, "StateSchema[Any]"], "ThreadStore[Any]"]
"""Makes the store of ``checkpointer=`` (a saver or its URL) for a state schema."""

_opener: Opener | None = None


def install_opener(opener: Opener) -> None:
    """Make ``opener`` turn every ``checkpointer=`` into a store from now on."""
    global _opener
    _opener = opener


def open_store(checkpointer: Any, schema: StateSchema[S]) -> ThreadStore[S]:
    """The store of ``checkpointer`` (a saver or its URL) for ``schema``.

    Raises:
        GraphSetupError: no opener is installed (``graphnb`` was not imported as a package).
    """
    if _opener is None:
        raise GraphSetupError(
            "no checkpoint opener is installed; import graphnb (its package façade installs "
            "the savers of graphnb.checkpoint) before compiling with checkpointer=..."
        )
    return _opener(checkpointer, schema)
