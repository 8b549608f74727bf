"""Benchmark: lay out and render to SVG graphs of 50 to 500 nodes with twice as many edges.

Run with ``python benchmarks/diagram.py``. The target (issue 16) is 500 nodes and 1,000
edges in under 0.4 s of CPU, with time growing no worse than quadratically: the printed
exponent is the slope of log(time) against log(nodes), 2.0 being quadratic. Both
wall-clock and CPU seconds are printed (best of a few runs); the verdict uses CPU seconds,
which other processes sharing the machine do not inflate. On an idle machine the two agree.

Two families of graphs are timed:

- ``local``: edges mostly join nearby nodes (as in hand-built workflows), with some loops
  back, self-loops and labelled conditional routes;
- ``random``: edges join uniformly random nodes, so most are long and cross many layers
  (the worst case for a layered layout, which adds a dummy item per layer crossed).
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.diagram import layout, to_mermaid, to_svg

SIZES = (50, 100, 200, 300, 400, 500)
TARGET_SECONDS = 0.4  # issue 16: 500 nodes, 1,000 random edges, CPU seconds


def local_graph(nodes: int, seed: int = 7) -> GraphSpec:
    """A reachable graph with ``2 * nodes`` edges, mostly between nearby nodes."""
    rng = random.Random(seed)
    names = [f"node_{i}" for i in range(nodes)]
    edges = [EdgeSpec(source=START, target=names[0])]
    for i in range(1, nodes):
        edges.append(EdgeSpec(source=names[rng.randrange(max(0, i - 8), i)], target=names[i]))
    edges.append(EdgeSpec(source=names[-1], target=END))
    while len(edges) < 2 * nodes:
        i = rng.randrange(nodes)
        if rng.random() < 0.1:
            j = rng.randrange(max(0, i - 20), i + 1)  # back edge (or a self-loop)
        else:
            j = min(nodes - 1, i + rng.randint(1, 12))
        if rng.random() < 0.3:
            route = f"to_{j}"
            edges.append(
                EdgeSpec(
                    source=names[i], target=names[j], kind="conditional", route=route, label=route
                )
            )
        else:
            edges.append(EdgeSpec(source=names[i], target=names[j]))
    return GraphSpec(name=f"local_{nodes}", nodes=[NodeSpec(id=n) for n in names], edges=edges)


def random_graph(nodes: int, seed: int = 1) -> GraphSpec:
    """A reachable graph with ``2 * nodes`` edges between uniformly random nodes."""
    rng = random.Random(seed)
    names = [f"node_{i}" for i in range(nodes)]
    edges = [EdgeSpec(source=START, target=names[0])]
    for i in range(1, nodes):
        edges.append(EdgeSpec(source=names[rng.randrange(i)], target=names[i]))
    edges.append(EdgeSpec(source=names[-1], target=END))
    while len(edges) < 2 * nodes:
        label = "maybe" if rng.random() < 0.2 else None
        source, target = names[rng.randrange(nodes)], names[rng.randrange(nodes)]
        edges.append(EdgeSpec(source=source, target=target, label=label))
    return GraphSpec(name=f"random_{nodes}", nodes=[NodeSpec(id=n) for n in names], edges=edges)


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """The fastest of ``repeats`` runs of ``work``, in seconds."""
    return min(timed(work) for _ in range(repeats))[0]


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``work``.

    CPU time is printed too because wall-clock time on a shared machine includes the
    time other processes had the processor.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def series(name: str, make: Callable[[int], GraphSpec]) -> bool:
    """Print one family's series; whether it met the targets."""
    print(f"\n{name} graphs")
    print(
        f"{'nodes':>6} {'edges':>6} {'wall s':>7} {'cpu s':>7} {'svg KB':>7} {'layout s':>9} "
        f"{'mermaid ms':>11}"
    )
    rows = []
    for size in SIZES:
        spec = make(size)
        repeats = 3 if size <= 200 else 2
        runs = [timed(lambda spec=spec: to_svg(spec)) for _ in range(repeats)]
        seconds, cpu = min(wall for wall, _ in runs), min(cpu for _, cpu in runs)
        positions = best_of(1, lambda spec=spec: layout(spec))
        mermaid = best_of(1, lambda spec=spec: to_mermaid(spec))
        kilobytes = len(to_svg(spec).encode()) / 1024
        rows.append((size, cpu))
        print(
            f"{size:>6} {len(spec.edges):>6} {seconds:>7.3f} {cpu:>7.3f} {kilobytes:>7.0f} "
            f"{positions:>9.3f} {mermaid * 1000:>11.1f}"
        )
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    exponent = math.log(t1 / t0) / math.log(n1 / n0)
    ok = t1 < TARGET_SECONDS and exponent <= 2.0
    verdict = "OK" if ok else "MISSED"
    print(f"growth exponent of cpu time {n0} -> {n1} nodes: {exponent:.2f} (quadratic = 2.00)")
    print(f"{n1} nodes, {2 * n1} edges: {t1:.3f} cpu s (target < {TARGET_SECONDS} s): {verdict}")
    return ok


def main() -> int:
    to_svg(local_graph(20))  # import networkx and warm up outside the timings
    results = [series("local", local_graph), series("random", random_graph)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
