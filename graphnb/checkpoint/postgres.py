"""Checkpoints in PostgreSQL (psycopg 3), for threads shared by processes and machines.

Install the driver with ``pip install graphnb[postgres]``.

Sync and async calls run the same plans (see :mod:`graphnb.checkpoint.sql`): only the
loop that sends a plan's statements exists twice, once with ``await``, because psycopg's
async connection must be awaited on its own event loop and the sync one must not be.
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from types import MappingProxyType
from typing import Any, TypeVar

from ..checkpoint_errors import SaverSetupError
from ..records import StoredCheckpoint
from .base import Loaded, check_history_limit
from .locks import DEFAULT_LOCK_TIMEOUT, OnBusy, lock_digest
from .sql import Plan, SqlSaver, Statement, drive, execute

__all__ = ["CONNECTION_DEFAULTS", "PostgresSaver"]

T = TypeVar("T")

CONNECTION_DEFAULTS: Mapping[str, int] = MappingProxyType(
    {
        "connect_timeout": 10,
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": 60_000,
    }
)
"""libpq parameters every connection of a :class:`PostgresSaver` gets unless told otherwise.

Without them, a connection whose network silently drops packets (a NAT or firewall
forgetting it, a cable pulled) waits for an answer forever: libpq sets no timeout. With
them, a connection that cannot reach the server fails in about a minute: the kernel
probes an idle one after 30 s (then every 10 s, 3 times), gives up on data unacknowledged
for 60 s (``tcp_user_timeout``, milliseconds), and a connect waits at most 10 s.
"""


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - depends on the environment
        raise SaverSetupError(
            "PostgresSaver needs psycopg 3: install it with `pip install graphnb[postgres]`"
        ) from None
    return psycopg


def _idle(conn: Any) -> bool:
    """Whether every answer the server sent on ``conn`` was read (libpq tracks it)."""
    status = _psycopg().pq.TransactionStatus
    return not conn.closed and conn.pgconn.transaction_status == status.IDLE


def _raw_json(conn: Any) -> None:
    """Hand JSON columns over as text, for graphnb to parse.

    A forged or damaged row then fails as :class:`~graphnb.checkpoint.CheckpointLoadError`,
    not as the parser's error raised from inside psycopg's fetch.
    """
    from psycopg.types.string import TextLoader

    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, TextLoader)


class PostgresSaver(SqlSaver):
    """Stores checkpoints in PostgreSQL; ``meta``, ``writes`` and ``snapshot`` are ``json``.

    ``json``, not ``jsonb``: ``jsonb`` reorders the keys of every object (by length, then
    bytes), and a state's dicts must read back in the order they were written. The
    database still checks the text is JSON, and ``->``/``->>`` work on it.

    The sync methods share one connection; the async ones (``aput``, ``aload`` ...) use
    psycopg's own async connection, one per event loop (loops running at once on several
    threads each have their own), so they never block the loop.

    With ``pool_size=1`` (the default) the sync methods share one connection, one call at
    a time; with more, they run on a ``psycopg_pool`` pool of up to that many
    connections, so the threads of a process query at once. A connection interrupted
    mid-statement is closed, never handed back to the pool for reuse.

    A run's thread lock is a session advisory lock (``pg_advisory_lock``) on a 64-bit
    hash of the table and the thread id, held on a connection of its own for the run.

    Args:
        url: a libpq connection string or URL, ``postgresql://user@host:5432/db``.
        table_prefix: put before every table name.
        pool_size: connections the sync methods share (``pip install graphnb[postgres]``
            brings ``psycopg-pool`` for more than one).
        on_busy_thread, lock_timeout: what a run does when another run holds its thread,
            as for :class:`~graphnb.checkpoint.SqlSaver`.
        connection_options: libpq connection parameters over graphnb's defaults
            (:data:`CONNECTION_DEFAULTS`: a 10 s ``connect_timeout``, TCP keepalives
            probing an idle connection after 30 s, and a 60 s ``tcp_user_timeout``), so
            a network that silently drops packets fails the run within about a minute
            instead of hanging it. A parameter the URL sets wins over the defaults; one
            given here wins over both; ``None`` as a value leaves libpq's own default.
        statement_timeout: seconds after which the server cancels any statement of these
            connections (``None``, the default: no limit); the wait for a thread's lock is
            bounded by ``lock_timeout`` instead.
    """

    json_type = "JSON"
    param = "%s"
    json_param = "%s::json"
    text_type = "TEXT"
    float_type = "DOUBLE PRECISION"

    def __init__(
        self,
        url: str,
        *,
        table_prefix: str = "graphnb_",
        pool_size: int = 1,
        on_busy_thread: OnBusy = "wait",
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        connection_options: Mapping[str, str | int | float | None] | None = None,
        statement_timeout: float | None = None,
    ) -> None:
        if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size < 1:
            raise ValueError(f"pool_size must be an integer >= 1, got {pool_size!r}")
        if statement_timeout is not None and (
            not isinstance(statement_timeout, (int, float))
            or isinstance(statement_timeout, bool)
            or not 0 < statement_timeout < float("inf")
        ):
            raise ValueError(
                f"statement_timeout must be a positive number of seconds or None, "
                f"got {statement_timeout!r}"
            )
        if connection_options is not None and not (
            isinstance(connection_options, Mapping)
            and all(isinstance(key, str) for key in connection_options)
        ):
            raise ValueError(
                "connection_options must map libpq parameter names to values, got "
                f"{connection_options!r:.80}"
            )
        self.url = url
        self.connection_options = dict(connection_options or {})
        self.statement_timeout = statement_timeout
        self._conninfo = ""
        self.pool_size = pool_size
        self._pool: Any = None
        self._pool_pid = 0
        # The async connection of each event loop, and the lock its coroutines connect
        # under: a connection can only be awaited on the loop that made it.
        self._aconns: dict[Any, Any] = {}
        self._alocks: dict[Any, Any] = {}
        self._aguard = threading.Lock()
        super().__init__(
            table_prefix=table_prefix, on_busy_thread=on_busy_thread, lock_timeout=lock_timeout
        )

    def __repr__(self) -> str:
        return f"PostgresSaver(table_prefix={self.table_prefix!r})"

    def reopen_args(self) -> tuple[str, dict[str, Any]] | None:
        """The URL and every option."""
        options = {
            **self._reopen_options(),
            "pool_size": self.pool_size,
            "statement_timeout": self.statement_timeout,
        }
        if self.connection_options:
            options["connection_options"] = dict(self.connection_options)
        url = self.url
        if "://" not in url:  # a key=value connection string: as a URL of its parameters
            from urllib.parse import urlencode

            url = "postgresql://?" + urlencode(_psycopg().conninfo.conninfo_to_dict(url))
        return url, options

    def conninfo(self) -> str:
        """The connection string every connection of this saver opens with.

        The URL with :data:`CONNECTION_DEFAULTS` where it sets nothing, then
        ``connection_options``, then ``statement_timeout`` as a server option.

        Raises:
            SaverSetupError: the URL cannot be read as a libpq connection string.
        """
        if not self._conninfo:
            conninfo = _psycopg().conninfo
            try:
                given = conninfo.conninfo_to_dict(self.url)
            except _psycopg().ProgrammingError as error:
                raise SaverSetupError(f"PostgresSaver cannot read its URL: {error}") from None
            params: dict[str, Any] = {
                key: value for key, value in CONNECTION_DEFAULTS.items() if key not in given
            }
            params.update(self.connection_options)
            if self.statement_timeout is not None:
                milliseconds = max(1, round(self.statement_timeout * 1000))
                options = params.get("options", given.get("options")) or ""
                params["options"] = f"{options} -c statement_timeout={milliseconds}".strip()
            self._conninfo = conninfo.make_conninfo(self.url, **params)
        return self._conninfo

    def _connect(self) -> Any:
        conn = _psycopg().connect(self.conninfo(), autocommit=True)
        _raw_json(conn)
        return conn

    def _is_duplicate(self, error: BaseException) -> bool:
        return isinstance(error, _psycopg().errors.UniqueViolation)

    def _is_bad_data(self, error: BaseException) -> bool:
        return isinstance(error, _psycopg().DataError)

    def _is_closed(self, conn: Any) -> bool:
        return bool(conn.closed)

    def _usable_after(self, conn: Any, error: BaseException) -> bool:
        # psycopg cancels a query interrupted by Ctrl-C and reads its answer; if that
        # fails as well, the connection is not IDLE and is dropped.
        return _idle(conn)

    # -- a pool of connections, with pool_size > 1 -------------------------------------

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        if self.pool_size == 1:
            with super()._cursor() as cursor:
                yield cursor
            return
        with self._connection_pool().connection() as conn:
            cursor = conn.cursor()
            try:
                yield cursor
            except BaseException:
                # As for the single connection: one that was interrupted before reading
                # its whole answer is closed, and the pool replaces it.
                if not _idle(conn):
                    conn.close()
                raise
            finally:
                with suppress(Exception):
                    cursor.close()

    def _connection_pool(self) -> Any:
        with self._lock:
            if self._pool is not None and self._pool_pid == os.getpid():
                return self._pool
            try:
                from psycopg_pool import ConnectionPool
            except ImportError:  # pragma: no cover - depends on the environment
                raise SaverSetupError(
                    "PostgresSaver(pool_size=...) needs psycopg-pool: install it with "
                    "`pip install graphnb[postgres]`"
                ) from None
            # A forked child's pool would share the parent's sockets: it makes its own.
            pool = ConnectionPool(
                self.conninfo(),
                min_size=1,
                max_size=self.pool_size,
                kwargs={"autocommit": True},
                configure=_raw_json,
                open=False,
                name=f"graphnb:{self.table}",
            )
            pool.open(wait=True)
            try:
                with pool.connection() as conn, conn.cursor() as cursor:
                    drive(self._setup(), lambda statement: execute(cursor, statement))
            except BaseException:
                pool.close()
                raise
            self._pool, self._pool_pid = pool, os.getpid()
            return pool

    # -- thread locks --------------------------------------------------------------------

    def _thread_key(self, thread_id: str) -> int:
        return int.from_bytes(lock_digest(self.table, thread_id)[:8], "big", signed=True)

    def _take_lock(self, conn: Any, thread_id: str, *, wait: bool) -> bool:
        key = self._thread_key(thread_id)
        with conn.cursor() as cursor:
            if not wait:
                cursor.execute("SELECT pg_try_advisory_lock(%s)", (key,))
                return bool(cursor.fetchone()[0])
            timeout = f"{max(1, round(self.lock_timeout * 1000))}ms"
            # lock_timeout bounds the wait; a statement_timeout would cut it short
            cursor.execute(
                "SELECT set_config('lock_timeout', %s, false), "
                "set_config('statement_timeout', '0', false)",
                (timeout,),
            )
            try:
                cursor.execute("SELECT pg_advisory_lock(%s)", (key,))
            except _psycopg().errors.LockNotAvailable:
                return False
            return True

    def _give_lock(self, conn: Any, thread_id: str) -> None:
        with conn.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", (self._thread_key(thread_id),))

    @property
    def _lock_key(self) -> int:
        return zlib.crc32(f"graphnb:{self.table}".encode())

    def _setup_begin(self) -> list[Statement]:
        # Concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL's catalog.
        return [
            Statement("BEGIN"),
            Statement("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,)),
        ]

    def _migrations(self, version: int) -> list[Statement]:
        # Layout 1 stored jsonb, whose key order is already lost: only new rows keep theirs.
        columns = ", ".join(
            f"ALTER COLUMN {name} TYPE JSON USING {name}::text::json"
            for name in ("meta", "writes", "snapshot")
        )
        return [Statement(f"ALTER TABLE {self.table} {columns}")] if version < 2 else []

    def close(self) -> None:
        """Close the sync connection (or pool) and the async ones."""
        super().close()
        with self._lock:
            pool, self._pool = self._pool, None
            if pool is not None and self._pool_pid == os.getpid():
                pool.close()
        with self._aguard:
            conns, self._aconns, self._alocks = list(self._aconns.values()), {}, {}
        for conn in conns:
            conn.pgconn.finish()  # its event loop may be gone: close the socket

    # -- async, on psycopg's AsyncConnection -------------------------------------------

    async def _aconnection(self) -> Any:
        import asyncio

        loop = asyncio.get_running_loop()
        conn = self._aconns.get(loop)
        if conn is not None and not conn.closed:
            return conn
        with self._aguard:
            lock = self._alocks.get(loop)
            if lock is None:
                lock = self._alocks[loop] = asyncio.Lock()
        # Coroutines that find no connection wait for the first one to make it, instead of
        # each opening one that only the last would keep.
        async with lock:
            conn = self._aconns.get(loop)
            if conn is not None and not conn.closed:
                return conn
            self._drop_gone_loops()
            conn = await _psycopg().AsyncConnection.connect(self.conninfo(), autocommit=True)
            _raw_json(conn)
            try:
                async with conn.cursor() as cursor:
                    await _adrive(self._setup(), cursor)
            except BaseException:
                conn.pgconn.finish()  # rolls back and releases the setup lock
                raise
            with self._aguard:
                self._aconns[loop] = conn
            return conn

    def _drop_gone_loops(self) -> None:
        """Close the connections of event loops that were closed: none can await them."""
        with self._aguard:
            gone = [loop for loop in self._aconns if loop.is_closed()]
            conns = [self._aconns.pop(loop) for loop in gone]
            for loop in gone:
                self._alocks.pop(loop, None)
        for conn in conns:
            conn.pgconn.finish()

    async def _arun(self, plan: Plan[T]) -> T:
        """Run a plan on the async connection; see :meth:`SqlSaver._run`."""
        import asyncio

        conn = await self._aconnection()
        try:
            async with conn.cursor() as cursor:
                return await _adrive(plan, cursor)
        except BaseException:
            # A cancelled task or Ctrl-C mid-statement: as for the sync connection.
            if not _idle(conn):
                conn.pgconn.finish()
                with self._aguard:
                    loop = asyncio.get_running_loop()
                    if self._aconns.get(loop) is conn:
                        del self._aconns[loop]
            raise

    async def aput(self, row: StoredCheckpoint) -> None:
        """Async :meth:`put`, on the async connection."""
        await self._arun(self._put(row))

    async def aload(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """Async :meth:`load`, on the async connection."""
        return await self._arun(self._load(thread_id, checkpoint_id))

    async def ahistory(self, thread_id: str) -> list[StoredCheckpoint]:
        """Async :meth:`history`, on the async connection."""
        return await self._arun(self._history(thread_id))

    async def ahistory_rows(
        self, thread_id: str, *, limit: int, before: str | None = None
    ) -> list[StoredCheckpoint]:
        """Async :meth:`history_rows`, on the async connection."""
        check_history_limit(limit)
        return await self._arun(self._history_rows(thread_id, limit, before))

    async def athreads(self) -> list[str]:
        """Async :meth:`threads`, on the async connection."""
        return await self._arun(self._threads())

    async def adelete_thread(self, thread_id: str) -> int:
        """Async :meth:`delete_thread`, on the async connection."""
        return await self._arun(self._delete(thread_id))

    async def aclose(self) -> None:
        """Close every connection (and the pool); this loop's properly, on the loop."""
        import asyncio

        with self._aguard:
            conn = self._aconns.pop(asyncio.get_running_loop(), None)
        if conn is not None:
            await conn.close()
        self.close()  # the pool's too, with its threads, and other loops' connections


async def _adrive(plan: Plan[T], cursor: Any) -> T:
    """:func:`~graphnb.checkpoint.sql.drive` with ``await``, on an async cursor."""
    try:
        statement = next(plan)
        while True:
            try:
                await cursor.execute(statement.sql, statement.params)
                if statement.fetch == "all":
                    result: Any = await cursor.fetchall()
                elif statement.fetch == "one":
                    result = await cursor.fetchone()
                else:
                    result = cursor.rowcount if statement.fetch == "count" else None
            except Exception as error:
                statement = plan.throw(error)
            else:
                statement = plan.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
