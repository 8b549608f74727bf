"""Subgraph nesting overhead: a 3-level nested graph per step against a flat one, and LangGraph.

    python benchmarks/compose.py            # median of 7 interleaved repetitions
    python benchmarks/compose.py --quick    # median of 3
    python benchmarks/compose.py --steps 20

The work is a chain of ``--steps`` nodes (10 by default), each appending one item to an
``operator.add`` list. Four graphs run it, the same on both engines:

- **flat**: the chain itself, run directly;
- **nested**: the chain inside a subgraph node, inside a subgraph node, inside a subgraph
  node (3 levels), the fields passing in and out by name at each level.

Times are CPU time (``time.process_time``) per chain step, the garbage collector off while
timing, engines and shapes interleaved and rotated each repetition so a busy machine slows
all of them alike; the median is reported. Each graph's result is checked before and after.
Targets (issue 14): graphnb's nested graph under 2x its flat one per step, and LangGraph's
nested graph at least 10x graphnb's nested one.
"""

from __future__ import annotations

import argparse
import itertools
import operator
import statistics
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from _compare import cpu_per_call, machine, machine_line

import graphnb

LEVELS = 3


class Chain(TypedDict, total=False):
    items: Annotated[list[int], operator.add]


def step(state: Chain) -> dict[str, Any]:
    return {"items": [len(state["items"])]}


def chain(module: Any, steps: int, name: str) -> Any:
    """The chain of ``steps`` nodes, uncompiled, on either engine's StateGraph."""
    graph = module.StateGraph(Chain, name=name) if module is graphnb else module.StateGraph(Chain)
    names = [f"s{n}" for n in range(steps)]
    for node in names:
        graph.add_node(node, step)
    graph.add_edge(module.START, names[0])
    for first, second in itertools.pairwise(names):
        graph.add_edge(first, second)
    graph.add_edge(names[-1], module.END)
    return graph


def nested(module: Any, steps: int) -> Any:
    """The chain wrapped in ``LEVELS`` subgraph nodes."""
    inner = chain(module, steps, "level0")
    for level in range(1, LEVELS + 1):
        child = inner if module is graphnb else inner.compile()
        graph = (
            module.StateGraph(Chain, name=f"level{level}")
            if module is graphnb
            else module.StateGraph(Chain)
        )
        graph.add_node("inner", child).add_edge(module.START, "inner")
        inner = graph.add_edge("inner", module.END)
    return inner.compile()


def contenders(steps: int) -> dict[str, Callable[[], Any]]:
    import langgraph.graph as langgraph

    made = {
        "graphnb flat": chain(graphnb, steps, "flat").compile(),
        "graphnb nested": nested(graphnb, steps),
        "langgraph flat": chain(langgraph, steps, "flat").compile(),
        "langgraph nested": nested(langgraph, steps),
    }
    return {name: (lambda app=app: app.invoke({"items": []})) for name, app in made.items()}


def cpu_per_step(call: Callable[[], Any], calls: int, steps: int) -> float:
    return cpu_per_call(call, calls) / steps


def check(calls: dict[str, Callable[[], Any]], steps: int) -> None:
    expected = list(range(steps))
    for name, call in calls.items():
        result = call()
        if result["items"] != expected:
            sys.exit(f"wrong result from {name}: {result['items']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="median of 3 instead of 7")
    parser.add_argument("--steps", type=int, default=10, help="chain steps (default 10)")
    parser.add_argument("--calls", type=int, default=200, help="invokes per measurement")
    options = parser.parse_args(argv)
    repetitions = 3 if options.quick else 7
    steps = options.steps
    calls = contenders(steps)
    check(calls, steps)
    names = list(calls)
    for name in names:  # warm up
        cpu_per_step(calls[name], max(1, options.calls // 10), steps)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for repetition in range(repetitions):
        shift = repetition % len(names)
        for name in names[shift:] + names[:shift]:
            seconds[name].append(cpu_per_step(calls[name], options.calls, steps))
    check(calls, steps)
    median = {name: statistics.median(times) for name, times in seconds.items()}
    print(machine_line(machine("graphnb", "langgraph")))
    print(f"CPU time per chain step ({steps} steps, {LEVELS} levels), median of {repetitions}:")
    for name in names:
        print(f"  {name:<17} {median[name] * 1e6:8.1f} µs")
    overhead = median["graphnb nested"] / median["graphnb flat"]
    theirs = median["langgraph nested"] / median["langgraph flat"]
    ratio = median["langgraph nested"] / median["graphnb nested"]
    print(
        f"graphnb nested / flat:   {overhead:.2f}x (target < 2x) "
        f"{'met' if overhead < 2 else 'MISSED'}"
    )
    print(f"langgraph nested / flat: {theirs:.2f}x")
    print(
        f"langgraph nested / graphnb nested: {ratio:.1f}x (target >= 10x) "
        f"{'met' if ratio >= 10 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
