"""A super-step's nodes, run concurrently.

On threads from sync code, on the event loop from async code. Each node's own call is
:meth:`~graphnb.engine.run.Run.node_sync` (or ``node_async``); this module runs several at
once and hands their events on as they come.
"""

from __future__ import annotations

import contextlib
import queue
from collections import deque
from collections.abc import AsyncIterator, Callable, Generator
from typing import Any, Protocol

from .events import Event
from .node import Node
from .workers import start_workers, thread_pool

__all__ = ["StepRun", "step_async", "step_sync"]

Update = dict[str, Any]
Done = object()


class StepRun(Protocol):
    """What running a step needs of its run (:class:`~graphnb.engine.run.Run`)."""

    events: bool
    """Whether anyone reads the events as they come."""
    workers: int
    """How many sync nodes run at once."""
    max_concurrency: int | None
    """How many nodes of either kind run at once (``None``: async nodes are not limited)."""

    def node_sync(self, node: Node) -> Generator[Event, None, Update]:
        """Run one node from sync code: its events, then its update."""

    async def node_async(self, node: Node, emit: Callable[[Event], None]) -> Update:
        """Run one node on the event loop, its events sent to ``emit``."""


def step_sync(run: StepRun, nodes: list[Node]) -> Generator[Event, None, list[tuple[Node, Update]]]:
    """Run one step's nodes from sync code: a lone node inline, several on threads."""
    if len(nodes) == 1:
        node = nodes[0]
        update = yield from run.node_sync(node)
        return [(node, update)]
    return (yield from _parallel_sync(run, nodes))


def _parallel_sync(
    run: StepRun, nodes: list[Node]
) -> Generator[Event, None, list[tuple[Node, Update]]]:
    results: list[Update | None] = [None] * len(nodes)
    failures: list[tuple[int, BaseException]] = []
    todo = deque(enumerate(nodes))
    sink: queue.SimpleQueue[Any] | None = queue.SimpleQueue() if run.events else None

    def worker() -> None:
        try:
            while not failures:
                try:
                    index, node = todo.popleft()
                except IndexError:
                    return
                events = run.node_sync(node)
                try:
                    while True:
                        event = next(events)
                        if sink is not None:
                            sink.put(event)
                except StopIteration as stop:
                    results[index] = stop.value
                except BaseException as error:
                    failures.append((index, error))
                    return
        finally:
            if sink is not None:
                sink.put(Done)

    count = min(run.workers, len(nodes))
    waits = start_workers(worker, count)
    try:
        if sink is not None:
            remaining = count
            while remaining:
                event = sink.get()
                if event is Done:
                    remaining -= 1
                else:
                    yield event
        for wait in waits:
            wait()
    except BaseException as error:
        todo.clear()  # the run is over (Ctrl-C, its stream closed): start no further node
        if isinstance(error, GeneratorExit):
            # Its consumer left mid-step: return once the running nodes are done, so none
            # runs beside the next run of the thread once the lock is released.
            for wait in waits:
                wait()
        raise
    if failures:
        raise min(failures, key=lambda failure: failure[0])[1]
    return [(node, results[i] or {}) for i, node in enumerate(nodes)]


async def step_async(
    run: StepRun, nodes: list[Node]
) -> AsyncIterator[Event | list[tuple[Node, Update]]]:
    """Run one step's nodes on the event loop; yields events, then the results list last.

    Sync nodes run on threads, even a lone one: run on the loop, a node blocking on I/O
    would stall every other task of the loop (a server's other requests, a notebook's
    widgets) until it returned.
    """
    import asyncio
    import contextvars

    loop = asyncio.get_running_loop()
    if len(nodes) == 1 and not (nodes[0].is_async or nodes[0].is_async_gen) and not run.events:
        # ainvoke: no one reads the events as they come, so a lone sync node makes one
        # trip to a thread and back (its events follow), not one per event.
        node = nodes[0]
        context = contextvars.copy_context()
        events, update = await loop.run_in_executor(
            thread_pool(), context.run, _drained, run.node_sync(node)
        )
        for event in events:
            yield event
        yield [(node, update)]
        return
    inbox: asyncio.Queue[Any] = asyncio.Queue()

    def threadsafe(event: Any) -> None:
        loop.call_soon_threadsafe(inbox.put_nowait, event)

    def drive(node: Node) -> Update:
        events = run.node_sync(node)
        while True:
            try:
                event = next(events)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            threadsafe(event)

    async def run_node(node: Node) -> Update:
        if node.is_async or node.is_async_gen:
            return await run.node_async(node, inbox.put_nowait)
        # with the caller's context variables, as asyncio.to_thread hands them on
        context = contextvars.copy_context()
        return await loop.run_in_executor(thread_pool(), context.run, drive, node)

    # max_concurrency counts nodes of either kind; without it async nodes are not limited
    gate = asyncio.Semaphore(run.max_concurrency) if run.max_concurrency else None

    async def one(node: Node) -> Update:
        if gate is None:
            return await run_node(node)
        async with gate:
            return await run_node(node)

    gathering = asyncio.ensure_future(_gather(nodes, one))
    getter: asyncio.Future[Any] | None = None
    try:
        while True:
            getter = asyncio.ensure_future(inbox.get())
            done, _ = await asyncio.wait({getter, gathering}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                yield getter.result()
                continue
            getter.cancel()
            while not inbox.empty():
                yield inbox.get_nowait()
            # events sent from threads may still be queued on the loop: let them land
            await asyncio.sleep(0)
            while not inbox.empty():
                yield inbox.get_nowait()
            break
        yield gathering.result()
    finally:
        if getter is not None and not getter.done():
            getter.cancel()  # a run cancelled mid-step leaves no reader task behind
        if not gathering.done():
            gathering.cancel()
            with contextlib.suppress(BaseException):  # the cancellation we asked for
                await gathering


def _drained(events: Generator[Event, None, Update]) -> tuple[list[Event], Update]:
    """Run a node's event generator to its end: its events, and its update."""
    collected = []
    while True:
        try:
            collected.append(next(events))
        except StopIteration as stop:
            return collected, stop.value


async def _gather(nodes: list[Node], one: Callable[[Node], Any]) -> list[tuple[Node, Update]]:
    import asyncio

    tasks = [asyncio.ensure_future(one(node)) for node in nodes]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        raise
    failed = [task for task in tasks if task.done() and not task.cancelled() and task.exception()]
    if failed:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        first = min(failed, key=tasks.index)
        error = first.exception()
        assert error is not None
        raise error
    return [(node, task.result()) for node, task in zip(nodes, tasks, strict=True)]
