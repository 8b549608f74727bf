"""Sync and async runs are twins: the same cases, run both ways, give the same threads.

The threaded loop is written once and driven both ways (graphnb.engine.loop); the plain
loop (graphnb.engine.plain) and the public methods are written twice. Either way,
these cases pin that ``invoke``/``stream`` and ``ainvoke``/``astream`` agree: on the final
state, on the events, and on every checkpoint written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import fields
from typing import Annotated, Any

import pytest

from graphnb import END, START, Command, GraphState, StateField, StateGraph, append, interrupt
from graphnb.checkpoint import MemorySaver

Runner = Callable[..., Any]


class Notes(GraphState):
    seen: Annotated[list[str], StateField(reducer=append)] = []
    answer: str = ""


def mark(name: str) -> Any:
    def node(state: Notes) -> dict[str, Any]:
        return {"seen": [name]}

    node.__name__ = name
    return node


def ask(state: Notes) -> dict[str, Any]:
    return {"answer": interrupt("who?"), "seen": ["ask"]}


def fan(*, asking: bool) -> StateGraph[Notes]:
    """start -> a -> (b, c in parallel; c may ask a human) -> d -> end."""
    graph = StateGraph(Notes)
    graph.add_node("a", mark("a")).add_node("b", mark("b"))
    graph.add_node("c", ask if asking else mark("c")).add_node("d", mark("d"))
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c")
    graph.add_edge("b", "d").add_edge("c", "d").add_edge("d", END)
    return graph


def run_sync(app: Any, given: Any, **options: Any) -> tuple[Any, list[Any]]:
    events = list(app.stream(given, mode="events", **options))
    return app.get_state(options["thread_id"]).values, events


def run_async(app: Any, given: Any, **options: Any) -> tuple[Any, list[Any]]:
    async def go() -> list[Any]:
        return [event async for event in app.astream(given, mode="events", **options)]

    events = asyncio.run(go())
    return app.get_state(options["thread_id"]).values, events


def history(app: Any, thread: str) -> list[tuple[Any, ...]]:
    """Every checkpoint, without the ids and times that differ between any two runs."""
    return [
        (s.step, s.source, s.ran, s.next, s.writes, s.interrupts, s.values)
        for s in app.get_state_history(thread)
    ]


def shape(events: list[Any]) -> list[str]:
    """The events without durations and checkpoint ids, in a stable order.

    Parallel nodes start and finish in whatever order their threads or tasks run, so
    events are compared as a sorted list; steps and states still have to match.
    """
    skip = {"duration", "checkpoint_id"}
    return sorted(
        repr(
            (
                type(e).__name__,
                [(f.name, getattr(e, f.name)) for f in fields(e) if f.name not in skip],
            )
        )
        for e in events
    )


def human_in_the_loop(run: Runner) -> tuple[Any, ...]:
    app = fan(asking=True).compile(checkpointer=MemorySaver())
    first = run(app, {"seen": ["in"]}, thread_id="t")
    second = run(app, Command(resume="Ada"), thread_id="t")
    return first, second, history(app, "t")


def static_stops(run: Runner) -> tuple[Any, ...]:
    app = fan(asking=False).compile(
        checkpointer=MemorySaver(), interrupt_before=["d"], interrupt_after=["a"]
    )
    outs = [run(app, {}, thread_id="t")]
    outs.append(run(app, None, thread_id="t"))
    outs.append(run(app, None, thread_id="t"))
    return *outs, history(app, "t")


def seeded_and_forked(run: Runner) -> tuple[Any, ...]:
    app = fan(asking=False).compile(checkpointer=MemorySaver())
    app.seed_thread("t", {"seen": ["seed"]}, start_at="b")
    first = run(app, {"seen": ["in"]}, thread_id="t")
    fork_from = next(s for s in app.get_state_history("t") if s.source == "seed")
    second = run(app, {"seen": ["again"]}, thread_id="t", checkpoint_id=fork_from.checkpoint_id)
    return first, second, history(app, "t")


def joined_from_start(run: Runner) -> tuple[Any, ...]:
    """START feeds a join directly: ``b`` waits for START and for ``a``."""
    graph = StateGraph(Notes).add_node("a", mark("a")).add_node("b", mark("b"))
    graph.add_edge(START, "a").add_edge([START, "a"], "b").add_edge("b", END)
    app = graph.compile(checkpointer=MemorySaver())
    return run(app, {}, thread_id="t"), history(app, "t")


@pytest.mark.parametrize(
    "case", [human_in_the_loop, static_stops, seeded_and_forked, joined_from_start]
)
def test_sync_and_async_runs_write_the_same_thread(case: Callable[[Runner], Any]) -> None:
    sync, async_ = case(run_sync), case(run_async)
    for one, other in zip(sync, async_, strict=True):
        if isinstance(one, tuple):  # (state, events) of one run
            assert one[0] == other[0]
            assert shape(one[1]) == shape(other[1])
        else:
            assert one == other
    # the cases really stop, resume, fork or join: not vacuous
    assert any(s[1] in {"interrupt", "seed"} or s[5] or s[2] == ("b",) for s in sync[-1])


def test_plain_runs_agree_both_ways() -> None:
    app = fan(asking=False).compile()
    sync = app.invoke({"seen": ["in"]})
    async_ = asyncio.run(app.ainvoke({"seen": ["in"]}))
    assert sync == async_
    assert sorted(sync.seen) == ["a", "b", "c", "d", "in"]

    async def go() -> list[Any]:
        return [event async for event in app.astream({})]

    events = list(app.stream({}))
    assert len(events) > 8  # starts, finishes and steps of four nodes
    assert shape(events) == shape(asyncio.run(go()))
