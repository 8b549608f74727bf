"""A local OpenAI-compatible chat-completions server for the adapter tests.

Written with the standard library (``http.server``) so the tests need no web framework:
it binds 127.0.0.1 on a free port, plays a script of behaviours (text, tool calls, 429
with Retry-After, 500, malformed tool-call JSON, hang), streams with server-sent events
when asked to, and records every request body.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    """One scripted behaviour of the fake endpoint."""

    # "text", "tool_calls", "status", "hang", "stall" (stream some text, then hang),
    # "whole_calls": tool calls streamed one whole call per chunk, without an "index"
    # (as some OpenAI-compatible servers do), "raw" (a 200 reply with this body and
    # headers, whatever was asked), "no_choices" (a completion or stream whose "choices"
    # are empty) or "stream_error" (stream some text, then an {"error": ...} event)
    kind: str
    text: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, raw arguments)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: str = ""  # the message of a "stream_error" event


def text(value: str) -> Reply:
    return Reply("text", text=value)


def tool_calls(*calls: tuple[str, str, str]) -> Reply:
    return Reply("tool_calls", calls=list(calls))


def whole_calls(*calls: tuple[str, str, str]) -> Reply:
    return Reply("whole_calls", calls=list(calls))


def status(code: int, **headers: str) -> Reply:
    return Reply(
        "status", status=code, headers={k.replace("_", "-"): v for k, v in headers.items()}
    )


def hang() -> Reply:
    return Reply("hang")


def stall(value: str) -> Reply:
    return Reply("stall", text=value)


def raw(body: str, content_type: str) -> Reply:
    return Reply("raw", text=body, headers={"Content-Type": content_type})


def no_choices() -> Reply:
    return Reply("no_choices")


def stream_error(value: str, message: str) -> Reply:
    return Reply("stream_error", text=value, error=message)


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def play(self, *replies: Reply) -> None:
        self.script.extend(replies)

    # the reply makers, reachable from tests through the fixture
    text = staticmethod(text)
    tool_calls = staticmethod(tool_calls)
    whole_calls = staticmethod(whole_calls)
    status = staticmethod(status)
    hang = staticmethod(hang)
    stall = staticmethod(stall)
    raw = staticmethod(raw)
    no_choices = staticmethod(no_choices)
    stream_error = staticmethod(stream_error)


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append(body)
        reply = self.server.script.popleft() if self.server.script else text("(script empty)")
        if reply.kind == "hang":
            self.server.release.wait(30)
            return
        if reply.kind == "status":
            self._json(
                reply.status,
                {
                    "error": {
                        "message": f"scripted {reply.status}",
                        "type": "scripted",
                        "code": None,
                    }
                },
                reply.headers,
            )
            return
        if reply.kind == "raw":
            data = reply.text.encode()
            self.send_response(200)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        model = body.get("model", "fake")
        if body.get("stream"):
            self._stream(model, reply)
        else:
            self._json(200, _completion(model, reply))

    def _json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, model: str, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

        def send(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        if reply.kind == "no_choices":
            chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": []}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
            return
        send({"role": "assistant", "content": ""})
        if reply.kind == "stream_error":
            send({"content": reply.text})
            error = {"error": {"message": reply.error, "type": "server_error"}}
            self.wfile.write(f"data: {json.dumps(error)}\n\n".encode())
            self.wfile.flush()
            return
        if reply.kind == "stall":
            send({"content": reply.text})
            self.server.release.wait(30)
            return
        if reply.kind == "text":
            words = reply.text.split(" ")
            for index, word in enumerate(words):
                send({"content": word if index == len(words) - 1 else word + " "})
            send({}, "stop")
        elif reply.kind == "whole_calls":
            for call_id, name, arguments in reply.calls:
                function = {"name": name, "arguments": arguments}
                send({"tool_calls": [{"id": call_id, "type": "function", "function": function}]})
            send({}, "tool_calls")
        else:
            for index, (call_id, name, arguments) in enumerate(reply.calls):
                half = len(arguments) // 2
                send(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": arguments[:half]},
                            }
                        ]
                    }
                )
                send(
                    {"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]}
                )
            send({}, "tool_calls")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _completion(model: str, reply: Reply) -> dict[str, Any]:
    if reply.kind == "no_choices":
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model, "choices": []}
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.kind == "tool_calls":
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
            for cid, name, args in reply.calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.kind == "tool_calls" else "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    thread = threading.Thread(
        target=server.serve_forever, args=(0.01,), name="fake-openai", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
