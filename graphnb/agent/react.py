"""The ReAct machine of seed 001: its states, its events and its transitions.

::

    IDLE --RECEIVE_PROMPT--> THINKING
    THINKING --NEED_TOOL--> TOOL_CALLING --TOOL_RESULT--> OBSERVING --THINK_COMPLETE--> THINKING
    THINKING --DIRECT_ANSWER--> RESPONDING --GENERATE_COMPLETE--> COMPLETED
    THINKING, TOOL_CALLING, OBSERVING, RESPONDING --ERROR / TIMEOUT--> FAILED
    FAILED --RESET--> IDLE
    FAILED --RETRY [retry_thinking]--> THINKING
    FAILED --RETRY [retry_tools]--> TOOL_CALLING

The two RETRY transitions are told apart by their guards, which read the phase that
failed from the context: a failure while calling tools or observing their results retries
the tools, any other failure retries the thinking.

Example:
    >>> context = {"failure": {"phase": "TOOL_CALLING"}}
    >>> REACT_MACHINE.fire(ReactState.FAILED, ReactEvent.RETRY, context)
    <ReactState.TOOL_CALLING: 'TOOL_CALLING'>
    >>> REACT_MACHINE.can_fire(ReactState.IDLE, ReactEvent.NEED_TOOL)
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from ..machine import Machine, external

__all__ = ["REACT_MACHINE", "ReactEvent", "ReactState", "retry_thinking", "retry_tools"]


class ReactState(Enum):
    """The states of a ReAct agent."""

    IDLE = "IDLE"
    THINKING = "THINKING"
    TOOL_CALLING = "TOOL_CALLING"
    OBSERVING = "OBSERVING"
    RESPONDING = "RESPONDING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"


class ReactEvent(Enum):
    """The events that move a ReAct agent between states."""

    RECEIVE_PROMPT = "RECEIVE_PROMPT"
    NEED_TOOL = "NEED_TOOL"
    DIRECT_ANSWER = "DIRECT_ANSWER"
    TOOL_RESULT = "TOOL_RESULT"
    THINK_COMPLETE = "THINK_COMPLETE"
    GENERATE_COMPLETE = "GENERATE_COMPLETE"
    ERROR = "ERROR"
    TIMEOUT = "TIMEOUT"
    RESET = "RESET"
    RETRY = "RETRY"


_TOOL_PHASES = frozenset({ReactState.TOOL_CALLING.name, ReactState.OBSERVING.name})


def _failed_phase(context: Any) -> str | None:
    failure = (
        context.get("failure")
        if isinstance(context, Mapping)
        else getattr(context, "failure", None)
    )
    if failure is None:
        return None
    phase = (
        failure.get("phase") if isinstance(failure, Mapping) else getattr(failure, "phase", None)
    )
    return phase if isinstance(phase, str) else None


def retry_tools(context: Any) -> bool:
    """Guard: the failure happened while calling tools or observing their results."""
    return _failed_phase(context) in _TOOL_PHASES


def retry_thinking(context: Any) -> bool:
    """Guard: the failure happened anywhere else (thinking, responding)."""
    return not retry_tools(context)


_S = ReactState
_E = ReactEvent
_WORKING = (_S.THINKING, _S.TOOL_CALLING, _S.OBSERVING, _S.RESPONDING)

REACT_MACHINE: Machine[ReactState, ReactEvent] = Machine(
    "react",
    states=ReactState,
    events=ReactEvent,
    initial=_S.IDLE,
    final=[_S.COMPLETED],
    transitions=[
        external(_S.IDLE, _S.THINKING, on=_E.RECEIVE_PROMPT),
        external(_S.THINKING, _S.TOOL_CALLING, on=_E.NEED_TOOL),
        external(_S.THINKING, _S.RESPONDING, on=_E.DIRECT_ANSWER),
        external(_S.TOOL_CALLING, _S.OBSERVING, on=_E.TOOL_RESULT),
        external(_S.OBSERVING, _S.THINKING, on=_E.THINK_COMPLETE),
        external(_S.RESPONDING, _S.COMPLETED, on=_E.GENERATE_COMPLETE),
        external(_WORKING, _S.FAILED, on=_E.ERROR),
        external(_WORKING, _S.FAILED, on=_E.TIMEOUT),
        external(_S.FAILED, _S.IDLE, on=_E.RESET),
        external(_S.FAILED, _S.THINKING, on=_E.RETRY, when=retry_thinking),
        external(_S.FAILED, _S.TOOL_CALLING, on=_E.RETRY, when=retry_tools),
    ],
)
"""The seed's ReAct machine; COMPLETED is its final state."""
