"""What the SQL savers share: one table layout, the queries, and the locking around them.

Each dialect (SQLite, PostgreSQL, MySQL/MariaDB) only says how to connect, how its JSON
columns and placeholders are written, and which driver error means "this seq is taken".

Tables, created on first use (``<prefix>`` is ``graphnb_`` unless told otherwise):

- ``<prefix>schema_version``: one row, the layout's version.
- ``<prefix>checkpoints``: one row per checkpoint, keyed by ``(thread_id, seq)``; ``meta``,
  ``writes`` and ``snapshot`` are JSON columns a person can read with the database's own
  JSON functions.
"""

from __future__ import annotations

import json
import os
import re
import threading
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from ..checkpoint_errors import (
    CheckpointConflictError,
    CheckpointLoadError,
    SaverSetupError,
    UnstorableValueError,
)
from ..records import StoredCheckpoint
from .base import BaseSaver, Loaded, row_texts

__all__ = ["SCHEMA_VERSION", "SqlSaver"]

SCHEMA_VERSION = 1
"""Version of the table layout this graphnb reads and writes."""

_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,40}\Z")

_COLUMNS = (
    "thread_id, seq, checkpoint_id, parent_id, parent_seq, base_seq, step, source, "
    "created_at, meta, writes, snapshot"
)


