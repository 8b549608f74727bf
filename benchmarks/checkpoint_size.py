"""Checkpoints on SQLite: graphnb's SqliteSaver against LangGraph's, side by side.

    python benchmarks/checkpoint_size.py            # the full run (about a minute)
    python benchmarks/checkpoint_size.py --quick    # fewer runs, as a smoke check
    python benchmarks/checkpoint_size.py --json out.json

Two scenarios, each on a fresh database file per engine, both in WAL mode with
``PRAGMA synchronous=NORMAL``, and LangGraph run with ``durability="sync"``: on both
sides a step's checkpoint is committed before the next step starts, and survives a crash
of the process (LangGraph's default, ``"async"``, writes it while the next step runs):

1. a 10-node chain, a fresh thread per run: time per checkpoint (each run writes 11);
2. one thread looping 100 steps, each appending 1 KB to a list: time of the run, and the
   database's size against the final state's (graphnb's target: under 3x).

LangGraph is measured only when ``langgraph-checkpoint-sqlite`` is installed
(``pip install -e '.[bench]'``); graphnb's figures are printed either way.
"""

from __future__ import annotations

import argparse
import gc
import json
import operator
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from _compare import Comparison, duration, machine, machine_line, table

import graphnb
from graphnb.checkpoint import SqliteSaver

CHAIN_LENGTH = 10
APPEND_STEPS = 100
KILOBYTE = "x" * 1000

try:
    import langgraph.graph as langgraph
    from langgraph.checkpoint.sqlite import SqliteSaver as LangGraphSqliteSaver
except ImportError:  # pragma: no cover - the benchmark extra is missing
    langgraph = None  # type: ignore[assignment]
    LangGraphSqliteSaver = None  # type: ignore[assignment,misc]


# -- graphnb -------------------------------------------------------------------------------


class Counter(graphnb.GraphState):
    count: int = 0


class Pages(graphnb.GraphState):
    pages: Annotated[list[str], graphnb.StateField(reducer=graphnb.append)] = []


def increment(state: Any) -> dict[str, int]:
    return {"count": state["count"] + 1 if isinstance(state, dict) else state.count + 1}


def graphnb_chain(path: Path) -> Callable[[str], int]:
    graph = graphnb.StateGraph(Counter)
    names = [f"n{i}" for i in range(CHAIN_LENGTH)]
    for name in names:
        graph.add_node(name, increment)
    graph.add_edge(graphnb.START, names[0])
    for source, target in pairwise(names):
        graph.add_edge(source, target)
    graph.add_edge(names[-1], graphnb.END)
    app = graph.compile(checkpointer=SqliteSaver(path, synchronous="NORMAL"))
    return lambda thread: app.invoke({"count": 0}, thread_id=thread).count


def add_page(state: Any) -> dict[str, list[str]]:
    return {"pages": [KILOBYTE]}


def more_pages(state: Any) -> Literal["add", "__end__"]:
    pages = state["pages"] if isinstance(state, dict) else state.pages
    return "add" if len(pages) < APPEND_STEPS else "__end__"


def graphnb_append(path: Path) -> Callable[[str], int]:
    graph = graphnb.StateGraph(Pages).add_node("add", add_page).add_edge(graphnb.START, "add")
    graph.add_conditional_edges("add", more_pages, ["add", graphnb.END])
    app = graph.compile(checkpointer=SqliteSaver(path, synchronous="NORMAL"))

    def run(thread: str) -> int:
        pages = app.invoke({}, thread_id=thread, recursion_limit=APPEND_STEPS + 10).pages
        app.checkpointer.close()  # type: ignore[union-attr]
        return len(pages)

    return run


# -- LangGraph -----------------------------------------------------------------------------


class CounterDict(TypedDict):
    count: int


class PagesDict(TypedDict):
    pages: Annotated[list[str], operator.add]


def _langgraph_saver(path: Path) -> tuple[Any, sqlite3.Connection]:
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return LangGraphSqliteSaver(conn), conn


def langgraph_chain(path: Path) -> Callable[[str], int]:
    graph = langgraph.StateGraph(CounterDict)
    names = [f"n{i}" for i in range(CHAIN_LENGTH)]
    for name in names:
        graph.add_node(name, increment)
    graph.add_edge(langgraph.START, names[0])
    for source, target in pairwise(names):
        graph.add_edge(source, target)
    graph.add_edge(names[-1], langgraph.END)
    saver, _ = _langgraph_saver(path)
    app = graph.compile(checkpointer=saver)
    config: Callable[[str], Any] = lambda thread: {"configurable": {"thread_id": thread}}  # noqa: E731
    return lambda thread: app.invoke({"count": 0}, config(thread), durability="sync")["count"]


