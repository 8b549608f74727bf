"""What a debugger needs from the engine, on every saver: failed runs recorded, history
read a page at a time, and a live feed of a thread's runs."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.checkpoint import BaseSaver, SqlSaver
from graphnb.engine.events import Interrupted
from graphnb.engine.feed import RunEnded, RunStarted
from graphnb.errors import NodeError

from .test_threads import Chat, chain


def flaky(fail: dict[str, bool]) -> Any:
    def node(state: Chat) -> dict[str, Any]:
        if fail["now"]:
            raise ValueError("the service is down")
        return {"visits": ["b"]}

    return node


def flaky_chain(fail: dict[str, bool]) -> StateGraph[Chat]:
    graph = StateGraph(Chat)
    graph.add_node("a", lambda state: {"visits": ["a"]})
    graph.add_node("b", flaky(fail))
    graph.add_node("c", lambda state: {"visits": ["c"]})
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", END)
    return graph


# -- failed runs ----------------------------------------------------------------------


def test_a_failed_run_records_its_error_and_resumes_the_failed_step(saver: BaseSaver) -> None:
    fail = {"now": True}
    app = flaky_chain(fail).compile(checkpointer=saver)
    with pytest.raises(NodeError, match="service is down"):
        app.invoke({"topic": "x"}, thread_id="broken")
    state = app.get_state("broken")
    assert state.source == "error"
    assert state.next == ("b",)
    assert state.values.visits == ["a"]  # the state before the failed step
    assert state.error is not None
    assert state.error["node"] == "b"
    assert state.error["type"] == "NodeError"
    assert "service is down" in state.error["message"]
    [info] = app.threads_info(search="broken")
    assert info.status == "failed"
    assert info.error == state.error
    # Nothing was overwritten: every checkpoint before the failure is still there.
    assert [s.source for s in app.get_state_history("broken")] == ["error", "loop", "input"]

    fail["now"] = False
    final = app.invoke(None, thread_id="broken")  # the failed step runs again
    assert final.visits == ["a", "b", "c"]
    [info] = app.threads_info(search="broken")
    assert info.status == "finished"
    assert info.error is None


def test_a_failing_router_and_an_async_run_are_recorded_too(saver: BaseSaver) -> None:
    graph = StateGraph(Chat)
    graph.add_node("a", lambda state: {"visits": ["a"]})
    graph.add_node("b", lambda state: {"visits": ["b"]})

    def route(state: Chat) -> str:
        raise KeyError("no route")

    graph.add_edge(START, "a").add_conditional_edges("a", route, ["b"]).add_edge("b", END)
    app = graph.compile(checkpointer=saver)
    with pytest.raises(NodeError):
        asyncio.run(app.ainvoke({}, thread_id="router"))
    state = app.get_state("router")
    assert state.source == "error"
    assert state.error is not None
    assert state.error["node"] == "a"
    assert state.values.visits == []  # a's update is not kept: the step runs again
    assert state.next == ("a",)


def _rows(saver: BaseSaver, thread_id: str) -> list[tuple[str, int, str, int]]:
    return [(r.checkpoint_id, r.step, r.source, r.seq) for r in saver.history(thread_id)]


@pytest.mark.parametrize("failing", ["a", "b"])
def test_an_error_checkpoint_is_numbered_for_the_step_that_failed(
    saver: BaseSaver, failing: str
) -> None:
    # a runs at step 0, b at step 1: a failure in the first step is at 0, not at the
    # input's -1, and its resumed run numbers the failed step as it was numbered.
    failed = {"a": 0, "b": 1}[failing]
    fail = {"now": True}
    graph = StateGraph(Chat)

    def visit(name: str) -> Any:
        def node(state: Chat) -> dict[str, Any]:
            if name == failing and fail["now"]:
                raise ValueError("the service is down")
            return {"visits": [name]}

        return node

    graph.add_node("a", visit("a")).add_node("b", visit("b"))
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    app = graph.compile(checkpointer=saver)
    with pytest.raises(NodeError, match=f"failed at step {failed}"):
        app.invoke({}, thread_id="broken")
    state = app.get_state("broken")
    assert (state.source, state.step, state.next) == ("error", failed, (failing,))
    assert state.error is not None
    assert state.error["step"] == failed
    [info] = app.threads_info(search="broken")
    assert (info.status, info.step) == ("failed", failed)
    steps = [(s.source, s.step) for s in app.get_state_history("broken")]
    assert steps == [("error", failed), *([("loop", 0)] if failed else []), ("input", -1)]
    before = _rows(saver, "broken")

    fail["now"] = False
    final = app.invoke(None, thread_id="broken")
    assert final.visits == ["a", "b"]
    after = _rows(saver, "broken")
    assert after[: len(before)] == before  # nothing saved was changed
    # The failed step ran again under its own number, and the run went on from there.
    assert [(source, step) for _, step, source, _ in after[len(before) :]] == [
        ("loop", step) for step in range(failed, 2)
    ]
    assert app.get_state("broken").next == ()
    [info] = app.threads_info(search="broken")
    assert (info.status, info.step, info.error) == ("finished", 1, None)


def test_an_edit_of_an_error_checkpoint_follows_the_step_before_the_failure(
    saver: BaseSaver,
) -> None:
    fail = {"now": True}
    app = flaky_chain(fail).compile(checkpointer=saver)
    with pytest.raises(NodeError):
        app.invoke({}, thread_id="broken")
    fail["now"] = False
    app.update_state("broken", {"topic": "fixed by hand"})
    state = app.get_state("broken")
    assert (state.source, state.step, state.next) == ("update", 1, ("b",))
    assert app.invoke(None, thread_id="broken").visits == ["a", "b", "c"]


def test_a_stop_after_the_last_node_leaves_nothing_pending(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    events = list(app.stream({}, thread_id="t", interrupt_after=["b"]))
    assert not any(isinstance(e, Interrupted) for e in events)  # the run just ended
    state = app.get_state("t")
    assert (state.next, state.interrupts, state.source) == ((), (), "loop")
    [info] = app.threads_info(search="t")
    assert info.status == "finished"
    before = _rows(saver, "t")
    assert [step for _, step, _, _ in before] == [-1, 0, 1]
    # Resuming finds nothing to run and changes nothing.
    assert app.invoke(None, thread_id="t").visits == ["a", "b"]
    assert _rows(saver, "t") == before
    # A stop after a node that is not the last still stops.
    app.invoke({}, thread_id="u", interrupt_after=["a"])
    assert app.get_state("u").next == ("b",)
    [info] = app.threads_info(search="u")
    assert info.status == "interrupted"


def test_a_stopped_run_is_not_failed(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    stream = app.stream({}, thread_id="stopped", mode="values")
    next(stream)
    stream.close()
    [info] = app.threads_info(search="stopped")
    assert info.status == "pending"


# -- history pages --------------------------------------------------------------------


def long_thread(saver: BaseSaver, steps: int) -> Any:
    graph = StateGraph(Chat)
    graph.add_node("again", lambda state: {"visits": [str(len(state.visits))]})
    graph.add_edge(START, "again")
    graph.add_conditional_edges(
        "again", lambda state: END if len(state.visits) >= steps else "again", ["again", END]
    )
    return graph.compile(checkpointer=saver, recursion_limit=steps + 5)


def test_history_pages_match_the_whole_history(saver: BaseSaver) -> None:
    app = long_thread(saver, 120)
    app.invoke({}, thread_id="long")
    whole = app.get_state_history("long")
    assert len(whole) == 121
    pages: list[Any] = []
    before: str | None = None
    while page := app.get_state_history("long", limit=37, before=before):
        assert len(page) <= 37
        pages += page
        before = page[-1].checkpoint_id
    assert [s.checkpoint_id for s in pages] == [s.checkpoint_id for s in whole]
    assert [s.values for s in pages] == [s.values for s in whole]
    assert [s.ran for s in pages] == [s.ran for s in whole]
    first = app.get_state_history("long", limit=1)
    assert first[0].values.visits == [str(i) for i in range(120)]
    with pytest.raises(ValueError, match="limit"):
        app.get_state_history("long", limit=0)
    with pytest.raises(ValueError, match="before"):
        app.get_state_history("long", limit=3, before="nope")
    with pytest.raises(ValueError, match="limit"):
        app.get_state_history("long", before=first[0].checkpoint_id)
    assert app.get_state_history("never", limit=5) == []


def test_history_pages_follow_forks(saver: BaseSaver) -> None:
    app = chain("a", "b", "c").compile(checkpointer=saver)
    app.invoke({"topic": "x"}, thread_id="forked")
    past = app.get_state_history("forked")[2]  # after a
    app.update_state("forked", {"topic": "edited"}, checkpoint_id=past.checkpoint_id)
    app.invoke(None, thread_id="forked")
    whole = app.get_state_history("forked")
    paged = app.get_state_history("forked", limit=2) + app.get_state_history(
        "forked", limit=50, before=app.get_state_history("forked", limit=2)[-1].checkpoint_id
    )
    assert [(s.checkpoint_id, s.parent_id, s.values) for s in paged] == [
        (s.checkpoint_id, s.parent_id, s.values) for s in whole
    ]
    # The fork's rows continue from the old checkpoint; the first branch is intact.
    assert whole[0].values.topic == "edited"
    assert [s.values.topic for s in whole if s.parent_id == past.checkpoint_id] == [
        "edited",  # newest first: the fork
        "x",  # the first run's next step, kept
    ]


def test_async_history_pages(saver: BaseSaver) -> None:
    app = long_thread(saver, 10)
    app.invoke({}, thread_id="async-long")
    page = asyncio.run(app.aget_state_history("async-long", limit=4))
    assert [s.step for s in page] == [9, 8, 7, 6]


def test_sql_history_page_reads_only_the_page(sql_saver: SqlSaver) -> None:
    """A page's cost does not grow with the thread: count the rows read."""
    app = long_thread(sql_saver, 400)
    app.invoke({}, thread_id="deep")
    rows = sql_saver.history_rows("deep", limit=10)
    assert [row.seq for row in rows[-10:]] == list(range(391, 401))
    assert len(rows) <= 10 + 50  # the page and at most snapshot_every rows behind it
    middle = app.get_state_history("deep", limit=300)[-1].checkpoint_id
    rows = sql_saver.history_rows("deep", limit=10, before=middle)
    assert rows[-1].seq == 100
    assert len(rows) <= 60


