"""Durability modes on PostgreSQL: wall time per step of a 10-node chain.

Each node waits 1 ms (``time.sleep``), standing for the I/O a real node does: under
``"async"`` the checkpoint of one step is stored while the next step waits, which is
what the mode is for; with nodes that do nothing there is nothing to overlap. The chain
runs without a checkpointer, and checkpointed with ``durability="sync"``, ``"async"``
and ``"exit"``; the four are interleaved in rotating order, wall time per node step,
the median of the repetitions with the lowest and highest in brackets.

Usage: ``python benchmarks/durability.py [--url postgresql://...] [--repetitions 7]
[--node-ms 1]``
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
import uuid
from typing import Any

from graphnb import END, START, StateGraph
from graphnb.checkpoint import PostgresSaver

NODES = 10
RUNS = 20  # runs per repetition
WAIT = [0.001]  # each node's wait, seconds (--node-ms)


def node(state: dict[str, Any]) -> dict[str, Any]:
    time.sleep(WAIT[0])
    return {"n": state["n"] + 1}


def chain() -> StateGraph[dict[str, Any]]:
    graph: StateGraph[dict[str, Any]] = StateGraph(dict)
    names = [f"n{i}" for i in range(NODES)]
    for name in names:
        graph.add_node(name, node)
    graph.add_edge(START, names[0])
    for source, target in itertools.pairwise(names):
        graph.add_edge(source, target)
    return graph.add_edge(names[-1], END)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--node-ms", type=float, default=1.0, help="each node's wait")
    args = parser.parse_args()
    WAIT[0] = args.node_ms / 1000
    saver = PostgresSaver(args.url, table_prefix=f"bench{uuid.uuid4().hex[:8]}_")
    plain = chain().compile()
    saved = chain().compile(checkpointer=saver)

    def run(mode: str) -> float:
        start = time.perf_counter()
        for _ in range(RUNS):
            if mode == "none":
                plain.invoke({"n": 0})
            else:
                saved.invoke({"n": 0}, thread_id=uuid.uuid4().hex, durability=mode)  # type: ignore[arg-type]
        return (time.perf_counter() - start) / (RUNS * NODES)

    modes = ["none", "sync", "async", "exit"]
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    try:
        for mode in modes:  # warm up: connections, tables, caches
            run(mode)
        for repetition in range(args.repetitions):
            order = modes[repetition % len(modes) :] + modes[: repetition % len(modes)]
            for mode in order:
                times[mode].append(run(mode))
    finally:
        with saver._connect() as conn:
            for table in (saver.table, saver.version_table, saver.cache_table):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        saver.close()
    base = statistics.median(times["none"])
    print("| durability | wall time per step | vs no checkpointer |")
    print("| --- | ---: | ---: |")
    for mode in modes:
        ratios = [t / base for t in times[mode]]
        label = "no checkpointer" if mode == "none" else f'`"{mode}"`'
        print(
            f"| {label} | {statistics.median(times[mode]) * 1e3:.3f} ms "
            f"| {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |"
        )


if __name__ == "__main__":
    main()
