"""The seed's business flow: look up a user's habits, generate a plan, store it.

The order is fixed by a state machine, not left to the model: each state does one step
and exposes only the tool that step needs. A failed step goes to FAILED, which retries
through the same :class:`~graphnb.agent.RetryPolicy` the ReAct runner uses, or gives up
with a friendly answer: a rate-limited model call never shows the user an error.

Run it with ``python examples/habit_plan.py``: it plays one run that succeeds and one
whose model call is rate limited for longer than the policy waits.
"""

from __future__ import annotations

import asyncio
from enum import Enum
from typing import Any, cast

from graphnb import GraphState
from graphnb.agent import (
    ChatModel,
    ErrorInfo,
    ErrorKind,
    Message,
    ModelRateLimited,
    RetryPolicy,
    ScriptedModel,
    Success,
    Toolset,
    call,
    run_tool_calls,
)
from graphnb.machine import Machine, external

FRIENDLY = "Our planner is busy right now. Please try again in a few minutes; nothing was lost."


class Step(Enum):
    """Where the flow is."""

    IDLE = "IDLE"
    LOOKING_UP = "LOOKING_UP"
    PLANNING = "PLANNING"
    STORING = "STORING"
    DONE = "DONE"
    FAILED = "FAILED"


class Signal(Enum):
    """What moves the flow on."""

    REQUEST = "REQUEST"
    HABITS_FOUND = "HABITS_FOUND"
    PLAN_READY = "PLAN_READY"
    STORED = "STORED"
    ERROR = "ERROR"
    RETRY = "RETRY"
    GIVE_UP = "GIVE_UP"


def planning_failed(context: Any) -> bool:
    """Guard: only the model call (PLANNING) is worth retrying."""
    return getattr(context, "failed_step", None) == Step.PLANNING.name


FLOW: Machine[Step, Signal] = Machine(
    "habit_plan",
    states=Step,
    events=Signal,
    initial=Step.IDLE,
    final=[Step.DONE],
    transitions=[
        external(Step.IDLE, Step.LOOKING_UP, on=Signal.REQUEST),
        external(Step.LOOKING_UP, Step.PLANNING, on=Signal.HABITS_FOUND),
        external(Step.PLANNING, Step.STORING, on=Signal.PLAN_READY),
        external(Step.STORING, Step.DONE, on=Signal.STORED),
        external([Step.LOOKING_UP, Step.PLANNING, Step.STORING], Step.FAILED, on=Signal.ERROR),
        external(Step.FAILED, Step.PLANNING, on=Signal.RETRY, when=planning_failed),
        external(Step.FAILED, Step.DONE, on=Signal.GIVE_UP),
    ],
)


class PlanState(GraphState):
    """The flow's state."""

    phase: str = Step.IDLE.name
    event: str | None = None
    user_id: str
    habits: list[str] = []
    plan: str | None = None
    stored: bool = False
    answer: str = ""
    failed_step: str | None = None
    error: str | None = None
    error_kind: str | None = None
    retryable: bool = False
    retry_after: float | None = None
    attempts: int = 0


class HabitStore:
    """Stands in for the app's database."""

    def __init__(self) -> None:
        self.habits = {"u1": ["run 3 km", "read 20 pages"]}
        self.plans: dict[str, str] = {}

    def get_habits(self, user_id: str) -> list[str]:
        """The user's current habits."""
        return list(self.habits.get(user_id, []))

    def save_plan(self, user_id: str, plan: str) -> bool:
        """Store the user's new plan."""
        self.plans[user_id] = plan
        return True


def build_flow(model: ChatModel, store: HabitStore, retry: RetryPolicy | None = None) -> Any:
    """The compiled flow: one handler per state, the machine decides what comes next."""
    policy = retry or RetryPolicy(max_attempts=3, base_delay=0.01, max_retry_after=2.0)
    tools = Toolset(
        [store.get_habits, store.save_plan],
        by_state={Step.LOOKING_UP: ["get_habits"], Step.PLANNING: [], Step.STORING: ["save_plan"]},
    )

    async def use_tool(step: Step, name: str, **arguments: Any) -> Any:
        allowed = [t.name for t in tools.visible(step)]
        (result,) = await run_tool_calls([call(name, **arguments)], tools, allowed=allowed)
        if not isinstance(result, Success):
            raise RuntimeError(f"{name} did not succeed: {result}")
        return result.value

    def failed(state: PlanState, step: Step, error: Exception) -> dict[str, Any]:
        info = policy.classify(error)
        return {
            "event": Signal.ERROR,
            "failed_step": step.name,
            "error": info.message,
            "error_kind": info.kind,
            "retryable": info.retryable,
            "retry_after": info.retry_after,
            "attempts": state.attempts + 1,
        }

    async def idle(state: PlanState) -> Signal:
        return Signal.REQUEST

    async def looking_up(state: PlanState) -> dict[str, Any]:
        try:
            habits = await use_tool(Step.LOOKING_UP, "get_habits", user_id=state.user_id)
        except Exception as error:
            return failed(state, Step.LOOKING_UP, error)
        return {"habits": habits, "event": Signal.HABITS_FOUND}

    async def planning(state: PlanState) -> dict[str, Any]:
        prompt = "Make a weekly plan for these habits: " + "; ".join(state.habits)
        try:
            reply = await model.complete(
                [Message(role="user", content=prompt)], tools=tools.visible(Step.PLANNING)
            )
        except Exception as error:
            return failed(state, Step.PLANNING, error)
        return {"plan": reply.text, "event": Signal.PLAN_READY, "attempts": 0}

    async def storing(state: PlanState) -> dict[str, Any]:
        try:
            await use_tool(Step.STORING, "save_plan", user_id=state.user_id, plan=state.plan)
        except Exception as error:
            return failed(state, Step.STORING, error)
        return {
            "stored": True,
            "answer": f"Your plan is ready: {state.plan}",
            "event": Signal.STORED,
        }

    async def failed_step(state: PlanState) -> dict[str, Any]:
        kind = cast(ErrorKind, state.error_kind or "internal")
        info = ErrorInfo(kind, state.retryable, state.error or "", state.retry_after)
        decision = policy.decide(info, state.attempts)
        if decision.retry and planning_failed(state):
            await asyncio.sleep(decision.delay)
            return {"event": Signal.RETRY}
        return {"event": Signal.GIVE_UP, "answer": FRIENDLY}

    graph = FLOW.to_graph(
        PlanState,
        {
            Step.IDLE: idle,
            Step.LOOKING_UP: looking_up,
            Step.PLANNING: planning,
            Step.STORING: storing,
            Step.FAILED: failed_step,
        },
    )
    return graph.compile()


async def main() -> None:
    """Play a run that succeeds and one that is rate limited."""
    store = HabitStore()
    happy = ScriptedModel(["Mon/Wed/Fri: run 3 km; every evening: read 20 pages."])
    final = await build_flow(happy, store).ainvoke({"user_id": "u1"})
    print(f"{final.phase}: {final.answer}")

    busy = ScriptedModel([ModelRateLimited("RPM limit", model="planner", retry_after=60.0)])
    final = await build_flow(busy, store).ainvoke({"user_id": "u1"})
    print(f"{final.phase}: {final.answer}")
    print(f"(for the developers: {final.error_kind}: {final.error})")


if __name__ == "__main__":
    asyncio.run(main())