class SqlSaver(BaseSaver):
    """A saver over a DB-API connection; subclasses supply the dialect.

    One connection per saver, used under a lock, so a saver may be shared by the threads
    of a process; a forked child process opens its own connection on first use.

    Args:
        table_prefix: put before every table name, so several applications (or test
            runs) can share one database.
    """

    #: the SQL type of the JSON columns
    json_type = "TEXT"
    #: the query parameter placeholder
    param = "?"
    #: how a JSON parameter is written in an INSERT (``%s::jsonb`` for PostgreSQL)
    json_param = "?"
    #: the SQL type of ``thread_id``
    text_type = "VARCHAR(255)"
    #: the SQL type of ``created_at``
    float_type = "DOUBLE PRECISION"
    #: what follows ``CREATE TABLE (...)``
    table_options = ""

    def __init__(self, *, table_prefix: str = "graphnb_") -> None:
        if not _PREFIX.match(table_prefix):
            raise SaverSetupError(
                f"table_prefix must be letters, digits and underscores (at most 41), "
                f"got {table_prefix!r}"
            )
        self.table_prefix = table_prefix
        self.table = f"{table_prefix}checkpoints"
        self.version_table = f"{table_prefix}schema_version"
        self._lock = threading.RLock()
        self._conn: Any = None
        self._pid = 0
        self._queries = self._make_queries()

    # -- dialect -----------------------------------------------------------------------

    @abstractmethod
    def _connect(self) -> Any:
        """Open a DB-API connection in autocommit mode."""

    @abstractmethod
    def _is_duplicate(self, error: BaseException) -> bool:
        """Whether ``error`` is a unique-key violation."""

    @abstractmethod
    def _setup_lock(self, cursor: Any) -> None:
        """Serialize table creation across processes (begins a transaction)."""

    def _setup_unlock(self, cursor: Any) -> None:
        cursor.execute("COMMIT")

    def _is_bad_data(self, error: BaseException) -> bool:
        """Whether ``error`` means the database refused the data itself."""
        return False

    def _is_closed(self, conn: Any) -> bool:
        """Whether ``conn`` is dead (the server closed it, or a failed query broke it)."""
        return False

    def _json(self, value: Any) -> Any:
        """A JSON column's value as Python data."""
        return json.loads(value) if isinstance(value, (str, bytes)) else value

    # -- connection --------------------------------------------------------------------

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid() and self._is_closed(self._conn):
                # A dead connection would fail every later call: the next one reconnects.
                with suppress(Exception):
                    self._conn.close()
                self._conn = None
            if self._conn is None or self._pid != os.getpid():
                self._open()
            cursor = self._conn.cursor()
            try:
                yield cursor
            finally:
                cursor.close()

    def _open(self) -> None:
        conn = self._connect()
        self._conn, self._pid = conn, os.getpid()
        try:
            cursor = conn.cursor()
            try:
                self._create_tables(cursor)
            finally:
                cursor.close()
        except BaseException:
            self._conn = None
            conn.close()
            raise

    def _create_tables(self, cursor: Any) -> None:
        self._setup_lock(cursor)
        try:
            for statement in self._ddl():
                cursor.execute(statement)
            cursor.execute(f"SELECT version FROM {self.version_table}")
            if self._needs_version(cursor.fetchall()):
                cursor.execute(self._version_insert, (SCHEMA_VERSION,))
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        self._setup_unlock(cursor)

    @property
    def _version_insert(self) -> str:
        return f"INSERT INTO {self.version_table} (version) VALUES ({self.param})"

    def _needs_version(self, found: Sequence[Sequence[Any]]) -> bool:
        """Whether the version row is missing; refuses a layout newer than this one."""
        if found and max(row[0] for row in found) > SCHEMA_VERSION:
            raise SaverSetupError(
                f"table {self.table!r} was created by a newer graphnb (layout version "
                f"{max(row[0] for row in found)}, this one reads {SCHEMA_VERSION}); "
                "upgrade graphnb"
            )
        return not found

    def _ddl(self) -> list[str]:
        j, t, f = self.json_type, self.text_type, self.float_type
        return [
            f"CREATE TABLE IF NOT EXISTS {self.version_table} (version INTEGER NOT NULL)"
            f"{self.table_options}",
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            f"thread_id {t} NOT NULL, seq BIGINT NOT NULL, checkpoint_id VARCHAR(64) NOT NULL, "
            f"parent_id VARCHAR(64), parent_seq BIGINT, base_seq BIGINT NOT NULL, "
            f"step INTEGER NOT NULL, source VARCHAR(16) NOT NULL, created_at {f} NOT NULL, "
            f"meta {j} NOT NULL, writes {j} NOT NULL, snapshot {j}, "
            f"PRIMARY KEY (thread_id, seq), "
            f"CONSTRAINT {self.table_prefix}checkpoint_id_key UNIQUE (thread_id, checkpoint_id))"
            f"{self.table_options}",
        ]

    def close(self) -> None:
        """Close the connection; the next call opens a new one."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # -- queries -----------------------------------------------------------------------

    def _make_queries(self) -> dict[str, str]:
        p, table, cols = self.param, self.table, _COLUMNS
        values = ", ".join([p] * 9 + [self.json_param] * 3)
        return {
            "insert": f"INSERT INTO {table} ({cols}) VALUES ({values})",
            "latest": (
                f"SELECT {cols} FROM {table} WHERE thread_id = {p} AND seq >= "
                f"(SELECT base_seq FROM {table} WHERE thread_id = {p} "
                f"ORDER BY seq DESC LIMIT 1) ORDER BY seq"
            ),
            "at": (
                f"SELECT {cols} FROM {table} WHERE thread_id = {p} AND seq BETWEEN "
                f"(SELECT base_seq FROM {table} WHERE thread_id = {p} AND checkpoint_id = {p}) "
                f"AND (SELECT seq FROM {table} WHERE thread_id = {p} AND checkpoint_id = {p}) "
                f"ORDER BY seq"
            ),
            "head": f"SELECT MAX(seq) FROM {table} WHERE thread_id = {p}",
            "history": f"SELECT {cols} FROM {table} WHERE thread_id = {p} ORDER BY seq",
            "threads": f"SELECT DISTINCT thread_id FROM {table}",
            "delete": f"DELETE FROM {table} WHERE thread_id = {p}",
        }

    def _insert_params(self, row: StoredCheckpoint) -> tuple[Any, ...]:
        texts = row_texts(row)
        return (
            row.thread_id,
            row.seq,
            row.checkpoint_id,
            row.parent_id,
            row.parent_seq,
            row.base_seq,
            row.step,
            row.source,
            row.created_at,
            *texts,
        )

    def _insert_error(self, error: Exception, row: StoredCheckpoint) -> Exception:
        """What a failed insert means to the caller."""
        if self._is_duplicate(error):
            return CheckpointConflictError.taken(row.thread_id, row.seq)
        if self._is_bad_data(error):
            return UnstorableValueError(
                f"the database refused a checkpoint of thread {row.thread_id!r}: {error}",
                field="?",
                thread_id=row.thread_id,
            )
        return error

    def put(self, row: StoredCheckpoint) -> None:
        """Store one checkpoint in one statement; see :meth:`BaseSaver.put`."""
        params = self._insert_params(row)
        with self._cursor() as cursor:
            try:
                cursor.execute(self._queries["insert"], params)
            except Exception as error:
                mapped = self._insert_error(error, row)
                if mapped is error:
                    raise
                raise mapped from None

    def _load_query(self, thread_id: str, checkpoint_id: str | None) -> tuple[str, tuple[str, ...]]:
        if checkpoint_id is None:
            return self._queries["latest"], (thread_id, thread_id)
        key = (thread_id, thread_id, checkpoint_id, thread_id, checkpoint_id)
        return self._queries["at"], key

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """See :meth:`BaseSaver.load`."""
        with self._cursor() as cursor:
            cursor.execute(*self._load_query(thread_id, checkpoint_id))
            rows = self._rows(cursor.fetchall())
            if not rows:
                return None
            if checkpoint_id is None:
                return Loaded(rows, rows[-1].seq)
            cursor.execute(self._queries["head"], (thread_id,))
            return Loaded(rows, int(cursor.fetchone()[0]))

    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.history`."""
        with self._cursor() as cursor:
            cursor.execute(self._queries["history"], (thread_id,))
            return self._rows(cursor.fetchall())

    def threads(self) -> list[str]:
        """See :meth:`BaseSaver.threads`."""
        with self._cursor() as cursor:
            cursor.execute(self._queries["threads"])
            # Sorted here: ORDER BY follows the database's collation ('a' < 'B' < 'b' in
            # en_US), and every saver must list ids in the same order.
            return sorted(row[0] for row in cursor.fetchall())

    def delete_thread(self, thread_id: str) -> int:
        """See :meth:`BaseSaver.delete_thread`."""
        with self._cursor() as cursor:
            cursor.execute(self._queries["delete"], (thread_id,))
            return int(cursor.rowcount)

    def _rows(self, found: Sequence[Sequence[Any]]) -> list[StoredCheckpoint]:
        rows = []
        for item in found:
            thread_id, seq, checkpoint_id = item[0], int(item[1]), item[2]
            try:
                meta, writes, snapshot = (self._json(v) for v in item[9:12])
            except ValueError as error:
                raise CheckpointLoadError(
                    f"checkpoint {checkpoint_id!r} of thread {thread_id!r} is corrupt: its "
                    f"JSON does not parse ({error})",
                    thread_id=thread_id,
                    checkpoint_id=checkpoint_id,
                ) from None
            rows.append(
                StoredCheckpoint(
                    thread_id,
                    seq,
                    checkpoint_id,
                    item[3],
                    None if item[4] is None else int(item[4]),
                    int(item[5]),
                    int(item[6]),
                    item[7],
                    float(item[8]),
                    meta,
                    writes,
                    snapshot,
                )
            )
        return rows
