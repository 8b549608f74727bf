from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("openai")

from graphnb.agent import (
    DEFAULT_FALLBACK,
    MalformedToolCall,
    Message,
    ModelError,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnavailable,
    OpenAIChatModel,
    PhaseTimeouts,
    ReActAgent,
    RetryPolicy,
    Tool,
)
from graphnb.agent.openai_model import retry_after_seconds

USER = [Message(role="user", content="hi")]


def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


def with_model(
    base_url: str, body: Callable[[OpenAIChatModel], Awaitable[Any]], **options: Any
) -> Any:
    async def main() -> Any:
        model = OpenAIChatModel("fake-model", base_url=base_url, api_key="test", **options)
        try:
            return await body(model)
        finally:
            await model.aclose()

    return asyncio.run(main())


def test_streams_tokens_over_server_sent_events(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.text("It is sunny today."))
    tokens: list[str] = []
    tool = Tool.from_function(weather)
    reply = with_model(
        fake_openai.base_url, lambda m: m.complete(USER, tools=[tool], on_token=tokens.append)
    )
    assert reply.text == "It is sunny today."
    assert tokens == ["It ", "is ", "sunny ", "today."]
    request = fake_openai.requests[0]
    assert request["stream"] is True
    assert request["model"] == "fake-model"
    assert request["messages"] == [{"role": "user", "content": "hi"}]
    assert request["tools"] == [tool.openai_schema()]


def test_answers_without_streaming(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.text("Whole answer."))
    reply = with_model(fake_openai.base_url, lambda m: m.complete(USER), stream=False)
    assert (reply.text, reply.tool_calls) == ("Whole answer.", ())
    assert "stream" not in fake_openai.requests[0]


@pytest.mark.parametrize("stream", [True, False])
def test_tool_calls_are_parsed_with_their_ids(fake_openai: Any, stream: bool) -> None:
    fake_openai.play(
        fake_openai.tool_calls(
            ("call_a", "weather", '{"city": "Beijing"}'),
            ("call_b", "weather", '{"city": "Shanghai"}'),
        )
    )
    reply = with_model(fake_openai.base_url, lambda m: m.complete(USER), stream=stream)
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_a", "weather", {"city": "Beijing"}),
        ("call_b", "weather", {"city": "Shanghai"}),
    ]


def test_streamed_tool_calls_without_an_index_stay_apart(fake_openai: Any) -> None:
    fake_openai.play(
        fake_openai.whole_calls(
            ("call_a", "weather", '{"city": "Beijing"}'),
            ("call_b", "flights", '{"to": "Shanghai"}'),
        )
    )
    reply = with_model(fake_openai.base_url, lambda m: m.complete(USER))
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_a", "weather", {"city": "Beijing"}),
        ("call_b", "flights", {"to": "Shanghai"}),
    ]


@pytest.mark.parametrize("stream", [True, False])
def test_rate_limit_becomes_a_typed_error_with_retry_after(fake_openai: Any, stream: bool) -> None:
    fake_openai.play(fake_openai.status(429, Retry_After="1.5"))
    with pytest.raises(ModelRateLimited) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER), stream=stream)
    assert caught.value.retry_after == 1.5
    assert caught.value.model == "fake-model"
    assert len(fake_openai.requests) == 1  # the client itself does not retry


def test_server_error_becomes_a_typed_error(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.status(500))
    with pytest.raises(ModelServerError) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER))
    assert caught.value.status == 500


def test_client_error_is_a_plain_model_error(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.status(400))
    with pytest.raises(ModelError) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER))
    assert type(caught.value) is ModelError
    assert "HTTP 400" in str(caught.value)


@pytest.mark.parametrize("stream", [True, False])
def test_malformed_tool_call_json_is_reported_with_the_raw_text(
    fake_openai: Any, stream: bool
) -> None:
    fake_openai.play(fake_openai.tool_calls(("call_x", "weather", '{"city": "Bei')))
    with pytest.raises(MalformedToolCall) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER), stream=stream)
    assert (caught.value.tool, caught.value.arguments) == ("weather", '{"city": "Bei')


def test_a_hanging_endpoint_times_out(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.hang())
    started = time.perf_counter()
    with pytest.raises(ModelTimeout) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER), timeout=0.3)
    assert caught.value.after == 0.3
    assert time.perf_counter() - started < 5


def test_an_unreachable_endpoint_is_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelUnavailable):
        with_model(f"http://127.0.0.1:{port}/v1", lambda m: m.complete(USER), timeout=2)


