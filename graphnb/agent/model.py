"""The chat-model interface the runner talks to.

A chat model is any object with a ``name`` and an async ``complete`` method; it answers a
conversation with text, tool calls or both, and may stream the text token by token to
``on_token`` while it is generated. :class:`~graphnb.agent.ScriptedModel` plays a script
(tests, teaching); :class:`~graphnb.agent.OpenAIChatModel` talks to OpenAI-compatible
endpoints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from .messages import Message, ModelReply
from .tools import Tool

__all__ = ["ChatModel", "TokenSink"]

TokenSink = Callable[[str], None]
"""Receives each streamed piece of answer text as it arrives."""


@runtime_checkable
class ChatModel(Protocol):
    """What the runner needs from a chat model."""

    @property
    def name(self) -> str:
        """The model's name, for traces and errors."""
        ...

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Tool] = (),
        on_token: TokenSink | None = None,
    ) -> ModelReply:
        """Answer ``messages``, offering ``tools``.

        Raises:
            ModelError: a subclass says what went wrong (rate limit, server error,
                timeout, malformed tool call...).
        """
        ...
