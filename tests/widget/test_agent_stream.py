"""An agent run in the builder."""

from __future__ import annotations

from typing import Any

from graphnb.agent import ReActAgent, ScriptedModel
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
