"""Keep a builder run off the kernel's event loop, and the kernel alive whatever a node does.

A run started from the builder is an asyncio task on the kernel's loop. The engine calls a
lone synchronous node inline on that loop, so a node blocking for two seconds used to hold
up Stop and every comm message for two seconds. And a node raising ``SystemExit`` (an
``argparse`` parser, ``sys.exit()``) escaped the engine, which only catches ``Exception``,
and asyncio re-raises ``SystemExit`` out of the loop: the kernel died.

For a run, the builder wraps each node's callable (:func:`off_loop`):

- a synchronous node runs in a worker thread and the run awaits it, so the loop stays
  free: Stop cancels the run at once (the thread finishes the call in the background and
  its result is dropped, as a thread cannot be killed), and comm messages keep flowing. A
  node returning a stream (a generator, a :class:`~graphnb.Streamed` of a sync iterable) is
  drained in the thread too, its chunks crossing over as they come;
- an async node stays on the kernel's loop (objects it made in the notebook belong to it);
- whatever the node raises that is a ``BaseException`` but not an ``Exception`` becomes a
  :class:`NodeExit` (an ``Exception``), so the engine fails the node and names it. The
  kernel's own interrupt (``KeyboardInterrupt``), a Stop (``asyncio.CancelledError``), a
  human-in-the-loop interrupt and ``GeneratorExit`` pass unchanged.

Routers stay synchronous and inline (they pick a branch; the engine names the router in
their errors only when they are), with the same guard.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import inspect
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from ..engine.context import RunContext
from ..engine.node import Streamed

__all__ = ["NodeExit", "guard_router", "off_loop"]

WORKERS = 32
"""Threads the builder's synchronous nodes run on (a stopped node may still hold one)."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="graphnb-builder")
        return _pool


class NodeExit(RuntimeError):
    """A node raised a ``BaseException`` that is not an ``Exception`` (``SystemExit`` ...).

    The original is the ``__cause__`` and in :attr:`error`.

    Attributes:
        error: what the node raised.
    """

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.__cause__ = error  # the traceback shows where the node raised it
        super().__init__(
            f"{describe(error)} (the node tried to end the program; the builder ended the "
            "run instead, and the kernel goes on)"
        )


def describe(error: BaseException) -> str:
    """``SystemExit: 2``; just the type's name when the exception has no text."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _passes(error: BaseException) -> bool:
    """Whether ``error`` goes on unchanged: an Exception, or one the run must see as it is."""
    from ..human import GraphInterrupt

    return isinstance(
        error,
        (Exception, KeyboardInterrupt, asyncio.CancelledError, GeneratorExit, GraphInterrupt),
    )


def _signature(fn: Callable[..., Any]) -> inspect.Signature:
    """``fn``'s signature, which tells the engine whether to pass the run context."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without one: called with the state only
        return inspect.Signature([inspect.Parameter("state", inspect.Parameter.POSITIONAL_ONLY)])


