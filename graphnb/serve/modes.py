"""The stream modes LangGraph's server adds to the engine's: built from the engine's events.

The engine streams ``values``, ``updates`` and ``custom`` as LangGraph does; the API's
other modes are read off its typed events (:mod:`graphnb.engine.events`) here, each part
shaped as LangGraph's server sends it, so ``langgraph-sdk`` and the front ends built on
it read them unchanged:

- ``tasks``: a part when a node starts (``id``, ``name``, ``input``, ``triggers``) and
  one when it ends (``id``, ``name``, ``error``, ``result`` as ``[field, value]`` pairs,
  ``interrupts``), the two sharing the task's ``id``.
- ``checkpoints``: each checkpoint the run stores, read back from the thread (``config``,
  ``parent_config``, ``values``, ``metadata``, ``next``, ``tasks``); with
  ``durability="exit"`` the last one only, the only one stored.
- ``debug``: both of the above, each wrapped as ``{"type": "task" | "task_result" |
  "checkpoint", "timestamp", "step", "payload"}``.
- ``messages-tuple``: ``[message, metadata]`` parts (event ``messages``), for each piece
  of text of a streamed field (a generator node, :class:`~graphnb.engine.node.Streamed`)
  as an ``AIMessageChunk``, and for each whole message a node writes that
  was not streamed (graphnb's :class:`~graphnb.agent.messages.Message`, LangChain's).
- ``messages``: the same as LangGraph's server folds them: ``messages/metadata`` the
  first time a message is seen, then ``messages/partial`` with the message so far, or
  ``messages/complete`` for a whole one.
- ``events``: LangChain's ``astream_events`` (v2) shape: ``on_chain_start`` /
  ``on_chain_end`` for the run and each node, ``on_chain_stream`` for updates,
  ``on_chat_model_stream`` for message pieces, ``on_custom_event`` for custom writes.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from ..checkpoint_errors import ThreadNotFoundError
from ..engine.compiled import CompiledGraph
from ..engine.events import (
    Chunk,
    Interrupted,
    NodeFailed,
    NodeFinished,
    NodeStarted,
    StepFinished,
)
from ..engine.send import parse_key
from ..records import StateSnapshot

__all__ = ["ENGINE_MODES", "EVENT_MODES", "Translator"]

ENGINE_MODES = ("values", "updates", "custom")
"""The modes the engine streams as the API sends them."""

EVENT_MODES = ("messages", "messages-tuple", "events", "debug", "tasks", "checkpoints")
"""The modes built here from the engine's events."""

