from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from graphnb.agent import ModelRateLimited, ModelServerError, ScriptedModel

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "habit_plan.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("habit_plan_example", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the state's annotations through it
    spec.loader.exec_module(module)
    return module


def phases(flow: Any, user: str = "u1") -> tuple[list[str], Any]:
    async def main() -> tuple[list[str], Any]:
        seen = [
            next(iter(update)) async for update in flow.astream({"user_id": user}, mode="updates")
        ]
        return seen, await flow.ainvoke({"user_id": user})

    return asyncio.run(main())


def test_the_flow_looks_up_then_plans_then_stores(example: ModuleType) -> None:
    store = example.HabitStore()
    model = ScriptedModel(["plan A", "plan A"])
    seen, final = phases(example.build_flow(model, store))
    assert seen == ["IDLE", "LOOKING_UP", "PLANNING", "STORING", "DONE"]
    assert final.answer == "Your plan is ready: plan A"
    assert store.plans == {"u1": "plan A"}
    assert "run 3 km" in model.requests[0].messages[0].content
    assert model.requests[0].tools == ()  # the planning state exposes no tool


def test_a_long_rate_limit_ends_in_a_graceful_answer(example: ModuleType) -> None:
    store = example.HabitStore()
    model = ScriptedModel([ModelRateLimited("RPM limit hit", model="m", retry_after=60.0)])
    final = asyncio.run(example.build_flow(model, store).ainvoke({"user_id": "u1"}))
    assert final.phase == "DONE"
    assert final.answer == example.FRIENDLY
    assert "RPM" not in final.answer
    assert "429" not in final.answer
    assert final.error_kind == "rate_limited"
    assert store.plans == {}


def test_a_short_rate_limit_is_waited_out_and_the_plan_stored(example: ModuleType) -> None:
    store = example.HabitStore()
    model = ScriptedModel(
        [
            ModelRateLimited("busy", model="m", retry_after=0.01),
            ModelServerError("x", model="m", status=502),
            "plan B",
        ]
    )
    final = asyncio.run(example.build_flow(model, store).ainvoke({"user_id": "u1"}))
    assert final.answer == "Your plan is ready: plan B"
    assert store.plans == {"u1": "plan B"}
    assert len(model.requests) == 3


def test_a_failing_lookup_is_not_retried(example: ModuleType) -> None:
    store = example.HabitStore()

    def get_habits(user_id: str) -> list[str]:
        raise ConnectionError("database down")

    store.get_habits = get_habits  # type: ignore[method-assign]
    model = ScriptedModel([])
    final = asyncio.run(example.build_flow(model, store).ainvoke({"user_id": "u1"}))
    assert final.answer == example.FRIENDLY
    assert final.failed_step == "LOOKING_UP"
    assert model.requests == []


def test_the_flow_machine_draws(example: ModuleType) -> None:
    from graphnb.diagram import to_mermaid

    text = to_mermaid(example.FLOW)
    assert "FAILED --> PLANNING : RETRY [planning_failed]" in text


def test_the_example_runs_as_a_script(
    example: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(example.main())
    out = capsys.readouterr().out
    assert "DONE: Your plan is ready" in out
    assert f"DONE: {example.FRIENDLY}" in out
