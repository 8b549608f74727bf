"""Load on ``graphnb serve``: many streaming runs at once, driven by LangGraph's own client.

Bounded and on loopback only. ``graphnb serve`` runs as a user starts it, a process of its
own on the embedded default (SQLite, the in-process worker); this process is the client,
``langgraph-sdk``'s async one. Each run streams a 10-node chain whose fifth node awaits
50 ms; per run the time from sending the request to its first streamed event, and the
check that its last ``values`` event has all ten steps (nothing lost). The threads are
made before the clock starts; the runs then start all at once.

    python benchmarks/serve_load.py                    # 200 runs at once, 3 rounds
    python benchmarks/serve_load.py --runs 50 --rounds 1
    python benchmarks/serve_load.py --durability async # checkpoints written behind the run
    python benchmarks/serve_load.py --apis 2 --workers 3
        # API processes apart from worker processes, on a new PostgreSQL database and the
        # local Redis (--broker); the runs are spread over the API processes in turn
    python benchmarks/serve_load.py --langgraph-dev /tmp/lgdev/bin/langgraph
        # the same load and client against LangGraph's own development server, on the same
        # chain written with LangGraph. Its server is kept out of this environment (it
        # would move the LangGraph the tests pin): build it once in a venv of its own,
        #     python -m venv /tmp/lgdev && /tmp/lgdev/bin/pip install "langgraph-cli[inmem]"
        # It runs offline (LangSmith tracing off); --jobs is its --n-jobs-per-worker.

Prints, each round and their median: time to the first event (the run's metadata, which
the client reads first) and to the first state (``values``), p50 and p99, and runs per
second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"

GRAPH = """
import asyncio
from graphnb import END, START, StateGraph


def step(n):
    def node(state: dict) -> dict:
        return {"steps": state.get("steps", 0) + 1}

    node.__name__ = f"s{n}"
    return node


async def wait(state: dict) -> dict:
    await asyncio.sleep(0.05)
    return {"steps": state.get("steps", 0) + 1}


chain = StateGraph(dict, name="chain")
names = [f"s{n}" for n in range(10)]
for n, name in enumerate(names):
    chain.add_node(name, wait if n == 4 else step(n))
chain.add_edge(START, names[0])
for a, b in zip(names, names[1:]):
    chain.add_edge(a, b)
chain.add_edge(names[-1], END)
"""

LANGGRAPH_GRAPH = """
import asyncio
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    steps: int


def step(n):
    def node(state: State) -> State:
        return {"steps": state.get("steps", 0) + 1}

    node.__name__ = f"s{n}"
    return node


async def wait(state: State) -> State:
    await asyncio.sleep(0.05)
    return {"steps": state.get("steps", 0) + 1}


builder = StateGraph(State)
names = [f"s{n}" for n in range(10)]
for n, name in enumerate(names):
    builder.add_node(name, wait if n == 4 else step(n))
builder.add_edge(START, names[0])
for a, b in zip(names, names[1:]):
    builder.add_edge(a, b)
