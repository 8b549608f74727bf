from __future__ import annotations

import asyncio
import datetime
import json
import threading
import time
from typing import Any

import pytest

from graphnb import Chunk, NodeFinished
from graphnb.agent import (
    DEFAULT_FALLBACK,
    Hang,
    MalformedToolCall,
    Message,
    ModelRateLimited,
    ModelServerError,
    PhaseTimeouts,
    ReActAgent,
    RetryPolicy,
    ScriptedModel,
    ToolCall,
    ToolRateLimited,
    Toolset,
    TraceLog,
    call,
    current_context,
)

FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.002)


def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


async def flights(origin: str, to: str) -> list[str]:
    """Flights between two cities."""
    await asyncio.sleep(0.01)
    return [f"{origin}-{to} 9:00"]


def transitions(result: Any) -> list[str]:
    return [r.name for r in result.trace.of("transition")]


def test_direct_answer_goes_idle_thinking_responding_completed() -> None:
    agent = ReActAgent(ScriptedModel(["Hello there."]))
    result = agent.run("hi")
    assert (result.status, result.answer, result.ok) == ("completed", "Hello there.", True)
    assert transitions(result) == [
        "IDLE -> THINKING",
        "THINKING -> RESPONDING",
        "RESPONDING -> COMPLETED",
    ]
    assert [(m.role, m.content) for m in result.messages] == [
        ("user", "hi"),
        ("assistant", "Hello there."),
    ]


def test_tool_round_runs_tools_concurrently_and_feeds_results_back() -> None:
    model = ScriptedModel(
        [[call("weather", city="Beijing"), call("flights", origin="PEK", to="SHA")], "Go."]
    )
    result = ReActAgent(model, [weather, flights]).run("Weather and flights?")
    assert result.answer == "Go."
    assert result.rounds == 2
    second = model.requests[1].messages
    tool_replies = {m.name: m.content for m in second if m.role == "tool"}
    assert tool_replies == {"weather": "sunny in Beijing", "flights": '["PEK-SHA 9:00"]'}
    assert model.requests[0].tools == ("weather", "flights")
    assert {r.name for r in result.trace.of("tool_call")} == {"weather", "flights"}


def test_stream_yields_tokens_tool_activity_and_state_changes() -> None:
    model = ScriptedModel([call("weather", city="Oslo"), "It is sunny."])
    agent = ReActAgent(model, [weather])

    async def collect() -> list[Any]:
        return [event async for event in agent.astream("Weather?", mode="events")]

    events = asyncio.run(collect())
    custom = [e.value for e in events if isinstance(e, Chunk) and e.field is None]
    tokens = [c["text"] for c in custom if c["type"] == "token"]
    assert "".join(tokens) == "It is sunny."
    assert len(tokens) == 3
    kinds = [c["type"] for c in custom]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("token")
    finished = [e.node for e in events if isinstance(e, NodeFinished)]
    assert finished == [
        "IDLE",
        "THINKING",
        "TOOL_CALLING",
        "OBSERVING",
        "THINKING",
        "RESPONDING",
        "COMPLETED",
    ]
    moves = [(c["source"], c["target"]) for c in custom if c["type"] == "transition"]
    assert moves[0] == ("IDLE", "THINKING")
    assert moves[-1] == ("RESPONDING", "COMPLETED")


def test_a_stream_left_early_closes_cleanly_from_another_context() -> None:
    trace = TraceLog()
    agent = ReActAgent(ScriptedModel(["one two three"]))

    async def leave_early() -> Any:
        stream: Any = agent.astream("hi", mode="custom", trace=trace)
        first = await anext(stream)
        # The event loop closes an abandoned generator from a task of its own.
        await asyncio.create_task(stream.aclose())
        return first

    first = asyncio.run(leave_early())
    assert first["type"] == "transition"
    assert trace.path() == [("IDLE", "THINKING")]


def test_tool_results_reach_the_model_as_readable_unicode() -> None:
    def city(name: str) -> dict[str, str]:
        """A city's data."""
        return {"name": name, "temp": "20\u00b0C"}

    model = ScriptedModel([call("city", name="Z\u00fcrich"), "ok"])
    ReActAgent(model, [city]).run("?")
    (reply,) = [m for m in model.requests[1].messages if m.role == "tool"]
    assert reply.content == '{"name": "Z\u00fcrich", "temp": "20\u00b0C"}'


