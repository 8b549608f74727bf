"""graphnb against LangGraph: the same graphs, run side by side in one process.

    python benchmarks/engine.py                   # the full run (a few minutes)
    python benchmarks/engine.py --quick           # fewer runs of each, as a smoke check
    python benchmarks/engine.py --json out.json   # also write the results as JSON
    python benchmarks/engine.py --only stream,import  # some scenarios only
    python benchmarks/engine.py --profile chain   # where graphnb's time goes (cProfile)

Every scenario runs sync, without a checkpointer. Each engine's result is compared with
the other's before and after timing, so a fast wrong answer fails the run instead of
passing. Times are the best of repeated runs, LangGraph's and graphnb's runs interleaved,
with the garbage collector off during each timed call for both engines alike.
See benchmarks/README.md for what each scenario measures.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import operator
import os
import pstats
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, TypedDict

from _compare import REPO, Comparison, duration, machine, machine_line, table
from pydantic import BaseModel

try:
    import langgraph.graph as langgraph
except ImportError:  # pragma: no cover - the benchmark extra is missing
    sys.exit("LangGraph is not installed: pip install -e '.[bench]'")

import graphnb

CHAIN_LENGTH = 10
LOOP_STEPS = 1_000
FAN_OUT = 100
KEYS = ["chain", "model", "loop", "fanout", "stream", "import"]

# -- states and nodes, shared by both engines --------------------------------------------


class Counter(TypedDict):
    count: int


class CounterModel(BaseModel):
    """LangGraph's Pydantic state."""

    count: int = 0


class CounterState(graphnb.GraphState):
    """graphnb's Pydantic state."""

    count: int = 0


class Gathered(TypedDict):
    items: Annotated[list[str], operator.add]
    total: int


def increment(state: Counter) -> dict[str, int]:
    return {"count": state["count"] + 1}


def increment_model(state: CounterModel | CounterState) -> dict[str, int]:
    return {"count": state.count + 1}


def again(state: Counter) -> str:
    return "loop" if state["count"] < LOOP_STEPS else graphnb.END


def gather(name: str) -> Callable[[Gathered], dict[str, list[str]]]:
    def node(state: Gathered) -> dict[str, list[str]]:
        return {"items": [name]}

    node.__name__ = name
    return node


def count_items(state: Gathered) -> dict[str, int]:
    return {"total": len(state["items"])}


# -- the same graph on either engine ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Api:
    """What building a graph needs from one engine."""

    state_graph: Callable[..., Any]
    start: str
    end: str


LANGGRAPH = Api(langgraph.StateGraph, langgraph.START, langgraph.END)
GRAPHNB = Api(graphnb.StateGraph, graphnb.START, graphnb.END)


def chain(api: Api, state: type[Any], node: Callable[..., Any], **options: Any) -> Any:
    """START -> step0 -> ... -> step9 -> END."""
    graph = api.state_graph(state, **options)
    names = [f"step{i}" for i in range(CHAIN_LENGTH)]
    for name in names:
        graph.add_node(name, node)
    graph.add_edge(api.start, names[0])
    for source, target in pairwise(names):
        graph.add_edge(source, target)
    graph.add_edge(names[-1], api.end)
    return graph.compile()


def loop(api: Api, state: type[Any], **options: Any) -> Any:
    """START -> loop, then loop -> loop or END as the router says."""
    graph = api.state_graph(state, **options)
    graph.add_node("loop", increment)
    graph.add_edge(api.start, "loop")
    graph.add_conditional_edges("loop", again, ["loop", api.end])
    return graph.compile()


def fan_out(api: Api) -> Any:
    """START -> 100 nodes in parallel, each appending its name -> one join -> END."""
    graph = api.state_graph(Gathered)
    names = [f"branch{i:03d}" for i in range(FAN_OUT)]
    for name in names:
        graph.add_node(name, gather(name))
        graph.add_edge(api.start, name)
    graph.add_node("join", count_items)
    graph.add_edge(names, "join")
    graph.add_edge("join", api.end)
    return graph.compile()


