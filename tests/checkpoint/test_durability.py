"""Durability modes: when a threaded run's checkpoints reach the saver, on every saver.

``"sync"`` stores each step before the next starts, ``"async"`` stores in the background
(all before the run returns), ``"exit"`` stores one checkpoint when the run ends. The
crash tests kill a real process mid-run and read what each mode kept.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import pytest

from graphnb import END, START, Command, GraphState, StateField, StateGraph, append, interrupt
from graphnb.checkpoint import (
    BaseSaver,
    CheckpointConflictError,
    MemorySaver,
    StoredCheckpoint,
)

from .conftest import SAVERS, drop_tables, make_saver

WORKER = Path(__file__).with_name("durability_worker.py")


class Log(GraphState):
    count: int = 0
    log: Annotated[list[int], StateField(reducer=append)] = []


def step(state: Log) -> dict[str, Any]:
    return {"count": state.count + 1, "log": [state.count + 1]}


def chain(length: int = 5) -> StateGraph[Log]:
    graph = StateGraph(Log)
    names = [f"n{i}" for i in range(length)]
    for name in names:
        graph.add_node(name, step)
    graph.add_edge(START, names[0])
    for source, target in itertools.pairwise(names):
        graph.add_edge(source, target)
    return graph.add_edge(names[-1], END)


@pytest.fixture(params=SAVERS)
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    made = make_saver(request.param, tmp_path)
    yield made
    drop_tables(made)


def rows(saver: BaseSaver, thread_id: str) -> int:
    return len(saver.history(thread_id))


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_every_mode_ends_with_the_same_state_and_resumable_thread(
    saver: BaseSaver, durability: Any
) -> None:
    app = chain().compile(checkpointer=saver)
    final = app.invoke({"count": 0}, thread_id="t", durability=durability)
    assert final.log == [1, 2, 3, 4, 5]
    assert app.get_state("t").values.log == [1, 2, 3, 4, 5]
    again = app.invoke({"count": 10}, thread_id="t", durability=durability)
    assert again.log == [1, 2, 3, 4, 5, 11, 12, 13, 14, 15]
    assert app.get_state("t").values == again


def test_sync_and_async_store_a_checkpoint_per_step_exit_one_per_run(saver: BaseSaver) -> None:
    app = chain().compile(checkpointer=saver)
    app.invoke({"count": 0}, thread_id="sync", durability="sync")
    app.invoke({"count": 0}, thread_id="async", durability="async")
    app.invoke({"count": 0}, thread_id="exit", durability="exit")
    app.invoke({"count": 0}, thread_id="exit", durability="exit")
    assert rows(saver, "sync") == 6  # the input, then five steps
    assert rows(saver, "async") == 6
    assert rows(saver, "exit") == 2  # one per run
    history = list(app.get_state_history("exit"))
    assert [snap.values.count for snap in history] == [5, 5]
    assert [snap.step for snap in history] == [10, 4]  # numbered as under "sync"


def test_exit_stores_the_stop_of_an_interrupt_and_the_answer_goes_on(saver: BaseSaver) -> None:
    def ask(state: Log) -> dict[str, Any]:
        answer = interrupt("go on?")
        return {"count": state.count + 1, "log": [100 if answer == "yes" else -1]}

    graph = StateGraph(Log)
    for name in ("n0", "n1", "n2"):
        graph.add_node(name, step)
    graph.add_node("ask", ask)
    graph.add_edge(START, "n0").add_edge("n0", "n1").add_edge("n1", "ask")
    graph.add_edge("ask", "n2").add_edge("n2", END)
    app = graph.compile(checkpointer=saver)
    app.invoke({"count": 0}, thread_id="t", durability="exit")
    assert rows(saver, "t") == 1
    state = app.get_state("t")
    assert state.next == ("ask",)
    assert [i.value for i in state.interrupts] == ["go on?"]
    final = app.invoke(Command(resume="yes"), thread_id="t", durability="exit")
    assert final.log == [1, 2, 100, 4]
    assert rows(saver, "t") == 2


def test_exit_stores_a_failure_as_the_state_before_the_failed_step(saver: BaseSaver) -> None:
    calls: list[int] = []

    def flaky(state: Log) -> dict[str, Any]:
        calls.append(state.count)
        if len(calls) == 1:
            raise RuntimeError("the first call fails")
        return step(state)

    graph = StateGraph(Log).add_node("a", step).add_node("b", flaky).add_node("c", step)
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", END)
    app = graph.compile(checkpointer=saver)
    with pytest.raises(RuntimeError, match="the first call fails"):
        app.invoke({"count": 0}, thread_id="t", durability="exit")
    assert rows(saver, "t") == 1
    assert app.get_state("t").values.log == [1]
    assert app.invoke(None, thread_id="t", durability="exit").log == [1, 2, 3]


def test_async_runs_take_every_mode(saver: BaseSaver) -> None:
    app = chain().compile(checkpointer=saver)

    async def main() -> list[int]:
        counts = []
        for durability in ("sync", "async", "exit"):
            thread = f"a-{durability}"
            final = await app.ainvoke({"count": 0}, thread_id=thread, durability=durability)
            assert final.log == [1, 2, 3, 4, 5]
            counts.append(rows(saver, thread))
        return counts

    assert asyncio.run(main()) == [6, 6, 1]


def test_a_background_write_that_fails_fails_the_run_and_stores_no_orphan() -> None:
    class Failing(MemorySaver):
        def put(self, row: StoredCheckpoint) -> None:
            if row.step == 2:
                raise OSError("disk full")
            super().put(row)

    saver = Failing()
    app = chain().compile(checkpointer=saver)
    with pytest.raises(OSError, match="disk full"):
        app.invoke({"count": 0}, thread_id="t", durability="async")
    stored = saver.history("t")
    # The input and steps 0 and 1 landed; nothing after the failed write, so every
    # stored row's parent is stored too.
    assert sorted(row.step for row in stored) == [-1, 0, 1]
    ids = {row.checkpoint_id for row in stored}
    assert all(row.parent_id is None or row.parent_id in ids for row in stored)


def test_a_subgraph_step_keeps_its_base_under_exit(tmp_path: Path) -> None:
    child = StateGraph(Log).add_node("inner", step)
    child.add_edge(START, "inner").add_edge("inner", END)
    graph = StateGraph(Log).add_node("a", step).add_node("sub", child).add_node("b", step)
    graph.add_edge(START, "a").add_edge("a", "sub").add_edge("sub", "b").add_edge("b", END)
    app = graph.compile(checkpointer=MemorySaver())
    final = app.invoke({"count": 0}, thread_id="t", durability="exit")
    assert final.log == [1, 2, 3]
    assert app.get_state("t").values.log == [1, 2, 3]


@pytest.mark.parametrize("bad", ["fast", None, 1, ["exit"]])
def test_an_unknown_durability_is_refused_naming_the_choices(bad: Any) -> None:
    app = chain().compile(checkpointer=MemorySaver())
    with pytest.raises(ValueError, match="durability must be one of 'sync', 'async', 'exit'"):
        app.invoke({"count": 0}, thread_id="t", durability=bad)
    with pytest.raises(ValueError, match="durability must be one of"):
        list(chain().compile().stream({"count": 0}, durability=bad))


# -- crashes: kill -9 mid-run, then read what each mode kept ------------------------------


def run_until_killed(db: Path, durability: str, tmp_path: Path) -> None:
    """Start the worker, wait until it is inside step 4 (of 8), kill -9 it."""
    ready = tmp_path / f"{durability}.ready"
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), f"sqlite:///{db}", durability, str(ready)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "DURABILITY_READY": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert worker.poll() is None, "the worker ended before the kill"
            assert time.monotonic() < deadline, "the worker never reached step 4"
            time.sleep(0.01)
        time.sleep(0.2)  # let a background write of step 3 land, as it would
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("durability", "kept"),
    [
        # sync: the input and steps 0-3, everything up to the last finished step
        ("sync", [-1, 0, 1, 2, 3]),
        # async: at most the step in flight is lost; here the background writer had time
        ("async", [-1, 0, 1, 2, 3]),
        # exit: nothing of the killed run: the thread is as the run before left it
        ("exit", [3]),
    ],
)
def test_kill_9_loses_no_more_than_the_mode_promises(
    durability: str, kept: list[int], tmp_path: Path
) -> None:
    from graphnb.checkpoint import SqliteSaver

    sys.path.insert(0, str(WORKER.parent))
    try:
        import durability_worker
    finally:
        sys.path.remove(str(WORKER.parent))
    db = tmp_path / "threads.db"
    app = durability_worker.graph().compile(checkpointer=f"sqlite:///{db}")
    app.invoke({"count": 0}, thread_id="earlier", durability="sync")  # other threads intact
    if durability == "exit":  # a first whole run, so the killed one has a state to keep
        app.invoke({"count": 0}, thread_id="t", durability="exit", interrupt_after=["n3"])
    app.threads.saver.close()

    run_until_killed(db, durability, tmp_path)

    saver = SqliteSaver(db)
    try:
        steps = sorted(row.step for row in saver.history("t"))
        assert steps == kept
        app = durability_worker.graph().compile(checkpointer=saver)
        assert app.get_state("earlier").values.count == 8
        # Whatever was kept reads back whole, and the thread runs to its end from there.
        final = app.invoke(None, thread_id="t")
        assert final.count == 8
        assert final.log == list(range(1, 9))
    finally:
        saver.close()


def test_put_many_stores_all_rows_or_none(saver: BaseSaver) -> None:
    app = chain(2).compile(checkpointer=saver)
    app.invoke({"count": 0}, thread_id="t")
    stored = saver.history("t")
    assert len(stored) == 3
    copies = [dataclasses.replace(row, thread_id="copy") for row in stored]
    saver.put_many(copies)
    assert [row.checkpoint_id for row in saver.history("copy")] == [
        row.checkpoint_id for row in stored
    ]
    # A batch whose last row conflicts with a stored one leaves none of its rows.
    again = [dataclasses.replace(row, thread_id="again") for row in stored]
    saver.put(again[-1])
    if not isinstance(saver, MemorySaver):  # the memory saver stores one by one
        with pytest.raises(CheckpointConflictError):
            saver.put_many(again)
        assert [row.seq for row in saver.history("again")] == [again[-1].seq]
