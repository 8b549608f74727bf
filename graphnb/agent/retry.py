"""Retries as code: the backoff policy the FAILED state consults, by the error's kind.

Example:
    >>> from graphnb.agent.errors import ModelRateLimited, classify_error
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

from .errors import ErrorInfo, classify_error

__all__ = ["RetryDecision", "RetryPolicy"]


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