# -- scenarios -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scenario:
    """One workload on both engines; a call's time is divided by ``steps``."""

    key: str
    title: str
    unit: str
    steps: int
    target: float
    runs: int
    langgraph: Callable[[], Any]
    graphnb: Callable[[], Any]


def scenarios(quick: bool) -> list[Scenario]:
    runs = 20 if quick else 200
    loop_runs = 3 if quick else 20
    fan_out_runs = 10 if quick else 100
    limit = LOOP_STEPS + 10

    lg_chain = chain(LANGGRAPH, Counter, increment)
    gn_chain = chain(GRAPHNB, dict, increment)
    lg_model = chain(LANGGRAPH, CounterModel, increment_model)
    gn_model = chain(GRAPHNB, CounterState, increment_model)
    lg_loop = loop(LANGGRAPH, Counter)
    gn_loop = loop(GRAPHNB, dict)
    lg_fan = fan_out(LANGGRAPH)
    gn_fan = fan_out(GRAPHNB)
    start = {"count": 0}
    empty = {"items": [], "total": 0}
    step = "per node step"
    return [
        Scenario(
            "chain",
            "1. chain of 10, TypedDict vs dict state",
            step,
            CHAIN_LENGTH,
            15,
            runs,
            lambda: lg_chain.invoke(start),
            lambda: gn_chain.invoke(start),
        ),
        Scenario(
            "model",
            "2. chain of 10, Pydantic state",
            step,
            CHAIN_LENGTH,
            15,
            runs,
            lambda: lg_model.invoke(start),
            lambda: gn_model.invoke(start),
        ),
        Scenario(
            "loop",
            "3. self-loop x1000 via conditional edge",
            "per loop step",
            LOOP_STEPS,
            15,
            loop_runs,
            lambda: lg_loop.invoke(start, {"recursion_limit": limit}),
            lambda: gn_loop.invoke(start, recursion_limit=limit),
        ),
        Scenario(
            "fanout",
            "4. fan-out to 100 appends, then a join",
            "per invoke",
            1,
            10,
            fan_out_runs,
            lambda: lg_fan.invoke(empty),
            lambda: gn_fan.invoke(empty),
        ),
        Scenario(
            "stream",
            "5. chain of 10 streamed as updates",
            step,
            CHAIN_LENGTH,
            15,
            runs,
            lambda: list(lg_chain.stream(start, stream_mode="updates")),
            lambda: list(gn_chain.stream(start, mode="updates")),
        ),
    ]


def plain(result: Any) -> Any:
    """A result as plain data: models dumped, so both engines' states compare equal."""
    if isinstance(result, BaseModel):
        return result.model_dump()
    if isinstance(result, list):
        return [plain(item) for item in result]
    if isinstance(result, dict):
        return {key: plain(value) for key, value in result.items()}
    return result


def check_same(scenario: Scenario) -> None:
    """Fail unless both engines give the same final state (or the same stream)."""
    expected = plain(scenario.langgraph())
    got = plain(scenario.graphnb())
    if got != expected:
        raise SystemExit(
            f"{scenario.title}: graphnb returned {got!r}, but LangGraph returned {expected!r}"
        )


def timed(call: Callable[[], Any]) -> float:
    """The wall time of one call, with the garbage collector off during it."""
    gc.disable()
    try:
        started = time.perf_counter()
        call()
        return time.perf_counter() - started
    finally:
        gc.enable()


