"""The agent's activity in a run's stream, as typed dicts.

A run writes these as custom chunks, so ``agent.astream(prompt, mode="custom")`` yields
them (and ``mode="events"`` carries them in :class:`~graphnb.Chunk` events); tell them
apart by ``type``. Streamed text is only provisional until the run says otherwise: when a
phase fails after streaming tokens, an :class:`AbandonedEvent` withdraws them, so a
display showing tokens as they come replaces them (with nothing when the phase is retried,
since the retry streams afresh, or with the fallback answer when the run gives up).

Example:
    >>> import asyncio
    >>> from graphnb.agent import ModelUnavailable, ReActAgent, RetryPolicy
    >>> class BreaksMidway:
    ...     name = "breaks-midway"
    ...     async def complete(self, messages, *, tools=(), on_token=None):
    ...         on_token("The answer is")
    ...         raise ModelUnavailable("the stream broke", model=self.name)
    >>> agent = ReActAgent(BreaksMidway(), retry=RetryPolicy(max_attempts=1))
    >>> async def watch():
    ...     events = [e async for e in agent.astream("hi", mode="custom")]
    ...     return [e for e in events if e["type"] != "transition"]
    >>> for event in asyncio.run(watch()):
    ...     print(event["type"], repr(event.get("text")), repr(event.get("replacement", "")[:14]))
    token 'The answer is' ''
    retry None ''
    abandoned 'The answer is' 'Sorry, I could'
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, TypedDict

__all__ = [
    "AbandonedEvent",
    "AgentEvent",
    "RetryEvent",
    "TokenEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "TransitionEvent",
]


class TokenEvent(TypedDict):
    """A piece of the model's text, as it streams in (THINKING)."""

    type: Literal["token"]
    text: str


class TransitionEvent(TypedDict):
    """The machine moved from ``source`` to ``target`` on ``event``."""

    type: Literal["transition"]
    source: str
    target: str
    event: str


class ToolCallEvent(TypedDict):
    """A tool call of the round is about to run."""

    type: Literal["tool_call"]
    id: str
    name: str
    arguments: dict[str, Any]


class ToolResultEvent(TypedDict):
    """A tool call ended; ``content`` is what the model is told."""

    type: Literal["tool_result"]
    id: str
    name: str
    status: Literal["success", "failure", "timeout", "ratelimited"]
    content: str


class RetryEvent(TypedDict):
    """FAILED decided: ``retry`` after ``delay`` seconds, or give up (RESET)."""

    type: Literal["retry"]
    phase: str
    retry: bool
    delay: float
    reason: str
    attempt: int


class AbandonedEvent(TypedDict):
    """Text streamed by a phase that then failed is withdrawn.

    Written by FAILED, after its :class:`RetryEvent`, when the failed phase had streamed
    tokens: they are not (the start of) the answer.

    Attributes:
        phase: the phase that streamed them (``THINKING``).
        text: the withdrawn text, every token that phase streamed, in order.
        replacement: what stands in its place: ``""`` when the phase is retried (its
            tokens follow), the fallback answer when the run gives up.
    """

    type: Literal["abandoned"]
    phase: str
    text: str
    replacement: str


AgentEvent: TypeAlias = (
    TokenEvent | TransitionEvent | ToolCallEvent | ToolResultEvent | RetryEvent | AbandonedEvent
)
"""Anything the agent writes to a run's stream."""
