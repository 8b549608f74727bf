"""Fixtures: every saver, on real databases, each test in its own tables."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphnb.checkpoint import (
    BaseSaver,
    MemorySaver,
    MySQLSaver,
    PostgresSaver,
    SqliteSaver,
    SqlSaver,
)

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
MYSQL_URL = "mysql://root:@127.0.0.1:3306/test"

SAVERS = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.db),
    pytest.param("mysql", id="mysql", marks=pytest.mark.db),
]


def unique_prefix() -> str:
    """Table prefix of one test: parallel runs on the same database never meet."""
    return f"t{uuid.uuid4().hex[:12]}_"


def drop_tables(saver: BaseSaver) -> None:
    saver.close()
    if isinstance(saver, (PostgresSaver, MySQLSaver)):
        conn = saver._connect()  # a bare connection: the tables may be unreadable
        try:
            cursor = conn.cursor()
            cursor.execute(f"DROP TABLE IF EXISTS {saver.table}")
            cursor.execute(f"DROP TABLE IF EXISTS {saver.version_table}")
            cursor.execute(f"DROP TABLE IF EXISTS {saver.cache_table}")
            cursor.close()
        finally:
            conn.close()


def _reachable(kind: str) -> bool:
    try:
        if kind == "postgres":
            import psycopg

            psycopg.connect(POSTGRES_URL, connect_timeout=3).close()
        else:
            import pymysql

            pymysql.connect(
                host="127.0.0.1", user="root", password="", database="test", connect_timeout=3
            ).close()
    except Exception:
        return False
    return True


def make_saver(kind: str, tmp_path: Path, prefix: str | None = None, **options: Any) -> BaseSaver:
    """A saver of the given kind, on its own tables (SQL) or file (SQLite)."""
    prefix = prefix or unique_prefix()
    if kind == "memory":
        return MemorySaver(**options)
    if kind == "sqlite":
        return SqliteSaver(tmp_path / "threads.db", **options)
    if kind == "postgres-pool":  # PostgreSQL on a pool of connections
        kind, options = "postgres", {"pool_size": 4, **options}
    if not _reachable(kind):
        pytest.skip(f"the local {kind} server is not running")
    if kind == "postgres":
        return PostgresSaver(POSTGRES_URL, table_prefix=prefix, **options)
    return MySQLSaver(MYSQL_URL, table_prefix=prefix, **options)


@pytest.fixture(params=SAVERS)
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BaseSaver]:
    """Each of the four savers in turn, empty, dropped afterwards."""
    made = make_saver(request.param, tmp_path)
    try:
        yield made
    finally:
        drop_tables(made)


@pytest.fixture(params=SAVERS[1:])
def sql_saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlSaver]:
    """Each of the three SQL savers in turn, empty, dropped afterwards."""
    made = make_saver(request.param, tmp_path)
    assert isinstance(made, SqlSaver)
    try:
        yield made
    finally:
        drop_tables(made)


@pytest.fixture
def postgres_saver(tmp_path: Path) -> Iterator[PostgresSaver]:
    """A PostgreSQL saver on tables of its own, dropped afterwards."""
    made = make_saver("postgres", tmp_path)
    assert isinstance(made, PostgresSaver)
    try:
        yield made
    finally:
        drop_tables(made)
