"""Real servers for the serving tests: new databases, and clusters of real processes.

A cluster is ``graphnb serve --broker`` API processes and ``graphnb worker`` processes,
each a subprocess started as a user would start it, on a new PostgreSQL database of the
local server and the local Redis.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx

from . import graphs

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
BROKER = "redis://127.0.0.1:6379/0"
GRAPHS = Path(graphs.__file__)
TARGETS = [f"{GRAPHS}:{name}" for name in ("chain", "asker", "sleeper", "journey", "talker")]
STALLED_AFTER = 3.0  # seconds: a killed worker's runs move within about this


@contextlib.contextmanager
def a_database(kind: str, where: Path) -> Iterator[str]:
    """A new, empty database of ``kind`` for one server: its URL."""
    if kind == "sqlite":
        yield f"sqlite:///{where / 'threads.db'}"
        return
    import psycopg

    name = f"graphnb_serve_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]  # a fixed name
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")  # type: ignore[arg-type]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """API and worker processes on one database and broker; logs in ``where``."""

    def __init__(self, db: str, where: Path) -> None:
        self.db = db
        self.where = where
        self.processes: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self.urls: list[str] = []  # the API processes a_cluster started
        self._logs = contextlib.ExitStack()

    def _start(self, command: list[str], log: str) -> subprocess.Popen[bytes]:
        queue = ["--db", self.db, "--broker", BROKER, "--stalled-after", str(STALLED_AFTER)]
        process = subprocess.Popen(
            [sys.executable, "-m", "graphnb", *command, *TARGETS, *queue],
            stdout=self._logs.enter_context((self.where / log).open("ab")),
            stderr=subprocess.STDOUT,
            env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[2])},
        )
        self.processes.append(process)
        return process

    def log(self, name: str) -> str:
        """What the process that writes ``name`` (``api-0.log``...) has printed."""
        return (self.where / name).read_text(errors="replace")

    def start_worker(self) -> subprocess.Popen[bytes]:
        """One more ``graphnb worker`` process."""
        worker = self._start(["worker"], f"worker-{len(self.workers)}.log")
        self.workers.append(worker)
        return worker

    def start_api(self, name: str = "api-0") -> tuple[str, subprocess.Popen[bytes]]:
        """One more ``graphnb serve --jobs 0`` process, once it answers: its URL."""
        port = _free_port()
        process = self._start(["serve", "--port", str(port), "--jobs", "0"], f"{name}.log")
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, f"the server stopped: {self.log(f'{name}.log')}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    return url, process
            assert time.monotonic() < deadline, f"no answer: {self.log(f'{name}.log')}"
            time.sleep(0.1)

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        """``kill -9``: no clean-up, no goodbye."""
        os.kill(process.pid, signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        """Stop every process (SIGTERM, then SIGKILL after 20 s) and close the logs."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._logs.close()


@contextlib.contextmanager
def a_cluster(db: str, where: Path, *, apis: int = 2, workers: int = 3) -> Iterator[Cluster]:
    """``apis`` API processes and ``workers`` worker processes on ``db``, stopped at the end."""
    cluster = Cluster(db, where)
    try:
        for _ in range(workers):
            cluster.start_worker()
        cluster.urls = [cluster.start_api(f"api-{index}")[0] for index in range(apis)]
        yield cluster
    finally:
        cluster.stop()
