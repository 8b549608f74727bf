from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

from graphnb.agent import (
    AgentContext,
    Failure,
    RateLimited,
    Success,
    Timeout,
    ToolRateLimited,
    Toolset,
    call,
    current_context,
    run_tool_calls,
    use_context,
)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_collect_returns_one_typed_result_per_call_in_call_order() -> None:
    async def ok(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    def fails(x: int) -> int:
        raise LookupError(f"no {x}")

    async def slow(x: int) -> int:
        await asyncio.sleep(5)
        return x

    def limited(x: int) -> int:
        raise ToolRateLimited(retry_after=1.5)

    tools = Toolset([ok, fails, slow, limited])
    calls = [call("slow", x=1), call("ok", x=2), call("fails", x=3), call("limited", x=4)]
    results = run(run_tool_calls(calls, tools, call_timeout=0.5))
    assert [type(r) for r in results] == [Timeout, Success, Failure, RateLimited]
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert isinstance(results[1], Success)
    assert results[1].value == 4
    assert isinstance(results[2], Failure)
    assert results[2].error == "LookupError: no 3"
    assert isinstance(results[3], RateLimited)
    assert results[3].retry_after == 1.5
    assert isinstance(results[0], Timeout)
    assert results[0].after == 0.5


def test_bad_arguments_and_unknown_tools_become_failures_with_a_reason() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    calls = [call("add", a="one", b=2), call("nope"), call("add", a=1, b=2, c=3)]
    results = run(run_tool_calls(calls, Toolset([add])))
    assert [r.reason for r in results if isinstance(r, Failure)] == [
        "invalid-arguments",
        "unknown-tool",
        "invalid-arguments",
    ]
    assert isinstance(results[0], Failure)
    assert "a: Input should be a valid integer" in results[0].error


def test_calls_run_concurrently() -> None:
    running = 0
    peak = 0

    async def probe(i: int) -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.02)
        running -= 1
        return i

    results = run(run_tool_calls([call("probe", i=i) for i in range(20)], Toolset([probe])))
    assert peak == 20
    assert [r.value for r in results if isinstance(r, Success)] == list(range(20))


def test_all_or_nothing_cancels_siblings_which_observe_the_cancellation() -> None:
    observed: list[str] = []
    finished: list[str] = []

    async def fail_soon() -> str:
        await asyncio.sleep(0.01)
        raise RuntimeError("broken")

    async def long(name: str) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            observed.append(name)
            raise
        finished.append(name)
        return name

    async def main() -> list[Any]:
        calls = [call("long", name="a"), call("fail_soon"), call("long", name="b")]
        results = await run_tool_calls(calls, Toolset([fail_soon, long]), policy="all_or_nothing")
        # no task outlives its batch
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return results

    results = run(main())
    assert sorted(observed) == ["a", "b"]
    assert finished == []
    assert [type(r) for r in results] == [Failure, Failure, Failure]
    assert [r.reason for r in results if isinstance(r, Failure)] == [
        "cancelled",
        "error",
        "cancelled",
    ]
    assert isinstance(results[0], Failure)
    assert "`fail_soon`" in results[0].error


def test_all_or_nothing_keeps_results_that_finished_before_the_failure() -> None:
    async def quick() -> str:
        return "fast"

    async def fail_later() -> str:
        await asyncio.sleep(0.02)
        raise RuntimeError("late failure")

    results = run(
        run_tool_calls(
            [call("quick"), call("fail_later")],
            Toolset([quick, fail_later]),
            policy="all_or_nothing",
        )
    )
    assert isinstance(results[0], Success)
    assert results[0].value == "fast"
    assert isinstance(results[1], Failure)
    assert results[1].reason == "error"


def test_collect_with_every_call_succeeding_under_all_or_nothing() -> None:
    async def fine(i: int) -> int:
        return i

    results = run(
        run_tool_calls(
            [call("fine", i=1), call("fine", i=2)], Toolset([fine]), policy="all_or_nothing"
        )
    )
    assert all(isinstance(r, Success) for r in results)


def test_batch_deadline_cancels_what_is_still_running() -> None:
    observed: list[int] = []

    async def wait(seconds: float, i: int) -> int:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            observed.append(i)
            raise
        return i

    async def main() -> list[Any]:
        calls = [
            call("wait", seconds=0.0, i=0),
            call("wait", seconds=5, i=1),
            call("wait", seconds=5, i=2),
        ]
        results = await run_tool_calls(calls, Toolset([wait]), deadline=0.2, call_timeout=10)
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return results

    results = run(main())
    assert [type(r) for r in results] == [Success, Timeout, Timeout]
    assert sorted(observed) == [1, 2]
    assert isinstance(results[1], Timeout)
    assert results[1].after == 0.2


def test_a_tool_raising_timeout_error_itself_is_a_failure_not_a_timeout() -> None:
    async def own_timeout() -> str:
        raise TimeoutError("upstream said timeout")

    results = run(run_tool_calls([call("own_timeout")], Toolset([own_timeout]), call_timeout=5))
    assert isinstance(results[0], Failure)
    assert results[0].error == "TimeoutError: upstream said timeout"


