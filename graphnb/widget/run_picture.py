"""The run panel's picture of a run, as pure functions: a picture and an event give the next.

A :class:`~graphnb.widget.protocol.RunState` is never changed once made: :func:`advance`
returns a new one that shares what the event left alone. So the publisher
(:mod:`~graphnb.widget.publisher`) hands the front end each picture as it is (a synced
trait needs a new value to send one), a watchdog thread may publish the latest picture
while the loop is held, and the same functions draw the builder's own runs
(:mod:`~graphnb.widget.runner`), runs watched from other cells
(:mod:`~graphnb.widget.watching`) and checkpoints picked in a thread's history
(:mod:`~graphnb.widget.debugger`).

Streamed text is not drawn here: the publisher batches it into messages and appends it.
"""

from __future__ import annotations

import traceback
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..engine.events import (
    CacheHit,
    Event,
    NodeFailed,
    NodeFinished,
    NodeRetrying,
    NodeStarted,
    StepFinished,
)
from ..records import Interrupt
from .offload import NodeExit
from .protocol import NodeRun, ProblemInfo, RunError, RunState, RunStatus, SendCount, StepRecord

if TYPE_CHECKING:
    from ..engine.compiled import CompiledGraph
    from ..records import StateSnapshot

__all__ = [
    "STEP_LIMIT",
    "advance",
    "checkpoint_picture",
    "ending",
    "failed",
    "finished",
    "idle_run",
    "jsonable",
    "path_key",
    "started",
    "unstartable",
]

STEP_LIMIT = 500
"""Steps kept for the state panel; a run that loops longer keeps the last ones."""


def jsonable(value: Any) -> Any:
    """``value`` as JSON the front end can show (``repr`` for what has no JSON form)."""
    model = type(value)
    if isinstance(value, BaseModel) and not model.__pydantic_complete__:
        # A GraphState defers building its serializer (defer_build), and a state the engine
        # made without validating (an agent's) has not built it yet.
        model.model_rebuild()
    return to_jsonable_python(value, fallback=repr, serialize_unknown=True)


def _object(value: Any) -> dict[str, Any]:
    """A state's values as a JSON object (a state that is not one sits under ``value``)."""
    shown = jsonable(value)
    return shown if isinstance(shown, dict) else {"value": shown}


def path_key(path: Sequence[str]) -> str:
    """A node's key in the run picture: its path through subgraphs joined with ``/``."""
    return "/".join(path)


# -- whole pictures -----------------------------------------------------------------------


def idle_run(nodes: Sequence[str] = ()) -> RunState:
    """The picture before any run: every node idle."""
    return RunState(
        id=None,
        status="idle",
        thread_id=None,
        nodes={name: _idle() for name in nodes},
        active=[],
        steps=[],
        chunks="",
        field=None,
        error=None,
        elapsed=None,
    )


def started(nodes: Sequence[str], *, thread_id: str | None, field: str | None) -> RunState:
    """A run that has just started (a new run id): every node idle yet."""
    return {**idle_run(nodes), "id": uuid.uuid4().hex, "status": "running",
            "thread_id": thread_id, "field": field}  # fmt: skip


def unstartable(
    nodes: Sequence[str], error: BaseException, problems: Sequence[Mapping[str, Any]] = ()
) -> RunState:
    """A run that could not start (the graph did not compile, say), with its problems."""
    info = _error_info(None, error)
    info["problems"] = [
        ProblemInfo(code=str(p["code"]), message=str(p["message"]), nodes=list(p["nodes"]))
        for p in problems
    ]
    return {**idle_run(nodes), "status": "error", "error": info}


def failed(state: RunState, error: BaseException | str) -> RunState:
    """``state`` with the run's error.

    An exception that ended the run is shown on the node that failed last (else the node
    it names), with its traceback; a message (a watched run's, from another thread) only
    when no node's failure was drawn.
    """
    if isinstance(error, str):
        shown = state["error"] or RunError(node=None, message=error, traceback="", problems=[])
        return {**state, "error": shown}
    node = state["error"]["node"] if state["error"] else getattr(error, "node", None)
    return {**state, "error": _error_info(node, error)}


def ending(stops: Sequence[Interrupt]) -> RunStatus:
    """How a run that ended without an error ended.

    Done, paused at a breakpoint, or waiting for an answer to ``interrupt()``.
    """
    if not stops:
        return "done"
    return "waiting" if any(stop.asks for stop in stops) else "paused"


def finished(
    state: RunState, status: RunStatus, *, stops: Sequence[Interrupt] = (), elapsed: float
) -> RunState:
    """The last picture of a run that ended ``status`` after ``elapsed`` seconds.

    Stopped: nothing is pending or running any more. Done: nothing is pending. Paused,
    waiting or failed: the nodes it stopped at say so (:func:`_mark_stops`), and no clock
    runs on.
    """
    nodes = dict(state["nodes"])
    for name, record in state["nodes"].items():
        idle = ("pending", "running") if status == "stopped" else ("pending",)
        if status in ("stopped", "done") and record["status"] in idle:
            nodes[name] = {**record, "status": "idle"}
    if status not in ("stopped", "done"):
        _mark_stops(nodes, stops)
    return {**state, "nodes": nodes, "active": [], "status": status, "elapsed": elapsed}


