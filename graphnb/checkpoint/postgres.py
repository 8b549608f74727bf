"""Checkpoints in PostgreSQL (psycopg 3), for threads shared by processes and machines.

Install the driver with ``pip install graphnb[postgres]``.
"""

from __future__ import annotations

import zlib
from typing import Any

from ..checkpoint_errors import SaverSetupError
from ..records import StoredCheckpoint
from .base import Loaded
from .sql import SCHEMA_VERSION, SqlSaver

__all__ = ["PostgresSaver"]


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - depends on the environment
        raise SaverSetupError(
            "PostgresSaver needs psycopg 3: install it with `pip install graphnb[postgres]`"
        ) from None
    return psycopg


class PostgresSaver(SqlSaver):
    """Stores checkpoints in PostgreSQL; ``meta``, ``writes`` and ``snapshot`` are JSONB.

    The sync methods share one connection; the async ones (``aput``, ``aload`` ...) use
    psycopg's own async connection, one per event loop, so they never block the loop.

    Args:
        url: a libpq connection string or URL, ``postgresql://user@host:5432/db``.
        table_prefix: put before every table name.
    """

    json_type = "JSONB"
    param = "%s"
    json_param = "%s::jsonb"
    text_type = "TEXT"
    float_type = "DOUBLE PRECISION"

    def __init__(self, url: str, *, table_prefix: str = "graphnb_") -> None:
        self.url = url
        self._aconn: Any = None
        self._aloop: Any = None
        self._alock: Any = None
        self._alock_loop: Any = None
        super().__init__(table_prefix=table_prefix)

    def __repr__(self) -> str:
        return f"PostgresSaver(table_prefix={self.table_prefix!r})"

    def _connect(self) -> Any:
        return _psycopg().connect(self.url, autocommit=True)

    def _is_duplicate(self, error: BaseException) -> bool:
        return isinstance(error, _psycopg().errors.UniqueViolation)

    def _is_bad_data(self, error: BaseException) -> bool:
        return isinstance(error, _psycopg().DataError)

    def _is_closed(self, conn: Any) -> bool:
        return bool(conn.closed)

    @property
    def _lock_key(self) -> int:
        return zlib.crc32(f"graphnb:{self.table}".encode())

    def _setup_lock(self, cursor: Any) -> None:
        # Concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL's catalog.
        cursor.execute("BEGIN")
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))

    def close(self) -> None:
        """Close the sync connection and the async one."""
        super().close()
        with self._lock:
            if self._aconn is not None:
                self._aconn.pgconn.finish()  # its event loop may be gone: close the socket
                self._aconn = self._aloop = None

    # -- async, on psycopg's AsyncConnection -------------------------------------------

    async def _aconnection(self) -> Any:
        import asyncio

        loop = asyncio.get_running_loop()
        conn = self._aconn
        if conn is not None and self._aloop is loop and not conn.closed:
            return conn
        if self._alock is None or self._alock_loop is not loop:
            self._alock, self._alock_loop = asyncio.Lock(), loop
        # Coroutines that find no connection wait for the first one to make it, instead of
        # each opening one that only the last would keep.
        async with self._alock:
            conn = self._aconn
            if conn is not None and self._aloop is loop and not conn.closed:
                return conn
            if conn is not None:
                conn.pgconn.finish()  # made on a loop that is gone: it cannot be awaited
                self._aconn = self._aloop = None
            return await self._aconnect(loop)

    async def _aconnect(self, loop: Any) -> Any:
        conn = await _psycopg().AsyncConnection.connect(self.url, autocommit=True)
        try:
            async with conn.cursor() as cursor:
                await cursor.execute("BEGIN")
                await cursor.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
                try:
                    for statement in self._ddl():
                        await cursor.execute(statement)
                    await cursor.execute(f"SELECT version FROM {self.version_table}")
                    if self._needs_version(await cursor.fetchall()):
                        await cursor.execute(self._version_insert, (SCHEMA_VERSION,))
                except BaseException:
                    await cursor.execute("ROLLBACK")
                    raise
                await cursor.execute("COMMIT")
        except BaseException:
            await conn.close()
            raise
        self._aconn, self._aloop = conn, loop
        return conn

    async def aput(self, row: StoredCheckpoint) -> None:
        """Async :meth:`put`, on the async connection."""
        params = self._insert_params(row)
        conn = await self._aconnection()
        async with conn.cursor() as cursor:
            try:
                await cursor.execute(self._queries["insert"], params)
            except Exception as error:
                mapped = self._insert_error(error, row)
                if mapped is error:
                    raise
                raise mapped from None

    async def aload(self, thread_id: str, checkpoint_id: str | None = None) -> Loaded | None:
        """Async :meth:`load`, on the async connection."""
        conn = await self._aconnection()
        async with conn.cursor() as cursor:
            await cursor.execute(*self._load_query(thread_id, checkpoint_id))
            rows = self._rows(await cursor.fetchall())
            if not rows:
                return None
            if checkpoint_id is None:
                return Loaded(rows, rows[-1].seq)
            await cursor.execute(self._queries["head"], (thread_id,))
            head = await cursor.fetchone()
            return Loaded(rows, int(head[0]))

    async def ahistory(self, thread_id: str) -> list[StoredCheckpoint]:
        """Async :meth:`history`, on the async connection."""
        conn = await self._aconnection()
        async with conn.cursor() as cursor:
            await cursor.execute(self._queries["history"], (thread_id,))
            return self._rows(await cursor.fetchall())

    async def athreads(self) -> list[str]:
        """Async :meth:`threads`, on the async connection."""
        conn = await self._aconnection()
        async with conn.cursor() as cursor:
            await cursor.execute(self._queries["threads"])
            return sorted(row[0] for row in await cursor.fetchall())

    async def adelete_thread(self, thread_id: str) -> int:
        """Async :meth:`delete_thread`, on the async connection."""
        conn = await self._aconnection()
        async with conn.cursor() as cursor:
            await cursor.execute(self._queries["delete"], (thread_id,))
            return int(cursor.rowcount)

    async def aclose(self) -> None:
        """Close both connections; the async one properly, on its own loop."""
        conn, self._aconn, self._aloop = self._aconn, None, None
        if conn is not None:
            await conn.close()
        super().close()