def langgraph_append(path: Path) -> Callable[[str], int]:
    graph = langgraph.StateGraph(PagesDict)
    graph.add_node("add", add_page).add_edge(langgraph.START, "add")
    graph.add_conditional_edges("add", more_pages, ["add", langgraph.END])
    saver, conn = _langgraph_saver(path)
    app = graph.compile(checkpointer=saver)

    def run(thread: str) -> int:
        config = {"configurable": {"thread_id": thread}, "recursion_limit": APPEND_STEPS + 10}
        pages = app.invoke({"pages": []}, config, durability="sync")["pages"]
        conn.close()
        return len(pages)

    return run


# -- measuring -----------------------------------------------------------------------------


def checkpoints_in(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        table = "graphnb_checkpoints" if "graphnb_checkpoints" in tables else "checkpoints"
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def file_size(path: Path) -> int:
    """The database's bytes once its WAL is folded back into the main file."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return sum(os.path.getsize(p) for p in (path, Path(f"{path}-wal")) if os.path.exists(p))


def time_chain(make: Callable[[Path], Callable[[str], int]], folder: Path, runs: int) -> float:
    """Best of 3 batches of ``runs`` fresh threads: seconds per checkpoint."""
    best = float("inf")
    for batch in range(3):
        path = folder / f"chain-{make.__name__}-{batch}.db"
        run = make(path)
        assert run("warm-up") == CHAIN_LENGTH
        before = checkpoints_in(path)
        gc.disable()
        started = time.perf_counter()
        for index in range(runs):
            run(f"thread-{index}")
        elapsed = time.perf_counter() - started
        gc.enable()
        written = checkpoints_in(path) - before
        best = min(best, elapsed / written)
    return best


def time_append(
    make: Callable[[Path], Callable[[str], int]], folder: Path, name: str
) -> tuple[float, int]:
    """Seconds for the 100-step run, and the database's size afterwards."""
    path = folder / f"append-{name}.db"
    run = make(path)
    started = time.perf_counter()
    assert run("pages") == APPEND_STEPS
    return time.perf_counter() - started, file_size(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke check)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    runs = 20 if args.quick else 100
    info = machine("graphnb", "langgraph", "langgraph-checkpoint-sqlite")
    print(machine_line(info))
    print("SQLite in WAL mode, synchronous=NORMAL; every checkpoint committed before the")
    print("next step on both sides (LangGraph: durability='sync').\n")
    final_state = len(json.dumps({"pages": [KILOBYTE] * APPEND_STEPS}))
    results: dict[str, Any] = {"machine": info, "final_state_bytes": final_state}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ours = time_chain(graphnb_chain, folder, runs)
        ours_time, ours_size = time_append(graphnb_append, folder, "graphnb")
        results["graphnb"] = {
            "chain_seconds_per_checkpoint": ours,
            "append_seconds": ours_time,
            "append_db_bytes": ours_size,
        }
        rows: list[Comparison] = []
        if langgraph is not None and LangGraphSqliteSaver is not None:
            theirs = time_chain(langgraph_chain, folder, runs)
            theirs_time, theirs_size = time_append(langgraph_append, folder, "langgraph")
            results["langgraph"] = {
                "chain_seconds_per_checkpoint": theirs,
                "append_seconds": theirs_time,
                "append_db_bytes": theirs_size,
            }
            rows = [
                Comparison(
                    "chain",
                    "10-node chain, fresh thread per run",
                    "per checkpoint",
                    theirs,
                    ours,
                    3.0,
                ),
                Comparison(
                    "append",
                    "100 steps appending 1 KB each",
                    "per run",
                    theirs_time,
                    ours_time,
                    1.0,
                ),
            ]
            print(table(rows))
            print()
        else:
            print("LangGraph's SqliteSaver is not installed: graphnb's figures only.")
            print(f"10-node chain: {duration(ours)} per checkpoint")
            print(f"100 steps appending 1 KB: {duration(ours_time)} per run")
    ratio = ours_size / final_state
    print(f"Final state: {final_state / 1000:.1f} KB of JSON.")
    print(
        f"graphnb database after 100 x 1 KB appends: {ours_size / 1000:.1f} KB = "
        f"{ratio:.2f}x the final state (target < 3x: {'yes' if ratio < 3 else 'NO'})"
    )
    met = ratio < 3 and all(row.met for row in rows)
    if "langgraph" in results:
        theirs_size = results["langgraph"]["append_db_bytes"]
        print(
            f"LangGraph database for the same run: {theirs_size / 1000:.1f} KB = "
            f"{theirs_size / final_state:.2f}x the final state; graphnb's is "
            f"{theirs_size / ours_size:.1f}x smaller"
        )
        results["comparisons"] = [row.as_json() for row in rows]
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
