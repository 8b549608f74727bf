"""The conversation: messages, the tool calls a model asks for, and a model's reply.

Messages are Pydantic models so a conversation is JSON, persisted with its thread.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Message", "ModelReply", "Role", "ToolCall", "call"]

Role = Literal["system", "user", "assistant", "tool"]

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A model's request to call one tool.

    Tool calls are values: their arguments are never mutated once made.

    Attributes:
        name: the tool's name.
        arguments: the arguments, parsed from the model's JSON.
        id: the call's id, which the tool's answer refers to.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", f"call_{next(_ids)}")

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> ToolCall:
        return self  # a value, see the class docs


def call(name: str, /, **arguments: Any) -> ToolCall:
    """A tool call, written as a function call: ``call("weather", city="Paris")``.

    Example:
        >>> call("weather", city="Paris").arguments
        {'city': 'Paris'}
    """
    return ToolCall(name, dict(arguments))


class Message(BaseModel):
    """One message of a conversation; an immutable value.

    Attributes:
        role: who speaks.
        content: the text, if any.
        tool_calls: for an assistant message, the tools it asks to call.
        tool_call_id: for a tool message, the call it answers.
        name: for a tool message, the tool's name.
    """

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Message:
        # Messages are values: frozen, and their tool calls' arguments are never mutated.
        # The engine copies the state for every node, so sharing them keeps long
        # conversations cheap.
        return self


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What a chat model answered: text, tool calls, or both.

    Attributes:
        text: the answer text (possibly empty when it calls tools).
        tool_calls: the tools it asks to call; empty for a direct answer.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    @property
    def wants_tools(self) -> bool:
        """Whether the model asked for tool calls."""
        return bool(self.tool_calls)
