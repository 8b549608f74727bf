"""Checkpoints in a SQLite file: the embedded default, standard library only.

The file is opened in WAL mode, so readers never wait for the writer and several
processes can write threads into one file (writes queue on SQLite's lock, up to
``timeout`` seconds).

A run's thread lock is a lock per thread id within the process plus, for other
processes, a POSIX record lock on one byte of ``<file>-graphnb-locks`` (see
:mod:`graphnb.checkpoint.locks`). Where ``fcntl`` is missing (Windows) only the
in-process lock is taken.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any, Literal

from ..checkpoint_errors import SaverSetupError
from .locks import DEFAULT_LOCK_TIMEOUT, LocalLocks, OnBusy, busy_error, lock_digest
from .sql import SqlSaver, Statement

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["SqliteSaver"]

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


class SqliteSaver(SqlSaver):
    """Stores checkpoints in a SQLite database file.

    Args:
        path: the database file (created if missing), or ``":memory:"`` (a database
            that lives until :meth:`close`; the next call starts an empty one).
        table_prefix: put before every table name.
        synchronous: SQLite's ``PRAGMA synchronous``. ``NORMAL`` (the default) survives a
            crash of the process; ``FULL`` also survives losing power, at the cost of one
            disk flush per checkpoint.
        timeout: seconds a write waits for another process's write to finish.
        on_busy_thread: what a run does when another run (thread or process) holds its
            thread: ``"wait"`` for it, up to ``lock_timeout`` seconds, or ``"fail"`` at
            once; both fail with :class:`~graphnb.checkpoint.CheckpointConflictError`.
        lock_timeout: seconds a run waits for its thread.

    Example:
        >>> from graphnb.checkpoint import SqliteSaver
        >>> saver = SqliteSaver(":memory:")
        >>> saver.threads()
        []
    """

    json_type = "TEXT"
    param = "?"
    json_param = "?"
    text_type = "TEXT"
    lowered_thread_id = "graphnb_lower(c.thread_id)"  # SQLite's own LOWER folds ASCII only
    float_type = "REAL"

    def __init__(
        self,
        path: str | Path,
        *,
        table_prefix: str = "graphnb_",
        synchronous: Synchronous = "NORMAL",
        timeout: float = 30.0,
        on_busy_thread: OnBusy = "wait",
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        if not str(path):
            raise SaverSetupError(
                "SqliteSaver needs a database file (created if missing) or ':memory:', got ''"
            )
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}")
        self.path = str(path)
        # Resolved once: the file each connection opens and the key of its thread locks
        # stay the same whatever the working directory becomes (resolving per run cost
        # more than a checkpoint's bookkeeping).
        self._file = self.path if self.path == ":memory:" else os.path.realpath(self.path)
        self.synchronous = synchronous
        self.timeout = timeout
        super().__init__(
            table_prefix=table_prefix, on_busy_thread=on_busy_thread, lock_timeout=lock_timeout
        )

    def __repr__(self) -> str:
        return f"SqliteSaver({self.path!r})"

    def reopen_args(self) -> tuple[str, dict[str, Any]] | None:
        """The file (absolute) and every option; ``None`` for ``:memory:``."""
        if self.path == ":memory:":
            return None
        options = {
            **self._reopen_options(),
            "synchronous": self.synchronous,
            "timeout": self.timeout,
        }
        return f"sqlite:///{self._file}", options

    def _connect(self) -> Any:
        try:
            conn = sqlite3.connect(
                self._file, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.OperationalError as error:
            why = _why_unopenable(self._file, error)
            raise SaverSetupError(f"cannot open the SQLite database {self.path!r}: {why}") from None
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
        conn.create_function("graphnb_lower", 1, _lower, deterministic=True)
        return conn

    def _is_duplicate(self, error: BaseException) -> bool:
        return isinstance(error, sqlite3.IntegrityError)

    def _is_closed(self, conn: Any) -> bool:
        # sqlite3 has no flag for it: any use of a closed connection raises.
        try:
            conn.total_changes  # noqa: B018 - read for the error it raises once closed
        except sqlite3.ProgrammingError:
            return True
        return False

    def _usable_after(self, conn: Any, error: BaseException) -> bool:
        # In-process: no answer can be left on a wire, and dropping the connection of a
        # ":memory:" database would drop the database. An open transaction is undone.
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.rollback()
        return True

    def _setup_begin(self) -> list[Statement]:
        return [Statement("BEGIN IMMEDIATE")]

    # -- thread locks ------------------------------------------------------------------

    def _acquire_thread(self, thread_id: str) -> Any:
        if self.path == ":memory:":
            return super(SqlSaver, self)._acquire_thread(thread_id)  # this saver's own
        wait, timeout = self.on_busy_thread == "wait", self.lock_timeout
        deadline = time.monotonic() + timeout
        path = self._file
        key = (path, thread_id)
        if not _PROCESS_LOCKS.acquire(key, wait=wait, timeout=timeout):
            raise busy_error(thread_id, self.on_busy_thread, timeout)
        try:
            fd = _lock_file(path)
            offset = int.from_bytes(lock_digest(thread_id)[:7], "big")
            while fd is not None:
                try:
                    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
                    break
                except (BlockingIOError, PermissionError):  # another process holds it
                    left = deadline - time.monotonic()
                    if not wait or left <= 0:
                        raise busy_error(thread_id, self.on_busy_thread, timeout) from None
                    time.sleep(min(0.02, left))
        except BaseException:
            _PROCESS_LOCKS.release(key)
            raise
        return (key, fd, offset)

    def _release_thread(self, held: Any) -> None:
        if self.path == ":memory:":
            super(SqlSaver, self)._release_thread(held)
            return
        key, fd, offset = held
        try:
            if fd is not None:
                fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset)
        finally:
            _PROCESS_LOCKS.release(key)


_PROCESS_LOCKS = LocalLocks()  # by (database file, thread id), shared by every saver
_LOCK_FILES: dict[str, int] = {}
_LOCK_FILES_GUARD = threading.Lock()


def _lock_file(path: str) -> int | None:
    """The open lock file of the database at ``path``, kept open for the process's life.

    Never closed: closing any descriptor of a file drops every POSIX lock the process
    holds on it.
    """
    if fcntl is None:  # pragma: no cover - Windows
        return None
    with _LOCK_FILES_GUARD:
        fd = _LOCK_FILES.get(path)
        if fd is None:
            name = f"{path}-graphnb-locks"
            try:
                fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as error:
                raise SaverSetupError(
                    f"cannot open the thread lock file {name!r} beside the SQLite database: "
                    f"{error.strerror}"
                ) from None
            _LOCK_FILES[path] = fd
        return fd


def _why_unopenable(path: str, error: sqlite3.OperationalError) -> str:
    """What stops SQLite from opening ``path``, in words (SQLite says only that it cannot)."""
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        return "it is a folder; name a file in it"
    if not os.path.isdir(folder):
        return f"its folder {folder!r} does not exist"
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return "this process may not write there"
    return str(error)


def _lower(text: str | None) -> str | None:
    return text.lower() if isinstance(text, str) else text
