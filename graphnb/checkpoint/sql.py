"""What the SQL savers share: one table layout, the queries, and the locking around them.

Each dialect (SQLite, PostgreSQL, MySQL/MariaDB) only says how to connect, how its columns
and placeholders are written, and which driver error means "this seq is taken".

Tables, created on first use (``<prefix>`` is ``graphnb_`` unless told otherwise):

- ``<prefix>schema_version``: one row, the layout's version. A saver migrates an older
  layout when it connects, and refuses a newer one.
- ``<prefix>checkpoints``: one row per checkpoint, keyed by ``(thread_id, seq)``; ``meta``,
  ``writes`` and ``snapshot`` hold the JSON text graphnb wrote, byte for byte (so the
  order of keys is kept), readable with the database's own JSON functions.

Every operation is written once, as a *plan*: a generator that yields the statements to
run and receives their results. :meth:`SqlSaver._run` drives a plan on the sync
connection; a saver with an async driver (PostgreSQL) drives the very same plans with
``await``, so sync and async calls cannot drift apart.
"""

from __future__ import annotations

import json
import os
import re
import threading
from abc import abstractmethod
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, Literal, NamedTuple, NoReturn, TypeVar

from ..checkpoint_errors import (
    CheckpointConflictError,
    CheckpointLoadError,
    SaverSetupError,
    UnstorableValueError,
)
from ..records import CHECKPOINT_SOURCES, CheckpointSource, StoredCheckpoint, is_checkpoint_source
from .base import BaseSaver, Loaded, check_history_limit
from .locks import DEFAULT_LOCK_TIMEOUT, OnBusy, busy_error
from .rows import (
    MAX_CHECKPOINT_ID,
    MAX_THREAD_ID,
    check_row,
    parse_json,
    row_json,
    storable_text,
)

__all__ = ["SCHEMA_VERSION", "Plan", "SqlSaver", "Statement"]

T = TypeVar("T")

SCHEMA_VERSION = 2
"""Version of the table layout this graphnb reads and writes.

1. The first layout.
2. Thread and checkpoint ids compare byte for byte on MySQL/MariaDB (binary columns), and
   JSON is kept as written on PostgreSQL (``json``, not ``jsonb``) and MySQL (text).
"""

_JSON_COLUMNS = ("meta", "writes", "snapshot")

_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,40}\Z")

_COLUMNS = (
    "thread_id, seq, checkpoint_id, parent_id, parent_seq, base_seq, step, source, "
    "created_at, meta, writes, snapshot"
)


class Statement(NamedTuple):
    """One statement of a plan, and what the plan wants back from it."""

    sql: str
    params: Sequence[Any] = ()
    fetch: Literal["none", "all", "one", "count"] = "none"


Plan = Generator[Statement, Any, T]
"""Statements to run in order; each result is sent back; the plan returns the outcome."""