_TASKS = uuid.UUID("2d6b3f0c-1c1e-4f55-a0c4-5d1bde6a54a1")
_ROLES = {"assistant": "ai", "user": "human", "system": "system", "tool": "tool"}


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _config(thread_id: str, checkpoint_id: str | None) -> dict[str, Any] | None:
    if checkpoint_id is None:
        return None
    ids = {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
    return {"configurable": ids}


def _as_message(value: Any) -> dict[str, Any] | None:
    """``value`` as LangChain's message dict, if it is a message (graphnb's or LangChain's)."""
    role = getattr(value, "role", None)
    if role in _ROLES and hasattr(value, "content"):  # graphnb.agent.Message
        calls = [
            {"name": c.name, "args": dict(c.arguments), "id": c.id, "type": "tool_call"}
            for c in getattr(value, "tool_calls", ())
        ]
        message: dict[str, Any] = {
            "type": _ROLES[role],
            "content": value.content or "",
            "id": None,
            "name": getattr(value, "name", None),
            "additional_kwargs": {},
            "response_metadata": {},
        }
        if role == "assistant":
            message["tool_calls"] = calls
        if role == "tool":
            message["tool_call_id"] = value.tool_call_id
        return message
    kind = getattr(value, "type", None)
    dump = getattr(value, "model_dump", None)
    if isinstance(kind, str) and hasattr(value, "content") and callable(dump):  # LangChain's
        dumped = dump()
        return dumped if isinstance(dumped, dict) else None
    return None


def _chunk_message(message_id: str, content: str) -> dict[str, Any]:
    return {
        "type": "AIMessageChunk",
        "content": content,
        "id": message_id,
        "name": None,
        "additional_kwargs": {},
        "response_metadata": {},
        "tool_calls": [],
        "invalid_tool_calls": [],
        "tool_call_chunks": [],
        "usage_metadata": None,
    }


class Translator:
    """Turns one run's engine events into the parts of the event modes asked for."""

    def __init__(
        self,
        graph: CompiledGraph[Any],
        *,
        modes: list[str],
        thread_id: str,
        run_id: str,
        jsonable: Any,
    ) -> None:
        self.graph = graph
        self.modes = set(modes)
        self.thread_id = thread_id
        self.run_id = run_id
        self.jsonable = jsonable
        self.state: Any = None  # the state before the step running now
        self.seen: set[str] = set()  # checkpoints already sent
        self.messages: dict[str, dict[str, Any]] = {}  # messages so far, by id
        self.streamed: set[tuple[Any, ...]] = set()  # (step, path, instance, field) streamed
        self.started = False

    def task_id(self, step: int, path: tuple[str, ...], instance: int | None) -> str:
        """The id a node's run has in every part (the same in its start and its end)."""
        key = f"{self.run_id}:{step}:{'/'.join(path)}:{instance}"
        return str(uuid.uuid5(_TASKS, key))

    def metadata(self, event: NodeStarted | NodeFinished | Chunk) -> dict[str, Any]:
        """What LangGraph tells about where a message comes from."""
        task = self.task_id(event.step, event.path, event.instance)
        return {
            "run_id": self.run_id,
            "thread_id": self.thread_id,
            "graph_id": self.graph.name,
            "langgraph_step": event.step,
            "langgraph_node": event.node,
            "langgraph_triggers": [f"branch:to:{event.node}"],
            "langgraph_path": ["__pregel_pull", event.node],
            "langgraph_checkpoint_ns": "|".join([*event.namespace, f"{event.node}:{task}"]),
        }

    async def start(self) -> list[tuple[str, Any]]:
        """The parts before the run's first event."""
        self.started = True
        if "events" not in self.modes:
            return []
        return [("events", self._event("on_chain_start", self.graph.name, self.run_id, {}))]

    async def end(self, values: Any) -> list[tuple[str, Any]]:
        """The parts after the run's last event: its last checkpoint, the run's end."""
        parts = await self._checkpoint()
        if "events" in self.modes:
            data = {"output": values}
            parts.append(
                ("events", self._event("on_chain_end", self.graph.name, self.run_id, data))
            )
        return parts

    async def parts(self, event: Any) -> list[tuple[str, Any]]:
        """The parts one engine event makes."""
        if type(event) is StepFinished:
            self.state = event.state
            return await self._checkpoint()
        if type(event) is NodeStarted:
            return self._started(event)
        if type(event) is NodeFinished:
            return self._finished(event)
        if type(event) is NodeFailed:
            return self._result(event, error=f"{type(event.error).__name__}: {event.error}")
        if type(event) is Chunk:
            return self._chunk(event)
        if type(event) is Interrupted:
            parts: list[tuple[str, Any]] = []
            for item in event.interrupts:
                node = parse_key(item.node)
                fake = NodeFinished(event.step, node, {}, 0.0)
                parts += self._result(
                    fake, interrupts=[{"value": self.jsonable(item.value), "id": item.id}]
                )
            return parts + await self._checkpoint()
        return []

    # -- tasks, debug ----------------------------------------------------------------

    def _started(self, event: NodeStarted) -> list[tuple[str, Any]]:
        task = self.task_id(event.step, event.path, event.instance)
        payload = {
            "id": task,
            "name": event.node,
            "input": self.jsonable(self.state),
            "triggers": [f"branch:to:{event.node}"],
        }
        parts = self._parts("tasks", "task", event.step, payload)
        if "events" in self.modes:
            data = {"input": payload["input"]}
            parts.append(("events", self._event("on_chain_start", event.node, task, data, event)))
        return parts

    def _finished(self, event: NodeFinished) -> list[tuple[str, Any]]:
        parts = self._result(event)
        update = self.jsonable(event.update)
        if "events" in self.modes:
            task = self.task_id(event.step, event.path, event.instance)
            parts.append(
                (
                    "events",
                    self._event("on_chain_stream", event.node, task, {"chunk": update}, event),
                )
            )
            parts.append(
                ("events", self._event("on_chain_end", event.node, task, {"output": update}, event))
            )
        if self.modes & {"messages", "messages-tuple"}:
            parts += self._whole_messages(event)
        return parts

    def _result(
        self,
        event: NodeFinished | NodeFailed,
        *,
        error: str | None = None,
        interrupts: list[dict[str, Any]] | None = None,
    ) -> list[tuple[str, Any]]:
        update = self.jsonable(event.update) if isinstance(event, NodeFinished) else {}
        payload = {
            "id": self.task_id(event.step, event.path, event.instance),
            "name": event.node,
            "error": error,
            "result": [[key, value] for key, value in update.items()],
            "interrupts": interrupts or [],
        }
        return self._parts("tasks", "task_result", event.step, payload)

    def _parts(self, mode: str, kind: str, step: int, payload: Any) -> list[tuple[str, Any]]:
        """``payload`` in ``mode`` and, as a ``kind`` entry, in ``debug``: those asked for."""
        parts: list[tuple[str, Any]] = []
        if mode in self.modes:
            parts.append((mode, payload))
        if "debug" in self.modes:
            parts.append(("debug", self._debug(kind, step, payload)))
        return parts

    def _debug(self, kind: str, step: int, payload: Any) -> dict[str, Any]:
        return {"type": kind, "timestamp": _now(), "step": step, "payload": payload}

    # -- checkpoints -----------------------------------------------------------------

    async def _checkpoint(self) -> list[tuple[str, Any]]:
        """The thread's newest checkpoint, if it is stored and not sent yet."""
        if not self.modes & {"checkpoints", "debug"}:
            return []
        try:
            snapshot = await self.graph.aget_state(self.thread_id)
        except ThreadNotFoundError:  # nothing stored yet: nothing to tell
            return []
        if snapshot.checkpoint_id in self.seen:
            return []
        self.seen.add(snapshot.checkpoint_id)
        payload = self._checkpoint_payload(snapshot)
        return self._parts("checkpoints", "checkpoint", snapshot.step, payload)

    def _checkpoint_payload(self, snapshot: StateSnapshot[Any]) -> dict[str, Any]:
        interrupts: dict[str, list[dict[str, Any]]] = {}
        for item in snapshot.interrupts:
            entry = {"value": self.jsonable(item.value), "id": item.id}
            interrupts.setdefault(parse_key(item.node), []).append(entry)
        step = snapshot.step + 1
        return {
            "config": _config(self.thread_id, snapshot.checkpoint_id),
            "parent_config": _config(self.thread_id, snapshot.parent_id),
            "values": self.jsonable(snapshot.values),
            "metadata": self.jsonable(snapshot.metadata)
            | {"step": snapshot.step, "source": snapshot.source},
            "next": list(snapshot.next),
            "tasks": [
                {
                    "id": self.task_id(step, (name,), None),
                    "name": name,
                    "interrupts": interrupts.get(name, []),
                    "state": None,
                }
                for name in snapshot.next
            ],
        }

    # -- messages --------------------------------------------------------------------

    def _chunk(self, event: Chunk) -> list[tuple[str, Any]]:
        # a piece of text of a streamed field: what an LLM's token is in a graphnb graph
        text = event.value if event.field is not None and isinstance(event.value, str) else None
        parts: list[tuple[str, Any]] = []
        if event.field is None and "events" in self.modes:
            task = self.task_id(event.step, event.path, event.instance)
            data = {"data": self.jsonable(event.value)}
            parts.append(("events", self._event("on_custom_event", "custom", task, data, event)))
        if text is None:
            return parts
        key = (event.step, event.path, event.instance, event.field)
        self.streamed.add(key)
        message_id = "run-" + str(uuid.uuid5(_TASKS, f"{self.run_id}:{key}"))
        piece = _chunk_message(message_id, text)
        metadata = self.metadata(event)
        if "events" in self.modes:
            task = self.task_id(event.step, event.path, event.instance)
            data = {"chunk": piece}
            parts.append(
                ("events", self._event("on_chat_model_stream", event.node, task, data, event))
            )
        return parts + self._message(piece, metadata, partial=True)

    def _whole_messages(self, event: NodeFinished) -> list[tuple[str, Any]]:
        parts: list[tuple[str, Any]] = []
        metadata = self.metadata(event)
        index = 0
        for field, value in event.update.items():
            if any(
                k[:3] == (event.step, event.path, event.instance) and k[3] == field
                for k in self.streamed
            ):
                continue  # its pieces went out already, as LangGraph leaves out a streamed one
            for item in value if isinstance(value, list | tuple) else [value]:
                message = _as_message(item)
                if message is None:
                    continue
                if not message.get("id"):
                    key = f"{self.run_id}:{event.step}:{event.path}:{event.instance}:{index}"
                    message["id"] = str(uuid.uuid5(_TASKS, key))
                index += 1
                parts += self._message(self.jsonable(message), metadata, partial=False)
        return parts

    def _message(
        self, message: dict[str, Any], metadata: dict[str, Any], *, partial: bool
    ) -> list[tuple[str, Any]]:
        parts: list[tuple[str, Any]] = []
        if "messages-tuple" in self.modes:
            parts.append(("messages", [message, metadata]))
        if "messages" in self.modes:
            message_id = message["id"]
            known = self.messages.get(message_id)
            if known is None:
                parts.append(("messages/metadata", {message_id: {"metadata": metadata}}))
                known = self.messages[message_id] = dict(message)
            elif partial:
                known["content"] = str(known["content"]) + str(message["content"])
            shown = dict(known) if partial else dict(message)
            if partial:
                shown["type"] = "ai"  # the message so far, as a whole message
            parts.append(("messages/partial" if partial else "messages/complete", [shown]))
        return parts

    # -- events ----------------------------------------------------------------------

    def _event(
        self,
        kind: str,
        name: str,
        run_id: str,
        data: dict[str, Any],
        event: NodeStarted | NodeFinished | Chunk | None = None,
    ) -> dict[str, Any]:
        metadata = {"run_id": self.run_id, "thread_id": self.thread_id, "graph_id": self.graph.name}
        if event is not None:
            metadata = self.metadata(event)
        return {
            "event": kind,
            "name": name,
            "run_id": run_id,
            "tags": [] if event is None else [f"graph:step:{event.step}"],
            "metadata": metadata,
            "data": data,
            "parent_ids": [] if event is None else [self.run_id],
        }