def test_conversation_is_sent_in_the_chat_completions_format(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.tool_calls(("call_1", "weather", '{"city": "Oslo"}')))
    fake_openai.play(fake_openai.text("Sunny in Oslo."))

    async def body(model: OpenAIChatModel) -> Any:
        return await ReActAgent(model, [weather], system_prompt="Be brief.").arun("Weather?")

    result = with_model(fake_openai.base_url, body)
    assert result.answer == "Sunny in Oslo."
    assert fake_openai.requests[1]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": json.dumps({"city": "Oslo"})},
                }
            ],
        },
        {"role": "tool", "content": "sunny in Oslo", "tool_call_id": "call_1"},
    ]


def test_agent_retries_after_429_honouring_retry_after_over_http(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.status(429, Retry_After="0.2"), fake_openai.text("Fine now."))

    async def body(model: OpenAIChatModel) -> Any:
        return await ReActAgent(model).arun("hi")

    started = time.perf_counter()
    result = with_model(fake_openai.base_url, body)
    assert result.answer == "Fine now."
    assert time.perf_counter() - started >= 0.2
    retry = result.trace.of("retry")[0]
    assert (retry.detail["error"], retry.duration) == ("rate_limited", 0.2)


def test_agent_turns_repeated_500s_into_the_fallback_answer_over_http(fake_openai: Any) -> None:
    fake_openai.play(*[fake_openai.status(500)] * 3)

    async def body(model: OpenAIChatModel) -> Any:
        policy = RetryPolicy(max_attempts=3, base_delay=0.01)
        return await ReActAgent(model, retry=policy).arun("hi")

    result = with_model(fake_openai.base_url, body)
    assert result.answer == DEFAULT_FALLBACK
    assert result.status == "failed"
    assert len(fake_openai.requests) == 3
    assert "500" not in result.answer
    assert "scripted" not in result.answer


def test_agent_recovers_from_a_hang_and_malformed_json_over_http(fake_openai: Any) -> None:
    fake_openai.play(
        fake_openai.hang(),
        fake_openai.tool_calls(("call_1", "weather", "{not json")),
        fake_openai.text("Recovered."),
    )

    async def body(model: OpenAIChatModel) -> Any:
        policy = RetryPolicy(max_attempts=3, base_delay=0.01)
        return await ReActAgent(model, retry=policy).arun("hi")

    result = with_model(fake_openai.base_url, body, timeout=0.3)
    assert result.answer == "Recovered."
    assert [r.detail["error"] for r in result.trace.of("retry")] == ["timeout", "malformed"]


def test_a_stream_that_stalls_midway_times_out_after_its_first_tokens(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.stall("Half an ans"))
    tokens: list[str] = []
    with pytest.raises(ModelTimeout):
        with_model(
            fake_openai.base_url, lambda m: m.complete(USER, on_token=tokens.append), timeout=0.3
        )
    assert tokens == ["Half an ans"]


@pytest.mark.parametrize("reply", ["hang", "stall"])
@pytest.mark.parametrize(
    ("client_timeout", "phase_timeout"),
    [(0.2, 30.0), (30.0, 0.2)],
    ids=["client-timer-first", "phase-timer-first"],
)
def test_a_model_that_does_not_answer_in_time_fires_timeout_whichever_timer_fires(
    fake_openai: Any, reply: str, client_timeout: float, phase_timeout: float
) -> None:
    fake_openai.play(fake_openai.hang() if reply == "hang" else fake_openai.stall("Half an"))

    async def body(model: OpenAIChatModel) -> Any:
        agent = ReActAgent(
            model,
            retry=RetryPolicy(max_attempts=1),
            timeouts=PhaseTimeouts(thinking=phase_timeout),
        )
        return await agent.arun("hi")

    started = time.perf_counter()
    result = with_model(fake_openai.base_url, body, timeout=client_timeout)
    assert time.perf_counter() - started < 5
    assert result.status == "failed"
    assert result.failure is not None
    assert (result.failure.phase, result.failure.event, result.failure.kind) == (
        "THINKING",
        "TIMEOUT",
        "timeout",
    )
    assert ("THINKING", "FAILED", "TIMEOUT") in [
        (*r.name.split(" -> "), r.detail["event"]) for r in result.trace.of("transition")
    ]


def on_screen(events: list[dict[str, Any]]) -> str:
    """What a display that shows tokens as they stream, and honours withdrawals, shows."""
    text = ""
    for event in events:
        if event["type"] == "token":
            text += event["text"]
        elif event["type"] == "abandoned":
            assert text.endswith(event["text"]), (text, event)
            text = text[: len(text) - len(event["text"])] + event["replacement"]
    return text


