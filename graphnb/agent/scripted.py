"""A chat model that plays a script: for tests, benchmarks and teaching notebooks.

Each call takes the next step of the script:

- a string: the answer, streamed word by word;
- a :class:`ToolCall` or a list of them: the model asks for those tool calls;
- a :class:`ModelReply`: returned as it is;
- an exception instance: raised (e.g. ``ModelRateLimited(...)``);
- :class:`Hang`: the call never answers (or answers after ``seconds``);
- a callable: called with the messages and tools; its return value is used as the step.

Example:
    >>> import asyncio
    >>> from graphnb.agent import Message, ScriptedModel, call
    >>> model = ScriptedModel([call("weather", city="Paris"), "Sunny in Paris."])
    >>> first = asyncio.run(model.complete([Message(role="user", content="Weather?")]))
    >>> first.tool_calls[0].name
    'weather'
    >>> tokens = []
    >>> asyncio.run(model.complete([], on_token=tokens.append)).text
    'Sunny in Paris.'
    >>> tokens
    ['Sunny ', 'in ', 'Paris.']
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from .errors import ScriptExhausted
from .messages import Message, ModelReply, ToolCall
from .model import TokenSink
from .tools import Tool

__all__ = ["Hang", "ModelRequest", "ScriptStep", "ScriptedModel"]

_TOKEN = re.compile(r"\s*\S+\s*|\s+")


@dataclass(frozen=True, slots=True)
class Hang:
    """A script step that does not answer.

    It waits forever, or ``seconds`` and then plays the step ``then``.
    """

    seconds: float | None = None
    then: Any = None

    def __post_init__(self) -> None:
        if self.seconds is not None and self.then is None:
            raise ValueError(
                f"Hang({self.seconds!r}) answers after {self.seconds!r}s, so it needs the "
                "step to play then: Hang(seconds, then=...)"
            )


ScriptStep: TypeAlias = (
    "str | ToolCall | Sequence[ToolCall] | ModelReply | BaseException | Hang | "
    "Callable[[Sequence[Message], Sequence[Tool]], Any]"
)


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What a scripted model was asked: the messages and the names of the tools offered."""

    messages: tuple[Message, ...]
    tools: tuple[str, ...]


class ScriptedModel:
    """A :class:`~graphnb.agent.ChatModel` that answers from a script.

    Args:
        script: the steps, one per call.
        name: the model's name.
        token_delay: seconds between streamed tokens (0: no pause).

    Attributes:
        requests: every request received, in order.
    """

    def __init__(
        self, script: Iterable[Any], *, name: str = "scripted", token_delay: float = 0.0
    ) -> None:
        self._script = list(script)
        self._next = 0
        self._name = name
        self.token_delay = token_delay
        self.requests: list[ModelRequest] = []

    @property
    def name(self) -> str:
        """The model's name."""
        return self._name

    @property
    def remaining(self) -> int:
        """Steps not played yet."""
        return len(self._script) - self._next

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Tool] = (),
        on_token: TokenSink | None = None,
    ) -> ModelReply:
        """Play the next step of the script."""
        self.requests.append(ModelRequest(tuple(messages), tuple(t.name for t in tools)))
        if self._next >= len(self._script):
            raise ScriptExhausted(
                f"scripted model {self._name!r} was called {self._next + 1} times but its "
                f"script has {len(self._script)} step(s)",
                model=self._name,
            )
        step = self._script[self._next]
        self._next += 1
        return await self._play(step, messages, tools, on_token)

    async def _play(
        self,
        step: Any,
        messages: Sequence[Message],
        tools: Sequence[Tool],
        on_token: TokenSink | None,
    ) -> ModelReply:
        if isinstance(step, Hang):
            if step.seconds is None:
                await asyncio.Event().wait()  # until cancelled, as a hung endpoint
            await asyncio.sleep(step.seconds or 0.0)
            return await self._play(step.then, messages, tools, on_token)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, ModelReply):
            return step
        if isinstance(step, ToolCall):
            return ModelReply("", (step,))
        if isinstance(step, str):
            if on_token is not None:
                for token in _TOKEN.findall(step):
                    on_token(token)
                    if self.token_delay:
                        await asyncio.sleep(self.token_delay)
            return ModelReply(step)
        if isinstance(step, (list, tuple)) and all(isinstance(s, ToolCall) for s in step):
            return ModelReply("", tuple(step))
        if callable(step):
            result = step(messages, tools)
            if asyncio.iscoroutine(result):
                result = await result
            return await self._play(result, messages, tools, on_token)
        raise TypeError(f"scripted model {self._name!r}: cannot play script step {step!r}")
