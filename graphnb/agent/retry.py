"""Retries as code: an error classifier and a backoff policy the FAILED state consults.

Example:
    >>> from graphnb.agent.errors import ModelRateLimited
    >>> policy = RetryPolicy(max_attempts=3, base_delay=0.5, jitter=False)
    >>> info = classify_error(ModelRateLimited("busy", model="m", retry_after=2.0))
    >>> info.kind, info.retryable
    ('rate_limited', True)
    >>> policy.decide(info, attempt=1).delay  # Retry-After is honoured
    2.0
    >>> policy.decide(classify_error(ValueError("bug")), attempt=1).retry
    False
    >>> [policy.backoff(attempt) for attempt in (1, 2, 3)]
    [0.5, 1.0, 2.0]
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .errors import (
    MalformedToolCall,
    ModelError,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnavailable,
    RoundLimitExceeded,
    ToolRateLimited,
)

__all__ = ["ErrorInfo", "ErrorKind", "RetryDecision", "RetryPolicy", "classify_error"]

ErrorKind = Literal[
    "rate_limited",
    "server",
    "timeout",
    "unavailable",
    "malformed",
    "model",
    "tool",
    "round_limit",
    "internal",
]
"""What kind of failure an error is; the retry policy decides by kind."""


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An error as the retry policy sees it.

    Attributes:
        kind: the kind of failure.
        retryable: whether trying again may help.
        message: a short developer-facing description (never shown to the user).
        retry_after: seconds the other side asked to wait, if it said.
    """

    kind: ErrorKind
    retryable: bool
    message: str
    retry_after: float | None = None


def classify_error(error: BaseException) -> ErrorInfo:
    """The default error classifier.

    Rate limits, 5xx, timeouts, unreachable endpoints and malformed tool calls are
    retryable; client errors, the round limit and bugs are not.
    """
    message = f"{type(error).__name__}: {error}"
    match error:
        case ModelRateLimited(retry_after=after) | ToolRateLimited(retry_after=after):
            return ErrorInfo("rate_limited", True, message, after)
        case ModelServerError():
            return ErrorInfo("server", True, message)
        case ModelTimeout() | TimeoutError():
            return ErrorInfo("timeout", True, message)
        case ModelUnavailable() | ConnectionError():
            return ErrorInfo("unavailable", True, message)
        case MalformedToolCall():
            return ErrorInfo("malformed", True, message)
        case RoundLimitExceeded():
            return ErrorInfo("round_limit", False, message)
        case ModelError():
            return ErrorInfo("model", False, message)
        case _:
            return ErrorInfo("internal", False, message)


@dataclass(frozen=True, slots=True)
class RetryDecision:
    """Whether to retry, after how long, and why."""

    retry: bool
    delay: float
    reason: str


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with full jitter, a cap on attempts, and Retry-After honoured.

    Attributes:
        max_attempts: attempts of a failing phase, the first one included.
        base_delay: the backoff ceiling of the first retry, in seconds.
        multiplier: how much the ceiling grows per attempt.
        max_delay: the largest ceiling.
        jitter: draw each delay uniformly between 0 and the ceiling ("full jitter"), so
            many clients that failed together do not retry together.
        max_retry_after: a longer Retry-After is not waited for: the run gives up.
        classify: turns an exception into an :class:`ErrorInfo`.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 10.0
    jitter: bool = True
    max_retry_after: float = 30.0
    classify: Callable[[BaseException], ErrorInfo] = classify_error

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        for name in ("base_delay", "max_delay", "max_retry_after"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.multiplier < 1:
            raise ValueError(f"multiplier must be at least 1, got {self.multiplier}")

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """The delay before retry number ``attempt`` (1 for the first retry)."""
        ceiling = min(self.max_delay, self.base_delay * self.multiplier ** max(0, attempt - 1))
        if not self.jitter:
            return ceiling
        return (rng or random.Random()).uniform(0.0, ceiling)

    def decide(
        self, info: ErrorInfo, attempt: int, rng: random.Random | None = None
    ) -> RetryDecision:
        """Decide after ``attempt`` failed attempts (1 after the first failure)."""
        if not info.retryable:
            return RetryDecision(False, 0.0, f"{info.kind} errors are not retried")
        if attempt >= self.max_attempts:
            return RetryDecision(False, 0.0, f"gave up after {attempt} attempt(s)")
        if info.retry_after is not None:
            if info.retry_after > self.max_retry_after:
                return RetryDecision(
                    False,
                    0.0,
                    f"asked to wait {info.retry_after:g}s, more than max_retry_after "
                    f"({self.max_retry_after:g}s)",
                )
            return RetryDecision(True, max(0.0, info.retry_after), "Retry-After")
        return RetryDecision(True, self.backoff(attempt, rng), "backoff")