def test_run_context_is_visible_inside_tools_in_their_own_tasks_and_threads() -> None:
    seen: list[tuple[str, Any, str | None]] = []

    async def async_probe() -> str:
        """Probe."""
        context = current_context()
        seen.append(("async", context.data["user"], context.phase))
        return "ok"

    def sync_probe() -> str:
        """Probe."""
        context = current_context()
        seen.append(("sync", context.data["user"], context.phase))
        return "ok"

    model = ScriptedModel([[call("async_probe"), call("sync_probe")], "done"])
    agent = ReActAgent(model, [async_probe, sync_probe])
    result = agent.run("go", data={"user": "ada"})
    assert result.ok
    assert sorted(seen) == [("async", "ada", "TOOL_CALLING"), ("sync", "ada", "TOOL_CALLING")]


def test_rate_limited_model_call_is_retried_after_retry_after() -> None:
    model = ScriptedModel([ModelRateLimited("busy", model="m", retry_after=0.05), "Fine."])
    agent = ReActAgent(model, retry=FAST)
    started = time.perf_counter()
    result = agent.run("hi")
    assert result.answer == "Fine."
    assert time.perf_counter() - started >= 0.05
    retry = result.trace.of("retry")[0]
    assert (retry.name, retry.ok, retry.duration) == ("THINKING", True, 0.05)
    assert retry.detail["reason"] == "Retry-After"
    assert transitions(result)[:3] == [
        "IDLE -> THINKING",
        "THINKING -> FAILED",
        "FAILED -> THINKING",
    ]


def test_server_errors_exhaust_the_attempts_then_reset_with_the_fallback() -> None:
    boom = [ModelServerError("HTTP 500: Traceback (most recent call last)", model="m", status=500)]
    model = ScriptedModel(boom * 3)
    result = ReActAgent(model, retry=FAST).run("hi")
    assert result.status == "failed"
    assert result.answer == DEFAULT_FALLBACK
    assert "Traceback" not in result.answer
    assert "500" not in result.answer
    assert result.failure is not None
    assert (result.failure.kind, result.failure.attempt) == ("server", 3)
    assert result.failure.decision == "reset: gave up after 3 attempt(s)"
    assert transitions(result)[-1] == "FAILED -> IDLE"
    assert [r.ok for r in result.trace.of("retry")] == [True, True, False]
    assert result.state.phase == "IDLE"


def test_a_bug_in_the_model_is_not_retried_and_never_reaches_the_user() -> None:
    model = ScriptedModel([ZeroDivisionError("division by zero at secret.py line 3")])
    result = ReActAgent(model, fallback_answer="Please try later.").run("hi")
    assert result.answer == "Please try later."
    assert result.failure is not None
    assert result.failure.kind == "internal"
    assert "ZeroDivisionError" in result.failure.message
    assert result.messages[-1].content == "Please try later."


def test_retry_after_longer_than_allowed_gives_up_at_once() -> None:
    model = ScriptedModel([ModelRateLimited("busy", model="m", retry_after=120.0), "never"])
    policy = RetryPolicy(max_attempts=5, max_retry_after=1.0)
    started = time.perf_counter()
    result = ReActAgent(model, retry=policy).run("hi")
    assert time.perf_counter() - started < 1.0
    assert result.status == "failed"
    assert result.failure is not None
    assert "max_retry_after" in (result.failure.decision or "")
    assert model.remaining == 1


def test_thinking_timeout_fires_timeout_and_retries() -> None:
    model = ScriptedModel([Hang(), "Back."])
    agent = ReActAgent(model, retry=FAST, timeouts=PhaseTimeouts(thinking=0.05))
    result = agent.run("hi")
    assert result.answer == "Back."
    failed = [r for r in result.trace.of("transition") if r.name == "THINKING -> FAILED"]
    assert failed[0].detail["event"] == "TIMEOUT"


def test_a_hang_that_ends_plays_its_next_step_and_needs_one() -> None:
    model = ScriptedModel([Hang(0.01, then="Late but here.")])
    assert ReActAgent(model).run("hi").answer == "Late but here."
    with pytest.raises(ValueError, match=r"Hang\(0\.5\) answers after 0\.5s"):
        Hang(0.5)


