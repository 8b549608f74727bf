"""What the server keeps beside the checkpoints: its threads' metadata and its runs.

A thread's state lives in the graph's saver; what the Agent Server API also says about
a thread (when it was made, its metadata, which graph it belongs to) and every run (its
status, its assistant) lives here, in two tables of the same database: a SQLite file
(:class:`Store`) or PostgreSQL (:class:`PostgresStore`), beside the checkpoints. The calls
are short, so they run on the event loop. Several processes may share one PostgreSQL
store (API processes and workers, :mod:`graphnb.serve.queue`): a run is added under a lock
on its thread, so two of them never both take an idle thread.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["Busy", "PostgresStore", "Store", "open_store"]


class Busy(Exception):
    """The thread already has a run that has not ended."""


_TABLES = """
CREATE TABLE IF NOT EXISTS serve_threads (
    thread_id TEXT PRIMARY KEY,
    graph_id TEXT,
    metadata TEXT NOT NULL,
    created_at {real} NOT NULL,
    updated_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    multitask_strategy TEXT NOT NULL,
    created_at {real} NOT NULL,
    updated_at {real} NOT NULL{sequence}
);
CREATE INDEX IF NOT EXISTS serve_runs_thread ON serve_runs (thread_id, created_at);
"""


class Store:
    """Threads' metadata and runs in SQLite (``path`` a file, or ``:memory:``)."""

    _NEWEST_RUNS = "created_at DESC, rowid DESC"
    """The order of a thread's runs, newest first (ties: the later written)."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            # as graphnb's SqliteSaver: a commit survives a crash of the process without an
            # fsync each; these writes run on the event loop, where an fsync stalls every run
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_TABLES.format(real="REAL", sequence=""))

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run one statement (``?`` placeholders); its rows, as dicts."""
        with self._lock:
            return [dict(row) for row in self._db.execute(sql, params).fetchall()]

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()

    def forget_unfinished_runs(self) -> None:
        """Mark every run left pending or running failed: its process is gone.

        Only for a store that one process serves alone (:class:`~graphnb.serve.runs.Runner`).
        """
        self._execute(
            "UPDATE serve_runs SET status = 'error', updated_at = ? "
            "WHERE status IN ('pending', 'running')",
            (time.time(),),
        )

    # -- threads ---------------------------------------------------------------------

    def add_thread(self, thread_id: str, metadata: dict[str, Any], graph_id: str | None) -> None:
        """Record a new thread."""
        now = time.time()
        self._execute(
            "INSERT INTO serve_threads VALUES (?, ?, ?, ?, ?)",
            (thread_id, graph_id, json.dumps(metadata), now, now),
        )

    def thread(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's row, or ``None``."""
        rows = self._execute("SELECT * FROM serve_threads WHERE thread_id = ?", (thread_id,))
        return _decoded(rows[0]) if rows else None

    def threads(self) -> list[dict[str, Any]]:
        """Every thread, newest first."""
        rows = self._execute("SELECT * FROM serve_threads ORDER BY created_at DESC, thread_id")
        return [_decoded(row) for row in rows]

    def touch_thread(self, thread_id: str, graph_id: str | None = None) -> None:
        """Mark the thread updated now (and bind it to ``graph_id`` if it has no graph)."""
        self._execute(
            "UPDATE serve_threads SET updated_at = ?, graph_id = COALESCE(graph_id, ?) "
            "WHERE thread_id = ?",
            (time.time(), graph_id, thread_id),
        )

    def merge_metadata(self, thread_id: str, metadata: dict[str, Any]) -> None:
        """Merge ``metadata`` into the thread's (its keys win)."""
        rows = self._execute("SELECT metadata FROM serve_threads WHERE thread_id = ?", (thread_id,))
        if rows:
            merged = json.loads(rows[0]["metadata"]) | metadata
            self._execute(
                "UPDATE serve_threads SET metadata = ?, updated_at = ? WHERE thread_id = ?",
                (json.dumps(merged), time.time(), thread_id),
            )

    def delete_thread(self, thread_id: str) -> None:
        """Forget the thread and its runs."""
        self._execute("DELETE FROM serve_runs WHERE thread_id = ?", (thread_id,))
        self._execute("DELETE FROM serve_threads WHERE thread_id = ?", (thread_id,))

    # -- runs ------------------------------------------------------------------------

    def add_run(self, run: dict[str, Any], *, unless_busy: bool = False) -> None:
        """Record a new run (a dict with every column).

        Raises:
            Busy: ``unless_busy`` and the thread has a run that has not ended.
        """
        with self._thread_locked(run["thread_id"]):
            if unless_busy and self.busy(run["thread_id"]):
                raise Busy(run["thread_id"])
            self._insert_run(run)

    def busy(self, thread_id: str) -> bool:
        """Whether the thread has a run that has not ended (pending or running)."""
        return bool(
            self._execute(
                "SELECT 1 FROM serve_runs WHERE thread_id = ? "
                "AND status IN ('pending', 'running') LIMIT 1",
                (thread_id,),
            )
        )

    @contextlib.contextmanager
    def _thread_locked(self, thread_id: str) -> Iterator[None]:
        yield  # one process writes a SQLite store: the calls are already in order

    def _insert_run(self, run: dict[str, Any]) -> None:
        self._execute(
            "INSERT INTO serve_runs (run_id, thread_id, assistant_id, status, metadata, "
            "multitask_strategy, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run["run_id"],
                run["thread_id"],
                run["assistant_id"],
                run["status"],
                json.dumps(run["metadata"]),
                run["multitask_strategy"],
                run["created_at"],
                run["updated_at"],
            ),
        )

    def delete_run(self, run_id: str) -> None:
        """Forget a run (a rolled-back one)."""
        self._execute("DELETE FROM serve_runs WHERE run_id = ?", (run_id,))

    def set_status(self, run_id: str, status: str) -> None:
        """Change a run's status."""
        self._execute(
            "UPDATE serve_runs SET status = ?, updated_at = ? WHERE run_id = ?",
            (status, time.time(), run_id),
        )

    def run_status(self, run_id: str) -> str | None:
        """The run's status, or ``None`` for no such run."""
        rows = self._execute("SELECT status FROM serve_runs WHERE run_id = ?", (run_id,))
        return str(rows[0]["status"]) if rows else None

    def run(self, thread_id: str, run_id: str) -> dict[str, Any] | None:
        """The run's row, or ``None``."""
        rows = self._execute(
            f"SELECT {_RUN_COLUMNS} FROM serve_runs WHERE thread_id = ? AND run_id = ?",
            (thread_id, run_id),
        )
        return _decoded(rows[0]) if rows else None

    def runs(
        self, thread_id: str, *, limit: int, offset: int, status: str | None
    ) -> list[dict[str, Any]]:
        """The thread's runs, newest first."""
        query = f"SELECT {_RUN_COLUMNS} FROM serve_runs WHERE thread_id = ?"
        params: list[Any] = [thread_id]
        if status is not None:
            query += " AND status = ?"
            params.append(status)
        query += f" ORDER BY {self._NEWEST_RUNS} LIMIT ? OFFSET ?"
        return [_decoded(row) for row in self._execute(query, [*params, limit, offset])]


