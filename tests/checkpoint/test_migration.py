"""Tables of an older layout are migrated when a saver connects, and their data survives."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from graphnb.checkpoint import MemorySaver, SqliteSaver, SqlSaver
from graphnb.checkpoint.sql import SCHEMA_VERSION

from .conftest import drop_tables, make_saver
from .test_savers import grow, threads

# The layout-1 types of (thread_id, created_at, JSON columns, table options), as released.
_LAYOUT_1 = {
    "sqlite": ("TEXT", "REAL", "TEXT", ""),
    "postgres": ("TEXT", "DOUBLE PRECISION", "JSONB", ""),
    "mysql": (
        "VARCHAR(255)",
        "DOUBLE",
        "JSON",
        " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
    ),
}


def _raw(saver: SqlSaver, tmp_path: Path) -> Any:
    """A bare connection to the saver's database, bypassing the saver."""
    if isinstance(saver, SqliteSaver):
        return sqlite3.connect(tmp_path / "threads.db", isolation_level=None)
    return saver._connect()


def _create_layout_1(kind: str, saver: SqlSaver, conn: Any) -> None:
    thread, stamp, js, options = _LAYOUT_1[kind]
    cursor = conn.cursor()
    cursor.execute(f"CREATE TABLE {saver.version_table} (version INTEGER NOT NULL){options}")
    cursor.execute(
        f"CREATE TABLE {saver.table} (thread_id {thread} NOT NULL, seq BIGINT NOT NULL, "
        "checkpoint_id VARCHAR(64) NOT NULL, parent_id VARCHAR(64), parent_seq BIGINT, "
        f"base_seq BIGINT NOT NULL, step INTEGER NOT NULL, source VARCHAR(16) NOT NULL, "
        f"created_at {stamp} NOT NULL, meta {js} NOT NULL, writes {js} NOT NULL, "
        f"snapshot {js}, PRIMARY KEY (thread_id, seq), CONSTRAINT "
        f"{saver.table_prefix}checkpoint_id_key UNIQUE (thread_id, checkpoint_id)){options}"
    )
    cursor.execute(f"INSERT INTO {saver.version_table} (version) VALUES (1)")
    cursor.close()


def _insert_layout_1(kind: str, saver: SqlSaver, conn: Any, rows: list[Any]) -> None:
    import json

    p = "?" if kind == "sqlite" else "%s"
    j = f"{p}::jsonb" if kind == "postgres" else p
    cursor = conn.cursor()
    for row in rows:
        cursor.execute(
            f"INSERT INTO {saver.table} VALUES ({', '.join([p] * 9 + [j] * 3)})",
            (
                row.thread_id,
                row.seq,
                row.checkpoint_id,
                row.parent_id,
                row.parent_seq,
                row.base_seq,
                row.step,
                row.source,
                row.created_at,
                json.dumps(row.meta),
                json.dumps(row.writes),
                None if row.snapshot is None else json.dumps(row.snapshot),
            ),
        )
    cursor.close()


def _column_types(kind: str, saver: SqlSaver, conn: Any) -> dict[str, str]:
    cursor = conn.cursor()
    if kind == "postgres":
        cursor.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s",
            (saver.table,),
        )
    elif kind == "mysql":
        cursor.execute(
            "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s",
            (saver.table,),
        )
    else:
        cursor.execute(f"SELECT name, type FROM pragma_table_info('{saver.table}')")
    found = {str(name).lower(): str(kind_).lower() for name, kind_ in cursor.fetchall()}
    cursor.close()
    return found


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.db),
        pytest.param("mysql", marks=pytest.mark.db),
    ]
)
def old_tables(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, SqlSaver]]:
    """A saver of each SQL kind whose tables were made with layout 1 (none are made yet)."""
    saver = make_saver(request.param, tmp_path)
    assert isinstance(saver, SqlSaver)
    try:
        yield request.param, saver
    finally:
        drop_tables(saver)


def test_layout_1_tables_migrate_and_their_threads_survive(
    old_tables: tuple[str, SqlSaver], tmp_path: Path
) -> None:
    kind, saver = old_tables
    source = MemorySaver()
    grow(threads(source, snapshot_every=2), "alice", 5)
    grow(threads(source), "bob ", 2)  # layout 1 on MySQL took it for "bob"
    expected = {name: source.history(name) for name in ("alice", "bob ")}
    with closing(_raw(saver, tmp_path)) as conn:
        _create_layout_1(kind, saver, conn)
        _insert_layout_1(kind, saver, conn, [*expected["alice"], *expected["bob "]])

    assert saver.threads() == ["alice", "bob "]  # connecting migrates

    with closing(_raw(saver, tmp_path)) as conn:
        cursor = conn.cursor()
        cursor.execute(f"SELECT version FROM {saver.version_table}")
        assert [tuple(row) for row in cursor.fetchall()] == [(SCHEMA_VERSION,)]
        cursor.close()
        types = _column_types(kind, saver, conn)
    if kind == "postgres":
        assert {types[c] for c in ("meta", "writes", "snapshot")} == {"json"}
    if kind == "mysql":
        assert {types[c] for c in ("thread_id", "checkpoint_id", "parent_id")} == {"varbinary"}
        assert {types[c] for c in ("meta", "writes", "snapshot")} == {"longtext"}

    for name, rows in expected.items():
        assert saver.history(name) == rows
        assert threads(saver).load(name).values == threads(source).load(name).values  # type: ignore[union-attr]
    # The ids now compare byte for byte: "bob" is a thread of its own.
    grow(threads(saver), "bob", 1)
    grow(threads(saver), "alice", 1, start=5)
    assert saver.threads() == ["alice", "bob", "bob "]
    assert len(saver.history("bob ")) == 2
    assert threads(saver).load("alice").values["messages"] == [f"m{i}" for i in range(6)]  # type: ignore[union-attr]

    saver.close()  # connecting again finds layout 2 and changes nothing
    assert saver.history("bob ") == expected["bob "]
    with closing(_raw(saver, tmp_path)) as conn:
        cursor = conn.cursor()
        cursor.execute(f"SELECT version FROM {saver.version_table}")
        assert [tuple(row) for row in cursor.fetchall()] == [(SCHEMA_VERSION,)]
        cursor.close()


def test_new_tables_are_made_with_the_current_layout(
    old_tables: tuple[str, SqlSaver], tmp_path: Path
) -> None:
    kind, saver = old_tables
    saver.threads()
    with closing(_raw(saver, tmp_path)) as conn:
        types = _column_types(kind, saver, conn)
    if kind == "postgres":
        assert types["meta"] == "json"
    elif kind == "mysql":
        assert (types["thread_id"], types["meta"]) == ("varbinary", "longtext")
    else:
        assert types["thread_id"] == "text"
