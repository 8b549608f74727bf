"""graphnb against LangGraph, pydantic-graph and Apache Burr, side by side in one process.

    python benchmarks/engine.py                   # the full run (about ten minutes)
    python benchmarks/engine.py --quick           # fewer calls and repetitions, a smoke check
    python benchmarks/engine.py --json out.json   # also write the results as JSON
    python benchmarks/engine.py --only loop,import  # some scenarios only
    python benchmarks/engine.py --profile chain   # where graphnb's time goes (cProfile)

Each scenario is written in every engine's own idiom (see peers.py). Every engine's result
is checked against graphnb's before and after timing, so a fast wrong answer fails the run.
Times are CPU time (``time.process_time``: all of the process's threads, so thread pools
count) of a batch of calls, with the garbage collector off during the batch. A repetition
times one batch on every engine, in an order that rotates from one repetition to the next;
the table shows the median over the repetitions and, for each ratio (peer / graphnb within
one repetition), its lowest and highest value. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import peers
from _compare import REPO, cpu_per_call, duration, machine, machine_line

ENGINES = ("graphnb", "langgraph", "pydantic_graph", "burr")
PEERS = ENGINES[1:]
LABELS = {
    "graphnb": "graphnb",
    "langgraph": "LangGraph",
    "pydantic_graph": "pydantic-graph",
    "burr": "Burr",
}
DISTRIBUTIONS = ("graphnb", "langgraph", "pydantic-graph", "apache-burr", "pydantic")
KEYS = ["chain", "model", "loop", "fanout", "stream", "sqlite", "memory", "import"]


@dataclass(slots=True)
class Scenario:
    """One workload on every engine that has it; targets are peer / graphnb ratios."""

    key: str
    title: str
    unit: str
    calls: int
    contenders: dict[str, peers.Contender]
    targets: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class Result:
    """Seconds per unit, one value per repetition, for each engine."""

    key: str
    title: str
    unit: str
    seconds: dict[str, list[float]]
    targets: dict[str, float]

    def ratios(self, peer: str) -> list[float]:
        return [p / g for p, g in zip(self.seconds[peer], self.seconds["graphnb"], strict=True)]

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "scenario": self.title,
            "unit": self.unit,
            "seconds": self.seconds,
            "ratios": {peer: self.ratios(peer) for peer in PEERS if peer in self.seconds},
            "targets": self.targets,
        }


def scenarios(quick: bool, folder: Path) -> list[Scenario]:
    """Every scenario but import, built (graphs compiled) once, before any timing."""
    scale = 10 if quick else 1

    def each(name: str, *args: Any) -> dict[str, peers.Contender]:
        made = {}
        for engine in ENGINES:
            make = getattr(peers, f"{engine}_{name}", None)
            if make is not None:
                made[engine] = make(*args)
        return made

    step = "per node step"
    return [
        Scenario(
            "chain",
            "chain of 10, dict/TypedDict state",
            step,
            200 // scale,
            each("chain"),
            {"langgraph": 30, "pydantic_graph": 15, "burr": 8},
        ),
        Scenario(
            "model",
            "chain of 10, Pydantic model state",
            step,
            200 // scale,
            each("model"),
            {"langgraph": 30},
        ),
        Scenario(
            "loop",
            "one node looping 1,000 times",
            "per loop step",
            max(1, 10 // scale),
            each("loop"),
            {"langgraph": 30, "pydantic_graph": 15, "burr": 8},
        ),
        Scenario(
            "fanout",
            "100-way fan-out + join",
            "per run",
            max(2, 40 // scale),
            each("fan_out"),
            {"langgraph": 25, "burr": 20},
        ),
        Scenario(
            "stream",
            "chain of 10 streamed",
            "per event",
            200 // scale,
            each("stream"),
            {"langgraph": 25, "burr": 8},
        ),
        Scenario(
            "sqlite",
            "SQLite checkpoint (WAL, synchronous=NORMAL)",
            "per checkpoint",
            max(5, 50 // scale),
            each("sqlite", folder),
            {"langgraph": 10, "burr": 3},
        ),
        Scenario(
            "memory",
            "in-memory checkpoint",
            "per checkpoint",
            200 // scale,
            each("memory"),
            {"langgraph": 10, "burr": 3},
        ),
    ]


# -- timing ----------------------------------------------------------------------------------


def check_same(scenario: Scenario) -> None:
    """Fail unless every engine's result equals graphnb's, as plain data."""
    results = {
        engine: contender.plain(contender.call())
        for engine, contender in scenario.contenders.items()
    }
    expected = results["graphnb"]
    for engine, got in results.items():
        if got != expected:
            raise SystemExit(
                f"{scenario.title}: {LABELS[engine]} returned {got!r}, graphnb {expected!r}"
            )


def cpu_per_unit(contender: peers.Contender, calls: int) -> float:
    """CPU seconds per unit over ``calls`` calls, the garbage collector off meanwhile."""
    return cpu_per_call(contender.call, calls) / contender.units


def rotations(engines: list[str], repetitions: int) -> list[list[str]]:
    """Each repetition's order: the engines rotated by one from the last repetition's."""
    return [engines[i % len(engines) :] + engines[: i % len(engines)] for i in range(repetitions)]


def measure(scenario: Scenario, repetitions: int) -> Result:
    """Median-ready per-unit times over interleaved, rotating repetitions."""
    check_same(scenario)
    engines = list(scenario.contenders)
    for engine in engines:  # warm up: caches, lazy imports, thread pools
        cpu_per_unit(scenario.contenders[engine], max(1, scenario.calls // 10))
    seconds: dict[str, list[float]] = {engine: [] for engine in engines}
    for order in rotations(engines, repetitions):
        for engine in order:
            seconds[engine].append(cpu_per_unit(scenario.contenders[engine], scenario.calls))
    check_same(scenario)
    return Result(scenario.key, scenario.title, scenario.unit, seconds, scenario.targets)


# -- import time -----------------------------------------------------------------------------

IMPORTS = {
    "graphnb": "import graphnb",
    "langgraph": "import langgraph.graph",
    "pydantic_graph": "import pydantic_graph",
    "burr": "import burr.core",
}
BUILDER_IMPORT = "from graphnb import StateGraph"


def child_cpu(code: str) -> float:
    """CPU seconds (user + system) of ``python -c code`` in a fresh process."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    if "PYTHONPATH" in os.environ:  # keep importing this worktree's graphnb
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_import(repetitions: int) -> tuple[list[Result], float]:
    """CPU of a fresh import, less the median ``python -c pass``, interleaved by rotation.

    Two results: ``import graphnb`` (the package alone, which loads its builder, specs
    and Pydantic on first use) and ``from graphnb import StateGraph`` (what building a
    graph needs), each against the same peer imports.
    """
    codes = {"pass": "pass", **IMPORTS, "graphnb_builder": BUILDER_IMPORT}
    for code in codes.values():  # compile .pyc files and warm the file cache first
        child_cpu(code)
    seconds: dict[str, list[float]] = {name: [] for name in codes}
    for order in rotations(list(codes), repetitions):
        for name in order:
            seconds[name].append(child_cpu(codes[name]))
    baseline = statistics.median(seconds.pop("pass"))
    per_engine = {name: [max(t - baseline, 1e-4) for t in times] for name, times in seconds.items()}
    builder = per_engine.pop("graphnb_builder")
    title = f"`import`, fresh process, less `python -c pass` ({duration(baseline)})"
    targets = {"langgraph": 12, "pydantic_graph": 1}
    return [
        Result("import", title, "per import", per_engine, targets),
        Result(
            "import_builder",
            f"`{BUILDER_IMPORT}` against the same peer imports",
            "per import",
            {**per_engine, "graphnb": builder},
            {},
        ),
    ], baseline


