"""Batches on the local thread pool, Dask and Ray with 1, 2 and 4 workers.

Run: ``python benchmarks/scale.py`` (``--runs N`` for fewer than 2,000 runs a config,
``--skip-ray`` / ``--skip-dask`` without them). Each run is a 10-node chain whose fifth
node sleeps 20 ms (I/O-bound: a model or HTTP call); the others add one. Since the work
is waiting, not computing, workers are threads (local), single-threaded worker processes
(Dask) or one-CPU tasks (Ray) and the figure is wall-clock runs per second: on 2 cores,
4 workers can still wait 4 times at once.

Then the same batch checkpointed in PostgreSQL (the test setup's, fresh thread ids,
deleted after): runs per second and database rows (checkpoints) per run.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import platform
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
PAUSE = 0.02
NODES = 10


def add_one(state: dict[str, Any]) -> dict[str, Any]:
    """A cheap node."""
    return {"x": state["x"] + 1}


def wait_io(state: dict[str, Any]) -> dict[str, Any]:
    """The I/O-bound node: 20 ms of waiting, as for a remote call."""
    time.sleep(PAUSE)
    return {"x": state["x"] + 1}


def build(checkpointer: str | None = None) -> Any:
    """The 10-node chain; node 4 (the fifth) waits."""
    from graphnb import END, START, StateGraph

    graph = StateGraph(dict)
    names = [f"n{i}" for i in range(NODES)]
    for index, name in enumerate(names):
        graph.add_node(name, wait_io if index == 4 else add_one)
    graph.add_edge(START, names[0])
    for first, second in itertools.pairwise(names):
        graph.add_edge(first, second)
    graph.add_edge(names[-1], END)
    return graph.compile(checkpointer=checkpointer)


def timed(
    graph: Any, runs: int, *, executor: Executor | None = None, workers: int = 1, **options: Any
) -> float:
    """Runs per second of one batch; every result is checked."""
    inputs = [{"x": i} for i in range(runs)]
    started = time.perf_counter()
    results = graph.batch(inputs, executor=executor, max_concurrency=workers, **options)
    elapsed = time.perf_counter() - started
    assert [r["x"] for r in results] == [i + NODES for i in range(runs)]
    return runs / elapsed


def warm(graph: Any, executor: Executor, workers: int) -> None:
    # every worker imports graphnb and rebuilds the graph before the clock starts
    graph.batch([{"x": 0}] * (workers * 4), executor=executor)


def on_dask(graph: Any, runs: int, workers: int) -> float:
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    try:
        executor = client.get_executor()
        warm(graph, executor, workers)
        return timed(graph, runs, executor=executor)
    finally:
        client.close()
        cluster.close()


def on_ray(graph: Any, runs: int, workers: int) -> float:
    from graphnb.ray_executor import RayExecutor

    env = {"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}}
    with RayExecutor(num_cpus=workers, runtime_env=env) as executor:
        warm(graph, executor, workers)
        return timed(graph, runs, executor=executor)


def on_postgres(runs: int, workers: int, executor: Executor | None = None) -> tuple[float, float]:
    """Runs per second and checkpoint rows per run, each run on its own thread."""
    graph = build(POSTGRES_URL)
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    ids = [f"{prefix}-{i}" for i in range(runs)]
    try:
        rate = timed(graph, runs, executor=executor, workers=workers, thread_ids=ids)
        rows = sum(len(graph.checkpointer.history(t)) for t in ids[:50]) / min(50, runs)
        return rate, rows
    finally:
        for thread in ids:
            graph.delete_thread(thread)
        graph.checkpointer.close()


def versions() -> str:
    import importlib.metadata as meta

    found = []
    for name in ("dask", "distributed", "ray", "psycopg"):
        with contextlib.suppress(meta.PackageNotFoundError):
            found.append(f"{name} {meta.version(name)}")
    return f"Python {platform.python_version()}, " + ", ".join(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--pg-runs", type=int, default=500)
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()
    # workers import this file's nodes as the module `scale`
    sys.path.insert(0, str(HERE))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    import scale

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    print(f"{versions()}; commit {commit}; load {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs")
    print(f"{args.runs} runs of a {NODES}-node chain, one node waiting {PAUSE * 1000:.0f} ms")
    graph = scale.build()
    configs: list[tuple[str, Callable[[int], float]]] = [
        ("local threads", lambda n: timed(graph, args.runs, workers=n))
    ]
    if not args.skip_dask:
        configs.append(("dask", lambda n: on_dask(graph, args.runs, n)))
    if not args.skip_ray:
        configs.append(("ray", lambda n: on_ray(graph, args.runs, n)))
    print(f"{'executor':<14} {'workers':>7} {'runs/s':>8} {'ideal':>6} {'wall':>7}")
    for name, run in configs:
        for workers in (1, 2, 4):
            started = time.perf_counter()
            rate = run(workers)
            wall = time.perf_counter() - started
            ideal = workers / PAUSE
            print(f"{name:<14} {workers:>7} {rate:>8.1f} {ideal:>6.0f} {wall:>6.1f}s", flush=True)
    print(f"\nPostgreSQL-checkpointed, {args.pg_runs} runs, one thread each")
    rate, rows = scale.on_postgres(args.pg_runs, 4)
    print(f"local threads 4: {rate:.1f} runs/s, {rows:.1f} checkpoint rows per run", flush=True)
    if not args.skip_dask:
        import distributed

        cluster = distributed.LocalCluster(
            n_workers=4, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = distributed.Client(cluster)
        try:
            executor = client.get_executor()
            warm(scale.build(), executor, 4)
            rate, rows = scale.on_postgres(args.pg_runs, 4, executor)
            print(f"dask 4: {rate:.1f} runs/s, {rows:.1f} checkpoint rows per run")
        finally:
            client.close()
            cluster.close()
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
