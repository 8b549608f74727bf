"""A builder run must neither end the kernel nor block its event loop (issue 11, items 7, 8)."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import threading
import time
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.checkpoint import MemorySaver, interrupt
from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


def _exits(state: dict[str, Any]) -> dict[str, Any]:
    sys.exit(2)


def _parses(state: dict[str, Any]) -> dict[str, Any]:
    argparse.ArgumentParser(prog="tool").parse_args(["--no-such-option"])
    return {}


async def _exits_async(state: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(0)
    raise SystemExit(2)


def _exits_streaming(state: dict[str, Any]) -> Any:
    yield "one "
    sys.exit(2)


async def _exits_streaming_async(state: dict[str, Any]) -> Any:
    yield "one "
    raise SystemExit(2)


def _graph(fn: Any) -> StateGraph[Any]:
    graph = StateGraph(dict, name="exiting", streaming="text").add_node("quit", fn)
    return graph.add_edge(START, "quit").add_edge("quit", END)


async def _run(builder: Builder, input: dict[str, Any] | None = None, **options: Any) -> Any:
    return await builder.run(input or {}, **options)


@pytest.mark.parametrize(
    "fn", [_exits, _parses, _exits_async, _exits_streaming, _exits_streaming_async]
)
def test_a_node_raising_system_exit_fails_the_run_at_the_node_and_the_loop_goes_on(comm, fn):
    builder = Builder(_graph(fn), namespace={})

    assert run_async(_run(builder)) is None  # before the fix: SystemExit left asyncio.run
    run = builder.run_state
    assert run["status"] == "error"
    assert run["nodes"]["quit"]["status"] == "error"
    assert run["error"]["node"] == "quit"
    assert run["error"]["message"].startswith("SystemExit: 2 (")
    assert "kernel goes on" in run["error"]["message"]
    assert "SystemExit" in run["error"]["traceback"]
    # The builder still runs graphs afterwards.
    builder.spec = _graph(lambda s: {"ok": True}).spec
    builder._known = {"quit": lambda s: {"ok": True}}
    assert run_async(_run(builder)) == {"ok": True}


def test_a_router_raising_system_exit_fails_the_run_naming_the_router(comm):
    graph = StateGraph(dict, name="routed").add_node("a", lambda s: {})
    graph.add_node("b", lambda s: {}).add_edge(START, "a").add_edge("b", END)
    graph.add_conditional_edges("a", lambda s: sys.exit("no route"), ["b", END])
    builder = Builder(graph, namespace={})
    assert run_async(_run(builder)) is None
    error = builder.run_state["error"]
    assert error["node"] == "a"
    assert error["message"].startswith("SystemExit: no route (")


def test_stop_during_a_blocking_sync_node_is_honoured_at_once_and_the_loop_stays_live(comm):
    release = threading.Event()
    entered = threading.Event()

    def blocking(state: dict[str, Any]) -> dict[str, Any]:
        entered.set()
        release.wait(2)  # a 2 s blocking call (a model, a database)
        return {"after": True}

    graph = StateGraph(dict, name="slow").add_node("block", blocking)
    builder = Builder(graph.add_edge(START, "block").add_edge("block", END), namespace={})
    ticks: list[float] = []

    async def tick() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    async def main() -> float:
        ticker = asyncio.ensure_future(tick())
        task = builder.run({})
        deadline = time.monotonic() + 5
        while not entered.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert entered.is_set(), "the node never started"
        await asyncio.sleep(0.3)  # the node blocks; the loop must not
        assert builder.run_state["nodes"]["block"]["status"] == "running"
        asked = time.monotonic()
        comm.receive({"type": "stop"})
        with pytest.raises(asyncio.CancelledError):
            await task
        took = time.monotonic() - asked
        ticker.cancel()
        return took

    try:
        took = run_async(main())
    finally:
        release.set()
    assert took < 0.2, f"Stop took {took:.3f} s during a blocking node"
    assert builder.run_state["status"] == "stopped"
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert max(gaps) < 0.2, f"the loop stalled for {max(gaps):.3f} s while the node blocked"


def test_a_sync_generator_node_streams_from_its_thread_and_its_return_value_is_written(comm):
    def words(state: dict[str, Any]) -> Any:
        for index in range(5):
            time.sleep(0.01)
            yield f"w{index} "
        return {"count": 5}

    graph = StateGraph(dict, name="stream", streaming="text").add_node("words", words)
    builder = Builder(graph.add_edge(START, "words").add_edge("words", END), namespace={})
    final = run_async(_run(builder))
    assert final == {"text": "w0 w1 w2 w3 w4 ", "count": 5}
    assert "".join(c["text"] for c in comm.custom("chunks")) == "w0 w1 w2 w3 w4 "
    assert builder.run_state["status"] == "done"


def test_interrupt_in_a_sync_node_run_from_the_builder_keeps_the_question(comm):
    def ask(state: dict[str, Any]) -> dict[str, Any]:
        return {"name": interrupt("what is your name?")}

    graph = StateGraph(dict, name="ask").add_node("ask", ask)
    builder = Builder(graph.add_edge(START, "ask").add_edge("ask", END), namespace={})
    builder.use_saver(MemorySaver())
    run_async(_run(builder, thread_id="t1"))
    # waiting for the answer, not done; the asking node waits, no longer runs
    assert builder.run_state["status"] == "waiting", builder.run_state["error"]
    assert builder.run_state["nodes"]["ask"]["status"] == "waiting"
    pending = builder.compile().get_state("t1").interrupts
    assert [item.value for item in pending] == ["what is your name?"]


def test_a_run_stopped_at_a_breakpoint_is_paused_before_the_node(comm):
    graph = StateGraph(dict, name="two").add_node("a", lambda s: {"a": 1})
    graph.add_node("b", lambda s: {"b": 1}).add_edge(START, "a").add_edge("a", "b")
    builder = Builder(graph.add_edge("b", END), namespace={})
    builder.use_saver(MemorySaver())
    run_async(_run(builder, thread_id="t1", interrupt_before=["b"]))
    assert builder.run_state["status"] == "paused"
    assert builder.run_state["nodes"]["b"]["status"] == "paused"
    assert builder.run_state["nodes"]["a"]["status"] == "done"

    async def go_on() -> Any:
        return await builder.run(None, thread_id="t1")

    run_async(go_on())
    assert builder.run_state["status"] == "done"
    assert builder.run_state["nodes"]["b"]["status"] == "done"


def test_a_node_taking_the_run_context_gets_it_in_its_thread(comm):
    seen: list[Any] = []

    def node(state: dict[str, Any], context: Any) -> dict[str, Any]:
        seen.append((context.node, threading.current_thread() is threading.main_thread()))
        context.write("custom")  # from the worker thread: must not touch the loop unsafely
        return {"done": True}

    graph = StateGraph(dict, name="ctx").add_node("node", node)
    builder = Builder(graph.add_edge(START, "node").add_edge("node", END), namespace={})
    assert run_async(_run(builder)) == {"done": True}
    assert seen == [("node", False)]


def test_stop_from_another_thread_and_loop_is_honoured_at_once(comm):
    # JupyterLab sends widget messages to a kernel subshell (its own thread and event
    # loop) while the main shell is busy: Stop arrives there, not on the run's loop.
    release = threading.Event()
    entered = threading.Event()

    def blocking(state: dict[str, Any]) -> dict[str, Any]:
        entered.set()
        release.wait(2)
        return {}

    graph = StateGraph(dict, name="slow").add_node("block", blocking)
    builder = Builder(graph.add_edge(START, "block").add_edge("block", END), namespace={})
    asked: list[float] = []

    def subshell() -> None:
        async def send_stop() -> None:
            asked.append(time.monotonic())
            comm.receive({"type": "stop"})

        entered.wait(5)
        time.sleep(0.3)  # the run's loop falls asleep: nothing but the node to wait for
        asyncio.run(send_stop())

    async def main() -> float:
        task = builder.run({})
        helper = threading.Thread(target=subshell)
        helper.start()
        with pytest.raises(asyncio.CancelledError):
            await task
        helper.join()
        return time.monotonic() - asked[0]

    try:
        took = run_async(main())
    finally:
        release.set()
    assert took < 0.2, f"Stop from another thread took {took:.3f} s"
    assert builder.run_state["status"] == "stopped"
