"""Work the canvas asks for, done off the kernel's event loop (the builder's Layout button).

A comm message is handled on the kernel's event loop: while its handler runs, no other
message from the front end is read (a drag, Stop, a click). Laying out a 1,000-node graph
takes a few hundred milliseconds, so the builder computes it in a worker thread and applies
the result back on the loop (:func:`in_background`). Only the latest request's result is
applied: a second click on Layout before the first one finished supersedes it.

Without a running loop (plain Python, a script calling ``Builder.layout()``) the work runs
inline, as before.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["Background"]

T = TypeVar("T")

log = logging.getLogger("graphnb.widget")


class Background:
    """One kind of background job (a layout), latest request wins.

    Jobs run one at a time on a thread of their own; ``done`` and ``failed`` are called on
    the loop that asked, so they may change traits and send messages as any handler does.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._requests = itertools.count(1)
        self._latest = 0
        self.pending: Future[object] | None = None
        """The job in flight, if any (tests and benchmarks wait on it)."""

    def submit(
        self,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[Exception], None],
    ) -> bool:
        """Run ``work`` off the loop, then ``done(result)`` (or ``failed(error)``) on it.

        Returns whether the work went to the background: without a running event loop in
        this thread it runs inline, ``done`` or ``failed`` called before this returns.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            try:
                result = work()
            except Exception as error:
                failed(error)
            else:
                done(result)
            return False
        with self._lock:
            request = self._latest = next(self._requests)
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix=f"graphnb-{self.name}")
            future = self._pool.submit(work)
        self.pending = future  # type: ignore[assignment]

        def finish(future: Future[T]) -> None:
            if request != self._latest:
                return  # a later request supersedes this one
            error = future.exception()
            if isinstance(error, Exception):
                failed(error)
            elif error is not None:  # not an Exception (SystemExit...): logged, not raised
                log.error("[graphnb] %s stopped: %r", self.name, error)
            else:
                done(future.result())

        def on_loop(future: Future[T]) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(finish, future)

        future.add_done_callback(on_loop)
        return True
