"""What the server keeps beside the checkpoints: its threads' metadata and its runs.

A thread's state lives in the graph's saver; what the Agent Server API also says about
a thread (when it was made, its metadata, which graph it belongs to) and every run (its
status, its assistant) lives here, in two tables of the same SQLite file. The calls are
short and local, so they run on the event loop; a PostgreSQL store for several processes
replaces this class later, behind the same methods.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from typing import Any

__all__ = ["Store"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS serve_threads (
    thread_id TEXT PRIMARY KEY,
    graph_id TEXT,
    metadata TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS serve_runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    multitask_strategy TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS serve_runs_thread ON serve_runs (thread_id, created_at);
"""


class Store:
    """Threads' metadata and runs in SQLite (``path`` a file, or ``:memory:``)."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            # as graphnb's SqliteSaver: a commit survives a crash of the process without an
            # fsync each; these writes run on the event loop, where an fsync stalls every run
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        # Runs left pending or running belong to a process that is gone: say so.
        self._db.execute(
            "UPDATE serve_runs SET status = 'error', updated_at = ? "
            "WHERE status IN ('pending', 'running')",
            (time.time(),),
        )

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()

    # -- threads ---------------------------------------------------------------------

    def add_thread(self, thread_id: str, metadata: dict[str, Any], graph_id: str | None) -> None:
        """Record a new thread."""
        now = time.time()
        with self._lock:
            self._db.execute(
                "INSERT INTO serve_threads VALUES (?, ?, ?, ?, ?)",
                (thread_id, graph_id, json.dumps(metadata), now, now),
            )

    def thread(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's row, or ``None``."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM serve_threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return None if row is None else _thread_row(row)

    def threads(self) -> list[dict[str, Any]]:
        """Every thread, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM serve_threads ORDER BY created_at DESC, thread_id"
            ).fetchall()
        return [_thread_row(row) for row in rows]

    def touch_thread(self, thread_id: str, graph_id: str | None = None) -> None:
        """Mark the thread updated now (and bind it to ``graph_id`` if it has no graph)."""
        with self._lock:
            self._db.execute(
                "UPDATE serve_threads SET updated_at = ?, graph_id = COALESCE(graph_id, ?) "
                "WHERE thread_id = ?",
                (time.time(), graph_id, thread_id),
            )

    def merge_metadata(self, thread_id: str, metadata: dict[str, Any]) -> None:
        """Merge ``metadata`` into the thread's (its keys win)."""
        with self._lock:
            row = self._db.execute(
                "SELECT metadata FROM serve_threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            if row is not None:
                merged = json.loads(row["metadata"]) | metadata
                self._db.execute(
                    "UPDATE serve_threads SET metadata = ?, updated_at = ? WHERE thread_id = ?",
                    (json.dumps(merged), time.time(), thread_id),
                )

    def delete_thread(self, thread_id: str) -> None:
        """Forget the thread and its runs."""
        with self._lock:
            self._db.execute("DELETE FROM serve_runs WHERE thread_id = ?", (thread_id,))
            self._db.execute("DELETE FROM serve_threads WHERE thread_id = ?", (thread_id,))

    # -- runs ------------------------------------------------------------------------

    def add_run(self, run: dict[str, Any]) -> None:
        """Record a new run (a dict with every column)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO serve_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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

    def set_status(self, run_id: str, status: str) -> None:
        """Change a run's status."""
        with self._lock:
            self._db.execute(
                "UPDATE serve_runs SET status = ?, updated_at = ? WHERE run_id = ?",
                (status, time.time(), run_id),
            )

    def run(self, thread_id: str, run_id: str) -> dict[str, Any] | None:
        """The run's row, or ``None``."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM serve_runs WHERE thread_id = ? AND run_id = ?", (thread_id, run_id)
            ).fetchone()
        return None if row is None else _run_row(row)

    def runs(
        self, thread_id: str, *, limit: int, offset: int, status: str | None
    ) -> list[dict[str, Any]]:
        """The thread's runs, newest first."""
        query = "SELECT * FROM serve_runs WHERE thread_id = ?"
        params: list[Any] = [thread_id]
        if status is not None:
            query += " AND status = ?"
            params.append(status)
        query += " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?"
        with self._lock:
            rows = self._db.execute(query, [*params, limit, offset]).fetchall()
        return [_run_row(row) for row in rows]


def _thread_row(row: sqlite3.Row) -> dict[str, Any]:
    data = dict(row)
    data["metadata"] = json.loads(data["metadata"])
    return data


def _run_row(row: sqlite3.Row) -> dict[str, Any]:
    data = dict(row)
    data["metadata"] = json.loads(data["metadata"])
    return data
