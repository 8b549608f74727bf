"""Run a batch of tool calls concurrently, under a per-call timeout and a batch deadline.

Every call runs in its own task of one :class:`asyncio.TaskGroup`, so no task outlives
its batch. Two policies:

- ``"collect"``: every call runs to its own end; each gets its typed result.
- ``"all_or_nothing"``: the first call that does not succeed cancels its siblings, which
  get a :class:`~graphnb.agent.Failure` with reason ``"cancelled"``.

Sync tools run in threads of an executor made for the batch, one thread per sync call up
to ``max_threads`` (:data:`DEFAULT_TOOL_THREADS`): the event loop's default executor
holds only ``min(32, cpu + 4)`` threads, so 100 blocking calls of 100 ms would take
1.7 s on two cores instead of 0.1 s. They are daemon threads: Python cannot interrupt a
sync call that timed out, and the interpreter waits at exit for the threads of a
``ThreadPoolExecutor``, so one stuck call would keep a finished script from exiting.

Example:
    >>> import asyncio
    >>> from graphnb.agent import Toolset, call
    >>> async def slow(seconds: float) -> str:
    ...     await asyncio.sleep(seconds)
    ...     return "done"
    >>> calls = [call("slow", seconds=0.0), call("slow", seconds=5.0)]
    >>> results = asyncio.run(run_tool_calls(calls, Toolset([slow]), call_timeout=0.05))
    >>> [type(result).__name__ for result in results]
    ['Success', 'Timeout']
"""

from __future__ import annotations

import asyncio
import functools
import queue
import threading
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor, Future
from typing import Any, Literal

from pydantic import ValidationError

from .errors import ToolRateLimited
from .messages import ToolCall
from .results import Failure, RateLimited, Success, Timeout, ToolResult
from .tools import Toolset, describe_validation

__all__ = ["DEFAULT_TOOL_THREADS", "BatchPolicy", "run_tool_calls"]

BatchPolicy = Literal["collect", "all_or_nothing"]
"""How a batch treats a call that does not succeed; see the module docs."""

DEFAULT_TOOL_THREADS = 128
"""Threads a batch may run its sync tool calls in at once (``max_threads``).

A bound, not a pool size: a batch starts only as many threads as it has sync calls.
"""


class _Abort(Exception):
    """Raised inside a task to make its TaskGroup cancel the siblings."""


async def call_tool(
    tool_call: ToolCall,
    tools: Toolset,
    *,
    allowed: Collection[str] | None = None,
    timeout: float | None = None,
    executor: Executor | None = None,
) -> ToolResult:
    """Run one tool call and turn whatever happens into a typed result.

    Cancellation is not turned into a result: it propagates, as it must.
    """
    name = tool_call.name
    found = tools.get(name)
    if found is None:
        known = ", ".join(t.name for t in tools.tools) or "none"
        return Failure(
            tool_call.id, name, f"no tool is named `{name}` (known: {known})", "unknown-tool"
        )
    if allowed is not None and name not in allowed:
        return Failure(tool_call.id, name, f"tool `{name}` is not available now", "not-allowed")
    started = time.perf_counter()
    scope = asyncio.timeout(timeout)
    try:
        async with scope:
            value = await found.invoke(tool_call.arguments, executor=executor)
    except TimeoutError as error:
        if scope.expired():
            return Timeout(tool_call.id, name, after=timeout or 0.0)
        return _failure(tool_call, error, started)
    except ValidationError as error:
        return Failure(
            tool_call.id,
            name,
            f"invalid arguments: {describe_validation(error)}",
            "invalid-arguments",
            time.perf_counter() - started,
        )
    except ToolRateLimited as error:
        return RateLimited(tool_call.id, name, error.retry_after)
    except Exception as error:
        return _failure(tool_call, error, started)
    return Success(tool_call.id, name, value, time.perf_counter() - started)


def _failure(tool_call: ToolCall, error: BaseException, started: float) -> Failure:
    return Failure(
        tool_call.id, tool_call.name, describe_error(error), "error", time.perf_counter() - started
    )


def describe_error(error: BaseException) -> str:
    """``"Type: text"`` for an exception, even one whose ``__str__`` raises.

    The text goes into a tool result inside the batch's TaskGroup, where an exception
    raised while describing one would fail the whole run instead of the one call.
    """
    try:
        text = str(error) or "no details"
    except Exception as failed:
        text = f"(its str() raised {type(failed).__name__})"
    return f"{type(error).__name__}: {text}"


