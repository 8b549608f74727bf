"""Thread locks: one run at a time on a thread, across threads, processes and machines.

A threaded run holds its thread's lock from loading the thread's last checkpoint to its
end (``invoke``, ``stream``, a resume, ``update_state``), so two workers never advance one
thread at once: the second waits for the first to finish, then continues from where it
stopped, or is refused at once with :class:`~graphnb.checkpoint.CheckpointConflictError`,
as the saver's ``on_busy_thread`` option says.

What is locked, per saver:

- :class:`~graphnb.checkpoint.MemorySaver`: a ``threading.Lock`` per thread id.
- :class:`~graphnb.checkpoint.SqliteSaver`: a lock per thread id within the process, plus
  a POSIX record lock (``fcntl.lockf``) on one byte of a file beside the database
  (``<file>-graphnb-locks``), at an offset hashed from the thread id, for other
  processes; the system releases it when a process dies.
- :class:`~graphnb.checkpoint.PostgresSaver`: a session advisory lock
  (``pg_advisory_lock``) on a 64-bit hash of the table and thread id, taken on a
  connection of its own that the run holds until it ends.
- :class:`~graphnb.checkpoint.MySQLSaver`: ``GET_LOCK(name, timeout)`` with a name hashed
  from the table and thread id, on a connection of its own.

A lock held by a process that dies goes with it (the connection closes, the file lock is
dropped): no lock outlives its holder.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Literal

from ..checkpoint_errors import CheckpointConflictError

__all__ = ["DEFAULT_LOCK_TIMEOUT", "LocalLocks", "OnBusy", "busy_error", "check_lock_options"]

OnBusy = Literal["wait", "fail"]
"""What a run does when another run holds its thread: wait for it, or fail at once."""

DEFAULT_LOCK_TIMEOUT = 60.0
"""Seconds a run waits for its thread's lock (``on_busy_thread="wait"``) before failing."""


def check_lock_options(on_busy_thread: object, lock_timeout: object) -> tuple[OnBusy, float]:
    """The two lock options, checked.

    Raises:
        ValueError: ``on_busy_thread`` is not ``"wait"`` or ``"fail"``, or ``lock_timeout``
            is not a positive number of seconds.
    """
    if on_busy_thread not in ("wait", "fail"):
        raise ValueError(f'on_busy_thread must be "wait" or "fail", got {on_busy_thread!r}')
    if (
        not isinstance(lock_timeout, (int, float))
        or isinstance(lock_timeout, bool)
        or not lock_timeout > 0
        or lock_timeout == float("inf")
    ):
        raise ValueError(f"lock_timeout must be a positive number of seconds, got {lock_timeout!r}")
    return on_busy_thread, float(lock_timeout)


def busy_error(thread_id: str, on_busy: OnBusy, timeout: float) -> CheckpointConflictError:
    """The error of a run that did not get its thread's lock."""
    if on_busy == "fail":
        how = 'the saver was made with on_busy_thread="fail"'
    else:
        how = f"it waited lock_timeout={timeout:g} seconds"
    return CheckpointConflictError(
        f"thread {thread_id!r} is busy: another run holds it, and {how}; nothing was "
        "written. Run again once that run has finished",
        thread_id=thread_id,
        expected=None,
    )


def lock_digest(*parts: str) -> bytes:
    """A stable 16-byte digest of ``parts`` (the table and the thread id)."""
    return hashlib.blake2b(
        "\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


class _Entry:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


class LocalLocks:
    """Locks by key within this process, made on first use and dropped once free."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[object, _Entry] = {}

    def acquire(self, key: object, *, wait: bool, timeout: float) -> bool:
        """Take ``key``'s lock, waiting up to ``timeout`` seconds when ``wait``."""
        with self._guard:
            entry = self._locks.get(key)
            if entry is None:
                entry = self._locks[key] = _Entry()
            entry.users += 1
        taken = False
        try:
            taken = entry.lock.acquire(timeout=timeout) if wait else entry.lock.acquire(False)
        finally:
            if not taken:
                self._unref(key)
        return taken

    def release(self, key: object) -> None:
        """Release ``key``'s lock, taken by :meth:`acquire`."""
        with self._guard:
            entry = self._locks[key]
        entry.lock.release()
        self._unref(key)

    def _unref(self, key: object) -> None:
        with self._guard:
            entry = self._locks[key]
            entry.users -= 1
            if entry.users == 0:
                del self._locks[key]
