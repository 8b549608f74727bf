"""Checkpoints in a SQLite file: the embedded default, standard library only.

The file is opened in WAL mode, so readers never wait for the writer and several
processes can write threads into one file (writes queue on SQLite's lock, up to
``timeout`` seconds).
"""

from __future__ import annotations

import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import Any, Literal

from .sql import SqlSaver, Statement

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
    float_type = "REAL"

    def __init__(
        self,
        path: str | Path,
        *,
        table_prefix: str = "graphnb_",
        synchronous: Synchronous = "NORMAL",
        timeout: float = 30.0,
    ) -> None:
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, got {synchronous!r}")
        self.path = str(path)
        self.synchronous = synchronous
        self.timeout = timeout
        super().__init__(table_prefix=table_prefix)

    def __repr__(self) -> str:
        return f"SqliteSaver({self.path!r})"

    def _connect(self) -> Any:
        conn = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
        return conn

    def _is_duplicate(self, error: BaseException) -> bool:
        return isinstance(error, sqlite3.IntegrityError)

    def _usable_after(self, conn: Any, error: BaseException) -> bool:
        # In-process: no answer can be left on a wire, and dropping the connection of a
        # ":memory:" database would drop the database. An open transaction is undone.
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.rollback()
        return True

    def _setup_begin(self) -> list[Statement]:
        return [Statement("BEGIN IMMEDIATE")]