async def run_tool_calls(
    calls: Sequence[ToolCall],
    tools: Toolset,
    *,
    policy: BatchPolicy = "collect",
    call_timeout: float | None = None,
    deadline: float | None = None,
    allowed: Collection[str] | None = None,
    on_result: Callable[[ToolCall, ToolResult], None] | None = None,
    max_threads: int = DEFAULT_TOOL_THREADS,
) -> list[ToolResult]:
    """Run ``calls`` concurrently; results come back in the order of ``calls``.

    Args:
        calls: the tool calls.
        tools: where the tools are found.
        policy: ``"collect"`` or ``"all_or_nothing"``.
        call_timeout: seconds each call may take; a late call becomes ``Timeout``.
        deadline: seconds the whole batch may take; calls still running are cancelled
            and become ``Timeout``.
        allowed: names of the tools callable now; others become ``Failure``.
        on_result: called with each call and its result as soon as it is known; under
            ``all_or_nothing`` the call that failed first comes before the siblings it
            cancelled.
        max_threads: threads the batch's sync calls may run in at once.
    """
    if policy not in ("collect", "all_or_nothing"):
        raise ValueError(f"policy must be 'collect' or 'all_or_nothing', got {policy!r}")
    check_max_threads("max_threads", max_threads)
    blocking = sum(1 for c in calls if (t := tools.get(c.name)) is not None and not t.is_async)
    if not blocking:
        return await _run_batch(calls, tools, policy, call_timeout, deadline, allowed, on_result)
    executor = _DaemonThreads(min(blocking, max_threads), name="graphnb-tool")
    try:
        return await _run_batch(
            calls, tools, policy, call_timeout, deadline, allowed, on_result, executor
        )
    finally:
        # Not waiting: a timed-out sync call cannot be interrupted and must not hold the
        # event loop; its thread ends when the call does.
        executor.shutdown(wait=False, cancel_futures=True)


class _DaemonThreads(Executor):
    """Runs calls in up to ``workers`` daemon threads, started as calls come in.

    Like a ``ThreadPoolExecutor``, except that the interpreter does not wait for these
    threads at exit: a timed-out sync tool is abandoned there, not awaited.
    """

    def __init__(self, workers: int, *, name: str) -> None:
        self._workers = workers
        self._name = name
        self._threads: list[threading.Thread] = []
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot run a tool call after its batch has ended")
            self._jobs.put((future, functools.partial(fn, *args, **kwargs)))
            if len(self._threads) < self._workers:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}_{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        return future

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, run = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = run()
            except BaseException as error:  # as ThreadPoolExecutor does: the caller decides
                future.set_exception(error)
            else:
                future.set_result(result)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if job is not None:
                        job[0].cancel()
            for _ in self._threads:
                self._jobs.put(None)
        if wait:
            for thread in self._threads:
                thread.join()


def check_max_threads(name: str, value: int) -> None:
    """Refuse a thread bound that is not a positive ``int``, naming the option."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


async def _run_batch(
    calls: Sequence[ToolCall],
    tools: Toolset,
    policy: BatchPolicy,
    call_timeout: float | None,
    deadline: float | None,
    allowed: Collection[str] | None,
    on_result: Callable[[ToolCall, ToolResult], None] | None,
    executor: Executor | None = None,
) -> list[ToolResult]:
    results: list[ToolResult | None] = [None] * len(calls)
    first_failure: list[ToolCall] = []

    async def one(index: int, tool_call: ToolCall) -> None:
        result = await call_tool(
            tool_call, tools, allowed=allowed, timeout=call_timeout, executor=executor
        )
        results[index] = result
        if on_result is not None:
            on_result(tool_call, result)
        if policy == "all_or_nothing" and not isinstance(result, Success):
            first_failure.append(tool_call)
            raise _Abort

    scope = asyncio.timeout(deadline)
    try:
        async with scope:
            try:
                async with asyncio.TaskGroup() as group:
                    for index, tool_call in enumerate(calls):
                        group.create_task(one(index, tool_call), name=f"tool {tool_call.name}")
            except* _Abort:
                pass
    except TimeoutError:
        if not scope.expired():
            raise
    for index, tool_call in enumerate(calls):
        if results[index] is not None:
            continue
        late: ToolResult
        if first_failure:
            cause = first_failure[0]
            late = Failure(
                tool_call.id,
                tool_call.name,
                f"cancelled because `{cause.name}` ({cause.id}) did not succeed",
                "cancelled",
            )
        elif scope.expired():
            late = Timeout(tool_call.id, tool_call.name, after=deadline or 0.0)
        else:  # the tool raised CancelledError itself: nothing timed out
            late = Failure(tool_call.id, tool_call.name, "the call was cancelled", "cancelled")
        results[index] = late
        if on_result is not None:
            on_result(tool_call, late)
    return [result for result in results if result is not None]
