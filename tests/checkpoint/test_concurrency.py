"""Several processes on one database, and a run killed with SIGKILL then resumed."""

from __future__ import annotations

import importlib.util
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from types import ModuleType

import pytest

from graphnb.checkpoint import PostgresSaver, SqliteSaver

WORKERS = Path(__file__).with_name("workers.py")


def _workers_module() -> ModuleType:
    if "graphnb_test_workers" in sys.modules:
        return sys.modules["graphnb_test_workers"]
    spec = importlib.util.spec_from_file_location("graphnb_test_workers", WORKERS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Pydantic resolves the model's string annotations through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _spawn(*args: str, errors: Path | None = None) -> subprocess.Popen[bytes]:
    if errors is None:
        return subprocess.Popen(
            [sys.executable, str(WORKERS), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    with errors.open("wb") as sink:  # a killed child leaves no pipe behind to close
        return subprocess.Popen(
            [sys.executable, str(WORKERS), *args], stdout=subprocess.DEVNULL, stderr=sink
        )


def _wait_all(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()


def test_processes_writing_different_threads_into_one_sqlite_file_lose_nothing(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    workers, per_worker = 4, 25
    _wait_all([_spawn("write", url, "-", str(w), str(per_worker)) for w in range(workers)])
    saver = SqliteSaver(tmp_path / "shared.db")
    try:
        threads = saver.threads()
        assert len(threads) == workers * per_worker
        for thread in threads:
            rows = saver.history(thread)
            assert [row.seq for row in rows] == [0, 1, 2, 3]
            assert [row.source for row in rows] == ["input", "loop", "loop", "loop"]
    finally:
        saver.close()


@pytest.mark.db
@pytest.mark.slow
def test_eight_processes_times_fifty_threads_on_postgres_keep_every_checkpoint(
    postgres_saver: PostgresSaver,
) -> None:
    saver = postgres_saver
    processes = [_spawn("write", saver.url, saver.table_prefix, str(w), "50") for w in range(8)]
    _wait_all(processes)
    with saver._cursor() as cursor:
        cursor.execute(f"SELECT thread_id, COUNT(*) FROM {saver.table} GROUP BY thread_id")
        counts = dict(cursor.fetchall())
    assert len(counts) == 400
    assert set(counts.values()) == {4}
    app = _workers_module().chain_graph().compile(checkpointer=saver)
    assert app.get_state("w7-49").values.log == [1, 2, 3]


def _head_step(path: Path, thread: str) -> int:
    try:
        with closing(sqlite3.connect(path, timeout=5)) as conn:
            row = conn.execute(
                "SELECT MAX(step) FROM graphnb_checkpoints WHERE thread_id = ?", (thread,)
            ).fetchone()
    except sqlite3.OperationalError:  # the child has not created the tables yet
        return -2
    return -2 if row[0] is None else int(row[0])


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_run_killed_mid_step_resumes_without_losing_or_repeating_updates(
    tmp_path: Path,
) -> None:
    path = tmp_path / "crash.db"
    errors = tmp_path / "child.err"
    child = _spawn("tick", f"sqlite:///{path}", "job", errors=errors)
    try:
        deadline = time.monotonic() + 60
        while _head_step(path, "job") < 10:
            assert child.poll() is None, errors.read_text()
            assert time.monotonic() < deadline, "the child made no progress"
            time.sleep(0.005)
        time.sleep(0.01)  # land inside a node, between two checkpoints
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
    assert child.returncode == -signal.SIGKILL
    workers = _workers_module()
    app = workers.tick_graph().compile(checkpointer=f"sqlite:///{path}", recursion_limit=1000)
    stopped = app.get_state("job")
    assert 10 <= stopped.values.count < workers.TICKS
    assert stopped.values.log == list(range(1, stopped.values.count + 1))
    assert stopped.next == ("tick",)
    final = app.invoke(None, thread_id="job")
    assert final.log == list(range(1, workers.TICKS + 1))  # none lost, none twice
    history = app.get_state_history("job")
    steps = [s.step for s in history if s.source == "loop"]
    assert steps == sorted(set(steps), reverse=True)  # each step checkpointed once
    assert all(s.values.count == s.step + 1 for s in history if s.source == "loop")