@pytest.mark.parametrize(
    ("attempts", "answer"), [(1, DEFAULT_FALLBACK), (2, "Fine now.")], ids=["reset", "retry"]
)
def test_tokens_streamed_before_a_stall_are_withdrawn_from_the_stream(
    fake_openai: Any, attempts: int, answer: str
) -> None:
    fake_openai.play(fake_openai.stall("Half an ans"), fake_openai.text("Fine now."))

    async def body(model: OpenAIChatModel) -> Any:
        agent = ReActAgent(model, retry=RetryPolicy(max_attempts=attempts, base_delay=0.01))
        return [event async for event in agent.astream("hi", mode="custom")]

    events = with_model(fake_openai.base_url, body, timeout=0.3)
    abandoned = [e for e in events if e["type"] == "abandoned"]
    assert abandoned == [
        {
            "type": "abandoned",
            "phase": "THINKING",
            "text": "Half an ans",
            "replacement": "" if attempts > 1 else DEFAULT_FALLBACK,
        }
    ]
    assert on_screen(events) == answer


def test_retry_after_ms_is_preferred_when_sent(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.status(429, Retry_After="2", retry_after_ms="250"))
    with pytest.raises(ModelRateLimited) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER))
    assert caught.value.retry_after == 0.25


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("3", 3.0),
        ("-3", 0.0),
        ("nan", None),
        ("later", None),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Thu, 01 Jan 1970 00:00:00 -0000", 0.0),
    ],
)
def test_retry_after_header_values(header: str, seconds: float | None) -> None:
    assert retry_after_seconds(header) == seconds


def test_retry_after_dates_without_a_zone_are_read_as_utc() -> None:
    found = retry_after_seconds("Fri, 31 Dec 9999 23:59:59 -0000")
    assert found is not None
    assert found > 200 * 365 * 86400


BAD_REPLIES = {
    "html": ("raw", "<html>502 Bad Gateway</html>", "text/html"),
    "broken-json": ("raw", "{not json", "application/json"),
    "no-choices": ("no_choices",),
}


def bad_reply(fake_openai: Any, name: str) -> Any:
    kind, *args = BAD_REPLIES[name]
    return getattr(fake_openai, kind)(*args)


@pytest.mark.parametrize(
    ("name", "stream", "what"),
    [
        ("html", True, "sent text/html where an event stream was asked for"),
        ("html", False, "without any chat completion choice (text/html)"),
        ("broken-json", True, "sent application/json where an event stream was asked for"),
        ("broken-json", False, "sent a reply that is not JSON"),
        ("no-choices", True, "sent a stream without any chat completion choice"),
        ("no-choices", False, "without any chat completion choice (application/json)"),
    ],
)
def test_a_reply_that_is_not_a_chat_completion_is_a_server_error_naming_the_endpoint(
    fake_openai: Any, name: str, stream: bool, what: str
) -> None:
    fake_openai.play(bad_reply(fake_openai, name))
    with pytest.raises(ModelServerError) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER), stream=stream)
    assert caught.value.status == 200
    assert caught.value.model == "fake-model"
    assert fake_openai.base_url in str(caught.value)
    assert what in str(caught.value)


def test_an_error_event_in_the_stream_is_a_server_error_with_its_message(
    fake_openai: Any,
) -> None:
    fake_openai.play(fake_openai.stream_error("Hel", "overloaded"))
    tokens: list[str] = []
    with pytest.raises(ModelServerError) as caught:
        with_model(fake_openai.base_url, lambda m: m.complete(USER, on_token=tokens.append))
    assert tokens == ["Hel"]
    assert fake_openai.base_url in str(caught.value)
    assert "sent an error in the stream: overloaded" in str(caught.value)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_agent_retries_a_reply_that_is_not_a_chat_completion_then_fails_with_it(
    fake_openai: Any, stream: bool
) -> None:
    fake_openai.play(*[bad_reply(fake_openai, "html")] * 2)

    async def body(model: OpenAIChatModel) -> Any:
        return await ReActAgent(model, retry=RetryPolicy(max_attempts=2, base_delay=0)).arun("hi")

    result = with_model(fake_openai.base_url, body, stream=stream)
    assert (result.status, result.answer) == ("failed", DEFAULT_FALLBACK)
    assert result.failure is not None
    assert (result.failure.kind, result.failure.retryable) == ("server", True)
    assert "text/html" in result.failure.message
    assert len(fake_openai.requests) == 2


def test_agent_retries_an_error_event_in_the_stream(fake_openai: Any) -> None:
    fake_openai.play(fake_openai.stream_error("Hel", "overloaded"), fake_openai.text("Hello."))

    async def body(model: OpenAIChatModel) -> Any:
        return await ReActAgent(model, retry=RetryPolicy(base_delay=0)).arun("hi")

    result = with_model(fake_openai.base_url, body)
    assert (result.status, result.answer) == ("completed", "Hello.")
    assert [r.detail["error"] for r in result.trace.of("retry")] == ["server"]
