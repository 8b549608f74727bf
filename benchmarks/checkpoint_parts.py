"""Where a checkpoint's CPU goes: SQLite's own insert and commit, and the engine's part.

    python benchmarks/checkpoint_parts.py            # 9 interleaved repetitions
    python benchmarks/checkpoint_parts.py --repetitions 5

Two measurements, each interleaved (every repetition runs every variant, in rotating
order), CPU time, the garbage collector off while timing, the median and the spread:

1. **SQLite alone**: one row inserted and committed per statement (autocommit), in WAL
   mode with ``synchronous=NORMAL``, through the standard ``sqlite3`` module, into
   graphnb's checkpoint table (its primary key, its unique ``(thread_id,
   checkpoint_id)`` index and its ``(created_at, thread_id)`` index), the same table
   without each index, and Burr's ``SQLitePersister`` table. Rows of the sizes a
   10-node chain's checkpoints have; no engine runs.
2. **The engine's part**: graphnb's threaded run over a saver that stores nothing (its
   ``put`` and ``load`` do nothing), against the same chain without a thread, at two
   chain lengths: the slope is the bookkeeping per checkpointed step (the row's JSON,
   its id, the run loop's requests), the intercept what a run pays once (the thread's
   lock, the load, the input checkpoint).

Used in benchmarks/README.md to say why the SQLite and memory checkpoint targets of
issue 16 are missed.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

from _compare import cpu_per_call, machine, machine_line

from graphnb import END, START, StateGraph
from graphnb.checkpoint import MemorySaver
from graphnb.records import StoredCheckpoint

_COLUMNS = (
    "thread_id TEXT NOT NULL, seq BIGINT NOT NULL, checkpoint_id VARCHAR(64) NOT NULL, "
    "parent_id VARCHAR(64), parent_seq BIGINT, base_seq BIGINT NOT NULL, "
    "step INTEGER NOT NULL, source VARCHAR(16) NOT NULL, created_at REAL NOT NULL, "
    "meta TEXT NOT NULL, writes TEXT NOT NULL, snapshot TEXT"
)
_UNIQUE = ", UNIQUE (thread_id, checkpoint_id)"
_RECENT = "CREATE INDEX recent ON t (created_at, thread_id)"
TABLES: dict[str, list[str]] = {
    "graphnb's table": [
        f"CREATE TABLE t ({_COLUMNS}, PRIMARY KEY (thread_id, seq){_UNIQUE})",
        _RECENT,
    ],
    "without the checkpoint-id index": [
        f"CREATE TABLE t ({_COLUMNS}, PRIMARY KEY (thread_id, seq))",
        _RECENT,
    ],
    "without the recent-threads index": [
        f"CREATE TABLE t ({_COLUMNS}, PRIMARY KEY (thread_id, seq){_UNIQUE})"
    ],
    "primary key only": [f"CREATE TABLE t ({_COLUMNS}, PRIMARY KEY (thread_id, seq))"],
    "Burr's SQLitePersister table": [
        "CREATE TABLE t (partition_key TEXT DEFAULT '', app_id TEXT NOT NULL, "
        "sequence_id INTEGER NOT NULL, position TEXT NOT NULL, status TEXT NOT NULL, "
        "state TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
        "PRIMARY KEY (partition_key, app_id, sequence_id, position))",
        "CREATE INDEX created ON t (created_at)",
    ],
}
_META = '{"ran":["n3"],"next":["n4"],"metadata":{"run_id":"' + "0" * 32 + '"}}'


def sqlite_insert(folder: Path, name: str, ddl: list[str]) -> Callable[[], None]:
    """One insert and commit of a checkpoint-sized row into the table ``ddl`` makes."""
    conn = sqlite3.connect(folder / f"{len(os.listdir(folder))}.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    for statement in ddl:
        conn.execute(statement)
    count = 0
    if name.startswith("Burr"):
        burr = (
            "INSERT INTO t (partition_key, app_id, sequence_id, position, state, status) "
            "VALUES (?, ?, ?, ?, ?, ?)"
        )

        def insert() -> None:
            nonlocal count
            count += 1
            state = '{"count":3,"__SEQUENCE_ID":3,"__PRIOR_STEP":"n3"}'
            conn.execute(burr, ("", f"burr-{count // 10}", count % 10, "n3", state, "completed"))

        return insert
    graphnb = "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    def insert_graphnb() -> None:
        nonlocal count
        count += 1
        ids = os.urandom(16).hex(), os.urandom(16).hex()
        thread, seq = f"graphnb-{count // 11}", count % 11
        row = (
            thread,
            seq,
            *ids,
            seq - 1,
            0,
            seq,
            "loop",
            time.time(),
            _META,
            '[["n3",{"count":3}]]',
        )
        conn.execute(graphnb, (*row, None))

    return insert_graphnb


class NoSaver(MemorySaver):
    """Stores nothing: what is left of a checkpointed run is the engine's own part."""

    def put(self, row: StoredCheckpoint) -> None:
        pass

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Any:
        return None


def chain_run(length: int, threaded: bool) -> Callable[[], None]:
    graph = StateGraph(dict)
    names = [f"n{i}" for i in range(length)]
    for name in names:
        graph.add_node(name, lambda state: {"count": state["count"] + 1})
    graph.add_edge(START, names[0])
    for source, target in pairwise(names):
        graph.add_edge(source, target)
    graph.add_edge(names[-1], END)
    if not threaded:
        plain = graph.compile()

        def run_plain() -> None:
            plain.invoke({"count": 0})

        return run_plain
    app = graph.compile(checkpointer=NoSaver())
    count = 0

    def run() -> None:
        nonlocal count
        count += 1
        app.invoke({"count": 0}, thread_id=f"t{count}")

    return run


def interleaved(
    variants: dict[str, Callable[[], None]], calls: int, reps: int
) -> dict[str, list[float]]:
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            variants[name]()  # warm
            seconds[name].append(cpu_per_call(variants[name], calls))
    return seconds


def spread(values: list[float]) -> str:
    micro = [v * 1e6 for v in values]
    return f"{statistics.median(micro):7.1f} µs ({min(micro):.1f}-{max(micro):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repetitions", type=int, default=9)
    args = parser.parse_args()
    print(machine_line(machine()))
    with tempfile.TemporaryDirectory() as folder:
        inserts = {name: sqlite_insert(Path(folder), name, ddl) for name, ddl in TABLES.items()}
        print("\nSQLite alone, one insert and commit (WAL, synchronous=NORMAL):")
        for name, values in interleaved(inserts, 300, args.repetitions).items():
            print(f"  {name:34s} {spread(values)}")
    lengths = (2, 22)
    runs = {
        f"{kind} {length}": chain_run(length, kind == "threaded")
        for length in lengths
        for kind in ("threaded", "plain")
    }
    found = interleaved(runs, 200, args.repetitions)
    print("\nThe engine's part (a saver that stores nothing), per run of a chain:")
    for name, values in found.items():
        print(f"  {name:34s} {spread(values)}")
    for kind in ("threaded", "plain"):
        short, long = (statistics.median(found[f"{kind} {n}"]) * 1e6 for n in lengths)
        slope = (long - short) / (lengths[1] - lengths[0])
        print(f"  {kind}: {slope:.1f} µs per step, {short - lengths[0] * slope:.1f} µs per run")


if __name__ == "__main__":
    main()
