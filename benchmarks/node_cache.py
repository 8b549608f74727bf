"""A cached node's hit, kept in memory or in each saver's database.

    python benchmarks/node_cache.py            # best of 5, memory + SQLite
    python benchmarks/node_cache.py --db       # PostgreSQL and MariaDB too (local servers)

One node with ``CachePolicy(store=...)`` whose work is a 20 ms sleep, invoked on a
thread once (a miss: the node runs and its result is stored), then ``--calls`` times on
fresh threads with the same input (hits: read back, the node does not run). Reported:
the time of one invoke on a hit, and what the cache added to it over the same graph
without a cache policy whose node does nothing (the engine's and the saver's own
checkpoint writes are in both). Each hit is checked to be a hit (the node ran once).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _compare import machine, machine_line

from graphnb import END, START, CachePolicy, StateGraph
from graphnb.checkpoint import MemorySaver, MySQLSaver, PostgresSaver, SqliteSaver


def graph(calls: list[int], cache: CachePolicy | None) -> StateGraph[Any]:
    def work(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if cache is not None:
            time.sleep(0.02)
        return {"answer": state["question"] * 2}

    built = StateGraph(dict, name="cached").add_node("work", work, cache=cache)
    return built.add_edge(START, "work").add_edge("work", END)


def per_invoke(app: Any, calls: int) -> float:
    best = float("inf")
    for _ in range(5):
        gc.disable()
        started = time.perf_counter()
        for _ in range(calls):
            app.invoke({"question": "q"}, thread_id=uuid.uuid4().hex)
        best = min(best, (time.perf_counter() - started) / calls)
        gc.enable()
    return best


def measure(name: str, saver: Any, calls: int) -> None:
    for store in ("memory", "saver"):
        ran: list[int] = []
        app = graph(ran, CachePolicy(store=store)).compile(checkpointer=saver)  # type: ignore[arg-type]
        app.invoke({"question": "q"}, thread_id=uuid.uuid4().hex)
        hit = per_invoke(app, calls)
        if len(ran) != 1:
            sys.exit(f"{name}/{store}: the node ran {len(ran)} times, expected once")
        plain = per_invoke(graph([], None).compile(checkpointer=saver), calls)
        print(
            f"{name:10} store={store:6}  hit {hit * 1e3:7.2f} ms/invoke  "
            f"(no cache: {plain * 1e3:6.2f} ms, cache adds {(hit - plain) * 1e3:+6.2f} ms)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", action="store_true", help="PostgreSQL and MariaDB too")
    parser.add_argument("--calls", type=int, default=50, help="hits per repetition")
    options = parser.parse_args(argv)
    print(machine_line(machine("graphnb")))
    measure("memory", MemorySaver(), options.calls)
    with tempfile.TemporaryDirectory() as folder, SqliteSaver(Path(folder) / "b.db") as saver:
        measure("sqlite", saver, options.calls)
    if options.db:
        prefix = f"bench{uuid.uuid4().hex[:8]}_"
        for name, make in (
            (
                "postgres",
                lambda: PostgresSaver(
                    "postgresql://postgres@127.0.0.1:5432/test", table_prefix=prefix
                ),
            ),
            (
                "mariadb",
                lambda: MySQLSaver("mysql://root:@127.0.0.1:3306/test", table_prefix=prefix),
            ),
        ):
            saver = make()
            try:
                measure(name, saver, options.calls)
            finally:
                saver.close()
                conn = saver._connect()
                cursor = conn.cursor()
                for table in (saver.table, saver.version_table, saver.cache_table):
                    cursor.execute(f"DROP TABLE IF EXISTS {table}")
                conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