class SqlSaver(BaseSaver):
    """A saver over a DB-API connection; subclasses supply the dialect.

    One connection per saver, used under a lock, so a saver may be shared by the threads
    of a process; a forked child process opens its own connection on first use. A call
    interrupted between sending a statement and reading its answer (Ctrl-C, a dropped
    socket) discards the connection, so no later call can read that stale answer.

    A run's thread lock (see :mod:`graphnb.checkpoint.locks`) is held on a connection of
    its own, taken from a few kept idle for the next runs, so a long run never holds the
    connection the saver's queries share.

    Args:
        table_prefix: put before every table name, so several applications (or test
            runs) can share one database.
        on_busy_thread: what a run does when another run (any thread, process or
            machine) holds its thread: ``"wait"`` for it, up to ``lock_timeout`` seconds,
            or ``"fail"`` at once; both fail with
            :class:`~graphnb.checkpoint.CheckpointConflictError`.
        lock_timeout: seconds a run waits for its thread.
    """

    #: the SQL type of the JSON columns
    json_type = "TEXT"
    #: the query parameter placeholder
    param = "?"
    #: how a JSON parameter is written in an INSERT (``%s::json`` for PostgreSQL)
    json_param = "?"
    #: the SQL type of ``thread_id``
    text_type = "VARCHAR(255)"
    # A thread id in lower case, for search=...: each dialect's own, folding all of Unicode
    # as Python's str.lower does (MemorySaver's), not only ASCII.
    lowered_thread_id = "LOWER(c.thread_id)"
    #: the SQL type of ``checkpoint_id`` and ``parent_id``
    id_type = "VARCHAR(64)"
    #: the SQL type of ``created_at``
    float_type = "DOUBLE PRECISION"
    #: what follows ``CREATE TABLE (...)``
    table_options = ""

    #: idle lock connections kept for the next runs
    idle_lock_connections = 4

    def __init__(
        self,
        *,
        table_prefix: str = "graphnb_",
        on_busy_thread: OnBusy = "wait",
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self._set_lock_options(on_busy_thread, lock_timeout)
        if not _PREFIX.match(table_prefix):
            raise SaverSetupError(
                f"table_prefix must be letters, digits and underscores (at most 41), "
                f"got {table_prefix!r}"
            )
        self.table_prefix = table_prefix
        self.table = f"{table_prefix}checkpoints"
        self.version_table = f"{table_prefix}schema_version"
        self.cache_table = f"{table_prefix}node_cache"
        self._lock = threading.RLock()
        self._conn: Any = None
        self._pid = 0
        self._queries = self._make_queries()
        self._lock_guard = threading.Lock()
        self._lock_conns: list[Any] = []
        self._lock_pid = 0

    def _reopen_options(self) -> dict[str, Any]:
        """The options every SQL saver takes, as :meth:`reopen_args` hands them on."""
        return {
            "table_prefix": self.table_prefix,
            "on_busy_thread": self.on_busy_thread,
            "lock_timeout": self.lock_timeout,
        }

    # -- dialect -----------------------------------------------------------------------

    @abstractmethod
    def _connect(self) -> Any:
        """Open a DB-API connection in autocommit mode."""

    @abstractmethod
    def _is_duplicate(self, error: BaseException) -> bool:
        """Whether ``error`` is a unique-key violation."""

    @abstractmethod
    def _setup_begin(self) -> list[Statement]:
        """Begin the transaction that creates or migrates the tables, one process at a time."""

    def _setup_end(self) -> list[Statement]:
        """Commit it and release what :meth:`_setup_begin` took."""
        return [Statement("COMMIT")]

    def _migrations(self, version: int) -> list[Statement]:
        """The statements that bring a layout of ``version`` to :data:`SCHEMA_VERSION`."""
        return []

    def _is_bad_data(self, error: BaseException) -> bool:
        """Whether ``error`` means the database refused the data itself."""
        return False

    def _is_closed(self, conn: Any) -> bool:
        """Whether ``conn`` is dead (the server closed it, or a failed query broke it)."""
        return False

    def _usable_after(self, conn: Any, error: BaseException) -> bool:
        """Whether ``conn`` may serve the next call after ``error`` interrupted this one."""
        return False

    def _opened(self, cursor: Any) -> None:
        """Read what the dialect needs to know of a new connection, its tables ready."""

    def _take_lock(self, conn: Any, thread_id: str, *, wait: bool) -> bool:
        """Take ``thread_id``'s lock on ``conn``; ``False`` if another session holds it."""
        raise NotImplementedError(f"{type(self).__name__} has no thread locks")

    def _give_lock(self, conn: Any, thread_id: str) -> None:
        """Release ``thread_id``'s lock, taken on ``conn``."""
        raise NotImplementedError(f"{type(self).__name__} has no thread locks")

    def _text(self, value: Any) -> Any:
        """A text column's value as ``str`` (binary columns come back as bytes)."""
        return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else value

    # -- connection --------------------------------------------------------------------

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        with self._lock:
            pid = os.getpid()  # a system call: once per statement's cursor, not twice
            if self._conn is not None and self._pid == pid and self._is_closed(self._conn):
                # A dead connection would fail every later call: the next one reconnects.
                self._discard(self._conn)
            if self._conn is None or self._pid != pid:
                self._open()
            conn = self._conn
            cursor = conn.cursor()
            try:
                yield cursor
            except BaseException as error:
                # Ctrl-C (or any failure) between sending a statement and reading its whole
                # answer leaves that answer on the wire: reused, the connection would hand
                # it to the next call, possibly another thread's. Keep it only when the
                # driver says it is idle again.
                if self._usable_after(conn, error):
                    with suppress(Exception):
                        cursor.close()
                else:
                    self._discard(conn)
                raise
            else:
                cursor.close()

    def _open(self) -> None:
        conn = self._connect()
        self._conn, self._pid = conn, os.getpid()
        try:
            cursor = conn.cursor()
            try:
                # On failure the connection is closed below, which rolls the transaction
                # back and releases the setup lock.
                drive(self._setup(), lambda statement: execute(cursor, statement))
                self._opened(cursor)
            finally:
                cursor.close()
        except BaseException:
            self._conn = None
            with suppress(Exception):
                conn.close()
            raise

    def _discard(self, conn: Any) -> None:
        """Drop ``conn`` without reading from it: its socket may hold stale answers."""
        if self._conn is conn:
            self._conn = None
        with suppress(Exception):
            conn.close()

    def _run(self, plan: Plan[T]) -> T:
        """Run a plan on the sync connection."""
        with self._cursor() as cursor:
            return drive(plan, lambda statement: execute(cursor, statement))

    def close(self) -> None:
        """Close the connection; the next call opens a new one."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None
        with self._lock_guard:
            idle, self._lock_conns = self._lock_conns, []
            if self._lock_pid == os.getpid():
                for conn in idle:
                    with suppress(Exception):
                        conn.close()

    # -- thread locks, each on a connection of its own ---------------------------------

    def _acquire_thread(self, thread_id: str) -> Any:
        conn = self._lock_connection()
        try:
            taken = self._take_lock(conn, thread_id, wait=self.on_busy_thread == "wait")
        except BaseException:
            # Interrupted while asking, the lock may be ours after all: closing the
            # session releases it.
            with suppress(Exception):
                conn.close()
            raise
        if not taken:
            self._keep_lock_connection(conn)
            raise busy_error(thread_id, self.on_busy_thread, self.lock_timeout)
        return (conn, thread_id)

    def _release_thread(self, held: Any) -> None:
        conn, thread_id = held
        try:
            self._give_lock(conn, thread_id)
        except BaseException:
            with suppress(Exception):
                conn.close()  # a session that ends releases its locks
            raise
        self._keep_lock_connection(conn)

    def _lock_connection(self) -> Any:
        with self._lock_guard:
            if self._lock_pid != os.getpid():
                self._lock_conns, self._lock_pid = [], os.getpid()  # a forked child's own
            while self._lock_conns:
                conn = self._lock_conns.pop()
                if not self._is_closed(conn):
                    return conn
        return self._connect()

    def _keep_lock_connection(self, conn: Any) -> None:
        with self._lock_guard:
            if (
                self._lock_pid == os.getpid()
                and len(self._lock_conns) < self.idle_lock_connections
                and not self._is_closed(conn)
            ):
                self._lock_conns.append(conn)
                return
        with suppress(Exception):
            conn.close()

    # -- tables ------------------------------------------------------------------------

    def _setup(self) -> Plan[None]:
        """Create the tables if missing, migrate an older layout, refuse a newer one."""
        yield from self._setup_begin()
        for statement in self._ddl():
            yield Statement(statement)
        found = yield Statement(f"SELECT version FROM {self.version_table}", fetch="all")
        version = max((int(row[0]) for row in found), default=None)
        if version is None:
            yield Statement(
                f"INSERT INTO {self.version_table} (version) VALUES ({self.param})",
                (SCHEMA_VERSION,),
            )
        elif version > SCHEMA_VERSION:
            raise SaverSetupError(
                f"table {self.table!r} was created by a newer graphnb (layout version "
                f"{version}, this one reads {SCHEMA_VERSION}); upgrade graphnb"
            )
        elif version < SCHEMA_VERSION:
            yield from self._migrations(version)
            yield Statement(
                f"UPDATE {self.version_table} SET version = {self.param}", (SCHEMA_VERSION,)
            )
        yield from self._setup_end()

    def _ddl(self) -> list[str]:
        j, t, i, f = self.json_type, self.text_type, self.id_type, self.float_type
        return [
            f"CREATE TABLE IF NOT EXISTS {self.version_table} (version INTEGER NOT NULL)"
            f"{self.table_options}",
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            f"thread_id {t} NOT NULL, seq BIGINT NOT NULL, checkpoint_id {i} NOT NULL, "
            f"parent_id {i}, parent_seq BIGINT, base_seq BIGINT NOT NULL, "
            f"step INTEGER NOT NULL, source VARCHAR(16) NOT NULL, created_at {f} NOT NULL, "
            f"meta {j} NOT NULL, writes {j} NOT NULL, snapshot {j}, "
            f"PRIMARY KEY (thread_id, seq), "
            f"CONSTRAINT {self.table_prefix}checkpoint_id_key UNIQUE (thread_id, checkpoint_id))"
            f"{self.table_options}",
            # Newest threads first: a listing walks this index from its end and stops after
            # one page, instead of reading every thread's last row.
            f"CREATE INDEX IF NOT EXISTS {self.table_prefix}recent_idx "
            f"ON {self.table} (created_at, thread_id)",
            # Node results of CachePolicy(store="saver"); created where missing, so older
            # databases gain it without a migration.
            f"CREATE TABLE IF NOT EXISTS {self.cache_table} ("
            f"cache_key {i} NOT NULL PRIMARY KEY, value {j} NOT NULL, expires_at {f})"
            f"{self.table_options}",
        ]

    # -- plans -------------------------------------------------------------------------

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
            # The last row of every thread, found through the (thread_id, seq) primary key;
            # writes and snapshot are left out: a listing needs none of them.
            "heads": (
                f"SELECT c.thread_id, c.seq, c.checkpoint_id, c.parent_id, c.parent_seq, "
                f"c.base_seq, c.step, c.source, c.created_at, c.meta, '[]', NULL "
                f"FROM {table} c JOIN (SELECT thread_id, MAX(seq) AS seq FROM {table} "
                f"GROUP BY thread_id) h ON c.thread_id = h.thread_id AND c.seq = h.seq"
            ),
            "delete": f"DELETE FROM {table} WHERE thread_id = {p}",
            "cache_get": f"SELECT value, expires_at FROM {self.cache_table} WHERE cache_key = {p}",
            "cache_insert": (
                f"INSERT INTO {self.cache_table} (cache_key, value, expires_at) "
                f"VALUES ({p}, {self.json_param}, {p})"
            ),
            "cache_delete": f"DELETE FROM {self.cache_table} WHERE cache_key = {p}",
            "cache_clear": f"DELETE FROM {self.cache_table}",
            "cache_expire": (
                f"DELETE FROM {self.cache_table} WHERE expires_at IS NOT NULL AND expires_at <= {p}"
            ),
        }

    def _raise_insert_error(
        self, error: Exception, row: StoredCheckpoint, texts: Sequence[str | None]
    ) -> NoReturn:
        """Raise what a failed insert means to the caller (``error`` itself if nothing more)."""
        if self._is_duplicate(error):
            raise CheckpointConflictError.taken(row.thread_id, row.seq) from None
        if self._is_bad_data(error):
            # The ids and numbers were checked before sending, and the JSON is Python's
            # own: what a database still refuses is a row too large, so name its largest part.
            largest, size = largest_part(texts)
            raise UnstorableValueError(
                f"the database refused a checkpoint of thread {row.thread_id!r} ({error}); its "
                f"largest part is its {largest} ({size:,} characters of JSON)",
                field=largest,
                thread_id=row.thread_id,
            ) from None
        raise error

    def _insert_params(
        self, row: StoredCheckpoint
    ) -> tuple[tuple[Any, ...], tuple[str, str, str | None]]:
        """The checked row as the insert's parameters, and its JSON texts."""
        check_row(row)
        texts = row_json(row)
        params = (
            row.thread_id,
            row.seq,
            row.checkpoint_id,
            row.parent_id,
            row.parent_seq,
            row.base_seq,
            row.step,
            row.source,
            float(row.created_at),
            *texts,
        )
        return params, texts

    def _put(self, row: StoredCheckpoint) -> Plan[None]:
        params, texts = self._insert_params(row)
        try:
            yield Statement(self._queries["insert"], params)
        except Exception as error:
            self._raise_insert_error(error, row, texts)

    def _load(self, thread_id: str, checkpoint_id: str | None) -> Plan[Loaded | None]:
        if not storable_text(thread_id, MAX_THREAD_ID):
            return None  # no row can have it: asking the database could only fail
        if checkpoint_id is None:
            found = yield Statement(self._queries["latest"], (thread_id, thread_id), "all")
            rows = self._rows(found)
            return Loaded(rows, rows[-1].seq) if rows else None
        if not storable_text(checkpoint_id, MAX_CHECKPOINT_ID):
            return None
        key = (thread_id, thread_id, checkpoint_id, thread_id, checkpoint_id)
        rows = self._rows((yield Statement(self._queries["at"], key, "all")))
        if not rows:
            return None
        head = yield Statement(self._queries["head"], (thread_id,), "one")
        return Loaded(rows, int(head[0]))

    def _history(self, thread_id: str) -> Plan[list[StoredCheckpoint]]:
        if not storable_text(thread_id, MAX_THREAD_ID):
            return []
        return self._rows((yield Statement(self._queries["history"], (thread_id,), "all")))

    def _threads(self) -> Plan[list[str]]:
        found = yield Statement(self._queries["threads"], (), "all")
        # Sorted here: ORDER BY follows the database's collation ('a' < 'B' < 'b' in
        # en_US), and every saver must list ids in the same order.
        return sorted(self._text(row[0]) for row in found)

    def _head_page(
        self, search: str | None, limit: int | None, after: str | None
    ) -> Plan[list[StoredCheckpoint]]:
        p, table = self.param, self.table
        later = f"SELECT 1 FROM {table} n WHERE n.thread_id = c.thread_id AND n.seq > c.seq"
        where = [f"NOT EXISTS ({later})"]
        params: list[Any] = []
        if search:
            escaped = search.lower().replace("!", "!!").replace("%", "!%").replace("_", "!_")
            where.append(f"{self.lowered_thread_id} LIKE {p} ESCAPE '!'")
            params.append(f"%{escaped}%")
        if after is not None:
            found = yield Statement(
                f"SELECT created_at FROM {table} WHERE thread_id = {p} ORDER BY seq DESC LIMIT 1",
                (after,),
                "all",
            )
            if not found:
                raise ValueError(f"threads(after=...) names no listed thread: {after!r:.80}")
            stamp = _float(found[0][0], "created_at")
            where.append(f"(c.created_at < {p} OR (c.created_at = {p} AND c.thread_id > {p}))")
            params += [stamp, stamp, after]
        query = (
            f"SELECT c.thread_id, c.seq, c.checkpoint_id, c.parent_id, c.parent_seq, "
            f"c.base_seq, c.step, c.source, c.created_at, c.meta, '[]', NULL FROM {table} c "
            f"WHERE {' AND '.join(where)} ORDER BY c.created_at DESC, c.thread_id"
        )
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        return self._rows((yield Statement(query, tuple(params), "all")))

    def _history_rows(
        self, thread_id: str, limit: int, before: str | None
    ) -> Plan[list[StoredCheckpoint]]:
        p, table = self.param, self.table
        missing = ValueError(
            f"history(before=...) names no checkpoint of thread {thread_id!r}: {before!r:.80}"
        )
        if not storable_text(thread_id, MAX_THREAD_ID):
            if before is not None:
                raise missing
            return []
        where = f"thread_id = {p}"
        params: list[Any] = [thread_id]
        if before is not None:
            if not storable_text(before, MAX_CHECKPOINT_ID):
                raise missing
            found = yield Statement(
                f"SELECT seq FROM {table} WHERE thread_id = {p} AND checkpoint_id = {p}",
                (thread_id, before),
                "all",
            )
            if not found:
                raise missing
            where += f" AND seq < {p}"
            params.append(_int(found[0][0], "seq"))
        # The page's seqs and bases, newest first, read backwards along the primary key.
        page = yield Statement(
            f"SELECT seq, base_seq FROM {table} WHERE {where} ORDER BY seq DESC LIMIT {int(limit)}",
            tuple(params),
            "all",
        )
        if not page:
            return []
        low = min(_int(item[1], "base_seq") for item in page)
        high = _int(page[0][0], "seq")
        found = yield Statement(
            f"SELECT {_COLUMNS} FROM {table} WHERE thread_id = {p} AND seq BETWEEN {p} AND {p} "
            "ORDER BY seq",
            (thread_id, low, high),
            "all",
        )
        return self._rows(found)

    def _heads(self) -> Plan[list[StoredCheckpoint]]:
        return self._rows((yield Statement(self._queries["heads"], (), "all")))

    def _delete(self, thread_id: str) -> Plan[int]:
        if not storable_text(thread_id, MAX_THREAD_ID):
            return 0
        return int((yield Statement(self._queries["delete"], (thread_id,), "count")))

    # -- the saver interface -----------------------------------------------------------

    def put_many(self, rows: Sequence[StoredCheckpoint]) -> None:
        """Store several checkpoints in one transaction; see :meth:`BaseSaver.put_many`."""
        if len(rows) == 1:
            self.put(rows[0])
            return
        with self._cursor() as cursor:
            cursor.execute("BEGIN")
            try:
                for row in rows:
                    params, texts = self._insert_params(row)
                    try:
                        cursor.execute(self._queries["insert"], params)
                    except Exception as error:
                        self._raise_insert_error(error, row, texts)
            except BaseException:
                with suppress(Exception):
                    cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")

    def put(self, row: StoredCheckpoint) -> None:
        """Store one checkpoint in one statement; see :meth:`BaseSaver.put`.

        The statement of :meth:`_put`'s plan, run here without the plan: a run writes a
        checkpoint per step, and a generator and its driver cost a tenth of SQLite's
        own insert. ``tests/checkpoint/test_fast_paths.py`` gives both the same rows.
        """
        with self._cursor() as cursor:
            params, texts = self._insert_params(row)
            try:
                cursor.execute(self._queries["insert"], params)
            except Exception as error:
                self._raise_insert_error(error, row, texts)

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """See :meth:`BaseSaver.load`."""
        return self._run(self._load(thread_id, checkpoint_id))

    def history(self, thread_id: str) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.history`."""
        return self._run(self._history(thread_id))

    def threads(self) -> list[str]:
        """See :meth:`BaseSaver.threads`."""
        return self._run(self._threads())

    def heads(self) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.heads`: one query over the primary key."""
        return self._run(self._heads())

    def head_page(
        self, *, search: str | None = None, limit: int | None = None, after: str | None = None
    ) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.head_page`: one page read from the ``created_at`` index."""
        if after is not None and not storable_text(after, MAX_THREAD_ID):
            raise ValueError(f"threads(after=...) names no listed thread: {after!r:.80}")
        return self._run(self._head_page(search, limit, after))

    def history_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """See :meth:`BaseSaver.history_rows`: two reads along the primary key."""
        check_history_limit(limit)
        return self._run(self._history_rows(thread_id, limit, before))

    def delete_thread(self, thread_id: str) -> int:
        """See :meth:`BaseSaver.delete_thread`."""
        return self._run(self._delete(thread_id))

    # -- reading rows ------------------------------------------------------------------

    # -- node results (CachePolicy(store="saver")) -------------------------------------

    def cache_get(self, key: str) -> tuple[str, float | None] | None:
        """The cached node result under ``key`` (JSON text, expiry), or ``None``."""

        def plan() -> Plan[tuple[str, float | None] | None]:
            found = yield Statement(self._queries["cache_get"], (key,), "one")
            if found is None:
                return None
            value = found[0]
            # PostgreSQL's JSON column comes back parsed; the others as text (or bytes).
            text = self._text(value) if isinstance(value, (str, bytes, bytearray)) else None
            if text is None:
                text = json.dumps(value)
            return text, None if found[1] is None else float(found[1])

        return self._run(plan())

    def cache_put(self, key: str, value: str, expires_at: float | None) -> None:
        """Store a node result (JSON text) under ``key`` until ``expires_at``.

        A delete and an insert, portable across the dialects; another process storing
        the same key in between stored the same result, so its row is as good as ours.
        """

        def plan() -> Plan[None]:
            yield Statement(self._queries["cache_delete"], (key,))
            try:
                yield Statement(self._queries["cache_insert"], (key, value, expires_at))
            except Exception as error:
                if not self._is_duplicate(error):
                    raise

        self._run(plan())

    def cache_delete(self, key: str) -> None:
        """Drop the node result under ``key``."""

        def plan() -> Plan[None]:
            yield Statement(self._queries["cache_delete"], (key,))

        self._run(plan())

    def cache_clear(self) -> int:
        """Drop every node result; returns how many there were."""

        def plan() -> Plan[int]:
            return int((yield Statement(self._queries["cache_clear"], (), "count")))

        return self._run(plan())

    def cache_expire(self, now: float) -> int:
        """Drop the node results expired at ``now`` (seconds since the epoch); how many."""

        def plan() -> Plan[int]:
            return int((yield Statement(self._queries["cache_expire"], (now,), "count")))

        return self._run(plan())

    def _delete_seqs(self, thread_id: str, seqs: Sequence[int]) -> int:
        """See :meth:`BaseSaver._delete_seqs`: one statement, for pruning's batches."""
        if not seqs:
            return 0
        marks = ", ".join([self.param] * len(seqs))
        sql = f"DELETE FROM {self.table} WHERE thread_id = {self.param} AND seq IN ({marks})"

        def plan() -> Plan[int]:
            return int((yield Statement(sql, (thread_id, *map(int, seqs)), "count")))

        return self._run(plan())

    def _set_snapshot(self, row: StoredCheckpoint) -> None:
        """See :meth:`BaseSaver._set_snapshot`: one short statement."""
        _, _, snapshot = row_json(row)
        p = self.param
        sql = (
            f"UPDATE {self.table} SET snapshot = {self.json_param}, base_seq = {p} "
            f"WHERE thread_id = {p} AND seq = {p}"
        )

        def plan() -> Plan[None]:
            yield Statement(sql, (snapshot, row.base_seq, row.thread_id, row.seq))

        self._run(plan())

    def _set_base(self, thread_id: str, seqs: Sequence[int], base_seq: int) -> None:
        """See :meth:`BaseSaver._set_base`: one statement."""
        if not seqs:
            return
        p = self.param
        marks = ", ".join([p] * len(seqs))
        sql = f"UPDATE {self.table} SET base_seq = {p} WHERE thread_id = {p} AND seq IN ({marks})"

        def plan() -> Plan[None]:
            yield Statement(sql, (int(base_seq), thread_id, *map(int, seqs)))

        self._run(plan())

    def _rows(self, found: Sequence[Sequence[Any]]) -> list[StoredCheckpoint]:
        return [self._row(item) for item in found]

    def _row(self, item: Sequence[Any]) -> StoredCheckpoint:
        thread_id, checkpoint_id = self._text(item[0]), self._text(item[2])
        where = {"thread_id": thread_id, "checkpoint_id": checkpoint_id}
        meta = parse_json(item[9], column="meta", **where)
        writes = parse_json(item[10], column="writes", **where)
        snapshot = None if item[11] is None else parse_json(item[11], column="snapshot", **where)
        try:
            return StoredCheckpoint(
                thread_id,
                _int(item[1], "seq"),
                checkpoint_id,
                self._text(item[3]),
                None if item[4] is None else _int(item[4], "parent_seq"),
                _int(item[5], "base_seq"),
                _int(item[6], "step"),
                _source(item[7]),
                _float(item[8], "created_at"),
                meta,
                writes,
                snapshot,
            )
        except _BadColumn as bad:
            # Only SQLite lets a column hold a value of another type; a row edited by hand
            # (or by another tool) is a corrupt row, not a crash.
            raise CheckpointLoadError(
                f"checkpoint {checkpoint_id!r:.80} of thread {thread_id!r:.80} is corrupt: "
                f"its {bad.column} column holds {bad.value!r:.40}, expected {bad.expected}",
                **where,
            ) from None


def largest_part(texts: Sequence[str | None]) -> tuple[str, int]:
    """The JSON column of an insert with the most text, and how many characters it has."""
    sizes = {name: len(text or "") for name, text in zip(_JSON_COLUMNS, texts, strict=True)}
    largest = max(sizes, key=sizes.__getitem__)
    return largest, sizes[largest]


class _BadColumn(Exception):
    def __init__(self, column: str, value: Any, expected: str) -> None:
        self.column, self.value, self.expected = column, value, expected


def _int(value: Any, column: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _BadColumn(column, value, "an integer")


def _float(value: Any, column: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise _BadColumn(column, value, "a number")


def _source(value: Any) -> CheckpointSource:
    if is_checkpoint_source(value):
        return value
    raise _BadColumn("source", value, f"one of {', '.join(sorted(CHECKPOINT_SOURCES))}")


def execute(cursor: Any, statement: Statement) -> Any:
    """Run one statement on a DB-API cursor and fetch what it asks for."""
    cursor.execute(statement.sql, statement.params)
    if statement.fetch == "all":
        return cursor.fetchall()
    if statement.fetch == "one":
        return cursor.fetchone()
    if statement.fetch == "count":
        return cursor.rowcount
    return None


def drive(plan: Plan[T], run: Any) -> T:
    """Run each statement of ``plan`` with ``run`` and send back its result.

    A statement's error is thrown into the plan, which may turn it into graphnb's own.
    """
    try:
        statement = next(plan)
        while True:
            try:
                result = run(statement)
            except Exception as error:
                statement = plan.throw(error)
            else:
                statement = plan.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