def test_malformed_tool_call_is_retried() -> None:
    bad = MalformedToolCall("bad json", model="m", tool="weather", arguments="{oops")
    model = ScriptedModel([bad, "Recovered."])
    result = ReActAgent(model, [weather], retry=FAST).run("hi")
    assert result.answer == "Recovered."
    assert result.trace.of("retry")[0].detail["error"] == "malformed"


def test_round_limit_ends_in_failed_with_the_reason() -> None:
    model = ScriptedModel([call("weather", city="X")] * 10)
    result = ReActAgent(model, [weather], max_rounds=2, retry=FAST).run("loop forever")
    assert result.status == "failed"
    assert result.rounds == 2
    assert result.failure is not None
    assert result.failure.kind == "round_limit"
    assert "2 ReAct round(s)" in result.failure.message
    assert result.failure.decision == "reset: round_limit errors are not retried"
    assert "THINKING -> FAILED" in transitions(result)
    assert result.answer == DEFAULT_FALLBACK


def test_all_or_nothing_failure_goes_to_failed_and_retries_the_tools() -> None:
    attempts = {"n": 0}

    async def flaky(city: str) -> str:
        """Sometimes fails."""
        attempts["n"] += 1
        if attempts["n"] == 1:
            raise ConnectionError("backend down")
        return f"ok {city}"

    model = ScriptedModel([[call("flaky", city="A"), call("weather", city="B")], "Done."])
    agent = ReActAgent(model, [flaky, weather], batch_policy="all_or_nothing", retry=FAST)
    result = agent.run("go")
    assert result.answer == "Done."
    assert "FAILED -> TOOL_CALLING" in transitions(result)
    assert len(model.requests) == 2  # the model was not asked again in between
    replies = [m.content for m in model.requests[1].messages if m.role == "tool"]
    assert replies == ["ok A", "sunny in B"]


def test_all_or_nothing_timeout_fires_timeout() -> None:
    async def stuck() -> str:
        """Never answers."""
        await asyncio.sleep(10)
        return "late"

    model = ScriptedModel([call("stuck"), "unused"])
    agent = ReActAgent(
        model,
        [stuck],
        batch_policy="all_or_nothing",
        call_timeout=0.02,
        retry=RetryPolicy(max_attempts=1),
    )
    result = agent.run("go")
    assert result.status == "failed"
    assert result.failure is not None
    assert (result.failure.phase, result.failure.event) == ("TOOL_CALLING", "TIMEOUT")
    # the conversation stays valid: the unanswered call gets a closing tool reply
    roles = [m.role for m in result.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]


def test_collect_policy_lets_the_model_observe_failures() -> None:
    def broken(city: str) -> str:
        """Always fails."""
        raise RuntimeError("nope")

    model = ScriptedModel([[call("broken", city="A"), call("weather", city="B")], "Partly."])
    result = ReActAgent(model, [broken, weather]).run("go")
    assert result.answer == "Partly."
    replies = [m.content for m in model.requests[1].messages if m.role == "tool"]
    assert replies == ["error (error): RuntimeError: nope", "sunny in B"]


def test_observing_error_and_timeout_go_to_failed_and_retry_tools() -> None:
    calls = {"observe": 0}

    async def observe(results: Any) -> None:
        calls["observe"] += 1
        if calls["observe"] == 1:
            raise ValueError("inconsistent")
        if calls["observe"] == 2:
            await asyncio.sleep(10)

    model = ScriptedModel([call("weather", city="A"), "Ok."])
    policy = RetryPolicy(max_attempts=3, base_delay=0.001, classify=_always_retry)
    agent = ReActAgent(
        model, [weather], observe=observe, retry=policy, timeouts=PhaseTimeouts(observing=0.02)
    )
    result = agent.run("go")
    assert result.answer == "Ok."
    failed = [
        r.detail["event"] for r in result.trace.of("transition") if r.name == "OBSERVING -> FAILED"
    ]
    assert failed == ["ERROR", "TIMEOUT"]
    assert transitions(result).count("FAILED -> TOOL_CALLING") == 2


def test_responding_error_and_timeout_go_to_failed_and_retry_thinking() -> None:
    calls = {"n": 0}

    async def respond(text: str) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyError("template")
        if calls["n"] == 2:
            await asyncio.sleep(10)
        return text.upper()

    model = ScriptedModel(["one", "two", "three"])
    policy = RetryPolicy(max_attempts=3, base_delay=0.001, classify=lambda e: _always_retry(e))
    agent = ReActAgent(
        model, respond=respond, retry=policy, timeouts=PhaseTimeouts(responding=0.02)
    )
    result = agent.run("go")
    assert result.answer == "THREE"
    failed = [
        r.detail["event"] for r in result.trace.of("transition") if r.name == "RESPONDING -> FAILED"
    ]
    assert failed == ["ERROR", "TIMEOUT"]
    assert transitions(result).count("FAILED -> THINKING") == 2


