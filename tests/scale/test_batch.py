"""Batches on a thread pool, a process pool and a real Dask LocalCluster."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.engine.batch import BatchSetupError, RemoteError
from graphnb.errors import NodeError

from .conftest import POSTGRES_URL, process_pool


def expected(x: int) -> dict[str, Any]:
    return {"x": x * 2 + 1, "path": ["double", "add"]}


def strip(result: Any) -> Any:
    return {k: v for k, v in result.items() if k != "pid"} if isinstance(result, dict) else result


def test_local_batch_keeps_order_and_every_input(nodes: Any) -> None:
    graph = nodes.build()
    results = graph.batch([{"x": 1}, {"x": -1}, {"x": 3}], return_exceptions=True)
    assert strip(results[0]) == expected(1)
    assert isinstance(results[1], NodeError)
    assert results[1].node == "double"
    assert strip(results[2]) == expected(3)


def test_without_return_exceptions_the_first_error_is_raised_after_all_ran(
    nodes: Any, tmp_path: Path
) -> None:
    graph = nodes.build(f"sqlite:///{tmp_path / 't.db'}")
    with pytest.raises(NodeError, match="negative input -2"):
        graph.batch([{"x": -2}, {"x": 5}], thread_ids=["bad", "good"])
    assert graph.get_state("good").values["x"] == 11  # the other input was not lost


def test_an_interrupted_batch_starts_no_further_input() -> None:
    ran: list[int] = []
    first_running = threading.Event()

    def step(state: dict[str, Any]) -> dict[str, Any]:
        first_running.wait()
        ran.append(state["x"])
        return state

    def interrupt(progress: Any) -> None:
        first_running.set()
        raise KeyboardInterrupt  # as Ctrl-C in the thread that called batch

    graph = StateGraph(dict).add_node("step", step)
    app = graph.add_edge(START, "step").add_edge("step", END).compile()
    with pytest.raises(KeyboardInterrupt):
        app.batch([{"x": i} for i in range(20)], max_concurrency=1, progress=interrupt)
    assert ran == [0]  # the running input ends; the 19 waiting ones never start


def test_batch_as_completed_yields_each_input_as_it_finishes_and_stops_when_left() -> None:
    release, ran = threading.Event(), []

    def step(state: dict[str, Any]) -> dict[str, Any]:
        if state["x"] == 0:
            release.wait(30)  # the first input finishes last
        ran.append(state["x"])
        if state["x"] == 3:
            raise ValueError("three")
        return {"x": state["x"] * 10}

    graph = StateGraph(dict).add_node("step", step)
    app = graph.add_edge(START, "step").add_edge("step", END).compile()
    seen = []
    for index, result in app.batch_as_completed(
        [{"x": x} for x in range(4)], max_concurrency=2, return_exceptions=True
    ):
        seen.append((index, result if isinstance(result, dict) else type(result).__name__))
        if len(seen) == 3:
            release.set()
    assert seen[-1] == (0, {"x": 0}), "the slow first input came last"
    assert sorted(seen[:3]) == [(1, {"x": 10}), (2, {"x": 20}), (3, "NodeError")]

    release.clear()
    ran.clear()
    stream = app.batch_as_completed([{"x": x} for x in (1, 0, 2, 4, 5)], max_concurrency=1)
    assert next(stream) == (0, {"x": 10})
    threading.Timer(0.2, release.set).start()  # the running input ends; leaving cancels
    stream.close()  # the rest, never started
    assert ran == [1, 0]
    with pytest.raises(NodeError, match="three"):
        list(app.batch_as_completed([{"x": 3}, {"x": 1}]))


def test_process_pool_sends_errors_back_as_themselves(nodes: Any) -> None:
    graph = nodes.build()
    with process_pool(2) as pool:
        results = graph.batch([{"x": 2}, {"x": -1}], executor=pool, return_exceptions=True)
    assert strip(results[0]) == expected(2)
    assert isinstance(results[1], NodeError)
    assert (results[1].node, results[1].step) == ("double", 0)


def test_rerun_with_same_thread_ids_resumes_only_unfinished(
    nodes: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = nodes.build(f"sqlite:///{tmp_path / 't.db'}")
    ids = ["a", "b", "c"]
    graph.batch([{"x": 1}, {"x": 2}], thread_ids=ids[:2])
    # "c" stops after its first step's checkpoint, as if its worker died there
    monkeypatch.setenv("GRAPHNB_TEST_CRASH", "1")
    with pytest.raises(SystemExit):
        graph.invoke({"x": 3}, thread_id="c")
    monkeypatch.delenv("GRAPHNB_TEST_CRASH")
    assert graph.get_state("c").next == ("add",)
    before = {t: len(graph.get_state_history(t)) for t in ids}
    results = graph.batch([{"x": 1}, {"x": 2}, {"x": 3}], thread_ids=ids)
    assert [strip(r) for r in results] == [expected(1), expected(2), expected(3)]
    after = {t: len(graph.get_state_history(t)) for t in ids}
    assert after["a"] == before["a"]
    assert after["b"] == before["b"]
    assert after["c"] == before["c"] + 1  # one step more, not a restart


def test_abatch_resumes_like_batch(nodes: Any, tmp_path: Path) -> None:
    asyncio.run(_abatch_resumes(nodes, tmp_path))


async def _abatch_resumes(nodes: Any, tmp_path: Path) -> None:
    graph = nodes.build(f"sqlite:///{tmp_path / 't.db'}")
    first = await graph.abatch([{"x": 1}, {"x": -1}], thread_ids=["a", "b"], return_exceptions=True)
    assert strip(first[0]) == expected(1)
    assert isinstance(first[1], NodeError)
    steps = len(graph.get_state_history("a"))
    with ThreadPoolExecutor(2) as pool:
        again = await graph.abatch(
            [{"x": 1}, {"x": -1}], thread_ids=["a", "b"], executor=pool, return_exceptions=True
        )
    assert strip(again[0]) == expected(1)
    assert isinstance(again[1], NodeError)
    assert len(graph.get_state_history("a")) == steps


def test_thread_ids_must_match_inputs(nodes: Any, tmp_path: Path) -> None:
    graph = nodes.build(f"sqlite:///{tmp_path / 't.db'}")
    with pytest.raises(ValueError, match="2 ids for 3 inputs"):
        graph.batch([{"x": 1}] * 3, thread_ids=["a", "b"])
    with pytest.raises(ValueError, match="repeats"):
        graph.batch([{"x": 1}] * 2, thread_ids=["a", "a"])


def test_a_lambda_cannot_travel_and_the_error_names_it() -> None:
    graph = StateGraph(dict).add_node("shout", lambda state: {"x": 1})
    app = graph.add_edge(START, "shout").add_edge("shout", END).compile()
    with process_pool(1) as pool, pytest.raises(BatchSetupError, match="'shout'") as caught:
        app.batch([{}], executor=pool)
    assert caught.value.node == "shout"
    assert "lambda" in str(caught.value)


def test_a_closure_cannot_travel() -> None:
    def make() -> Any:
        def inner(state: dict[str, Any]) -> dict[str, Any]:
            return {}

        return inner

    graph = StateGraph(dict).add_node("inner", make())
    app = graph.add_edge(START, "inner").add_edge("inner", END).compile()
    with process_pool(1) as pool, pytest.raises(BatchSetupError, match="'inner'"):
        app.batch([{}], executor=pool)


def test_a_memory_checkpointer_cannot_travel(nodes: Any) -> None:
    graph = nodes.build("memory://")
    with process_pool(1) as pool, pytest.raises(BatchSetupError, match="database URL"):
        graph.batch([{"x": 1}], executor=pool, thread_ids=["a"])


def test_import_graphnb_imports_neither_dask_nor_ray() -> None:
    code = (
        "import sys, graphnb, graphnb.engine.batch; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'ray')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_dask_worker_that_cannot_import_a_node_names_it(
    dask_client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a module this process can import but the workers cannot (not on their PYTHONPATH)
    (tmp_path / "only_here.py").write_text(
        "def step(state):\n    return {'x': 1}\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import only_here

    graph = StateGraph(dict).add_node("step", only_here.step)
    app = graph.add_edge(START, "step").add_edge("step", END).compile()
    results = app.batch([{}], executor=dask_client.get_executor(), return_exceptions=True)
    assert isinstance(results[0], BatchSetupError)
    assert results[0].node == "step"
    assert "only_here" in str(results[0])


@pytest.mark.slow
def test_dask_runs_equal_inputs_each_on_its_own(dask_client: Any, nodes: Any) -> None:
    # Dask runs a call once for equal arguments unless told otherwise
    results = nodes.build_one("draw").batch(
        [{"q": "same"}] * 4, executor=dask_client.get_executor()
    )
    assert len({result["draw"] for result in results}) == 4


@pytest.mark.slow
def test_dask_state_that_does_not_pickle_is_the_inputs_error(dask_client: Any, nodes: Any) -> None:
    graph = nodes.build_one("keep_lock")
    results = graph.batch(
        [{"x": -1}, {"x": 1}], executor=dask_client.get_executor(), return_exceptions=True
    )
    assert isinstance(results[0], RemoteError)
    assert "cannot be sent back from the worker: field 'lock' (lock) does not pickle" in str(
        results[0]
    )
    assert results[1] == {"x": 2}


@pytest.mark.slow
def test_dask_input_that_does_not_pickle_is_its_error(dask_client: Any, nodes: Any) -> None:
    inputs = [{"x": 1}, {"x": 2, "lock": threading.Lock()}, {"x": 3}]
    results = nodes.build_one("keep_lock").batch(
        inputs, executor=dask_client.get_executor(), return_exceptions=True
    )
    assert results[0] == {"x": 2}
    assert isinstance(results[1], BatchSetupError)
    assert str(results[1]).startswith(
        "input 1 cannot be sent to workers: field 'lock' (lock) does not pickle"
    )
    assert results[2] == {"x": 4}


@pytest.mark.slow
@pytest.mark.db
def test_dask_batch_of_200_on_postgres_matches_a_local_run(dask_client: Any, nodes: Any) -> None:
    run = uuid.uuid4().hex[:8]
    ids = [f"{run}-{i}" for i in range(200)]
    inputs = [{"x": i if i % 50 else -i - 1} for i in range(200)]  # 4 inputs fail
    graph = nodes.build(POSTGRES_URL)
    try:
        results = graph.batch(
            inputs, executor=dask_client.get_executor(), thread_ids=ids, return_exceptions=True
        )
        local = nodes.build().batch(inputs, return_exceptions=True)
        assert len(results) == 200
        for got, want in zip(results, local, strict=True):
            if isinstance(want, NodeError):
                assert isinstance(got, NodeError)
                assert str(got) == str(want)
            else:
                assert strip(got) == strip(want)
        pids = {r["pid"] for r in results if isinstance(r, dict)}
        assert len(pids) == 2  # both worker processes ran inputs
        for thread, got in zip(ids, results, strict=True):
            state = graph.get_state(thread)
            if isinstance(got, dict):
                assert state.values == got
                assert state.next == ()
    finally:
        for thread in ids:
            graph.delete_thread(thread)
        graph.checkpointer.close()


@pytest.mark.slow
@pytest.mark.db
def test_worker_killed_mid_batch_then_rerun_finishes_every_thread_once(
    dask_client: Any, nodes: Any
) -> None:
    run = uuid.uuid4().hex[:8]
    ids = [f"{run}-{i}" for i in range(40)]
    inputs = [{"x": i, "pause": 0.1} for i in range(40)]
    graph = nodes.build(POSTGRES_URL)
    executor = dask_client.get_executor()
    try:
        victim = next(iter(dask_client.run(os.getpid).values()))
        with ThreadPoolExecutor(1) as side:
            first = side.submit(
                graph.batch, inputs, executor=executor, thread_ids=ids, return_exceptions=True
            )
            time.sleep(0.5)  # inputs are running on both workers
            os.kill(victim, signal.SIGKILL)
            first.result(timeout=120)
        dask_client.wait_for_workers(2, timeout=60)
        results = graph.batch(inputs, executor=executor, thread_ids=ids, return_exceptions=True)
        for x, result, thread in zip(range(40), results, ids, strict=True):
            assert strip(result) == {**expected(x), "pause": 0.1}
            history = graph.get_state_history(thread)
            # input, double, add: each step exactly once, even where a worker died mid-run
            assert sorted(s.step for s in history) == [-1, 0, 1]
            assert graph.get_state(thread).next == ()
    finally:
        for thread in ids:
            graph.delete_thread(thread)
        graph.checkpointer.close()