def test_a_tool_raising_cancelled_error_itself_is_a_cancelled_failure() -> None:
    async def gives_up() -> str:
        raise asyncio.CancelledError

    async def fine() -> str:
        return "ok"

    calls = [call("gives_up"), call("fine")]
    results = run(run_tool_calls(calls, Toolset([gives_up, fine]), deadline=5))
    assert results[0] == Failure(calls[0].id, "gives_up", "the call was cancelled", "cancelled")
    assert isinstance(results[1], Success)


def test_cancelling_the_caller_cancels_every_tool() -> None:
    observed: list[int] = []

    async def wait(i: int) -> int:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            observed.append(i)
            raise
        return i

    async def main() -> None:
        batch = asyncio.create_task(
            run_tool_calls([call("wait", i=i) for i in range(3)], Toolset([wait]))
        )
        await asyncio.sleep(0.01)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch
        assert asyncio.all_tasks() == {asyncio.current_task()}

    run(main())
    assert sorted(observed) == [0, 1, 2]


def test_context_variables_reach_async_and_sync_tools() -> None:
    async def a() -> str:
        return current_context().run_id

    def s() -> str:
        return current_context().data["who"]

    async def main() -> list[Any]:
        with use_context(AgentContext("run-9", "t-1", {"who": "ada"})):
            return await run_tool_calls([call("a"), call("s")], Toolset([a, s]))

    results = run(main())
    assert [r.value for r in results if isinstance(r, Success)] == ["run-9", "ada"]


def test_on_result_sees_every_result_including_cancelled_ones() -> None:
    seen: list[str] = []

    async def boom() -> None:
        raise RuntimeError("x")

    async def wait() -> None:
        await asyncio.sleep(5)

    run(
        run_tool_calls(
            [call("boom"), call("wait")],
            Toolset([boom, wait]),
            policy="all_or_nothing",
            on_result=lambda c, r: seen.append(f"{c.name}:{type(r).__name__}"),
        )
    )
    assert sorted(seen) == ["boom:Failure", "wait:Failure"]


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="policy must be"):
        run(run_tool_calls([], Toolset(), policy="some"))  # type: ignore[arg-type]


def test_a_batch_of_100_sync_tools_runs_every_call_at_once() -> None:
    # Each call waits until all 100 are running: with too few threads the barrier breaks.
    barrier = threading.Barrier(100, timeout=5)

    def meet(i: int) -> int:
        """Wait for the other calls."""
        barrier.wait()
        return i

    results = run(run_tool_calls([call("meet", i=i) for i in range(100)], Toolset([meet])))
    assert [r.value for r in results if isinstance(r, Success)] == list(range(100))


def test_sync_tool_threads_are_bounded_by_max_threads() -> None:
    lock = threading.Lock()
    running = [0]
    peak = [0]

    def work() -> None:
        """Count the calls running at once."""
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.03)
        with lock:
            running[0] -= 1

    results = run(run_tool_calls([call("work")] * 12, Toolset([work]), max_threads=4))
    assert all(isinstance(r, Success) for r in results)
    assert peak[0] == 4


def test_a_batch_leaves_no_tool_thread_behind() -> None:
    def quick() -> str:
        """Answer at once."""
        return threading.current_thread().name

    results = run(run_tool_calls([call("quick")] * 3, Toolset([quick])))
    names = {r.value for r in results if isinstance(r, Success)}
    assert names
    assert all(name.startswith("graphnb-tool") for name in names)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and any(t.name in names for t in threading.enumerate()):
        time.sleep(0.01)
    assert not [t.name for t in threading.enumerate() if t.name in names]


@pytest.mark.parametrize("value", [0, -1, 1.5])
def test_max_threads_must_be_a_positive_int(value: Any) -> None:
    with pytest.raises(ValueError, match=f"max_threads must be a positive int, got {value}"):
        run(run_tool_calls([], Toolset(), max_threads=value))


def test_sync_tools_run_on_daemon_threads() -> None:
    def where() -> bool:
        """Say whether this thread is a daemon."""
        return threading.current_thread().daemon

    results = run(run_tool_calls([call("where")] * 2, Toolset([where])))
    assert [r.value for r in results if isinstance(r, Success)] == [True, True]


EXITS_WHILE_A_TOOL_HANGS = textwrap.dedent(
    '''
    import time
    from graphnb.agent import ReActAgent, ScriptedModel, call

    def stuck(x: int) -> str:
        """Blocks far longer than its timeout."""
        time.sleep(60)
        return "late"

    model = ScriptedModel([call("stuck", x=1), "Gave up on it."])
    result = ReActAgent(model, [stuck], call_timeout=0.2).run("go")
    print(result.status, [m.content for m in result.messages if m.role == "tool"])
    '''
)


def test_a_timed_out_sync_tool_does_not_keep_the_process_from_exiting() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", EXITS_WHILE_A_TOOL_HANGS],
            capture_output=True,
            text=True,
            timeout=15,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the process still waited for the timed-out tool 15 s later (it sleeps 60 s)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "completed ['timeout: the tool gave no answer within 0.2s']"
