"""A chat model over any OpenAI-compatible HTTP endpoint, through the official client.

Needs the ``openai`` extra: ``pip install graphnb[openai]``. The client's own retries are
switched off (``max_retries=0``): retrying is the runner's FAILED state's decision, made
in code by :class:`~graphnb.agent.RetryPolicy`. HTTP failures become typed errors:

- 429: :class:`~graphnb.agent.ModelRateLimited`, with the ``Retry-After`` seconds;
- 5xx: :class:`~graphnb.agent.ModelServerError`;
- no answer in time: :class:`~graphnb.agent.ModelTimeout`;
- unreachable or broken connection: :class:`~graphnb.agent.ModelUnavailable`;
- tool-call arguments that are not a JSON object: :class:`~graphnb.agent.MalformedToolCall`;
- any other refusal (4xx): :class:`~graphnb.agent.ModelError`;
- a reply that is not a chat completion (HTML, broken JSON, no ``choices``, no events where
  a stream was asked for) or an error event in the stream:
  :class:`~graphnb.agent.ModelServerError`, with the reply's HTTP status (often 200).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from .errors import (
    MalformedToolCall,
    ModelError,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnavailable,
)
from .messages import Message, ModelReply, ToolCall
from .model import TokenSink
from .tools import Tool

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatModel", "retry_after_seconds"]


def retry_after_seconds(value: str | None) -> float | None:
    """Parse a ``Retry-After`` header: seconds, or an HTTP date (seconds from now).

    Example:
        >>> retry_after_seconds("2"), retry_after_seconds(None), retry_after_seconds("soon")
        (2.0, None, None)
        >>> retry_after_seconds("nan"), retry_after_seconds("Thu, 01 Jan 1970 00:00:00 -0000")
        (None, 0.0)
    """
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, with no local zone known (RFC 5322)
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class OpenAIChatModel:
    """A :class:`~graphnb.agent.ChatModel` for OpenAI-compatible chat-completions endpoints.

    Args:
        model: the model's name at the endpoint.
        base_url: the endpoint, e.g. ``http://127.0.0.1:8000/v1``; OpenAI's when omitted.
        api_key: the key; ``OPENAI_API_KEY`` when omitted (local servers need none).
        timeout: seconds a whole call may take, streaming included.
        stream: stream the answer token by token.
        client: an ``openai.AsyncOpenAI`` to use instead of making one.
        options: extra arguments for ``chat.completions.create`` (``temperature``...).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        stream: bool = True,
        client: AsyncOpenAI | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise ImportError(
                "OpenAIChatModel needs the openai client. Install it with "
                "`pip install graphnb[openai]`."
            ) from error
        self.model = model
        self.timeout = timeout
        self.stream = stream
        self.options = dict(options or {})
        self.client = client or openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
            timeout=timeout,
            max_retries=0,
        )

    @property
    def name(self) -> str:
        """The model's name."""
        return self.model

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model!r}, base_url={str(self.client.base_url)!r})"

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.client.close()

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Tool] = (),
        on_token: TokenSink | None = None,
    ) -> ModelReply:
        """Ask the endpoint; see the module docs for the errors raised."""
        import openai

        request: dict[str, Any] = {
            "model": self.model,
            "messages": [_wire(message) for message in messages],
            **self.options,
        }
        if tools:
            request["tools"] = [t.openai_schema() for t in tools]
        try:
            async with asyncio.timeout(self.timeout):
                if self.stream:
                    return await self._streamed(request, on_token)
                return await self._whole(request)
        except (TimeoutError, openai.APITimeoutError):
            raise ModelTimeout(
                f"model {self.model!r} gave no answer within {self.timeout:g}s",
                model=self.model,
                after=self.timeout,
            ) from None
        except openai.RateLimitError as error:
            after = _retry_after(error.response.headers)
            raise ModelRateLimited(
                f"model {self.model!r} is rate limited (HTTP 429)"
                + (f"; retry after {after:g}s" if after is not None else ""),
                model=self.model,
                retry_after=after,
            ) from error
        except openai.APIStatusError as error:
            status = error.status_code
            if status >= 500:
                raise ModelServerError(
                    f"model {self.model!r} failed with HTTP {status}",
                    model=self.model,
                    status=status,
                ) from error
            raise ModelError(
                f"model {self.model!r} refused the request with HTTP {status}", model=self.model
            ) from error
        except openai.APIConnectionError as error:
            raise ModelUnavailable(
                f"model {self.model!r} could not be reached", model=self.model
            ) from error

    def _bad_reply(self, status: int, what: str) -> ModelServerError:
        """The error for a reply that is not what the chat-completions protocol says."""
        return ModelServerError(
            f"model {self.model!r} at {self.client.base_url} {what}",
            model=self.model,
            status=status,
        )

    async def _whole(self, request: dict[str, Any]) -> ModelReply:
        raw = await self.client.chat.completions.with_raw_response.create(**request)
        try:
            response = raw.parse()
        except ValueError as error:  # the body says JSON but is not
            raise self._bad_reply(raw.status_code, "sent a reply that is not JSON") from error
        # The client hands back the body as text when it is not JSON (an HTML error page).
        choices = getattr(response, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            kind = raw.headers.get("content-type") or "no content type"
            raise self._bad_reply(
                raw.status_code, f"sent a reply without any chat completion choice ({kind})"
            )
        message = choices[0].message
        calls = [
            (c.id, c.function.name, c.function.arguments)
            for c in (message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        return ModelReply(message.content or "", self._calls(calls))

    async def _streamed(self, request: dict[str, Any], on_token: TokenSink | None) -> ModelReply:
        import openai

        stream = await self.client.chat.completions.create(**request, stream=True)
        status = stream.response.status_code
        text: list[str] = []
        parts: dict[int, list[str]] = {}
        last: int | None = None
        answered = False  # a stream without a single choice is not a chat completion
        try:
            async for chunk in stream:
                if not chunk.choices:
                    continue
                answered = True
                delta = chunk.choices[0].delta
                if delta.content:
                    text.append(delta.content)
                    if on_token is not None:
                        on_token(delta.content)
                for piece in delta.tool_calls or ():
                    key = piece.index
                    if key is None:
                        # Some servers send each call whole and leave out "index": a piece
                        # with an id starts a new call, one without continues the last.
                        key = len(parts) if piece.id or last is None else last
                    last = key
                    slot = parts.setdefault(key, ["", "", ""])
                    if piece.id:
                        slot[0] = piece.id
                    if piece.function is not None:
                        slot[1] += piece.function.name or ""
                        slot[2] += piece.function.arguments or ""
        except (openai.APIStatusError, openai.APIConnectionError):
            raise
        except openai.APIError as error:  # the endpoint sent an error event mid-stream
            raise self._bad_reply(
                status, f"sent an error in the stream: {error.message}"
            ) from error
        except ValueError as error:  # an event whose data is not JSON
            raise self._bad_reply(status, "sent a stream event that is not JSON") from error
        except Exception as error:  # the connection broke mid-stream
            raise ModelUnavailable(
                f"the stream from model {self.model!r} broke: {type(error).__name__}",
                model=self.model,
            ) from error
        finally:
            await stream.close()
        if not answered:
            kind = stream.response.headers.get("content-type") or "no content type"
            if "event-stream" not in kind:
                raise self._bad_reply(status, f"sent {kind} where an event stream was asked for")
            raise self._bad_reply(status, "sent a stream without any chat completion choice")
        calls = [(cid, name, args) for _, (cid, name, args) in sorted(parts.items())]
        return ModelReply("".join(text), self._calls(calls))

    def _calls(self, raw: list[tuple[str, str, str]]) -> tuple[ToolCall, ...]:
        calls = []
        for call_id, name, arguments in raw:
            try:
                parsed = json.loads(arguments or "{}")
            except json.JSONDecodeError:
                parsed = None
            if not isinstance(parsed, dict):
                raise MalformedToolCall(
                    f"model {self.model!r} called tool `{name}` with arguments that are not "
                    "a JSON object",
                    model=self.model,
                    tool=name,
                    arguments=arguments,
                )
            calls.append(ToolCall(name, parsed, call_id))
        return tuple(calls)


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``Retry-After``, or OpenAI's finer ``retry-after-ms`` when sent."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    return retry_after_seconds(headers.get("retry-after"))


def _wire(message: Message) -> dict[str, Any]:
    """A message in the chat-completions format."""
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in message.tool_calls
        ]
    if message.role == "tool":
        wire["tool_call_id"] = message.tool_call_id
    return wire
