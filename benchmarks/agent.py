"""Agent runner speed: concurrent tool calls, and the runner's overhead per ReAct round.

Run with ``python benchmarks/agent.py``. Targets (issue 5):

- 100 concurrent tool calls that each sleep 100 ms finish in under 300 ms, async tools
  and blocking (sync) tools alike (issue 11, item 19);
- one agent round with the scripted model adds under 1 ms of runner overhead.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from graphnb.agent import ReActAgent, ScriptedModel, Toolset, call, run_tool_calls


async def nap(i: int) -> int:
    """Sleep 100 ms."""
    await asyncio.sleep(0.1)
    return i


def blocking_nap(i: int) -> int:
    """Block for 100 ms, as a sync tool calling a slow API would."""
    time.sleep(0.1)
    return i


async def noop() -> str:
    """Return at once."""
    return "ok"


async def batch_of_100(name: str = "nap") -> float:
    calls = [call(name, i=i) for i in range(100)]
    started = time.perf_counter()
    results = await run_tool_calls(calls, Toolset([nap, blocking_nap]))
    elapsed = time.perf_counter() - started
    assert len(results) == 100
    return elapsed


async def agent_round_of_100() -> float:
    model = ScriptedModel([[call("nap", i=i) for i in range(100)], "done"])
    agent = ReActAgent(model, [nap])
    started = time.perf_counter()
    result = await agent.arun("go")
    elapsed = time.perf_counter() - started
    assert result.ok, result.failure
    return elapsed


async def run_with_rounds(agent_rounds: int) -> float:
    model = ScriptedModel([call("noop")] * agent_rounds + ["done"])
    agent = ReActAgent(model, [noop], max_rounds=agent_rounds + 1)
    started = time.perf_counter()
    result = await agent.arun("go")
    elapsed = time.perf_counter() - started
    assert result.ok, result.failure
    return elapsed


async def main() -> None:
    await batch_of_100()  # warm up
    batch = statistics.median([await batch_of_100() for _ in range(5)])
    whole = statistics.median([await agent_round_of_100() for _ in range(5)])
    await batch_of_100("blocking_nap")  # warm up
    blocking = statistics.median([await batch_of_100("blocking_nap") for _ in range(5)])
    verdict = "ok" if max(batch, whole, blocking) < 0.3 else "MISSED"
    print(f"100 concurrent tool calls of 100 ms (run_tool_calls): {batch * 1000:.1f} ms")
    print(f"100 concurrent sync tool calls of 100 ms (run_tool_calls): {blocking * 1000:.1f} ms")
    print(f"100 concurrent tool calls of 100 ms (one agent round): {whole * 1000:.1f} ms")
    print(f"  target: under 300 ms: {verdict}")

    for _ in range(20):
        await run_with_rounds(1)  # warm up
    # The best of many runs: the overhead itself, without the noise of a busy machine.
    base = min([await run_with_rounds(0) for _ in range(100)])
    print(f"agent run with a direct answer (no tool round), best of 100: {base * 1000:.3f} ms")
    first = 0.0
    for rounds in (1, 10):
        total = min([await run_with_rounds(rounds) for _ in range(50)])
        per_round = (total - base) / rounds
        first = first or per_round
        print(
            "runner overhead per ReAct round (THINKING, TOOL_CALLING, OBSERVING), "
            f"{rounds} round(s), best of 50: {per_round * 1000:.3f} ms"
        )
    print(f"  target: one round under 1 ms: {'ok' if first < 0.001 else 'MISSED'}")


if __name__ == "__main__":
    asyncio.run(main())