def _dressed(wrapper: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    # Not functools.wraps: `__wrapped__` would make the engine see the sync original.
    wrapper.__signature__ = _signature(fn)
    wrapper.__name__ = getattr(fn, "__name__", type(fn).__name__)
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__graphnb_original__ = fn
    return cast("Callable[..., Any]", wrapper)


def _guarded_coroutine(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap coroutine function ``fn`` so ``SystemExit`` and the like become :class:`NodeExit`.

    The one async guard ``off_loop`` and ``guard_router`` share.
    """

    async def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except BaseException as error:
            if _passes(error):
                raise
            raise NodeExit(error) from error

    return _dressed(guarded, fn)


def _is_async(fn: Callable[..., Any]) -> tuple[bool, bool]:
    """(coroutine function, async generator function), seeing through callable objects."""
    target: Any = fn
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable objects
    if not inspect.isroutine(fn) and call is not None and inspect.isroutine(call):
        target = call
    return inspect.iscoroutinefunction(target), inspect.isasyncgenfunction(target)


def off_loop(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as an async node that never blocks the loop nor ends the program.

    See the module's docstring. The wrapper takes the same arguments (its signature is
    ``fn``'s), so the engine hands it the run context exactly when it would hand it to
    ``fn``.
    """
    is_coroutine, is_async_gen = _is_async(fn)
    if is_async_gen:

        async def async_gen_node(*args: Any, **kwargs: Any) -> Any:
            return _guarded_aiter(fn(*args, **kwargs))

        return _dressed(async_gen_node, fn)
    if is_coroutine:
        return _guarded_coroutine(fn)

    async def sync_node(*args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        args, kwargs = _threadsafe_context(loop, args, kwargs)
        result = await _in_thread(loop, fn, *args, **kwargs)
        return _streamed_off_loop(loop, result)

    return _dressed(sync_node, fn)


def guard_router(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A router that turns ``SystemExit`` and the like into :class:`NodeExit`."""
    is_coroutine, _ = _is_async(fn)
    if is_coroutine:
        return _guarded_coroutine(fn)

    def router(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except BaseException as error:
            if _passes(error):
                raise
            raise NodeExit(error) from error

    return _dressed(router, fn)


# -- running in a thread -------------------------------------------------------------------


async def _in_thread(
    loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    # The node sees the run's context variables (answers to `interrupt()` ...).
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    try:
        return await loop.run_in_executor(_executor(), call)
    except BaseException as error:
        if _passes(error):
            raise
        raise NodeExit(error) from error


def _threadsafe_context(
    loop: asyncio.AbstractEventLoop, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments with the run context's ``write`` made safe to call from a thread."""

    def safe(context: Any) -> Any:
        emit = context._emit if isinstance(context, RunContext) else None
        if emit is None:
            return context

        def from_thread(chunk: Any) -> None:
            loop.call_soon_threadsafe(emit, chunk)

        return dataclasses.replace(context, _emit=from_thread)

    return tuple(safe(a) for a in args), {k: safe(v) for k, v in kwargs.items()}


def _is_sync_stream(result: Any) -> bool:
    # The engine's test for a stream, less the async iterables (those stay on the loop).
    return hasattr(result, "__next__") and not isinstance(result, (str, bytes, Mapping))


def _streamed_off_loop(loop: asyncio.AbstractEventLoop, result: Any) -> Any:
    """A sync stream as one whose items are produced in a worker thread."""
    if isinstance(result, Streamed):
        if hasattr(result.chunks, "__aiter__"):
            return Streamed(
                _guarded_aiter(result.chunks), result.update, result.aggregate, result.field
            )
        # The engine reads `update` only once the chunks are drained; a generator's return
        # value fills it then, as it would in the engine's own sync path.
        update: dict[str, Any] = {} if result.update is None else dict(result.update)
        chunks = _drained_in_thread(loop, iter(result.chunks), update, result.update is None)
        return Streamed(chunks, update, result.aggregate, result.field)
    if _is_sync_stream(result):
        update = {}
        return Streamed(_drained_in_thread(loop, result, update, True), update)
    if hasattr(result, "__anext__") and not isinstance(result, Mapping):
        return _guarded_aiter(result)
    return result


_ITEM, _END, _FAILED = range(3)


async def _drained_in_thread(
    loop: asyncio.AbstractEventLoop, iterator: Iterator[Any], update: dict[str, Any], keep: bool
) -> AsyncIterator[Any]:
    """Items of ``iterator``, produced in a worker thread as fast as it yields them.

    When the iterator returns a value (a generator's ``return {...}``) and ``keep`` is
    set, that partial update is merged into ``update``.
    """
    inbox: asyncio.Queue[tuple[int, Any]] = asyncio.Queue()
    stopped = threading.Event()

    def put(kind: int, value: Any) -> None:
        try:
            loop.call_soon_threadsafe(inbox.put_nowait, (kind, value))
        except RuntimeError:  # the loop closed (the kernel shuts down): nobody listens
            stopped.set()

    def pump() -> None:
        try:
            while not stopped.is_set():
                try:
                    item = next(iterator)
                except StopIteration as end:
                    put(_END, end.value)
                    return
                put(_ITEM, item)
        except BaseException as error:  # handed to the run, in the loop's thread
            put(_FAILED, error)
        finally:
            close = getattr(iterator, "close", None)
            if stopped.is_set() and callable(close):
                close()  # a stopped run: the generator's `finally` blocks run now

    call = functools.partial(contextvars.copy_context().run, pump)
    loop.run_in_executor(_executor(), call)
    try:
        while True:
            kind, value = await inbox.get()
            if kind == _ITEM:
                yield value
            elif kind == _END:
                if keep and value is not None:
                    if not isinstance(value, Mapping):
                        raise TypeError(
                            f"a generator node returned {value!r}; it may return a partial "
                            "dict (or nothing) after its last chunk"
                        )
                    update.update(value)
                return
            else:
                error = value
                if _passes(error):
                    raise error
                raise NodeExit(error) from error
    finally:
        stopped.set()


async def _guarded_aiter(chunks: Any) -> AsyncIterator[Any]:
    """An async iterable's items, with ``SystemExit`` and the like made a :class:`NodeExit`."""
    try:
        async for chunk in chunks:
            yield chunk
    except BaseException as error:
        if _passes(error):
            raise
        raise NodeExit(error) from error
