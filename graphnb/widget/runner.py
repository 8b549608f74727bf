"""The run controller: runs a compiled graph as an asyncio task and reports on it.

The run goes on as a task on the kernel's event loop, so the kernel keeps reading the
front end's messages (Stop cancels the task); the builder hands it a graph whose nodes run
off that loop (see :mod:`graphnb.widget.offload`). What the run panel shows is kept in a
:class:`~graphnb.widget.protocol.RunState` that is published as a whole, at most every
``interval`` seconds; streamed text goes out as small ``chunks`` messages, batched at the
same pace, never one message per chunk. Streamed text is a streaming field's chunks, or
custom writes ``{"type": "token", "text": ...}`` (an agent's tokens); a custom write
``{"type": "abandoned", "text": ..., "replacement": ...}`` withdraws streamed text (see
docs/agent.md), which a ``chunks_replaced`` message tells the front end.

A synchronous node that holds the event loop (one not moved off it) stops every loop timer
while it works: a watchdog thread publishes what is due instead (the node has started, the
chunks it streamed so far), so a view shows the node running from its first moment.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..engine.compiled import CompiledGraph
from ..engine.events import (
    Chunk,
    Event,
    Interrupted,
    NodeFailed,
    NodeFinished,
    NodeStarted,
    StepFinished,
)
from ..records import Interrupt
from .composition import note_composed
from .offload import NodeExit
from .protocol import (
    ChunksMessage,
    ChunksReplacedMessage,
    NodeRun,
    ProblemInfo,
    RunError,
    RunState,
    RunStatus,
    ServerMessage,
    StepRecord,
)

__all__ = ["RunController", "idle_run"]

STEP_LIMIT = 500
"""Steps kept for the state panel; a run that loops longer keeps the last ones."""


def idle_run(nodes: list[str] | tuple[str, ...] = ()) -> RunState:
    """The run state before any run: every node idle."""
    return RunState(
        id=None,
        status="idle",
        thread_id=None,
        nodes={name: NodeRun(status="idle", duration=None, runs=0) for name in nodes},
        active=[],
        steps=[],
        chunks="",
        field=None,
        error=None,
        elapsed=None,
    )


def _jsonable(value: Any) -> Any:
    model = type(value)
    if isinstance(value, BaseModel) and not model.__pydantic_complete__:
        # A GraphState defers building its serializer (defer_build), and a state the engine
        # made without validating (an agent's) has not built it yet.
        model.model_rebuild()
    return to_jsonable_python(value, fallback=repr, serialize_unknown=True)


def _error_info(node: str | None, error: BaseException) -> RunError:
    # A node's failure arrives wrapped (NodeError, naming node and step, which the panel
    # shows anyway); the message users need is their own exception's.
    cause = error.__cause__ if node is not None and error.__cause__ is not None else error
    # A node's SystemExit says what it was, and that the kernel survived it.
    message = str(cause) if isinstance(cause, NodeExit) else f"{type(cause).__name__}: {cause}"
    return RunError(
        node=node,
        message=message,
        traceback="".join(traceback.format_exception(error)),
        problems=[],
    )


class RunController:
    """Runs one graph at a time for a widget and keeps the run panel's picture current.

    Args:
        publish: called with a fresh :class:`RunState` whenever the picture changed (at
            most every ``interval`` seconds while a run goes on, and once at its end).
        send: sends a message to the front end (streamed text).
        interval: the least time between two publications, in seconds.
        clock: a monotonic clock (injected by tests).
    """

    def __init__(
        self,
        publish: Callable[[RunState], None],
        send: Callable[[ServerMessage], None],
        *,
        interval: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._publish = publish
        self._send = send
        self.interval = interval
        self._clock = clock
        self.state: RunState = idle_run()
        self.task: asyncio.Task[Any] | None = None
        self._pending: list[str] = []
        self._pending_node = ""
        self._dirty = False
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._started = 0.0
        self._baseline: dict[str, Any] = {}
        self.messages_sent = 0
        # Held by whoever changes or publishes the run's picture: the loop or the watchdog.
        self._lock = threading.RLock()
        self._watch_stop: threading.Event | None = None

    @property
    def running(self) -> bool:
        """Whether a run is going on."""
        return self.task is not None and not self.task.done()

    def reset(self, nodes: list[str]) -> None:
        """Show every node idle (after the graph changed, when no run goes on)."""
        if not self.running:
            self.state = idle_run(nodes)
            self._publish(self.state)

    # -- starting and stopping ---------------------------------------------------------

    def start(
        self,
        graph: CompiledGraph[Any],
        input: Mapping[str, Any] | None,
        *,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] = (),
        interrupt_after: Sequence[str] = (),
    ) -> asyncio.Task[Any]:
        """Start a run as a task on the running event loop and return the task.

        Raises:
            RuntimeError: a run is already going on, or no event loop runs in this thread.
        """
        if self.running:
            raise RuntimeError("a run is already going on; stop it before starting another")
        loop = asyncio.get_running_loop()
        # Breakpoints: a run without a thread has nowhere to pause.
        wanted = {"interrupt_before": interrupt_before, "interrupt_after": interrupt_after}
        stops = {key: list(nodes) for key, nodes in wanted.items() if nodes and thread_id}
        self.task = loop.create_task(self._drive(graph, input, thread_id, checkpoint_id, stops))
        return self.task

    def fail(
        self,
        nodes: list[str],
        error: BaseException,
        problems: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Show a run that could not start (the graph did not compile, say).

        ``problems``: what is wrong with the graph, listed one by one under the error.
        """
        self.state = idle_run(nodes)
        self.state["status"] = "error"
        info = _error_info(None, error)
        info["problems"] = [
            ProblemInfo(code=str(p["code"]), message=str(p["message"]), nodes=list(p["nodes"]))
            for p in problems
        ]
        self.state["error"] = info
        self._publish(self.state)

    def stop(self) -> bool:
        """Cancel the current run; ``False`` when none was going on."""
        if not self.running:
            return False
        assert self.task is not None
        loop = self.task.get_loop()
        if loop.is_closed():  # nothing runs there any more
            return False
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is loop:
            self.task.cancel()
        else:
            # JupyterLab sends widget messages to a kernel subshell while the main shell is
            # busy: Stop then arrives on another thread and loop. A plain cancel() from
            # there is not thread-safe and does not wake the run's loop, which noticed it
            # only when the running node returned.
            loop.call_soon_threadsafe(self.task.cancel)
        return True

    # -- the run -----------------------------------------------------------------------

    async def _drive(
        self,
        graph: CompiledGraph[Any],
        input: Mapping[str, Any] | None,
        thread_id: str | None,
        checkpoint_id: str | None = None,
        stops: Mapping[str, list[str]] | None = None,
    ) -> Any:
        state = idle_run([node.id for node in graph.spec.nodes])
        state["id"] = uuid.uuid4().hex
        state["status"] = "running"
        state["thread_id"] = thread_id
        state["field"] = graph.schema.streaming
        self.state = state
        self._pending, self._pending_node = [], ""
        self._stops: tuple[Interrupt, ...] = ()  # why the run stopped, if it did
        # The input step highlights what the input set, not every field.
        defaults = _jsonable(graph.schema.defaults())
        self._baseline = defaults if isinstance(defaults, dict) else {}
        self._started = self._clock()
        with self._lock:
            self._publish_now(force=True)
        self._start_watchdog()
        # Events from inside subgraphs too: the canvas lights nodes inside expanded groups.
        options: dict[str, Any] = {"mode": "events", "subgraphs": True}
        if thread_id:
            options["thread_id"] = thread_id
        if checkpoint_id:
            options["checkpoint_id"] = checkpoint_id
        options.update(stops or {})
        final: Any = None
        try:
            async for event in graph.astream(input, **options):
                if isinstance(event, StepFinished):
                    final = event.state
                with self._lock:
                    self._on_event(event)
                    self._tick()
                # Let the kernel read the front end's messages (Stop) between events,
                # even when every node is synchronous.
                await asyncio.sleep(0)
        except (asyncio.CancelledError, KeyboardInterrupt):  # Stop, or the kernel's interrupt
            self._finish("stopped")
            raise
        except BaseException as caught:  # shown in the run panel, not raised
            # A SystemExit that got this far must not reach the loop: asyncio re-raises it
            # out of the kernel's event loop, and the kernel dies.
            error = caught if isinstance(caught, Exception) else NodeExit(caught)
            # What propagates carries the node's own exception as its cause, so its
            # traceback reaches the user's frame; the failure event's copy may not.
            node = state["error"]["node"] if state["error"] else getattr(error, "node", None)
            state["error"] = _error_info(node, error)
            self._finish("error")
            return None
        self._finish(_stopped(self._stops))
        return final

    def _on_event(self, event: Event) -> None:
        state = self.state
        nodes = state["nodes"]
        if isinstance(event, Chunk):
            value = event.value
            if event.field is not None:
                self._stream(event.node, str(value))
            elif isinstance(value, Mapping) and isinstance(value.get("text"), str):
                if value.get("type") == "token":
                    self._stream(event.node, value["text"])
                elif value.get("type") == "abandoned":
                    self._withdraw(event.node, value["text"], str(value.get("replacement", "")))
            return
        if note_composed(state, event):  # inside a subgraph, a Send instance, cache, retry
            self._dirty = True
            return
        if isinstance(event, Interrupted):
            self._stops = event.interrupts
            return
        if isinstance(event, NodeStarted):
            nodes.setdefault(event.node, NodeRun(status="idle", duration=None, runs=0))
            nodes[event.node]["status"] = "running"
            state["active"] = [*state["active"], event.node]
        elif isinstance(event, NodeFinished):
            record = nodes.setdefault(event.node, NodeRun(status="idle", duration=None, runs=0))
            record["status"] = "done"
            record["duration"] = event.duration
            record["runs"] += 1
            record["step"] = event.step
            writes = _jsonable(event.update)
            record["writes"] = writes if isinstance(writes, dict) else {"value": writes}
            state["active"] = [name for name in state["active"] if name != event.node]
        elif isinstance(event, NodeFailed):
            if event.node in nodes:
                nodes[event.node]["status"] = "error"
            state["active"] = [name for name in state["active"] if name != event.node]
            state["error"] = _error_info(event.node, event.error)
        elif isinstance(event, StepFinished):
            self._flush_chunks()
            values = _jsonable(event.state)
            if not isinstance(values, dict):
                values = {"value": values}
            previous = state["steps"][-1]["state"] if state["steps"] else self._baseline
            changed = [key for key, value in values.items() if previous.get(key) != value]
            state["steps"].append(
                StepRecord(step=event.step, nodes=list(event.nodes), state=values, changed=changed)
            )
            del state["steps"][:-STEP_LIMIT]
            for name in event.next:
                if name in nodes and nodes[name]["status"] != "running":
                    nodes[name]["status"] = "pending"
        self._dirty = True

    def _finish(self, status: str) -> None:
        if self._watch_stop is not None:
            self._watch_stop.set()
            self._watch_stop = None
        with self._lock:
            self._finish_locked(status)

    def _finish_locked(self, status: str) -> None:
        state = self.state
        self._flush_chunks()
        if status == "stopped":
            for record in state["nodes"].values():
                if record["status"] in ("pending", "running"):
                    record["status"] = "idle"
        elif status == "done":
            for record in state["nodes"].values():
                if record["status"] == "pending":
                    record["status"] = "idle"
        else:  # paused or waiting: the nodes it stopped at say so, no clock runs on
            _mark_stops(state["nodes"], self._stops)
        state["active"] = []
        state["status"] = status  # type: ignore[typeddict-item]
        state["elapsed"] = self._clock() - self._started
        self._publish_now(force=True)

    # -- batching ----------------------------------------------------------------------

    def _tick(self) -> None:
        """Publish if the interval has passed; otherwise make sure a timer will."""
        if not (self._dirty or self._pending):
            return
        if self._clock() - self._last >= self.interval:
            self._publish_now()
        elif self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.interval, self._on_timer)

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            if self.running and (self._dirty or self._pending):
                self._publish_now()

    def _start_watchdog(self) -> None:
        stop = threading.Event()
        self._watch_stop = stop
        run = self.state["id"]
        threading.Thread(
            target=self._watch, args=(stop, run), name="graphnb-run-watchdog", daemon=True
        ).start()

    def _watch(self, stop: threading.Event, run: str | None) -> None:
        """Publish what is overdue while the loop is held (by a synchronous node).

        With the loop free, its timer publishes within ``interval``; twice that overdue
        means the loop cannot, so this thread does (under the lock, so it never sees a
        change half made).
        """
        while not stop.wait(self.interval):
            with self._lock:
                if stop.is_set() or self.state["id"] != run:
                    return
                due = self._dirty or self._pending
                if due and self._clock() - self._last >= 2 * self.interval:
                    self._publish_now(from_thread=True)

    def _stream(self, node: str, text: str) -> None:
        if self._pending and node != self._pending_node:
            self._flush_chunks()
        self._pending_node = node
        self._pending.append(text)

    def _withdraw(self, node: str, text: str, replacement: str) -> None:
        """Replace the last occurrence of ``text`` in the streamed text (else append)."""
        self._flush_chunks()
        shown = self.state["chunks"]
        start = shown.rfind(text) if text else -1
        end = start + len(text)
        if start < 0:
            start = end = len(shown)
        self.state["chunks"] = shown[:start] + replacement + shown[end:]
        run = self.state["id"] or ""
        tail = self.state["chunks"][start:]
        self._send(
            ChunksReplacedMessage(
                type="chunks_replaced", run=run, node=node, offset=start, text=tail
            )
        )
        self.messages_sent += 1
        self._dirty = True

    def _flush_chunks(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        sizes = [len(piece) for piece in self._pending]
        offset = len(self.state["chunks"])
        self._pending = []
        self.state["chunks"] += text
        run = self.state["id"] or ""
        node = self._pending_node
        self._send(
            ChunksMessage(type="chunks", run=run, node=node, offset=offset, text=text, sizes=sizes)
        )
        self.messages_sent += 1

    def _publish_now(self, *, force: bool = False, from_thread: bool = False) -> None:
        self._flush_chunks()
        self._last = self._clock()
        # A loop timer is the loop's to cancel; one left armed finds nothing due.
        if self._timer is not None and not from_thread:
            self._timer.cancel()
            self._timer = None
        if self._dirty or force:
            self._dirty = False
            self._publish(_copy(self.state))
            self.messages_sent += 1


def _copy(state: RunState) -> RunState:
    """A fresh copy, so a synced trait sees a new value (and later edits stay ours)."""
    return RunState(
        id=state["id"],
        status=state["status"],
        thread_id=state["thread_id"],
        nodes={name: NodeRun(**record) for name, record in state["nodes"].items()},
        active=list(state["active"]),
        steps=list(state["steps"]),
        chunks=state["chunks"],
        field=state["field"],
        error=state["error"],
        elapsed=state["elapsed"],
    )


def _stopped(stops: Sequence[Interrupt]) -> RunStatus:
    """How a run that ended without an error ended.

    Done, paused at a breakpoint, or waiting for an answer to ``interrupt()``.
    """
    if not stops:
        return "done"
    return "waiting" if any(stop.asks for stop in stops) else "paused"


def _mark_stops(nodes: Mapping[str, NodeRun], stops: Sequence[Interrupt]) -> None:
    """Mark the nodes a run stopped at: ``waiting`` for an answer, ``paused`` before one.

    A node stopped in ``interrupt()`` started and never finished: it is no longer
    running. A pause after a node leaves it done and what comes next pending.
    """
    for stop in stops:
        record = nodes.get(stop.node)
        if record is None or stop.when == "after":
            continue
        record["status"] = "waiting" if stop.asks else "paused"
    for record in nodes.values():
        if record["status"] == "running":  # a parallel node the interrupt left unfinished
            record["status"] = "idle"
