"""Thread locks: a second holder of a thread waits or fails, on every saver.

No timing is asserted: "still waiting" is checked by a holder that has not entered while
the first one still holds the lock, and "gave up" by a short ``lock_timeout``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.checkpoint import (
    BaseSaver,
    CheckpointConflictError,
    MemorySaver,
    MySQLSaver,
    PostgresSaver,
    SqliteSaver,
)

from .conftest import drop_tables, make_saver, unique_prefix

KINDS = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.db),
    pytest.param("postgres-pool", id="postgres-pool", marks=pytest.mark.db),
    pytest.param("mysql", id="mysql", marks=pytest.mark.db),
]


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Any]:
    """Makes savers of one kind on one database (the same tables), dropped afterwards."""
    made: list[BaseSaver] = []
    prefix = unique_prefix()
    shared: dict[str, BaseSaver] = {}

    def factory(kind: str, **options: Any) -> BaseSaver:
        if kind == "memory":  # its threads live in one saver: a second one shares nothing
            if "memory" not in shared:
                shared["memory"] = MemorySaver(**options)
            saver = shared["memory"]
            for name, value in options.items():
                setattr(saver, name, value)
            return saver
        saver = make_saver(kind, tmp_path, prefix, **options)
        made.append(saver)
        return saver

    yield factory
    for saver in made:
        saver.close()
    if made:
        drop_tables(made[0])


def _holder(saver: BaseSaver, thread_id: str) -> tuple[threading.Thread, dict[str, Any]]:
    """A thread that takes the lock, reports, and holds it until told to let go."""
    state: dict[str, Any] = {"entered": threading.Event(), "leave": threading.Event()}

    def hold() -> None:
        try:
            with saver.thread_lock(thread_id):
                state["entered"].set()
                state["leave"].wait(30)
        except BaseException as error:
            state["error"] = error
            state["entered"].set()

    worker = threading.Thread(target=hold)
    worker.start()
    return worker, state


@pytest.mark.parametrize("kind", KINDS)
def test_a_second_holder_fails_at_once_with_on_busy_fail(kind: str, make: Any) -> None:
    first, second = make(kind), make(kind, on_busy_thread="fail")
    worker, state = _holder(first, "t")
    try:
        assert state["entered"].wait(30)
        assert "error" not in state
        busy = r"thread 't' is busy.*fail"
        with pytest.raises(CheckpointConflictError, match=busy) as caught, second.thread_lock("t"):
            pytest.fail("entered a thread another holder has")
        assert caught.value.thread_id == "t"
        with second.thread_lock("u"):  # other threads are free
            pass
    finally:
        state["leave"].set()
        worker.join(30)
    with second.thread_lock("t"):  # released when the holder left
        pass


@pytest.mark.parametrize("kind", KINDS)
def test_a_second_holder_waits_for_the_first_with_on_busy_wait(kind: str, make: Any) -> None:
    first, second = make(kind), make(kind, on_busy_thread="wait", lock_timeout=30)
    worker, state = _holder(first, "t")
    assert state["entered"].wait(30)
    waiter, waited = _holder(second, "t")
    try:
        assert not waited["entered"].wait(0.3)  # still blocked: the first holds it
        state["leave"].set()
        assert waited["entered"].wait(30)  # and in once the first let go
        assert "error" not in waited
    finally:
        state["leave"].set()
        waited["leave"].set()
        worker.join(30)
        waiter.join(30)


@pytest.mark.parametrize("kind", KINDS)
def test_a_waiting_holder_gives_up_after_lock_timeout(kind: str, make: Any) -> None:
    first, second = make(kind), make(kind, lock_timeout=0.2)
    worker, state = _holder(first, "t")
    try:
        assert state["entered"].wait(30)
        gave_up = r"waited lock_timeout=0.2 seconds"
        with pytest.raises(CheckpointConflictError, match=gave_up), second.thread_lock("t"):
            pytest.fail("entered a thread another holder has")
    finally:
        state["leave"].set()
        worker.join(30)


@pytest.mark.parametrize("kind", KINDS)
def test_the_async_lock_fails_or_waits_like_the_sync_one(kind: str, make: Any) -> None:
    first, second = make(kind), make(kind, on_busy_thread="fail")

    async def main() -> list[str]:
        seen: list[str] = []
        async with first.athread_lock("t"):
            with pytest.raises(CheckpointConflictError):
                async with second.athread_lock("t"):
                    seen.append("second inside")
            seen.append("first inside")
        second.on_busy_thread = "wait"
        async with second.athread_lock("t"):
            seen.append("second after")
        return seen

    assert asyncio.run(main()) == ["first inside", "second after"]


class Count(GraphState):
    count: int = 0
    log: Annotated[list[int], StateField(reducer=append)] = []


def _counter(gate: threading.Event | None = None) -> StateGraph[Count]:
    def bump(state: Count) -> dict[str, Any]:
        if gate is not None:
            assert gate.wait(30)
        return {"count": state.count + 1, "log": [state.count + 1]}

    return StateGraph(Count).add_node("bump", bump).add_edge(START, "bump").add_edge("bump", END)


@pytest.mark.parametrize("kind", KINDS)
def test_a_run_on_a_busy_thread_writes_nothing_with_on_busy_fail(kind: str, make: Any) -> None:
    saver = make(kind, on_busy_thread="fail")
    gate = threading.Event()
    slow = _counter(gate).compile(checkpointer=saver)
    quick = _counter().compile(checkpointer=saver)
    quick.invoke({}, thread_id="t")
    errors: list[BaseException] = []

    def run() -> None:
        try:
            slow.invoke({}, thread_id="t")
        except BaseException as error:
            errors.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    try:
        # The slow run holds the lock from its load on: wait until its input is stored.
        for _ in range(3000):
            if len(saver.history("t")) == 3:
                break
            threading.Event().wait(0.01)
        assert len(saver.history("t")) == 3
        with pytest.raises(CheckpointConflictError, match="busy"):
            quick.invoke({}, thread_id="t")
        with pytest.raises(CheckpointConflictError, match="busy"):
            quick.update_state("t", {"count": 100})
    finally:
        gate.set()
        worker.join(30)
    assert errors == []
    assert quick.get_state("t").values.log == [1, 2]
    rows = saver.history("t")
    assert [row.seq for row in rows] == [0, 1, 2, 3]
    assert [row.parent_seq for row in rows] == [None, 0, 1, 2]


@pytest.mark.parametrize("kind", KINDS)
def test_runs_waiting_for_a_thread_each_continue_from_the_last(kind: str, make: Any) -> None:
    saver = make(kind, on_busy_thread="wait", lock_timeout=60)
    app = _counter().compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(5):
                app.invoke({}, thread_id="t")
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=run) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert errors == []
    assert app.get_state("t").values.log == list(range(1, 22))
    rows = saver.history("t")
    assert [row.seq for row in rows] == list(range(42))
    assert all(row.parent_seq == row.seq - 1 for row in rows[1:])


@pytest.mark.db
def test_a_run_cancelled_mid_write_keeps_its_thread_until_the_write_landed(make: Any) -> None:
    import pymysql

    saver, other = make("mysql"), make("mysql")  # `other` stands for another process
    app = _counter().compile(checkpointer=saver)
    app.invoke({}, thread_id="t")

    def connect(*, autocommit: bool) -> Any:
        options = {"host": "127.0.0.1", "user": "root", "password": "", "database": "test"}
        return pymysql.connect(**options, autocommit=autocommit)

    blocker = connect(autocommit=False)  # holds back inserts into thread t
    watch = connect(autocommit=True)
    blocker.cursor().execute(f"SELECT seq FROM {saver.table} WHERE thread_id = 't' FOR UPDATE")
    inserting = (  # an insert into the table in flight: held back by the blocker
        "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE %s"
    )
    seen: dict[str, list[int]] = {}

    def record(_: Any) -> None:  # the thread's rows when the cancelled run has ended
        seen["rows"] = [row.seq for row in other.history("t")]

    async def main() -> int:
        task = asyncio.ensure_future(app.ainvoke({}, thread_id="t"))
        for _ in range(3000):  # until its first write waits for the blocker
            with watch.cursor() as cursor:
                cursor.execute(inserting, (f"INSERT INTO {saver.table} %",))
                if cursor.fetchone()[0]:
                    break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the run's first write never reached the database")
        task.add_done_callback(record)
        task.cancel()
        for _ in range(100):  # the turns a cancellation needs to unwind
            await asyncio.sleep(0)
        blocker.commit()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The next run, from anywhere, starts after the cancelled run's last write.
        again = _counter().compile(checkpointer=other)
        return (await again.ainvoke({}, thread_id="t")).count

    try:
        assert asyncio.run(main()) == 2
    finally:
        blocker.close()
        watch.close()
    assert seen["rows"] == [0, 1, 2]  # nothing of the cancelled run landed after it ended
    assert [row.seq for row in saver.history("t")] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"on_busy_thread": "queue"}, 'on_busy_thread must be "wait" or "fail"'),
        ({"lock_timeout": 0}, "lock_timeout must be a positive number"),
        ({"lock_timeout": "5"}, "lock_timeout must be a positive number"),
        ({"lock_timeout": float("nan")}, "lock_timeout must be a positive number"),
    ],
)
def test_bad_lock_options_are_refused_naming_them(
    options: dict[str, Any], message: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=message):
        MemorySaver(**options)
    with pytest.raises(ValueError, match=message):
        SqliteSaver(tmp_path / "x.db", **options)
    with pytest.raises(ValueError, match=message):
        PostgresSaver("postgresql://nobody@127.0.0.1:1/none", **options)
    with pytest.raises(ValueError, match=message):
        MySQLSaver("mysql://nobody@127.0.0.1:1/none", **options)


@pytest.mark.parametrize("size", [0, -1, 1.5, True])
def test_a_bad_pool_size_is_refused(size: Any) -> None:
    with pytest.raises(ValueError, match="pool_size must be an integer >= 1"):
        PostgresSaver("postgresql://nobody@127.0.0.1:1/none", pool_size=size)


_HOLD = """
import sys
from graphnb.checkpoint import SqliteSaver
saver = SqliteSaver(sys.argv[1])
with saver.thread_lock("t"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_sqlite_thread_lock_holds_across_processes_and_dies_with_its_holder(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared.db"
    saver = SqliteSaver(path, on_busy_thread="fail")
    with subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "held\n"
            with pytest.raises(CheckpointConflictError, match="busy"), saver.thread_lock("t"):
                pytest.fail("entered a thread another process holds")
            with saver.thread_lock("u"):
                pass
        finally:
            child.kill()  # a killed holder's lock goes with it
            child.wait(30)
    try:
        with saver.thread_lock("t"):
            pass
    finally:
        saver.close()


def test_a_relative_sqlite_path_names_one_file_whatever_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    saver = SqliteSaver("threads.db", on_busy_thread="fail")
    monkeypatch.chdir(tmp_path / "elsewhere")  # a notebook that changes directory later
    try:
        graph = StateGraph(dict).add_node("a", lambda s: {"n": 1})
        graph.add_edge(START, "a").add_edge("a", END)
        graph.compile(checkpointer=saver).invoke({"n": 0}, thread_id="t")
        with saver.thread_lock("t"):  # the same lock as a saver given the absolute path
            other = SqliteSaver(tmp_path / "here" / "threads.db", on_busy_thread="fail")
            with pytest.raises(CheckpointConflictError, match="busy"), other.thread_lock("t"):
                pytest.fail("two paths of one file took one thread twice")
            other.close()
    finally:
        saver.close()
    assert not (tmp_path / "elsewhere" / "threads.db").exists()
    assert SqliteSaver(tmp_path / "here" / "threads.db").threads() == ["t"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_left_early_releases_its_thread(kind: str, make: Any) -> None:
    saver = make(kind, on_busy_thread="fail")
    graph = StateGraph(Count).add_node("one", lambda s: {"count": s.count + 1})
    graph.add_node("two", lambda s: {"count": s.count + 1})
    app = (
        graph.add_edge(START, "one")
        .add_edge("one", "two")
        .add_edge("two", END)
        .compile(checkpointer=saver)
    )
    for _ in app.stream({}, thread_id="t"):
        break  # the rest of the run never happens; the thread is free again
    stopped = app.get_state("t").values.count  # what the steps before the break added
    final = app.invoke({}, thread_id="t").count
    assert final == stopped + 2

    async def main() -> int:
        async for _ in app.astream({}, thread_id="t"):
            break
        return (await app.ainvoke({}, thread_id="t")).count  # no await in between

    assert asyncio.run(main()) == final + stopped + 2