def _mark_stops(nodes: dict[str, NodeRun], stops: Sequence[Interrupt]) -> None:
    """Mark the nodes a run stopped at: ``waiting`` for an answer, ``paused`` before one.

    A node stopped in ``interrupt()`` started and never finished: it is no longer
    running. A pause after a node leaves it done and what comes next pending.
    """
    for stop in stops:
        record = nodes.get(stop.node)
        if record is not None and stop.when != "after":
            nodes[stop.node] = {**record, "status": "waiting" if stop.asks else "paused"}
    for name, record in nodes.items():
        if record["status"] == "running":  # a parallel node the interrupt left unfinished
            nodes[name] = {**record, "status": "idle"}


def checkpoint_picture(
    graph: CompiledGraph[Any],
    snapshot: StateSnapshot[Any],
    parent: StateSnapshot[Any] | None,
) -> RunState:
    """A checkpoint as the run panel draws a run: ran nodes done, next ones pending."""
    nodes = {node.id: _idle() for node in graph.spec.nodes}
    for name in snapshot.ran:
        nodes[name] = NodeRun(status="done", duration=None, runs=1)
    for name in snapshot.next:
        if name in nodes:
            nodes[name]["status"] = "pending"
    error = snapshot.error
    if error and error.get("node") in nodes:
        nodes[error["node"]]["status"] = "error"
    values = _object(snapshot.values)
    before = _object(parent.values) if parent is not None else {}
    steps = []
    if parent is not None:
        steps.append(StepRecord(step=parent.step, nodes=list(parent.ran), state=before, changed=[]))
    changed = [k for k, v in values.items() if before.get(k) != v]
    steps.append(
        StepRecord(step=snapshot.step, nodes=list(snapshot.ran), state=values, changed=changed)
    )
    return {
        **idle_run(),
        "id": f"checkpoint:{snapshot.checkpoint_id}",
        "status": "error" if snapshot.error else "done",
        "thread_id": snapshot.thread_id,
        "nodes": nodes,
        "steps": steps,
    }


# -- one event ----------------------------------------------------------------------------


def advance(state: RunState, event: Event, *, baseline: Mapping[str, Any]) -> RunState:
    """The picture after ``event``; ``state`` itself is left as it was.

    Nodes inside subgraphs are keyed by their path (``research/search``); a node run once
    per ``Send`` item counts its instances; cache hits and retries are counted on the
    node. ``baseline``: the state's defaults, so the input step highlights only what the
    input set. Events that change nothing drawn (chunks, interrupts) give ``state`` back.
    """
    if isinstance(event, (CacheHit, NodeRetrying)):
        key = path_key(event.path)
        record: NodeRun = {**_node(state, key)}
        if isinstance(event, CacheHit):
            record["cache_hits"] = record.get("cache_hits", 0) + 1
        else:
            record["retries"] = record.get("retries", 0) + 1
        return _with_node(state, key, record)
    if isinstance(event, (NodeStarted, NodeFinished, NodeFailed)):
        return _node_event(state, event)
    if isinstance(event, StepFinished):
        values = _object(event.state)
        previous = state["steps"][-1]["state"] if state["steps"] else baseline
        changed = [key for key, value in values.items() if previous.get(key) != value]
        step = StepRecord(step=event.step, nodes=list(event.nodes), state=values, changed=changed)
        nodes = dict(state["nodes"])
        for name in event.next:
            if name in nodes and nodes[name]["status"] != "running":
                nodes[name] = {**nodes[name], "status": "pending"}
        steps = [*state["steps"][-(STEP_LIMIT - 1) :], step]
        return {**state, "nodes": nodes, "steps": steps}
    return state


def _node_event(state: RunState, event: NodeStarted | NodeFinished | NodeFailed) -> RunState:
    key = path_key(event.path)
    record: NodeRun = {**_node(state, key)}
    top = not event.namespace  # a node of the graph drawn, not of a subgraph inside it
    active = state["active"]
    if event.instance is not None:  # one of a node's Send instances
        record["instances"] = _counted(record.get("instances"), event)
    if isinstance(event, NodeFailed):
        record["status"] = "error"
        if not top:  # the subgraph's node shows it; the run's error comes from the top
            return _with_node(state, key, record)
        active = [name for name in active if name != event.node]
        error = _error_info(event.node, event.error)
        return {**_with_node(state, key, record), "active": active, "error": error}
    if isinstance(event, NodeStarted):
        record["status"] = "running"
        if top and event.node not in active:
            active = [*active, event.node]
        return {**_with_node(state, key, record), "active": active}
    record["runs"] += 1
    record["duration"] = event.duration
    if top and event.instance is None:  # inspecting a node shows its step and its update
        record["step"] = event.step
        record["writes"] = _object(event.update)
    elif record.get("instances", {}).get("running", 0):
        return _with_node(state, key, record)  # its other instances still run
    record["status"] = "done"
    if top:
        active = [name for name in active if name != event.node]
    return {**_with_node(state, key, record), "active": active}


def _counted(counts: SendCount | None, event: Event) -> SendCount:
    new = SendCount(**counts) if counts else SendCount(total=0, running=0, done=0, failed=0)
    if isinstance(event, NodeStarted):
        new["total"] += 1
        new["running"] += 1
    else:
        new["running"] -= 1
        new["done" if isinstance(event, NodeFinished) else "failed"] += 1
    return new


def _idle() -> NodeRun:
    return NodeRun(status="idle", duration=None, runs=0)


def _node(state: RunState, key: str) -> NodeRun:
    return state["nodes"].get(key) or _idle()


def _with_node(state: RunState, key: str, record: NodeRun) -> RunState:
    return {**state, "nodes": {**state["nodes"], key: record}}


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
