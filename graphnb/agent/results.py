"""Typed results of tool calls: one frozen dataclass per outcome.

Handle them with an exhaustive ``match``; a new outcome then fails type checking
wherever it is not handled:

Example:
    >>> from typing import assert_never
    >>> def describe(result: ToolResult) -> str:
    ...     match result:
    ...         case Success(value=value):
    ...             return f"ok: {value}"
    ...         case Failure(error=error):
    ...             return f"failed: {error}"
    ...         case Timeout(after=after):
    ...             return f"no answer after {after}s"
    ...         case RateLimited():
    ...             return "rate limited"
    ...         case _:
    ...             assert_never(result)
    >>> describe(Timeout("call_1", "weather", after=2.0))
    'no answer after 2.0s'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = ["Failure", "FailureReason", "RateLimited", "Success", "Timeout", "ToolResult"]

FailureReason = Literal["error", "invalid-arguments", "unknown-tool", "not-allowed", "cancelled"]
"""Why a tool call failed."""


@dataclass(frozen=True, slots=True)
class Success:
    """The tool returned ``value``."""

    call_id: str
    tool: str
    value: Any
    duration: float = 0.0


@dataclass(frozen=True, slots=True)
class Failure:
    """The tool raised, was refused or was cancelled.

    Attributes:
        error: a short description for the model and the trace (never a traceback).
        reason: ``"error"``, ``"invalid-arguments"``, ``"unknown-tool"``, ``"not-allowed"``
            or ``"cancelled"``.
    """

    call_id: str
    tool: str
    error: str
    reason: FailureReason = "error"
    duration: float = 0.0


@dataclass(frozen=True, slots=True)
class Timeout:
    """The tool did not finish within ``after`` seconds and was cancelled."""

    call_id: str
    tool: str
    after: float


@dataclass(frozen=True, slots=True)
class RateLimited:
    """The tool's backend is rate limited; ``retry_after`` seconds, if it said."""

    call_id: str
    tool: str
    retry_after: float | None = None


ToolResult: TypeAlias = Success | Failure | Timeout | RateLimited
"""The outcome of one tool call."""