# -- the live feed --------------------------------------------------------------------


def test_runs_started_elsewhere_stream_to_a_watcher(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    seen: list[Any] = []
    with app.watch("live", seen.append):
        worker = threading.Thread(target=app.invoke, args=({},), kwargs={"thread_id": "live"})
        worker.start()
        worker.join()
        app.invoke({}, thread_id="not-watched")
    kinds = [event.kind for event in seen]
    assert kinds[0] == "run_started"
    assert kinds[-1] == "run_ended"
    assert [e.node for e in seen if e.kind == "node_started"] == ["a", "b"]
    assert [e.node for e in seen if e.kind == "node_finished"] == ["a", "b"]
    assert isinstance(seen[-1], RunEnded)
    assert seen[-1].outcome == "done"
    assert isinstance(seen[0], RunStarted)
    assert seen[0].thread_id == "live"
    count = len(seen)
    app.invoke({}, thread_id="live")  # the watch was closed
    assert len(seen) == count


def test_a_watcher_sees_failures_and_never_breaks_the_run(saver: BaseSaver) -> None:
    fail = {"now": True}
    app = flaky_chain(fail).compile(checkpointer=saver)
    seen: list[Any] = []

    def broken(event: Any) -> None:
        raise RuntimeError("observer bug")

    with app.watch("watched-fail", seen.append), app.watch("watched-fail", broken):
        with pytest.warns(RuntimeWarning, match="observer bug"), pytest.raises(NodeError):
            app.invoke({}, thread_id="watched-fail")
        fail["now"] = False
        with pytest.warns(RuntimeWarning, match="observer bug"):
            asyncio.run(app.ainvoke(None, thread_id="watched-fail"))
    ends = [e for e in seen if isinstance(e, RunEnded)]
    assert [e.outcome for e in ends] == ["failed", "done"]
    assert ends[0].error is not None
    assert "service is down" in ends[0].error
    assert [e.node for e in seen if e.kind == "node_failed"] == ["b"]


def test_watch_refuses_bad_arguments() -> None:
    from graphnb.engine.feed import watch

    with pytest.raises(TypeError, match="thread_id"):
        watch(3, print)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="callable"):
        watch("t", "print")  # type: ignore[arg-type]


def test_a_watcher_of_every_thread_sees_each_run(saver: BaseSaver) -> None:
    app = chain("a").compile(checkpointer=saver)
    seen: list[Any] = []
    with app.watch(None, seen.append) as subscription:
        app.invoke({}, thread_id="one")
        app.invoke({}, thread_id="two")
        assert "every thread" in repr(subscription)
    assert [e.thread_id for e in seen if isinstance(e, RunStarted)] == ["one", "two"]
    app.invoke({}, thread_id="three")
    assert len([e for e in seen if isinstance(e, RunStarted)]) == 2