# -- the table -------------------------------------------------------------------------------


def ratio_cell(result: Result, peer: str) -> str:
    """``24.1x (21.0-26.3)``: the median ratio and its range; ``-`` if the peer has none."""
    if peer not in result.seconds:
        return "(none)"
    ratios = result.ratios(peer)
    cell = f"{statistics.median(ratios):.1f}x ({min(ratios):.1f}-{max(ratios):.1f})"
    target = result.targets.get(peer)
    if target is not None and statistics.median(ratios) < target:
        cell += f" < {target:g}x"
    return cell


def table(results: list[Result]) -> str:
    """Ratios (peer / graphnb) with their spread, then each engine's median time."""
    header = ["scenario", "graphnb", *(LABELS[p] for p in PEERS)]
    body = [
        [
            f"{result.title} ({result.unit})",
            duration(statistics.median(result.seconds["graphnb"])),
            *(ratio_cell(result, peer) for peer in PEERS),
        ]
        for result in results
    ]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = ["-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)]
    return "\n".join([line(header), "|" + "|".join(rule) + "|", *(line(row) for row in body)])


def times_table(results: list[Result]) -> str:
    """Each engine's median CPU time per unit."""
    lines = [
        "| scenario | " + " | ".join(LABELS[e] for e in ENGINES) + " |",
        "|---|" + "---:|" * len(ENGINES),
    ]
    for result in results:
        cells = [
            duration(statistics.median(result.seconds[e])) if e in result.seconds else "-"
            for e in ENGINES
        ]
        lines.append(f"| {result.title} ({result.unit}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- profiling -------------------------------------------------------------------------------


def profile(scenario: Scenario, top: int) -> None:
    """Print graphnb's hottest functions on a scenario, in µs per unit.

    cProfile sees the calling thread only: in the fan-out, the nodes that graphnb runs on
    its thread pool are not in the numbers, only the orchestration around them.
    """
    contender = scenario.contenders["graphnb"]
    for _ in range(max(2, scenario.calls // 10)):
        contender.call()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(scenario.calls):
        contender.call()
    profiler.disable()
    units = scenario.calls * contender.units
    stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    rows = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    total = sum(timing[2] for timing in stats.values())
    print(f"graphnb on {scenario.title}: {units} units profiled, {total / units * 1e6:.2f} µs")
    print(f"per unit under cProfile (which inflates small calls); top {top} by own time:\n")
    print(f"{'own µs/unit':>11} {'cum µs/unit':>11} {'calls/unit':>10}  function")
    for (path, line, name), (_, calls, own, cumulative, _) in rows:
        where = f"{Path(path).name}:{line}" if line else path
        print(
            f"{own / units * 1e6:11.2f} {cumulative / units * 1e6:11.2f} "
            f"{calls / units:10.2f}  {name} ({where})"
        )


# -- main ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, 3 repetitions")
    parser.add_argument("--repetitions", type=int, help="repetitions (default 7, quick 3)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write results here")
    parser.add_argument(
        "--only",
        type=lambda text: set(text.split(",")),
        default=set(KEYS),
        metavar="KEYS",
        help=f"comma-separated scenarios to run, of {','.join(KEYS)}",
    )
    parser.add_argument(
        "--profile", choices=KEYS[:-1], help="profile graphnb on one scenario instead"
    )
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    args = parser.parse_args(argv)
    if not args.only <= set(KEYS):
        parser.error(f"unknown scenario(s) {sorted(args.only - set(KEYS))}; choose from {KEYS}")
    repetitions = args.repetitions or (3 if args.quick else 7)
    if repetitions < 3:
        parser.error("at least 3 repetitions are needed for a spread")

    info = machine(*DISTRIBUTIONS)
    print(f"Machine: {machine_line(info)}")
    with tempfile.TemporaryDirectory(prefix="graphnb-bench-") as folder:
        all_scenarios = scenarios(args.quick, Path(folder))
        if args.profile:
            profile(next(s for s in all_scenarios if s.key == args.profile), args.top)
            return 0
        print(
            f"CPU time, median of {repetitions} interleaved repetitions; "
            "ratio = peer time / graphnb time (lowest-highest).\n",
            flush=True,
        )
        results = []
        for scenario in all_scenarios:
            if scenario.key in args.only:
                print(f"  {scenario.title}...", file=sys.stderr, flush=True)
                results.append(measure(scenario, repetitions))
    baseline = None
    if "import" in args.only:
        print("  import in fresh processes...", file=sys.stderr, flush=True)
        imports, baseline = measure_import(max(repetitions, 5))
        results.extend(imports)

    print(table(results))
    print("\nMedian CPU time per unit:\n")
    print(times_table(results))
    missed = [
        f"{result.key} vs {LABELS[peer]}"
        for result in results
        for peer, target in result.targets.items()
        if peer in result.seconds and statistics.median(result.ratios(peer)) < target
    ]
    print(f"\nTargets missed: {', '.join(missed) if missed else 'none'}.")
    if args.json:
        document = {
            "machine": info,
            "quick": args.quick,
            "repetitions": repetitions,
            "python_c_pass_cpu_seconds": baseline,
            "results": [result.as_json() for result in results],
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