def test_respond_returning_no_text_fails_the_phase_instead_of_raising() -> None:
    agent = ReActAgent(
        ScriptedModel(["draft"]), respond=lambda text: None, retry=RetryPolicy(max_attempts=1)
    )
    result = agent.run("hi")
    assert (result.status, result.answer) == ("failed", DEFAULT_FALLBACK)
    assert result.failure is not None
    assert (result.failure.phase, result.failure.kind) == ("RESPONDING", "internal")
    assert result.failure.message == (
        "TypeError: respond returned NoneType None; expected the answer as a str"
    )


def test_tools_given_to_a_state_the_machine_lacks_are_refused() -> None:
    tools = Toolset([weather], by_state={"THINKIN": ["weather"], "TOOL_CALLING": ["weather"]})
    with pytest.raises(ValueError, match=r"gives tools to THINKIN, .* not states of the ReAct"):
        ReActAgent(ScriptedModel([]), tools)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"call_timeout": 0}, "call_timeout must be a positive number of seconds or None, got 0"),
        ({"batch_deadline": -1}, "batch_deadline must be a positive number of seconds"),
        ({"max_rounds": 0}, "max_rounds must be at least 1, got 0"),
        ({"batch_policy": "some"}, "batch_policy must be 'collect' or 'all_or_nothing'"),
        ({"max_tool_threads": 0}, "max_tool_threads must be a positive int, got 0"),
    ],
)
def test_nonsense_options_are_refused_naming_them(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ReActAgent(ScriptedModel([]), **options)


def test_one_round_runs_100_sync_tools_at_once() -> None:
    barrier = threading.Barrier(100, timeout=5)

    def meet(i: int) -> int:
        """Wait for the other calls."""
        barrier.wait()
        return i

    model = ScriptedModel([[call("meet", i=i) for i in range(100)], "Met."])
    result = ReActAgent(model, [meet]).run("go")
    assert result.answer == "Met."
    assert [r.ok for r in result.trace.of("tool_call")] == [True] * 100


def test_max_tool_threads_bounds_a_round() -> None:
    names: set[str] = set()

    def where() -> None:
        """Note the thread."""
        time.sleep(0.02)
        names.add(threading.current_thread().name)

    model = ScriptedModel([[call("where")] * 9, "Done."])
    result = ReActAgent(model, [where], max_tool_threads=3).run("go")
    assert result.answer == "Done."
    assert len(names) == 3


class _BreaksAfter:
    """A model that streams ``text`` and then fails with ``error``."""

    name = "breaks-after"

    def __init__(self, text: str, error: Exception) -> None:
        self.text, self.error = text, error

    async def complete(self, messages: Any, *, tools: Any = (), on_token: Any = None) -> Any:
        for word in self.text.split(" "):
            on_token(word + " ")
        raise self.error


def test_a_failed_phase_records_what_it_streamed_and_the_stream_withdraws_it() -> None:
    error = ModelServerError("boom", model="m", status=502)
    agent = ReActAgent(_BreaksAfter("It is", error), retry=RetryPolicy(max_attempts=1))

    async def collect() -> list[Any]:
        return [e async for e in agent.astream("hi", mode="custom")]

    events = asyncio.run(collect())
    kinds = [e["type"] for e in events if e["type"] != "transition"]
    assert kinds == ["token", "token", "retry", "abandoned"]
    assert events[-2]["type"] == "abandoned"  # before the RESET's transition
    assert events[-2]["text"] == "It is "
    result = agent.run("hi")
    assert result.failure is not None
    assert result.failure.streamed == "It is "


def test_a_failure_before_any_token_withdraws_nothing() -> None:
    model = ScriptedModel([ModelServerError("boom", model="m", status=502)])
    agent = ReActAgent(model, retry=RetryPolicy(max_attempts=1))

    async def collect() -> list[Any]:
        return [e async for e in agent.astream("hi", mode="custom")]

    assert "abandoned" not in [e["type"] for e in asyncio.run(collect())]


def test_phase_timeouts_must_be_positive() -> None:
    with pytest.raises(ValueError, match=r"PhaseTimeouts\.observing must be a positive"):
        PhaseTimeouts(observing=0)


def _always_retry(error: BaseException) -> Any:
    from graphnb.agent import ErrorInfo

    return ErrorInfo("internal", True, repr(error))


def test_each_state_exposes_its_own_tools() -> None:
    def secret() -> str:
        """Not for the model."""
        return "secret"

    tools = Toolset(
        [weather, secret], by_state={"THINKING": ["weather"], "TOOL_CALLING": ["weather"]}
    )
    model = ScriptedModel([call("secret"), "ok"])
    result = ReActAgent(model, tools).run("go")
    assert model.requests[0].tools == ("weather",)
    reply = next(m for m in model.requests[1].messages if m.role == "tool")
    assert reply.content == "error (not-allowed): tool `secret` is not available now"
    assert result.ok


def test_trace_aggregates_failing_tools_and_phase_durations() -> None:
    def down(n: int) -> str:
        """Always fails."""
        raise ConnectionError("down")

    script: list[Any] = [call("down", n=i) for i in range(3)] + ["gave up on it"]
    result = ReActAgent(ScriptedModel(script), [down, weather]).run("go")
    trace = result.trace
    assert trace.failing_tools(3) == {"down": 3}
    assert trace.failing_tools(4) == {}
    stats = trace.phase_stats()
    assert stats["THINKING"].count == 4
    assert stats["TOOL_CALLING"].count == 3
    assert stats["THINKING"].p95 >= stats["THINKING"].mean > 0
    assert trace.slowest_phase() in stats
    exported = json.loads(trace.to_json())
    assert {r["kind"] for r in exported} == {"transition", "phase", "model_call", "tool_call"}
    html = trace._repr_html_()
    assert "<table" in html
    assert "graphnb-timeline" in html
    assert "TOOL_CALLING" in html


def test_agent_is_shared_by_concurrent_runs_with_separate_traces() -> None:
    class Echo:
        name = "echo"

        async def complete(self, messages: Any, *, tools: Any = (), on_token: Any = None) -> Any:
            from graphnb.agent import ModelReply

            await asyncio.sleep(0.01)
            return ModelReply(f"echo {messages[-1].content}")

    agent = ReActAgent(Echo())

    async def both() -> list[Any]:
        return list(await asyncio.gather(*(agent.arun(f"m{i}") for i in range(5))))

    results = asyncio.run(both())
    assert [r.answer for r in results] == [f"echo m{i}" for i in range(5)]
    assert all(len(r.trace.of("model_call")) == 1 for r in results)


def test_run_inside_an_event_loop_points_to_arun() -> None:
    agent = ReActAgent(ScriptedModel(["x"]))

    async def inside() -> None:
        agent.run("hi")

    with pytest.raises(RuntimeError, match=r"await agent\.arun"):
        asyncio.run(inside())


def test_agent_draws_as_the_react_machine() -> None:
    agent = ReActAgent(ScriptedModel([]))
    assert agent.spec.metadata["kind"] == "machine"
    assert "RETRY [retry_tools]" in agent._repr_mimebundle_()["image/svg+xml"]


def test_tool_calls_and_messages_round_trip_through_json() -> None:
    message = Message(role="assistant", tool_calls=[ToolCall("weather", {"city": "A"}, "c1")])
    assert Message.model_validate_json(message.model_dump_json()) == message


def test_the_path_taken_draws_on_the_machine_diagram() -> None:
    from graphnb.agent import REACT_MACHINE
    from graphnb.diagram import extract, to_svg

    model = ScriptedModel([ModelServerError("x", model="m", status=500), "ok"])
    result = ReActAgent(model, retry=FAST).run("hi")
    trace = result.trace.diagram_trace()
    assert trace.edges == (
        ("IDLE", "THINKING"),
        ("THINKING", "FAILED"),
        ("FAILED", "THINKING"),
        ("THINKING", "RESPONDING"),
        ("RESPONDING", "COMPLETED"),
    )
    assert trace.steps["THINKING"] == (1, 3)
    diagram = extract(REACT_MACHINE)
    taken = {diagram.edges[i].label for i in trace.taken_edges(diagram)}
    assert "RETRY [retry_thinking]" in taken
    assert "RETRY [retry_tools]" not in taken
    assert "NEED_TOOL" not in taken
    assert "gnb-taken" in to_svg(REACT_MACHINE, trace=trace)


def tool_results(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["status"], e["content"]) for e in events if e["type"] == "tool_result"]


