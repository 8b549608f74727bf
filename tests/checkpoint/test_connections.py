"""Savers' connection settings: what a worker reopens, and PostgreSQL's timeouts.

Issue 29, items 16 and 17: a PostgreSQL connection whose network silently drops packets
hung a run (libpq sets no timeout), and a batch's workers reopened the saver from its
URL alone, losing its options.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from graphnb.checkpoint import MemorySaver, MySQLSaver, PostgresSaver, SqliteSaver, saver_from_url
from graphnb.checkpoint.postgres import CONNECTION_DEFAULTS

from .conftest import MYSQL_URL, POSTGRES_URL, _reachable, drop_tables, unique_prefix


def test_every_savers_options_reopen_it_as_it_is(tmp_path: Path) -> None:
    savers: list[Any] = [
        SqliteSaver(tmp_path / "a.db", table_prefix="mine_", synchronous="FULL", timeout=3.0),
        PostgresSaver(
            POSTGRES_URL,
            table_prefix="pg_",
            pool_size=3,
            on_busy_thread="fail",
            lock_timeout=7.5,
            statement_timeout=12,
            connection_options={"keepalives_idle": 5},
        ),
        MySQLSaver(MYSQL_URL, table_prefix="my_", lock_timeout=9.0),
    ]
    for saver in savers:
        reopened = saver.reopen_args()
        assert reopened is not None
        url, options = reopened
        again = saver_from_url(url, **options)
        assert type(again) is type(saver)
        assert again.reopen_args() == reopened
        assert (again.table, again.on_busy_thread, again.lock_timeout) == (
            saver.table,
            saver.on_busy_thread,
            saver.lock_timeout,
        )
    assert MemorySaver().reopen_args() is None
    assert SqliteSaver(":memory:").reopen_args() is None
    # a relative file is reopened as the same file from any working directory
    url, _ = SqliteSaver("rel.db").reopen_args()  # type: ignore[misc]
    assert url == f"sqlite:///{Path('rel.db').resolve()}"


def test_postgres_connection_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="statement_timeout"):
        PostgresSaver(POSTGRES_URL, statement_timeout=0)
    with pytest.raises(ValueError, match="connection_options"):
        PostgresSaver(POSTGRES_URL, connection_options=[("keepalives", 1)])  # type: ignore[arg-type]
    # the URL's own parameters win over the defaults, connection_options over both
    saver = PostgresSaver(
        f"{POSTGRES_URL}?keepalives_idle=99&connect_timeout=4",
        connection_options={"connect_timeout": 2, "tcp_user_timeout": None},
    )
    info = saver.conninfo()
    assert "keepalives_idle=99" in info
    assert "connect_timeout=2" in info
    assert "tcp_user_timeout" not in info
    assert "keepalives_count=3" in info


@pytest.mark.db
@pytest.mark.parametrize("pool_size", [1, 3])
def test_postgres_connections_get_keepalives_and_the_statement_timeout(pool_size: int) -> None:
    if not _reachable("postgres"):
        pytest.skip("the local postgres server is not running")
    saver = PostgresSaver(
        POSTGRES_URL,
        table_prefix=unique_prefix(),
        pool_size=pool_size,
        statement_timeout=2.5,
        connection_options={"keepalives_idle": 15},
    )
    expected = {**{k: str(v) for k, v in CONNECTION_DEFAULTS.items()}, "keepalives_idle": "15"}
    try:
        saver.threads()  # opens the sync connection (or the pool) and the tables

        def settings(conn: Any) -> tuple[dict[str, str], str]:
            params = conn.info.get_parameters()
            timeout = conn.execute("SHOW statement_timeout").fetchone()[0]
            return {k: params.get(k) for k in expected}, timeout

        if pool_size == 1:
            seen = [settings(saver._conn)]
        else:
            with saver._connection_pool().connection() as conn:
                seen = [settings(conn)]

        async def from_the_loop() -> tuple[dict[str, str], str]:
            conn = await saver._aconnection()
            params = conn.info.get_parameters()
            cursor = await conn.execute("SHOW statement_timeout")
            return {k: params.get(k) for k in expected}, (await cursor.fetchone())[0]

        seen.append(asyncio.run(from_the_loop()))
        assert seen == [(expected, "2500ms")] * 2
        # the thread lock's connection waits up to lock_timeout, not statement_timeout
        with saver.thread_lock("t"):
            (conn,) = [c for c in saver._lock_conns if not c.closed] or [None]
            if conn is not None:
                assert conn.info.get_parameters()["keepalives_idle"] == "15"
        # and a statement running longer is cancelled by the server
        with pytest.raises(Exception, match="statement timeout"), saver._cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")
    finally:
        drop_tables(saver)