builder.add_edge(names[-1], END)
chain = builder.compile()
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _one(client, thread_id: str, durability: str | None) -> tuple[float, float, bool]:
    """One streamed run: its time to the first event and to the first state (from the
    request), and whether it ended with all ten steps."""
    first = state = float("inf")
    last = None
    options = {"durability": durability} if durability else {}
    started = time.perf_counter()
    async for part in client.runs.stream(
        thread_id, "chain", input={"steps": 0}, stream_mode="values", **options
    ):
        first = min(first, time.perf_counter() - started)  # the run's metadata, first
        if part.event == "values":
            state = min(state, time.perf_counter() - started)
            last = part.data
    return first, state, bool(last and last.get("steps") == 10)


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return ordered[len(ordered) // 2] * 1000, ordered[int(len(ordered) * 0.99)] * 1000


async def _round(urls: list[str], runs: int, durability: str | None) -> dict[str, float]:
    from langgraph_sdk import get_client

    # a client's httpx pool holds 100 connections: more streams would wait for one to end,
    # and the wait would be counted as the server's. So 50 streams per client at most.
    clients = [get_client(url=url, api_key=None) for url in urls * -(-runs // (50 * len(urls)))]
    spread = [clients[n % len(clients)] for n in range(runs)]
    threads = [await client.threads.create() for client in spread]  # not timed
    started = time.perf_counter()
    results = await asyncio.gather(
        *(
            _one(client, t["thread_id"], durability)
            for client, t in zip(spread, threads, strict=True)
        )
    )
    wall = time.perf_counter() - started
    p50, p99 = _percentiles([first for first, _, _ in results])
    state50, state99 = _percentiles([state for _, state, _ in results])
    return {
        "p50": p50,
        "p99": p99,
        "state_p50": state50,
        "state_p99": state99,
        "runs_per_s": runs / wall,
        "lost": sum(not ok for _, _, ok in results),
    }


def _wait_up(url: str, server: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"{server.args[0]} exited with {server.returncode}")
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within 60 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs at once (200)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (3)")
    parser.add_argument("--durability", choices=("sync", "async", "exit"), default=None)
    parser.add_argument(
        "--apis", type=int, default=0, help="API processes apart from workers (0: one process)"
    )
    parser.add_argument("--workers", type=int, default=3, help="worker processes, with --apis (3)")
    parser.add_argument("--jobs", type=int, default=12, help="runs at once per worker (12)")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/0", help="with --apis")
    parser.add_argument(
        "--langgraph-dev", metavar="LANGGRAPH", help="drive `LANGGRAPH dev` instead (see above)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as where, contextlib.ExitStack() as stack:
        module = Path(where) / "load_graph.py"
        module.write_text(GRAPH)
        serve = [sys.executable, "-m", "graphnb", "serve", f"{module}:chain"]
        db = stack.enter_context(_postgres_database()) if args.apis else ""
        servers: list[subprocess.Popen[bytes]] = []
        stack.callback(_stop, servers)  # before the database is dropped
        # offline: no traces sent to LangSmith, no analytics
        env = os.environ | {"LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}

        def start(command: list[str], name: str) -> None:
            log = stack.enter_context((Path(where) / name).open("wb"))  # every request
            servers.append(
                subprocess.Popen(command, cwd=where, stdout=log, stderr=subprocess.STDOUT, env=env)
            )

        urls = []
        if args.langgraph_dev:
            (Path(where) / "lg_graph.py").write_text(LANGGRAPH_GRAPH)
            config = {"dependencies": ["."], "graphs": {"chain": "./lg_graph.py:chain"}}
            (Path(where) / "langgraph.json").write_text(json.dumps(config))
            port = _free_port()
            dev = [args.langgraph_dev, "dev", "--no-browser", "--no-reload"]
            dev += ["--port", str(port), "--n-jobs-per-worker", str(args.jobs)]
            start(dev, "langgraph-dev.log")
            urls.append(f"http://127.0.0.1:{port}")
        elif args.apis:
            queue = ["--db", db, "--broker", args.broker]
            work = [sys.executable, "-m", "graphnb", "worker", f"{module}:chain", *queue]
            for number in range(args.workers):
                start([*work, "--jobs", str(args.jobs)], f"worker-{number}.log")
            for number in range(args.apis):
                port = _free_port()
                start([*serve, *queue, "--port", str(port), "--jobs", "0"], f"api-{number}.log")
                urls.append(f"http://127.0.0.1:{port}")
        else:
            port = _free_port()
            start(
                [*serve, "--port", str(port), "--db", f"sqlite:///{Path(where) / 'load.db'}"],
                "api.log",
            )
            urls.append(f"http://127.0.0.1:{port}")
        for url, server in zip(urls, servers[len(servers) - len(urls) :], strict=True):
            _wait_up(url, server)
        where_runs = "one process, SQLite"
        if args.langgraph_dev:
            where_runs = f"langgraph dev, {args.jobs} jobs"
        elif args.apis:
            where_runs = f"{args.apis} API processes, {args.workers} workers of {args.jobs} jobs"
        rounds = []
        for number in range(args.rounds):
            found = asyncio.run(_round(urls, args.runs, args.durability))
            rounds.append(found)
            print(
                f"round {number + 1}: first event p50 {found['p50']:.0f} ms, "
                f"p99 {found['p99']:.0f} ms; first state p50 {found['state_p50']:.0f} ms, "
                f"p99 {found['state_p99']:.0f} ms; {found['runs_per_s']:.1f} runs/s, "
                f"lost {found['lost']:.0f}"
            )
        print(
            f"{where_runs}: median of {args.rounds} rounds of {args.runs} runs "
            f"(durability {args.durability or 'sync'}): "
            f"first event p50 {statistics.median(r['p50'] for r in rounds):.0f} ms, "
            f"p99 {statistics.median(r['p99'] for r in rounds):.0f} ms; first state "
            f"p50 {statistics.median(r['state_p50'] for r in rounds):.0f} ms, "
            f"p99 {statistics.median(r['state_p99'] for r in rounds):.0f} ms; "
            f"{statistics.median(r['runs_per_s'] for r in rounds):.1f} runs/s, "
            f"lost {sum(r['lost'] for r in rounds):.0f}"
        )


def _stop(servers: list[subprocess.Popen[bytes]]) -> None:
    for server in servers:
        server.terminate()
    for server in servers:
        server.wait(timeout=30)


@contextlib.contextmanager
def _postgres_database() -> Iterator[str]:
    """A new database on the local PostgreSQL server for one benchmark, dropped after."""
    import psycopg

    name = f"graphnb_load_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]  # a fixed name
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
