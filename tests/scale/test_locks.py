"""Four processes continuing the same twenty threads at once, on PostgreSQL and MariaDB.

With thread locks no two runs advance one thread at once: each thread's checkpoints form
one chain (every parent is the checkpoint before, no seq twice), and its count is the sum
of the runs that succeeded on it, whichever worker ran them. With ``on_busy_thread="wait"``
every run succeeds; with ``"fail"`` the losers get ``CheckpointConflictError`` and nothing
they touched is corrupted.
"""

from __future__ import annotations

import itertools
import multiprocessing
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphnb.checkpoint import MySQLSaver, PostgresSaver, SqlSaver

from .conftest import POSTGRES_URL

HERE = Path(__file__).parent
MYSQL_URL = "mysql://root:@127.0.0.1:3306/test"
WORKERS, THREADS, ROUNDS = 4, 20, 3


@pytest.fixture
def lock_workers(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The worker module; spawned processes get this process's ``sys.path``."""
    monkeypatch.syspath_prepend(str(HERE))
    import lock_workers

    return lock_workers


def _saver(kind: str, prefix: str, options: dict[str, Any]) -> SqlSaver:
    try:
        if kind == "postgres":
            saver: SqlSaver = PostgresSaver(POSTGRES_URL, table_prefix=prefix, **options)
        else:
            saver = MySQLSaver(MYSQL_URL, table_prefix=prefix, **options)
        saver.threads()  # creates the tables before the workers race to
    except Exception as error:  # pragma: no cover - depends on the machine
        pytest.skip(f"the local {kind} server is not reachable: {error}")
    return saver


@pytest.fixture
def tables() -> Iterator[list[SqlSaver]]:
    made: list[SqlSaver] = []
    yield made
    for saver in made:
        conn = saver._connect()
        try:
            cursor = conn.cursor()
            cursor.execute(f"DROP TABLE IF EXISTS {saver.table}")
            cursor.execute(f"DROP TABLE IF EXISTS {saver.version_table}")
            cursor.execute(f"DROP TABLE IF EXISTS {saver.cache_table}")
            cursor.close()
        finally:
            conn.close()
        saver.close()


def _run_workers(module: Any, url: str, options: dict[str, Any], threads: list[str]) -> list[Any]:
    ctx = multiprocessing.get_context("spawn")
    queue, start = ctx.Queue(), ctx.Event()
    processes = [
        ctx.Process(target=module.report, args=(queue, index, url, options, threads, ROUNDS, start))
        for index in range(WORKERS)
    ]
    for process in processes:
        process.start()
    try:
        start.set()
        results = dict(queue.get(timeout=300) for _ in processes)
    finally:
        for process in processes:
            process.join(60)
            if process.is_alive():  # pragma: no cover - only when the test already failed
                process.kill()
    return [results[index] for index in range(WORKERS)]


@pytest.mark.db
@pytest.mark.slow
@pytest.mark.parametrize("on_busy", ["wait", "fail"])
@pytest.mark.parametrize("kind", ["postgres", "mysql"])
def test_four_processes_on_the_same_twenty_threads_never_interleave(
    kind: str, on_busy: str, lock_workers: Any, tables: list[SqlSaver]
) -> None:
    prefix = f"t{uuid.uuid4().hex[:12]}_"
    options: dict[str, Any] = {"table_prefix": prefix, "on_busy_thread": on_busy}
    if kind == "postgres":
        options["pool_size"] = 2
    saver = _saver(kind, prefix, {k: v for k, v in options.items() if k != "table_prefix"})
    tables.append(saver)
    url = POSTGRES_URL if kind == "postgres" else MYSQL_URL
    threads = [f"shared-{index}" for index in range(THREADS)]
    results = _run_workers(lock_workers, url, options, threads)

    assert [r.get("crash") for r in results] == [None] * WORKERS
    assert [r["errors"] for r in results] == [[]] * WORKERS
    runs = {t: sum(r["done"][t] for r in results) for t in threads}
    conflicts = sum(r["conflicts"] for r in results)
    if on_busy == "wait":
        assert conflicts == 0
        assert runs == dict.fromkeys(threads, WORKERS * ROUNDS)
    else:
        assert conflicts > 0, "the workers never met on a thread: the test proves nothing"
        assert conflicts + sum(runs.values()) == WORKERS * ROUNDS * THREADS
        assert all(count >= 1 for count in runs.values())

    app = lock_workers.counter().compile(checkpointer=saver)
    for thread in threads:
        rows = saver.history(thread)
        assert [row.seq for row in rows] == list(range(len(rows))), thread
        for parent, child in itertools.pairwise(rows):
            assert (child.parent_seq, child.parent_id) == (parent.seq, parent.checkpoint_id)
        assert len(rows) == 3 * runs[thread]  # input + two steps per run, nothing else
        # Each run's input checkpoint follows the previous run's last step.
        assert [row.source for row in rows] == ["input", "loop", "loop"] * runs[thread]
        values = app.get_state(thread).values
        assert values.count == 2 * runs[thread]
        assert values.log == list(range(1, values.count + 1))
