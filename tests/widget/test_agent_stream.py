"""An agent run in the builder: its tokens stream into the run panel, withdrawn ones go."""

from __future__ import annotations

from typing import Any

from graphnb.agent import DEFAULT_FALLBACK, ModelServerError, ReActAgent, RetryPolicy, ScriptedModel
from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


def test_an_agent_runs_in_the_builder(comm: Any) -> None:
    # The agent's state is never validated by the engine, so its model's serializer (built
    # lazily, defer_build) did not exist when the run panel turned a step's state to JSON.
    agent = ReActAgent(ScriptedModel(["Sunny."]))
    builder = Builder(agent.compiled, namespace={})

    async def main() -> Any:
        return await builder.run({"prompt": "Weather?"})

    final = run_async(main())
    assert builder.run_state["error"] is None
    assert builder.run_state["status"] == "done"
    assert final.answer == "Sunny."
    assert builder.run_state["steps"][-1]["state"]["answer"] == "Sunny."


class BreaksAfter:
    """A chat model that streams its words, then fails, for its first ``failures`` calls."""

    name = "breaks-after"

    def __init__(self, text: str, failures: int, answer: str) -> None:
        self.text, self.failures, self.answer = text, failures, answer
        self.calls = 0

    async def complete(self, messages: Any, *, tools: Any = (), on_token: Any = None) -> Any:
        from graphnb.agent import ModelReply

        self.calls += 1
        if self.calls > self.failures:
            on_token(self.answer)
            return ModelReply(self.answer)
        for word in self.text.split(" "):
            on_token(word + " ")
        raise ModelServerError("the stream broke", model=self.name, status=502)


def _front_end(messages: list[dict[str, Any]]) -> str:
    """What the run panel shows after these messages, as the front end applies them."""
    text = ""
    for message in messages:
        if message["type"] == "chunks":
            assert message["offset"] == len(text)
            text += message["text"]
        elif message["type"] == "chunks_replaced":
            assert message["offset"] <= len(text)
            text = text[: message["offset"]] + message["text"]
    return text


def _run(comm: Any, failures: int, attempts: int) -> tuple[Any, str]:
    model = BreaksAfter("Half an", failures, "Sunny.")
    agent = ReActAgent(model, retry=RetryPolicy(max_attempts=attempts, base_delay=0.001))
    builder = Builder(agent.compiled, namespace={})
    comm.clear()

    async def main() -> Any:
        return await builder.run({"prompt": "Weather?"})

    final = run_async(main())
    streamed = [m for m in comm.custom() if m["type"] in ("chunks", "chunks_replaced")]
    assert builder.run_state["chunks"] == _front_end(streamed)
    return final, builder.run_state["chunks"]


def test_tokens_withdrawn_by_a_reset_are_replaced_by_the_fallback_answer(comm: Any) -> None:
    final, shown = _run(comm, failures=1, attempts=1)
    assert final.answer == DEFAULT_FALLBACK
    assert shown == DEFAULT_FALLBACK
    assert "Half an" not in shown


def test_tokens_withdrawn_by_a_retry_give_way_to_the_retry_s_tokens(comm: Any) -> None:
    final, shown = _run(comm, failures=2, attempts=3)
    assert final.answer == "Sunny."
    assert shown == "Sunny."
