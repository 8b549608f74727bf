"""Ctrl-C in the middle of a SQL saver's call: the next calls still read the right thread.

A ``KeyboardInterrupt`` is delivered at every point of a ``put`` and of a ``load`` in turn,
on a real connection to the real server: after the query went out and before its answer
was read (inside the driver's wire protocol), and between the statements of one call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from graphnb.checkpoint import MySQLSaver, PostgresSaver, SqlSaver
from graphnb.records import NewCheckpoint

from .conftest import drop_tables, make_saver
from .test_savers import grow, threads


class _Interrupter:
    """Raises ``KeyboardInterrupt`` at the ``at``-th point it is asked about."""

    def __init__(self) -> None:
        self.at = 0
        self.count = 0
        self.fired = False

    def tick(self) -> None:
        self.count += 1
        if self.count == self.at:
            self.fired = True
            raise KeyboardInterrupt(f"interrupt #{self.at}")


@contextmanager
def _interrupt_points(kind: str, interrupter: _Interrupter) -> Iterator[None]:
    """Make every wire read and every cursor call of the driver a point of interruption."""
    patch = pytest.MonkeyPatch()

    def after(method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            interrupter.tick()  # the statement completed; Ctrl-C lands before the next line
            return result

        return wrapped

    if kind.startswith("postgres"):
        import psycopg
        from psycopg import waiting

        real_wait = waiting.wait_select

        def wait(gen: Any, fileno: int, *args: Any, **kwargs: Any) -> Any:
            def proxy() -> Any:
                try:
                    state = next(gen)  # sends the query (or the next part of it)
                    while True:
                        interrupter.tick()  # waiting for the server, as Ctrl-C finds it
                        state = gen.send((yield state))
                except StopIteration as stop:
                    return stop.value

            return real_wait(proxy(), fileno, *args, **kwargs)

        patch.setattr(waiting, "wait", wait)
        for name in ("execute", "fetchall", "fetchone"):
            patch.setattr(psycopg.Cursor, name, after(getattr(psycopg.Cursor, name)))
    else:
        import pymysql

        read = pymysql.connections.Connection._read_packet

        def read_packet(self: Any, *args: Any, **kwargs: Any) -> Any:
            interrupter.tick()  # the query was written; its answer is still on the wire
            return read(self, *args, **kwargs)

        patch.setattr(pymysql.connections.Connection, "_read_packet", read_packet)
        for name in ("execute", "fetchall", "fetchone"):
            cls = pymysql.cursors.Cursor
            patch.setattr(cls, name, after(getattr(cls, name)))
    try:
        yield
    finally:
        patch.undo()


@pytest.mark.db
@pytest.mark.parametrize("kind", ["postgres", "postgres-pool", "mysql"])
@pytest.mark.parametrize("operation", ["put", "load"])
def test_an_interrupt_at_any_point_leaves_the_saver_usable(
    kind: str, operation: str, tmp_path: Path
) -> None:
    saver = make_saver(kind, tmp_path)
    assert isinstance(saver, (PostgresSaver, MySQLSaver))
    store = threads(saver)
    try:
        grow(store, "alice", 2)
        grow(store, "bob", 3)
        interrupter = _Interrupter()
        points = 0
        while True:
            interrupter.at, interrupter.count, interrupter.fired = points + 1, 0, False
            before = len(saver.history("alice"))
            try:
                with _interrupt_points(kind, interrupter):
                    if operation == "put":
                        grow(store, "alice", 1, start=before)
                    else:
                        store.load("bob")
            except KeyboardInterrupt:
                assert interrupter.fired
            if not interrupter.fired:
                break  # the call ran to its end: every point before it was tried
            points += 1
            _check_both_threads(saver, store, kind, points)
        assert points >= 3, f"only {points} points of interruption were reached"
    finally:
        drop_tables(saver)


def _check_both_threads(saver: SqlSaver, store: Any, kind: str, point: int) -> None:
    where = f"after an interrupt at point {point} on {kind}"
    bob = store.load("bob")
    assert bob is not None, where
    assert bob.values["messages"] == ["m0", "m1", "m2"], where
    alice = store.load("alice")
    assert alice is not None, where
    assert alice.values["messages"][:2] == ["m0", "m1"], where
    assert alice.values["messages"] == [f"m{i}" for i in range(len(saver.history("alice")))]
    assert saver.threads() == ["alice", "bob"], where
    # The thread can still be written: the interrupted write either landed whole or not.
    count = len(saver.history("alice"))
    grow(store, "alice", 1, start=count)
    assert len(saver.history("alice")) == count + 1, where
    saver.delete_thread("alice")
    grow(store, "alice", 2)


@pytest.mark.db
@pytest.mark.parametrize("operation", ["aput", "aload"])
def test_a_cancelled_async_call_leaves_the_postgres_saver_usable(
    operation: str, tmp_path: Path
) -> None:
    import asyncio

    from psycopg import waiting

    saver = make_saver("postgres", tmp_path)
    assert isinstance(saver, PostgresSaver)
    store = threads(saver)
    interrupter = _Interrupter()
    real_wait = waiting.wait_async

    async def wait(gen: Any, fileno: int, *args: Any, **kwargs: Any) -> Any:
        def proxy() -> Any:
            try:
                state = next(gen)
                while True:
                    try:
                        interrupter.tick()
                    except KeyboardInterrupt:
                        raise asyncio.CancelledError from None  # as task.cancel() lands
                    state = gen.send((yield state))
            except StopIteration as stop:
                return stop.value

        return await real_wait(proxy(), fileno, *args, **kwargs)

    async def scenario() -> int:
        grow(store, "alice", 2)
        grow(store, "bob", 3)
        points = 0
        while True:
            interrupter.at, interrupter.count, interrupter.fired = points + 1, 0, False
            before = len(await saver.ahistory("alice"))
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(waiting, "wait_async", wait)
                try:
                    if operation == "aput":
                        writer = store.writer("alice", await store.aload("alice"), metadata=None)
                        update = {"messages": [f"m{before}"], "count": before + 1}
                        await writer.aput(
                            NewCheckpoint(
                                step=before,
                                source="loop",
                                ran=["a"],
                                writes=[("a", update)],
                                next=["a"],
                                values={"messages": [f"m{i}" for i in range(before + 1)]},
                            )
                        )
                    else:
                        await store.aload("bob")
                except asyncio.CancelledError:
                    assert interrupter.fired
            if not interrupter.fired:
                return points
            points += 1
            bob = await store.aload("bob")
            assert bob is not None
            assert bob.values["messages"] == ["m0", "m1", "m2"], points
            alice = await store.aload("alice")
            assert alice is not None
            count = len(await saver.ahistory("alice"))
            assert alice.values["messages"] == [f"m{i}" for i in range(count)], points
            assert await saver.athreads() == ["alice", "bob"]

    try:
        assert asyncio.run(scenario()) >= 1
    finally:
        asyncio.run(saver.aclose())
        drop_tables(saver)


def test_the_values_stream_of_a_run_stopped_by_interrupt_ends_with_the_interrupts() -> None:
    # As LangGraph's: a mapping state is streamed once more with "__interrupt__"; a static
    # stop adds nothing, nor does a typed state (it has no such field).
    import asyncio
    from typing import TypedDict

    from graphnb import END, START, StateGraph
    from graphnb import interrupt as ask_human
    from graphnb.checkpoint import MemorySaver

    class Form(TypedDict, total=False):
        name: str

    def ask(state: Form) -> dict[str, str]:
        return {"name": ask_human("name?")}

    graph = StateGraph(Form).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    app = graph.compile(checkpointer=MemorySaver())
    values = list(app.stream({"name": ""}, thread_id="t", mode="values"))
    assert values[:-1] == [{"name": ""}]
    assert [(i.node, i.value) for i in values[-1].pop("__interrupt__")] == [("ask", "name?")]
    assert values[-1] == {"name": ""}

    async def collect() -> list[object]:
        return [item async for item in app.astream({"name": ""}, thread_id="a", mode=["values"])]

    streamed = asyncio.run(collect())
    assert [mode for mode, _ in streamed] == ["values", "values"]
    assert "__interrupt__" in streamed[-1][1]

    static = graph.compile(checkpointer=MemorySaver(), interrupt_before=["ask"])
    assert list(static.stream({"name": ""}, thread_id="s", mode="values")) == [{"name": ""}]
