"""Static checks of the machine and agent public types; mypy --strict must accept this file.

Not collected by pytest (no ``test_`` prefix); ``test_machine_types.py`` runs mypy on it.
"""

from __future__ import annotations

from enum import Enum, auto
from typing import Any, assert_never, assert_type

from graphnb import StateGraph
from graphnb.agent import (
    REACT_MACHINE,
    AgentResult,
    Failure,
    RateLimited,
    ReActAgent,
    ReactEvent,
    ReactState,
    ScriptedModel,
    Success,
    Timeout,
    Tool,
    ToolResult,
    tool,
)
from graphnb.machine import Machine, Transition, external, internal


class Light(Enum):
    RED = auto()
    GREEN = auto()


class Signal(Enum):
    GO = auto()
    STOP = auto()
    PING = auto()


def machines() -> None:
    go = external(Light.RED, Light.GREEN, on=Signal.GO)
    assert_type(go, Transition[Light, Signal])
    stop = external([Light.GREEN], Light.RED, on=Signal.STOP)
    assert_type(stop, Transition[Light, Signal])
    light = Machine(
        "light",
        states=Light,
        events=Signal,
        initial=Light.RED,
        transitions=[go, stop, internal(Light.RED, on=Signal.PING)],
    )
    assert_type(light, Machine[Light, Signal])
    assert_type(light.fire(Light.RED, Signal.GO), Light)
    assert_type(light.resolve(Light.RED, Signal.GO), Transition[Light, Signal] | None)
    assert_type(light.events_from(Light.RED), list[Signal])
    assert_type(light.to_graph(dict, {}), StateGraph[Any])
    assert_type(REACT_MACHINE.fire(ReactState.IDLE, ReactEvent.RECEIVE_PROMPT), ReactState)


def tools() -> None:
    @tool
    def weather(city: str) -> str:
        return city

    @tool(name="forecast")
    def later(city: str, days: int = 1) -> str:
        return city * days

    assert_type(weather, Tool)
    assert_type(later, Tool)


def describe(result: ToolResult) -> str:
    match result:
        case Success():
            return "ok"
        case Failure():
            return result.reason
        case Timeout():
            return "late"
        case RateLimited():
            return "busy"
        case _:
            assert_never(result)


async def agents() -> None:
    agent = ReActAgent(ScriptedModel(["hi"]))
    result = await agent.arun("hello")
    assert_type(result, AgentResult)
    assert_type(result.answer, str)