def run_streamed(agent: ReActAgent, prompt: str) -> list[dict[str, Any]]:
    async def collect() -> list[dict[str, Any]]:
        return [event async for event in agent.astream(prompt, mode="custom")]

    return asyncio.run(collect())


def test_a_tool_returning_a_dict_keyed_by_dates_or_tuples_is_observed_as_json() -> None:
    def steps(user: str) -> dict[object, int]:
        """Steps per day."""
        return {datetime.date(2024, 1, 1): 5000, (2024, 1, 2): 7000}

    model = ScriptedModel([call("steps", user="ann"), "You walked a lot."])
    agent = ReActAgent(model, [steps])
    result = agent.run("How much did I walk?")
    assert (result.status, result.answer) == ("completed", "You walked a lot.")
    observed = '{"2024-01-01": 5000, "2024,1,2": 7000}'
    assert [m.content for m in result.messages if m.role == "tool"] == [observed]
    streamed = ReActAgent(ScriptedModel([call("steps", user="ann"), "ok"]), [steps])
    assert tool_results(run_streamed(streamed, "go")) == [("success", observed)]


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("cannot print")


class Opaque:
    def __str__(self) -> str:
        raise ValueError("cannot print")


def raises_unprintable() -> str:
    """Fails with an exception that cannot be printed."""
    raise Unprintable