def measure(scenario: Scenario) -> Comparison:
    """Best of ``runs`` interleaved calls of each engine, after a warm-up."""
    check_same(scenario)
    for _ in range(max(2, scenario.runs // 10)):
        scenario.langgraph()
        scenario.graphnb()
    gc.collect()
    best_langgraph = best_graphnb = float("inf")
    for _ in range(scenario.runs):
        best_langgraph = min(best_langgraph, timed(scenario.langgraph))
        best_graphnb = min(best_graphnb, timed(scenario.graphnb))
    check_same(scenario)
    return Comparison(
        scenario.key,
        scenario.title,
        scenario.unit,
        best_langgraph / scenario.steps,
        best_graphnb / scenario.steps,
        scenario.target,
    )


# -- import time -----------------------------------------------------------------------


def process_time(code: str) -> float:
    """Wall time of ``python -c code`` in a fresh process, from the repository root."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, check=True)
    return time.perf_counter() - started


def measure_import(runs: int) -> tuple[Comparison, float]:
    """Best of ``runs`` fresh imports of each, less the best ``python -c pass``."""
    codes = ["pass", "import langgraph.graph", "import graphnb"]
    for code in codes:  # compile .pyc files and warm the file cache first
        process_time(code)
    best = dict.fromkeys(codes, float("inf"))
    for _ in range(runs):
        for code in codes:
            best[code] = min(best[code], process_time(code))
    baseline = best["pass"]
    comparison = Comparison(
        "import",
        f"6. import in a fresh process, less `python -c pass` ({duration(baseline)})",
        "per import",
        best["import langgraph.graph"] - baseline,
        best["import graphnb"] - baseline,
        8,
    )
    return comparison, baseline


# -- profiling -------------------------------------------------------------------------


def profile(scenario: Scenario, top: int) -> None:
    """Print graphnb's hottest functions on a scenario, in µs per step.

    cProfile sees the calling thread only: in the fan-out, the nodes that graphnb runs on
    its thread pool are not in the numbers, only the orchestration around them.
    """
    check_same(scenario)
    for _ in range(max(2, scenario.runs // 10)):
        scenario.graphnb()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(scenario.runs):
        scenario.graphnb()
    profiler.disable()
    steps = scenario.runs * scenario.steps
    stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    rows = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    total = sum(timing[2] for timing in stats.values())
    print(f"graphnb on {scenario.title}: {steps} steps profiled, {total / steps * 1e6:.2f} µs per")
    print(f"step under cProfile (which inflates small calls); top {top} by own time:\n")
    print(f"{'own µs/step':>11} {'cum µs/step':>11} {'calls/step':>10}  function")
    for (path, line, name), (_, calls, own, cumulative, _) in rows:
        where = f"{Path(path).name}:{line}" if line else path
        print(
            f"{own / steps * 1e6:11.2f} {cumulative / steps * 1e6:11.2f} "
            f"{calls / steps:10.2f}  {name} ({where})"
        )


# -- main ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs of each scenario")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write results here")
    parser.add_argument(
        "--only",
        type=lambda text: set(text.split(",")),
        default=set(KEYS),
        metavar="KEYS",
        help=f"comma-separated scenarios to run, of {','.join(KEYS)}",
    )
    parser.add_argument(
        "--profile",
        choices=KEYS[:-1],
        help="profile graphnb on one scenario instead of comparing",
    )
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    args = parser.parse_args(argv)
    if not args.only <= set(KEYS):
        parser.error(f"unknown scenario(s) {sorted(args.only - set(KEYS))}; choose from {KEYS}")

    info = machine("graphnb", "langgraph", "pydantic")
    print(f"Machine: {machine_line(info)}")
    all_scenarios = scenarios(args.quick)
    if args.profile:
        profile(next(s for s in all_scenarios if s.key == args.profile), args.top)
        return 0

    print(
        "Best of N sync runs, no checkpointer; ratio = LangGraph time / graphnb time.\n",
        flush=True,
    )
    results = []
    for scenario in all_scenarios:
        if scenario.key not in args.only:
            continue
        print(f"  {scenario.title}: {scenario.runs} runs each...", file=sys.stderr, flush=True)
        results.append(measure(scenario))
    baseline = None
    if "import" in args.only:
        import_runs = 3 if args.quick else 5
        print(f"  6. import: {import_runs} fresh processes each...", file=sys.stderr, flush=True)
        imports, baseline = measure_import(import_runs)
        results.append(imports)

    print(table(results))
    missed = [row.key for row in results if not row.met]
    print(f"\nTargets met: {len(results) - len(missed)} of {len(results)}.")
    if args.json:
        document = {
            "machine": info,
            "quick": args.quick,
            "python_c_pass_seconds": baseline,
            "results": [row.as_json() for row in results],
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
