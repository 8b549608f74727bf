"""One run loop, driven from sync or async code.

A loop is written once, as a plain generator that never blocks: it yields the events a
run streams, and, where sync and async code differ, a request: :class:`Step` (run these
nodes) or :class:`Call` (read or write, given both ways). :func:`drive_sync` and
:func:`drive_async` answer the requests, the one by calling, the other by awaiting, and
pass the events on. The loop's logic therefore exists once for ``invoke`` and
``ainvoke``; only these two small drivers are twins, and they hold no run logic.

The threaded loop (:mod:`graphnb.engine.driver`) is written this way: each of its steps
writes a checkpoint, next to which a request object costs nothing. The plain loop of
:mod:`graphnb.engine.compiled` is not, see there why.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .events import Event
from .steps import step_async, step_sync

if TYPE_CHECKING:
    from .node import Node
    from .run import Run

__all__ = ["Call", "Loop", "Step", "drive_async", "drive_sync"]


# Plain slotted dataclasses, not frozen ones: a request is built every step, and a frozen
# dataclass's __init__ (object.__setattr__ per field) would cost more than the rest.
@dataclass(slots=True)
class Step:
    """Run one super-step's nodes; the answer is their ``(node, update)`` results."""

    tasks: list[Node]


@dataclass(slots=True)
class Call:
    """Call ``sync(*args, **kwargs)`` or await ``async_(*args, **kwargs)``; answer the result."""

    sync: Callable[..., Any]
    async_: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


Loop = Generator[Event | Step | Call, Any, None]
"""A run loop: yields events and requests, receives each request's answer."""


def drive_sync(loop: Loop, run: Run[Any]) -> Iterator[Event]:
    """Run ``loop`` from sync code: nodes on this thread or a pool, calls called."""
    answer: Any = None
    failed: Exception | None = None
    while True:
        try:
            item = loop.send(answer) if failed is None else loop.throw(failed)
        except StopIteration:
            return
        failed = answer = None
        if not isinstance(item, (Call, Step)):
            yield item
            continue
        try:
            if isinstance(item, Call):
                answer = item.sync(*item.args, **item.kwargs)
            else:
                answer = yield from step_sync(run, item.tasks)
        except Exception as error:
            failed = error  # raised inside the loop, at its request, so it can record it


async def drive_async(loop: Loop, run: Run[Any]) -> AsyncIterator[Event]:
    """Run ``loop`` on the event loop: async nodes awaited, calls awaited."""
    answer: Any = None
    failed: Exception | None = None
    while True:
        try:
            item = loop.send(answer) if failed is None else loop.throw(failed)
        except StopIteration:
            return
        failed = answer = None
        if not isinstance(item, (Call, Step)):
            yield item
            continue
        try:
            if isinstance(item, Call):
                answer = await item.async_(*item.args, **item.kwargs)
            else:
                answer = []
                async for out in step_async(run, item.tasks):
                    if isinstance(out, list):
                        answer = out
                    else:
                        yield out
        except Exception as error:
            failed = error