def returns_opaque() -> object:
    """Returns a value that is neither JSON nor printable."""
    return Opaque()


@pytest.mark.parametrize(
    ("tool", "observed"),
    [
        (raises_unprintable, "error (error): Unprintable: (its str() raised ValueError)"),
        (
            returns_opaque,
            "error (error): its result cannot be stored as JSON: ValueError: cannot print",
        ),
    ],
    ids=["raises", "returns"],
)
def test_a_tool_that_cannot_be_printed_fails_only_its_own_call(tool: Any, observed: str) -> None:
    name = tool.__name__
    model = ScriptedModel([[call(name), call("weather", city="Oslo")], "Partly."])
    result = ReActAgent(model, [tool, weather]).run("go")
    assert (result.status, result.answer) == ("completed", "Partly.")
    replies = [m.content for m in model.requests[1].messages if m.role == "tool"]
    assert replies == [observed, "sunny in Oslo"]
    model = ScriptedModel([call(name), "Partly."])
    assert tool_results(run_streamed(ReActAgent(model, [tool]), "go")) == [("failure", observed)]


async def slow_but_fine(x: int) -> str:
    """Answers after a while."""
    await asyncio.sleep(5)
    return "ok"


def test_all_or_nothing_fails_with_the_call_that_failed_not_a_cancelled_sibling() -> None:
    def store(n: int) -> str:
        """Store a number."""
        return "stored"

    model = ScriptedModel([[call("slow_but_fine", x=1), call("store", n="not a number")], "unused"])
    agent = ReActAgent(
        model,
        [slow_but_fine, store],
        batch_policy="all_or_nothing",
        retry=RetryPolicy(base_delay=0),
    )
    result = agent.run("go")
    assert result.status == "failed"
    assert result.failure is not None
    assert (result.failure.kind, result.failure.retryable, result.failure.attempt) == (
        "tool",
        False,
        1,
    )
    assert result.failure.message.startswith("tool `store`")
    assert "invalid-arguments" in result.failure.message
    assert [t.name for t in result.trace.of("phase")].count("TOOL_CALLING") == 1


def test_all_or_nothing_honours_the_retry_after_of_the_call_that_was_rate_limited() -> None:
    def quota() -> str:
        """A rate-limited backend."""
        raise ToolRateLimited(retry_after=60)

    model = ScriptedModel([[call("slow_but_fine", x=1), call("quota")], "unused"])
    agent = ReActAgent(model, [slow_but_fine, quota], batch_policy="all_or_nothing")
    result = agent.run("go")
    assert result.failure is not None
    assert (result.failure.kind, result.failure.retryable, result.failure.retry_after) == (
        "rate_limited",
        True,
        60,
    )
    assert result.failure.message.startswith("tool `quota`")
    assert result.failure.decision is not None
    assert result.failure.decision.startswith("reset")  # 60 s is over max_retry_after
