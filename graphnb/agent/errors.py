"""Errors of the agent runner, its chat models and its tools.

Model errors say what kind of failure happened (rate limit, server error, timeout,
malformed reply), so :func:`classify_error` can tell the retry policy without parsing text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import GraphRuntimeError, GraphSetupError

__all__ = [
    "ErrorInfo",
    "ErrorKind",
    "MalformedToolCall",
    "ModelError",
    "ModelRateLimited",
    "ModelServerError",
    "ModelTimeout",
    "ModelUnavailable",
    "RoundLimitExceeded",
    "ScriptExhausted",
    "ToolDefinitionError",
    "ToolRateLimited",
    "classify_error",
]


class ModelError(GraphRuntimeError):
    """A chat model call failed; ``model`` names the model."""

    def __init__(self, message: str, *, model: str) -> None:
        self.model = model
        super().__init__(message)


class ModelRateLimited(ModelError):
    """The model's endpoint refused the call for now (HTTP 429).

    Attributes:
        retry_after: seconds the endpoint asked to wait (``Retry-After``), if it said.
    """

    def __init__(self, message: str, *, model: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message, model=model)


class ModelServerError(ModelError):
    """The model's endpoint failed: HTTP 5xx, or a reply that is not a chat completion.

    ``status`` is the HTTP status code (200 for a malformed reply).
    """

    def __init__(self, message: str, *, model: str, status: int) -> None:
        self.status = status
        super().__init__(message, model=model)


class ModelTimeout(ModelError, TimeoutError):
    """The model did not answer in time; ``after`` is the timeout in seconds."""

    def __init__(self, message: str, *, model: str, after: float | None) -> None:
        self.after = after
        super().__init__(message, model=model)


class ModelUnavailable(ModelError, ConnectionError):
    """The model's endpoint could not be reached."""


class MalformedToolCall(ModelError, ValueError):
    """The model asked for a tool call whose arguments are not a JSON object.

    Attributes:
        tool: the tool the model named.
        arguments: the raw argument text it sent.
    """

    def __init__(self, message: str, *, model: str, tool: str, arguments: str) -> None:
        self.tool = tool
        self.arguments = arguments
        super().__init__(message, model=model)


class ScriptExhausted(ModelError, IndexError):
    """A scripted model was called more times than its script has replies."""


class RoundLimitExceeded(GraphRuntimeError):
    """An agent run used all its ReAct rounds without an answer; ``limit`` is the limit."""

    def __init__(self, message: str, *, limit: int) -> None:
        self.limit = limit
        super().__init__(message)


class ToolRateLimited(GraphRuntimeError):
    """Raised by a tool whose backend is rate limited; becomes a ``RateLimited`` result.

    Attributes:
        retry_after: seconds the backend asked to wait, if known.
    """

    def __init__(self, message: str = "rate limited", *, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ToolDefinitionError(GraphSetupError):
    """A function cannot be a tool (e.g. a parameter without a type); ``tool`` names it."""

    def __init__(self, message: str, *, tool: str) -> None:
        self.tool = tool
        super().__init__(message)


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