class PostgresStore(Store):
    """Threads' metadata and runs in PostgreSQL (``url`` a ``postgresql://`` URL).

    The connection has the saver's timeouts and TCP keepalives where the URL sets none
    (:data:`graphnb.checkpoint.postgres.CONNECTION_DEFAULTS`), so a network that drops
    packets fails a request instead of hanging it.
    """

    _NEWEST_RUNS = "created_at DESC, seq DESC"

    def __init__(self, url: str, *, connections: int = 4) -> None:
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        from ..checkpoint.postgres import CONNECTION_DEFAULTS

        given = psycopg.conninfo.conninfo_to_dict(url)
        defaults = {key: value for key, value in CONNECTION_DEFAULTS.items() if key not in given}
        conninfo = psycopg.conninfo.make_conninfo(url, **defaults)
        psycopg.connect(conninfo).close()  # an unreachable server: the driver's own error
        # a pool: calls from several threads (the API's to_thread writes) run at once, and a
        # commit waiting for its disk flush holds one connection, not every caller
        self._pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=connections,
            kwargs={"autocommit": True, "row_factory": dict_row},
            open=True,
        )
        self._held = threading.local()  # the connection of a _thread_locked transaction
        with self._pool.connection() as conn, conn.transaction():
            # one server at a time creates the tables (CREATE ... IF NOT EXISTS races)
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('graphnb_serve_tables'))")
            for statement in _TABLES.format(
                real="DOUBLE PRECISION", sequence=",\n    seq BIGSERIAL"
            ).split(";"):
                if statement.strip():
                    conn.execute(statement)

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        held = getattr(self._held, "conn", None)
        with contextlib.nullcontext(held) if held else self._pool.connection() as conn:
            cursor: Any = conn.execute(sql.replace("?", "%s"), params)
            return list(cursor.fetchall()) if cursor.description else []

    @contextlib.contextmanager
    def _thread_locked(self, thread_id: str) -> Iterator[None]:
        # held by whichever process adds a run to the thread, until its transaction ends
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", (f"graphnb_thread:{thread_id}",)
            )
            self._held.conn = conn
            try:
                yield
            finally:
                del self._held.conn

    def close(self) -> None:
        """Close the database connections."""
        self._pool.close()


_RUN_COLUMNS = (
    "run_id, thread_id, assistant_id, status, metadata, multitask_strategy, created_at, updated_at"
)


def open_store(where: str) -> Store:
    """The store ``where`` names.

    ``postgresql://...``, ``sqlite:///FILE``, a SQLite file's path, or ``":memory:"``.

    Raises:
        ValueError: ``where`` is a URL of another database.
    """
    if where.startswith(("postgresql://", "postgres://")):
        return PostgresStore(where)
    scheme, _, path = where.partition(":///")
    if scheme == "sqlite" and path:
        return Store(path)
    if "://" in where:
        raise ValueError(
            f"threads are served from sqlite:///FILE or postgresql://..., got {where!r}"
        )
    return Store(where)


def _decoded(row: dict[str, Any]) -> dict[str, Any]:
    row["metadata"] = json.loads(row["metadata"])
    return row
