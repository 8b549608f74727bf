"""The plain loop: a run without a thread, one super-step after another.

Written twice on purpose, once plain and once async: it is the path every benchmark
measures, a plain step costs about 3.3 µs, and driving it through request objects (as the
threaded loop of :mod:`graphnb.engine.driver` is driven) measured about 4.1 µs. Keep the
two line for line alike; tests/engine/test_twins.py runs both on the same cases.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from ..terminals import START
from .events import Event, StepFinished
from .run import Run
from .steps import step_async, step_sync

__all__ = ["aplain_events", "plain_events"]


def plain_events(run: Run[Any], input: Any) -> Iterator[Event]:
    """Run ``run`` from ``input`` to its end, step after step, yielding its events."""
    run.start(input)
    tasks = run.first_tasks()
    if run.steps:
        yield StepFinished(-1, (START,), run.state(), tuple(n.name for n in tasks))
    while tasks:
        run.check_limit()
        results = yield from step_sync(run, tasks)
        run.merge(results)
        finished = [node for node, _ in results]
        tasks = run.next_tasks(finished)
        if run.steps:
            yield run.finished_event(tuple(n.name for n in finished), tasks)
        run.step += 1


async def aplain_events(run: Run[Any], input: Any) -> AsyncIterator[Event]:
    """Async :func:`plain_events`."""
    run.start(input)
    tasks = await run.afirst_tasks()
    if run.steps:
        yield StepFinished(-1, (START,), run.state(), tuple(n.name for n in tasks))
    while tasks:
        run.check_limit()
        results: list[Any] = []
        async for item in step_async(run, tasks):
            if isinstance(item, list):
                results = item
            else:
                yield item
        run.merge(results)
        finished = [node for node, _ in results]
        tasks = await run.anext_tasks(finished)
        if run.steps:
            yield run.finished_event(tuple(n.name for n in finished), tasks)
        run.step += 1
