from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from graphnb.agent import DEFAULT_FALLBACK, Message, ReActAgent, ScriptedModel, call
from graphnb.checkpoint import MemorySaver, ThreadRequiredError


def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"sunny in {city}"


class Plan(BaseModel):
    weeks: int


def contents(messages: Any) -> list[tuple[str, str | None]]:
    return [(m.role, m.content) for m in messages]


def test_a_conversation_is_a_thread_that_later_runs_continue() -> None:
    model = ScriptedModel(["Hello Ada.", "You are Ada."])
    agent = ReActAgent(model, checkpointer=MemorySaver())
    first = agent.run("I am Ada.", thread_id="chat-1")
    second = agent.run("Who am I?", thread_id="chat-1")
    assert (first.answer, second.answer) == ("Hello Ada.", "You are Ada.")
    assert contents(model.requests[1].messages) == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "Who am I?"),
    ]
    assert second.rounds == 1  # per-run counters start again on each turn
    assert contents(agent.conversation("chat-1"))[-1] == ("assistant", "You are Ada.")
    other = agent.run("Who am I?", thread_id="chat-2")
    assert other.messages == [Message(role="user", content="Who am I?"), *other.messages[1:]]


def test_a_seeded_thread_starts_with_the_prior_history() -> None:
    model = ScriptedModel(["Your plan is 3 runs a week."])
    agent = ReActAgent(model, checkpointer=MemorySaver())
    agent.seed_thread(
        "user-7",
        [
            {"role": "user", "content": "My goal: a 10 km run."},
            Message(role="assistant", content="Noted."),
        ],
    )
    result = agent.run("What is my plan?", thread_id="user-7")
    assert result.ok
    assert contents(model.requests[0].messages) == [
        ("user", "My goal: a 10 km run."),
        ("assistant", "Noted."),
        ("user", "What is my plan?"),
    ]


def test_a_thread_with_tool_rounds_resumes_from_sqlite_in_a_new_agent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'threads.db'}"
    first_model = ScriptedModel([call("weather", city="Oslo"), "Sunny in Oslo."])
    first = ReActAgent(first_model, [weather], checkpointer=url)
    assert first.run("Weather?", thread_id="t").answer == "Sunny in Oslo."

    later_model = ScriptedModel(["Still sunny."])
    later = ReActAgent(later_model, [weather], checkpointer=url)
    assert later.run("And now?", thread_id="t").answer == "Still sunny."
    history = later_model.requests[0].messages
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant", "user"]
    assert history[1].tool_calls[0].arguments == {"city": "Oslo"}
    assert history[2].content == "sunny in Oslo"


def test_a_failed_turn_leaves_a_valid_conversation_for_the_next_turn() -> None:
    from graphnb.agent import RetryPolicy

    async def stuck() -> str:
        """Never answers."""
        await asyncio.sleep(10)
        return "late"

    model = ScriptedModel([call("stuck"), "Back."])
    agent = ReActAgent(
        model,
        [stuck],
        batch_policy="all_or_nothing",
        call_timeout=0.02,
        retry=RetryPolicy(max_attempts=1),
        checkpointer=MemorySaver(),
    )
    assert agent.run("go", thread_id="t").status == "failed"
    assert agent.run("again", thread_id="t").answer == "Back."
    roles = [m.role for m in model.requests[1].messages]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]


def test_streaming_a_threaded_run_streams_tokens() -> None:
    agent = ReActAgent(ScriptedModel(["one two"]), checkpointer=MemorySaver())

    async def collect() -> list[Any]:
        return [c async for c in agent.astream("hi", mode="custom", thread_id="s")]

    tokens = [c["text"] for c in asyncio.run(collect()) if c["type"] == "token"]
    assert tokens == ["one ", "two"]


def test_threads_need_a_checkpointer() -> None:
    agent = ReActAgent(ScriptedModel(["x"]))
    with pytest.raises(ThreadRequiredError, match="checkpointer"):
        agent.seed_thread("t", [])


def test_tool_values_that_are_not_json_are_stored_as_json_data() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque thing"

    def when() -> datetime.date:
        """A date."""
        return datetime.date(2026, 12, 2)

    def plan() -> Plan:
        """A model."""
        return Plan(weeks=4)

    def opaque() -> object:
        """Something JSON does not know."""
        return Opaque()

    seen: list[Any] = []
    model = ScriptedModel([[call("when"), call("plan"), call("opaque")], "ok"])
    agent = ReActAgent(
        model, [when, plan, opaque], checkpointer=MemorySaver(), observe=lambda rs: seen.extend(rs)
    )
    assert agent.run("go", thread_id="j").ok
    assert [r.value for r in seen] == ["2026-12-02", {"weeks": 4}, "opaque thing"]
    replies = [m.content for m in agent.conversation("j") if m.role == "tool"]
    assert replies == ["2026-12-02", '{"weeks": 4}', "opaque thing"]


def test_tools_see_the_thread_and_run_ids_of_their_run() -> None:
    from graphnb.agent import current_context

    seen: list[tuple[str | None, str]] = []

    async def whoami() -> str:
        """Who runs me."""
        context = current_context()
        seen.append((context.thread_id, context.run_id))
        return "me"

    agent = ReActAgent(
        ScriptedModel([call("whoami"), "a", call("whoami"), "b"]),
        [whoami],
        checkpointer=MemorySaver(),
    )
    agent.run("1", thread_id="conv-9")
    agent.run("2", thread_id="conv-9")
    assert [thread for thread, _ in seen] == ["conv-9", "conv-9"]
    assert seen[0][1] != seen[1][1]  # each run its own id


def test_a_reset_closes_a_tool_call_whose_id_an_earlier_turn_already_answered() -> None:
    from graphnb.agent import RetryPolicy, ToolCall

    def lookup(q: str) -> str:
        """Look something up."""
        if q == "bad":
            raise RuntimeError("backend down")
        return "found"

    model = ScriptedModel(
        [
            ToolCall("lookup", {"q": "ok"}, "call_0"),
            "First answer.",
            ToolCall("lookup", {"q": "bad"}, "call_0"),  # the id again, as some servers do
        ]
    )
    agent = ReActAgent(
        model,
        [lookup],
        batch_policy="all_or_nothing",
        retry=RetryPolicy(max_attempts=1),
        checkpointer=MemorySaver(),
    )
    assert agent.run("one", thread_id="t").ok
    assert agent.run("two", thread_id="t").status == "failed"
    second = agent.conversation("t")[4:]
    assert [(m.role, m.content, m.tool_call_id) for m in second] == [
        ("user", "two", None),
        ("assistant", None, None),
        ("tool", "cancelled: the agent gave up", "call_0"),
        ("assistant", DEFAULT_FALLBACK, None),
    ]
