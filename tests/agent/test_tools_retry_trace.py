from __future__ import annotations

import asyncio
import random
from typing import Annotated, Any

import pytest
from pydantic import Field, ValidationError

from graphnb import GraphRuntimeError, GraphSetupError
from graphnb.agent import (
    ErrorInfo,
    MalformedToolCall,
    ModelError,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnavailable,
    RetryPolicy,
    RoundLimitExceeded,
    Tool,
    ToolDefinitionError,
    Toolset,
    TraceLog,
    classify_error,
    current_context,
    tool,
)


def plan(
    habit: Annotated[str, Field(description="The habit to plan for")],
    weeks: int = 4,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    """Make a weekly plan for a habit.

    More text that is not part of the description.
    """
    return {"habit": habit, "weeks": weeks, "tags": tags or []}


def test_schema_comes_from_the_signature() -> None:
    made = Tool.from_function(plan)
    assert made.name == "plan"
    assert made.description == "Make a weekly plan for a habit."
    params = made.parameters
    assert params["type"] == "object"
    assert params["required"] == ["habit"]
    assert params["properties"]["habit"] == {
        "type": "string",
        "description": "The habit to plan for",
    }
    assert params["properties"]["weeks"] == {"type": "integer", "default": 4}
    assert params["additionalProperties"] is False
    assert made.openai_schema()["function"]["name"] == "plan"


def test_arguments_are_validated_and_converted_before_the_call() -> None:
    made = Tool.from_function(plan)
    assert asyncio.run(made.invoke({"habit": "run", "weeks": "2"})) == {
        "habit": "run",
        "weeks": 2,
        "tags": [],
    }
    with pytest.raises(ValidationError):
        asyncio.run(made.invoke({"weeks": 2}))


def test_decorator_names_and_describes_tools() -> None:
    @tool(name="lookup", description="Find things.")
    async def find(q: str) -> str:
        return q

    assert (find.name, find.description, find.is_async) == ("lookup", "Find things.", True)
    assert asyncio.run(find.invoke({"q": "x"})) == "x"


def test_untyped_or_variadic_parameters_are_refused_naming_the_tool() -> None:
    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    def variadic(*args: int) -> int:
        return 0

    with pytest.raises(
        ToolDefinitionError, match=r"`untyped`.*'x' has no type annotation"
    ) as caught:
        Tool.from_function(untyped)
    assert caught.value.tool == "untyped"
    assert isinstance(caught.value, GraphSetupError)
    with pytest.raises(ToolDefinitionError, match="args"):
        Tool.from_function(variadic)


def test_names_endpoints_refuse_and_private_parameters_are_refused() -> None:
    def hidden(_token: str) -> str:
        return _token

    with pytest.raises(ToolDefinitionError, match=r"`<lambda>`: a tool's name must be"):
        Tool.from_function(lambda: None)
    with pytest.raises(ToolDefinitionError, match=r"`get weather`: a tool's name must be"):
        Tool.from_function(plan, name="get weather")
    with pytest.raises(ToolDefinitionError, match=r"`hidden`: parameter '_token' starts with '_'"):
        Tool.from_function(hidden)


def test_parameters_named_like_model_methods_are_ordinary_arguments() -> None:
    def post(json: str, schema: int = 1) -> str:
        return f"{json}:{schema}"

    made = Tool.from_function(post)
    assert sorted(made.parameters["properties"]) == ["json", "schema"]
    assert asyncio.run(made.invoke({"json": "x", "schema": 3})) == "x:3"


def test_toolset_refuses_duplicates_and_unknown_state_tools() -> None:
    with pytest.raises(ToolDefinitionError, match="two tools are named `plan`"):
        Toolset([plan, plan])
    with pytest.raises(ToolDefinitionError, match="unknown tool"):
        Toolset([plan], by_state={"THINKING": ["nope"]})


def test_current_context_outside_a_run_says_so() -> None:
    with pytest.raises(GraphRuntimeError, match="outside an agent run"):
        current_context()


# -- retries --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind", "retryable"),
    [
        (ModelRateLimited("x", model="m", retry_after=3), "rate_limited", True),
        (ModelServerError("x", model="m", status=503), "server", True),
        (ModelTimeout("x", model="m", after=1), "timeout", True),
        (ModelUnavailable("x", model="m"), "unavailable", True),
        (MalformedToolCall("x", model="m", tool="t", arguments="{"), "malformed", True),
        (ModelError("x", model="m"), "model", False),
        (RoundLimitExceeded("x", limit=3), "round_limit", False),
        (KeyError("x"), "internal", False),
    ],
)
def test_classifier_sorts_errors_by_kind(error: BaseException, kind: str, retryable: bool) -> None:
    info = classify_error(error)
    assert (info.kind, info.retryable) == (kind, retryable)


def test_backoff_grows_exponentially_up_to_the_cap() -> None:
    policy = RetryPolicy(base_delay=0.1, multiplier=3, max_delay=1.0, jitter=False)
    assert [round(policy.backoff(n), 3) for n in range(1, 5)] == [0.1, 0.3, 0.9, 1.0]


