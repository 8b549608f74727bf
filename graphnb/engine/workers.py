"""The threads and event loops the engine runs nodes on.

Sync nodes of a parallel step run on one shared thread pool (nested steps get threads of
their own, see :func:`start_workers`); an async node or an async generator called from
sync code runs on an event loop of its own in a helper thread, in a copy of the caller's
context (the node's ``interrupt()`` answers, the run's tracing).
"""

from __future__ import annotations

import contextvars
import os
import queue
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# asyncio is imported inside the async code paths only: by the time they run an event loop
# exists and asyncio is loaded, and `import graphnb` stays fast for sync users.

__all__ = ["DEFAULT_WORKERS", "iterate_async", "run_coroutine", "start_workers", "thread_pool"]

_END_OF_STREAM = object()

DEFAULT_WORKERS = min(32, (os.cpu_count() or 1) + 4)
"""How many sync nodes of a step run at once, when the run sets no ``max_concurrency``."""
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


_node_thread = threading.local()  # .marked: this thread runs nodes of a parallel step


def _mark_node_thread() -> None:
    _node_thread.marked = True


def thread_pool() -> ThreadPoolExecutor:
    """The shared pool sync nodes run in when several run at once."""
    global _pool
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor  # imports logging: load on demand

        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(
                    DEFAULT_WORKERS, thread_name_prefix="graphnb", initializer=_mark_node_thread
                )
    return _pool


def start_workers(worker: Callable[[], None], count: int) -> list[Callable[[], Any]]:
    """Run ``worker`` on ``count`` threads; returns what waits for each one.

    A parallel step started from a node that itself runs on one of these threads (a
    subgraph, or a node that invokes a graph) gets threads of its own: queued in the
    pool, its workers could wait behind the very nodes that wait for them.
    """
    if not getattr(_node_thread, "marked", False):
        return [thread_pool().submit(worker).result for _ in range(count)]

    def marked_worker() -> None:
        _mark_node_thread()
        worker()

    threads = [threading.Thread(target=marked_worker, name="graphnb-nested") for _ in range(count)]
    for thread in threads:
        thread.start()
    return [thread.join for thread in threads]


def iterate_async(chunks: Any) -> Iterator[Any]:
    """Iterate an async iterable from sync code, each item as soon as it is produced.

    The iterable runs on its own event loop in a helper thread (sync code may itself be
    inside a running loop, as in a notebook cell), in a copy of the caller's context (the
    node's ``interrupt()`` answers, the run's tracing); items cross over through a queue.
    """
    import asyncio

    items: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    async def drain() -> None:
        async for item in chunks:
            items.put((True, item))

    context = contextvars.copy_context()

    def pump() -> None:
        try:
            context.run(asyncio.run, drain())
            items.put((True, _END_OF_STREAM))
        except BaseException as error:  # re-raised in the consuming thread
            items.put((False, error))

    threading.Thread(target=pump, name="graphnb-async-stream", daemon=True).start()
    while True:
        ok, item = items.get()
        if not ok:
            raise item
        if item is _END_OF_STREAM:
            return
        yield item


def run_coroutine(coro: Any) -> Any:
    """Run a coroutine to completion from sync code, even inside a running event loop.

    Inside one, it runs on a helper thread, in a copy of the caller's context (as
    :func:`iterate_async` does).
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: list[Any] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            box.append((True, context.run(asyncio.run, coro)))
        except BaseException as error:  # re-raised in the caller's thread
            box.append((False, error))

    worker = threading.Thread(target=target, name="graphnb-async-node")
    worker.start()
    worker.join()
    ok, value = box[0]
    if not ok:
        raise value
    return value
