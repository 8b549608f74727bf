"""Benchmark: lay out and render to SVG graphs of 50 to 500 nodes with twice as many edges.

Run with ``python benchmarks/diagram.py``. The target is 500 nodes and 1,000 edges in under
2 s, with time growing no worse than quadratically (the printed exponent is the slope of
log(time) against log(nodes); 2.0 would be quadratic).
"""

from __future__ import annotations

import math
import random
import sys
import time

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.diagram import layout, to_mermaid, to_svg

SIZES = (50, 100, 200, 300, 400, 500)
TARGET_SECONDS = 2.0


def make_graph(nodes: int, seed: int = 7) -> GraphSpec:
    """A reachable graph with ``2 * nodes`` edges: mostly forward, some loops back, some routed."""
    rng = random.Random(seed)
    names = [f"node_{i}" for i in range(nodes)]
    edges = [EdgeSpec(source=START, target=names[0])]
    for i in range(1, nodes):
        parent = rng.randrange(max(0, i - 8), i)
        edges.append(EdgeSpec(source=names[parent], target=names[i]))
    edges.append(EdgeSpec(source=names[-1], target=END))
    while len(edges) < 2 * nodes:
        i = rng.randrange(nodes)
        if rng.random() < 0.1:
            j = rng.randrange(max(0, i - 20), i + 1)  # back edge (or a self-loop)
        else:
            j = min(nodes - 1, i + rng.randint(1, 12))
        if rng.random() < 0.3:
            edges.append(
                EdgeSpec(
                    source=names[i], target=names[j], kind="conditional", route=f"to_{j}", label=f"to_{j}"
                )
            )
        else:
            edges.append(EdgeSpec(source=names[i], target=names[j]))
    return GraphSpec(name=f"bench_{nodes}", nodes=[NodeSpec(id=n) for n in names], edges=edges)


def best_of(repeats: int, spec: GraphSpec) -> float:
    """The fastest of ``repeats`` layout-and-render runs, in seconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        to_svg(spec)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    to_svg(make_graph(20))  # import networkx and warm up outside the timings
    print(f"{'nodes':>6} {'edges':>6} {'svg s':>8} {'svg KB':>7} {'layout s':>9} {'mermaid ms':>11}")
    rows = []
    for size in SIZES:
        spec = make_graph(size)
        seconds = best_of(3 if size <= 200 else 2, spec)
        started = time.perf_counter()
        layout(spec)
        positions = time.perf_counter() - started
        started = time.perf_counter()
        to_mermaid(spec)
        mermaid = time.perf_counter() - started
        kilobytes = len(to_svg(spec).encode()) / 1024
        rows.append((size, seconds))
        print(
            f"{size:>6} {len(spec.edges):>6} {seconds:>8.3f} {kilobytes:>7.0f} "
            f"{positions:>9.3f} {mermaid * 1000:>11.1f}"
        )
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    exponent = math.log(t1 / t0) / math.log(n1 / n0)
    print(f"growth exponent from {n0} to {n1} nodes: {exponent:.2f} (quadratic = 2.00)")
    ok = t1 < TARGET_SECONDS and exponent <= 2.0
    print(f"500 nodes / 1,000 edges: {t1:.3f} s (target < {TARGET_SECONDS} s): {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
