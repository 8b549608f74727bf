"""Benchmark: the builder's Python side at 1,000 and 10,000 nodes (no browser).

Run with ``python benchmarks/builder.py``. Targets (issue 16), CPU seconds:

1. **layout** of a 1,000-node graph in under 0.5 s (``graphnb.widget.layout.layout``, what
   the Layout button runs), on random graphs (edges between any two nodes, the worst case)
   and local ones (edges between nearby nodes, as hand-built workflows);
2. **the kernel's loop stays free** while it runs: the Layout button's work goes to a worker
   thread (``graphnb.widget.background``); a timer on the loop ticks every 5 ms and the
   longest gap between ticks is printed, against the same layout run inline on the loop;
3. **validation after an edit** in under 20 ms at 10,000 nodes: the builder's ``_validate``
   (structural problems, incremental since the last edit, and binding lookups), timed for
   one edit of each kind on a valid 10,000-node graph whose nodes are all bound.

Wall-clock and CPU time are both printed for the loop measure (a gap is wall time).
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from diagram import local_graph, random_graph

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.spec import Position
from graphnb.widget.background import Background
from graphnb.widget.layout import layout

LAYOUT_TARGET = 0.5
VALIDATE_TARGET = 0.020


def cpu(work: Callable[[], object], repeats: int = 3) -> float:
    """The least CPU seconds of ``repeats`` runs of ``work``."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def bench_layout() -> bool:
    print("layout (CPU s, best of 3)")
    ok = True
    for size in (500, 1000):
        for name, make in (("random", random_graph), ("local", local_graph)):
            spec = make(size)
            seconds = cpu(lambda spec=spec: layout(spec))
            met = size < 1000 or seconds < LAYOUT_TARGET
            ok = ok and met
            verdict = "" if size < 1000 else (" OK" if met else " MISSED")
            print(f"  {size:>5} nodes, {name:<6} {seconds:7.3f} s{verdict}")
    return ok


async def _longest_tick_gap(run: Callable[[], Any], finished: Callable[[], bool]) -> float:
    """The longest gap (s) between 5 ms ticks of the loop while ``run``'s work goes on."""
    loop = asyncio.get_running_loop()
    ticks = [loop.time()]
    run()
    while not finished():
        await asyncio.sleep(0.005)
        ticks.append(loop.time())
    await asyncio.sleep(0.005)
    ticks.append(loop.time())
    return max(later - earlier for earlier, later in itertools.pairwise(ticks))


def bench_loop() -> bool:
    spec = random_graph(1000)
    print("the kernel's loop while a 1,000-node random graph is laid out (longest tick gap)")

    async def inline() -> float:
        done: list[object] = []
        return await _longest_tick_gap(lambda: done.append(layout(spec)), lambda: bool(done))

    async def background() -> float:
        jobs = Background("layout")
        done: list[object] = []
        return await _longest_tick_gap(
            lambda: jobs.submit(lambda: layout(spec), done.append, print), lambda: bool(done)
        )

    blocked = asyncio.run(inline())
    free = asyncio.run(background())
    print(f"  inline on the loop (before):   {blocked * 1000:7.1f} ms")
    print(f"  in a worker thread (now):      {free * 1000:7.1f} ms")
    return free < blocked / 4


def valid_graph(size: int, seed: int = 3) -> GraphSpec:
    """A graph with no problem: a chain with shortcuts, every node bound."""
    rng = random.Random(seed)
    names = [f"node_{i}" for i in range(size)]
    edges = [EdgeSpec(source=START, target=names[0]), EdgeSpec(source=names[-1], target=END)]
    for i in range(size - 1):
        edges.append(EdgeSpec(source=names[i], target=names[i + 1]))
        if rng.random() < 0.5:
            far = names[min(size - 1, i + rng.randint(2, 30))]
            edges.append(EdgeSpec(source=names[i], target=far))
    nodes = [
        NodeSpec(id=name, binding="step", position=Position(x=0, y=i))
        for i, name in enumerate(names)
    ]
    return GraphSpec(nodes=nodes, edges=edges)


def step(state: dict[str, Any]) -> dict[str, Any]:
    """Every node's callable."""
    return {}


def bench_validate() -> bool:
    from graphnb.widget import Builder

    size = 10_000
    builder = Builder(valid_graph(size), namespace={"step": step})
    timings: list[float] = []
    validate = builder._validate

    def timed() -> None:
        started = time.process_time()
        validate()
        timings.append(time.process_time() - started)

    builder._validate = timed  # type: ignore[method-assign]
    rng = random.Random(1)
    edits: dict[str, Callable[[GraphSpec], None]] = {
        "move a node": lambda s: setattr(s.nodes[5], "position", Position(x=1, y=2)),
        "add an edge": lambda s: s.edges.append(EdgeSpec(source="node_5", target="node_900")),
        "delete an edge": lambda s: s.edges.pop(rng.randrange(len(s.edges))),
        "add a node": lambda s: s.nodes.append(NodeSpec(id="fresh", binding="step")),
        "delete a node": lambda s: s.nodes.pop(),
        "cut the graph": lambda s: setattr(
            s, "edges", [e for e in s.edges if e.source != f"node_{size // 2}"]
        ),
    }
    print(f"validation after one edit, {size:,} nodes (CPU ms; target < 20 ms)")
    ok = True
    for name, change in edits.items():
        spec = builder.spec.model_copy(deep=True)
        change(spec)
        builder.spec = spec
        met = timings[-1] < VALIDATE_TARGET
        ok = ok and met
        print(
            f"  {name:<15} {timings[-1] * 1000:7.2f} ms, {len(builder.problems)} problem(s)"
            f" {'OK' if met else 'MISSED'}"
        )
    return ok


def main() -> int:
    layout(random_graph(20))  # import networkx outside the timings
    results = [bench_layout(), bench_loop(), bench_validate()]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