def test_full_jitter_stays_under_the_ceiling_and_is_reproducible() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    first = [policy.backoff(3, random.Random(7)) for _ in range(3)]
    again = [policy.backoff(3, random.Random(7)) for _ in range(3)]
    assert first == again
    draws = [policy.backoff(3, random.Random(seed)) for seed in range(200)]
    assert all(0.0 <= d <= 4.0 for d in draws)
    assert max(draws) - min(draws) > 2.0  # it really spreads


def test_decide_honours_retry_after_and_the_attempt_limit() -> None:
    policy = RetryPolicy(max_attempts=2, max_retry_after=10)
    limited = ErrorInfo("rate_limited", True, "busy", retry_after=4.0)
    assert policy.decide(limited, attempt=1).delay == 4.0
    assert not policy.decide(limited, attempt=2).retry
    too_long = ErrorInfo("rate_limited", True, "busy", retry_after=11.0)
    assert not policy.decide(too_long, attempt=1).retry


def test_policy_refuses_nonsense_naming_the_setting() -> None:
    with pytest.raises(ValueError, match="max_attempts must be at least 1, got 0"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="max_delay must not be negative, got -1"):
        RetryPolicy(max_delay=-1)
    with pytest.raises(ValueError, match="max_retry_after must not be negative, got -2"):
        RetryPolicy(max_retry_after=-2)
    with pytest.raises(ValueError, match=r"multiplier must be at least 1, got 0\.5"):
        RetryPolicy(multiplier=0.5)


# -- the trace ------------------------------------------------------------------------------


def test_failing_tools_counts_consecutive_failures_only() -> None:
    log = TraceLog()
    for name, ok in [("a", False), ("a", False), ("a", True), ("a", False), ("b", False)] + [
        ("b", False)
    ] * 2:
        log.add("tool_call", name, ok=ok)
    assert log.failing_tools(2) == {"a": 2, "b": 3}
    assert log.failing_tools(3) == {"b": 3}


def test_phase_stats_mean_p95_and_slowest_phase() -> None:
    log = TraceLog()
    for i in range(1, 21):
        log.add("phase", "THINKING", start=0, duration=i / 100)
    log.add("phase", "OBSERVING", start=0, duration=0.5)
    stats = log.phase_stats()
    assert stats["THINKING"].count == 20
    assert stats["THINKING"].mean == pytest.approx(0.105)
    assert stats["THINKING"].p95 == pytest.approx(0.19)
    assert stats["OBSERVING"].p95 == 0.5
    assert log.slowest_phase() == "OBSERVING"
    assert TraceLog().slowest_phase() is None


def test_span_times_a_block_and_marks_failures() -> None:
    log = TraceLog()
    with log.span("model_call", "m", round=1) as note:
        note["tokens"] = 3
    with pytest.raises(KeyError), log.span("tool_call", "t"):
        raise KeyError("x")
    first, second = log.records
    assert (first.ok, first.detail) == (True, {"round": 1, "tokens": 3})
    assert (second.ok, second.detail) == (False, {"error": "KeyError"})


def test_html_escapes_names_and_shows_failures() -> None:
    log = TraceLog()
    log.add("tool_call", "<script>", duration=0.1, ok=False)
    html = log._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "failed" in html


def test_parameter_descriptions_come_from_the_google_args_section() -> None:
    def book(
        city: str, nights: int = 1, note: Annotated[str, Field(description="Given")] = ""
    ) -> str:
        """Book a hotel.

        Args:
            city: Where to stay; a long description
                that wraps onto a second line.
            nights (int): How many nights.
            note: Ignored, the Field description wins.

        Returns:
            the booking id.
        """
        return city

    props = Tool.from_function(book).parameters["properties"]
    assert props["city"]["description"] == (
        "Where to stay; a long description that wraps onto a second line."
    )
    assert props["nights"]["description"] == "How many nights."
    assert props["note"]["description"] == "Given"
    assert Tool.from_function(book).description == "Book a hotel."


class Lookup:
    """Looks cities up in a table."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def __call__(self, city: Annotated[str, Field(description="City name")]) -> str:
        """Look a city up."""
        return self.table[city]


class AsyncLookup:
    async def __call__(self, city: str, days: int = 1) -> str:
        """Look a city up, slowly.

        Args:
            city: the city.
            days: how many days ahead.
        """
        await asyncio.sleep(0)
        return f"{city} in {days} day(s)"


def test_a_callable_object_is_a_tool_typed_by_its_call_method() -> None:
    made = Tool.from_function(Lookup({"Oslo": "rain"}), name="lookup")
    assert (made.name, made.description, made.is_async) == (
        "lookup",
        "Looks cities up in a table.",
        False,
    )
    assert made.parameters["properties"] == {"city": {"type": "string", "description": "City name"}}
    assert asyncio.run(made.invoke({"city": "Oslo"})) == "rain"


def test_an_async_callable_object_is_an_async_tool() -> None:
    made = Tool.from_function(AsyncLookup(), name="lookup")
    assert made.is_async
    assert made.description == "Look a city up, slowly."
    assert made.parameters["properties"]["days"] == {
        "type": "integer",
        "default": 1,
        "description": "how many days ahead.",
    }
    assert asyncio.run(made.invoke({"city": "Oslo", "days": "2"})) == "Oslo in 2 day(s)"
