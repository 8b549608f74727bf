"""How runs execute: :func:`execute` drives one, :class:`Runner` keeps them in this process.

:class:`Runs` is what the API asks of whoever executes its runs: this process's
:class:`Runner` (the embedded default, each run an asyncio task) or the task queue of
:mod:`graphnb.serve.queue` (workers in other processes). Either way a run's stream parts
are numbered from 0 and every client that follows it (the one that started it with
``runs.stream``, a ``join``, a ``wait``, a reconnecting stream) reads them in order;
a thread has at most one active run, the others wait their turn or are refused by their
multitask strategy.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..engine.compiled import CompiledGraph
from ..engine.events import StreamMode
from ..engine.send import Send
from ..human import Command
from ..records import Interrupt, StateSnapshot
from .modes import ENGINE_MODES, EVENT_MODES, Translator
from .store import Busy, Store

__all__ = [
    "ACTIVE",
    "RECENT_RUNS",
    "ActiveRun",
    "FollowedRun",
    "Runner",
    "RunRequest",
    "Runs",
    "cancel_until_done",
    "execute",
    "final_values",
    "jsonable",
    "new_run",
]

ACTIVE = ("pending", "running")
"""The statuses of a run that has not ended."""

RECENT_RUNS = 64
"""Ended runs whose stream parts are kept, for clients that reconnect after the end."""

CANCEL_AGAIN_AFTER = 0.5
"""Seconds after which a run still going after its cancel is cancelled again."""


def cancel_until_done(task: asyncio.Future[Any]) -> None:
    """Cancel ``task``, and again every :data:`CANCEL_AGAIN_AFTER` seconds until it ends.

    One cancel can be lost: on Python 3.11 ``asyncio.wait_for`` returns its inner result
    when the cancel and the result arrive together, and redis-py writes through it (found
    here: about one cancel in 15 right after a run's start left it running for good). A
    node's own code may swallow one too.
    """
    loop = asyncio.get_running_loop()

    def again() -> None:
        if not task.done():
            task.cancel()
            loop.call_later(CANCEL_AGAIN_AFTER, again)

    again()


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (a state model by its field names); never pickled."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", fallback=repr)
    if isinstance(value, Interrupt):
        return {"value": jsonable(value.value), "id": value.id}
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return to_jsonable_python(value, fallback=repr)


def final_values(snapshot: StateSnapshot[Any] | None) -> Any:
    """The thread's values as a run's result: ``__interrupt__`` added when a node asks."""
    if snapshot is None:
        return {}
    values = jsonable(snapshot.values)
    if snapshot.interrupts and isinstance(values, dict):
        values["__interrupt__"] = jsonable(list(snapshot.interrupts))
    return values


def new_run(
    *, thread_id: str, assistant_id: str, metadata: dict[str, Any], strategy: str
) -> dict[str, Any]:
    """A new pending run's record (every column of the store's runs table)."""
    now = time.time()
    return {
        "run_id": str(uuid.uuid4()),
        "thread_id": thread_id,
        "assistant_id": assistant_id,
        "status": "pending",
        "metadata": metadata,
        "multitask_strategy": strategy,
        "created_at": now,
        "updated_at": now,
    }


Emit = Callable[[str, Any], Awaitable[None]]


@dataclass(frozen=True)
class RunRequest:
    """A run the API asked for, its body checked: what :meth:`Runs.start` starts."""

    graph: CompiledGraph[Any]
    graph_id: str
    assistant_id: str
    thread_id: str
    input: Any
    """The run's input, or a :class:`~graphnb.Command` resuming the thread."""
    modes: list[str]
    """The stream modes its followers asked for."""
    options: dict[str, Any]
    """Keyword options of ``astream`` (context, checkpoint_id, interrupt_before ...)."""
    metadata: dict[str, Any]
    strategy: str = "reject"
    """The multitask strategy: what happens when the thread is busy."""

    def record(self) -> dict[str, Any]:
        """A new pending run's record for this request (see :func:`new_run`)."""
        return new_run(
            thread_id=self.thread_id,
            assistant_id=self.assistant_id,
            metadata=self.metadata,
            strategy=self.strategy,
        )


async def execute(
    graph: CompiledGraph[Any],
    *,
    thread_id: str,
    run_id: str,
    input: Any,
    modes: list[str],
    options: dict[str, Any],
    emit: Emit,
) -> tuple[str, Any]:
    """Drive one run of ``graph`` on the thread, each stream part handed to ``emit``.

    Returns the run's status (``success``, ``interrupted`` when a node asks or the run
    is cancelled, ``error``) and its result, the thread's values where it stopped
    (:func:`final_values`). A failure is told to ``emit`` as an ``error`` part, not
    raised: it is the run's result.
    """
    status, result = "success", None
    try:
        input = await _commanded(graph, thread_id, input)
        # the engine streams values, updates and custom as the API sends them; the other
        # modes are read off its typed events (modes.py)
        built = [m for m in modes if m in EVENT_MODES]
        translator = None
        if built:
            translator = Translator(
                graph, modes=built, thread_id=thread_id, run_id=run_id, jsonable=jsonable
            )
        engine = [m for m in modes if m in ENGINE_MODES] + (["events"] if built else [])
        selected = cast("list[StreamMode]", engine)  # checked by the API
        stream = cast(
            "AsyncGenerator[tuple[str, Any], None]",
            graph.astream(input, mode=selected, thread_id=thread_id, **options),
        )
        # aclosing: a cancelled run closes the stream now, releasing the thread's lock
        async with contextlib.aclosing(stream):
            if translator is not None:
                await _emit_all(emit, await translator.start())
            async for mode, item in stream:
                if translator is not None and mode == "events":
                    await _emit_all(emit, await translator.parts(item))
                else:
                    await emit(mode, jsonable(item))
        snapshot = await graph.aget_state(thread_id)
        result = final_values(snapshot)
        if translator is not None:
            await _emit_all(emit, await translator.end(result))
        if snapshot.interrupts:
            status = "interrupted"
            if "values" in modes:  # as LangGraph's values stream ends an interrupted run
                await emit("values", {"__interrupt__": jsonable(list(snapshot.interrupts))})
    except asyncio.CancelledError:
        status = "interrupted"
        await emit("error", {"error": "Cancelled", "message": f"run {run_id} was cancelled"})
    except Exception as error:  # the run's failure is its result, told to its followers
        status = "error"
        result = None
        await emit("error", {"error": type(error).__name__, "message": str(error)})
    return status, result


async def _emit_all(emit: Emit, parts: list[tuple[str, Any]]) -> None:
    for event, data in parts:
        await emit(event, data)


async def _commanded(graph: CompiledGraph[Any], thread_id: str, given: Any) -> Any:
    """A run's input once a ``Command``'s ``update`` and ``goto`` are on the thread.

    As LangGraph applies an input ``Command``: ``update`` is written to the thread (the
    nodes due next stay due), ``goto`` adds its nodes to the next step, then the run goes
    on from there, answering pending interrupts if the command has a ``resume``.
    """
    if not isinstance(given, Command) or (given.update is None and not given.goto):
        return given
    from ..engine.editing import update_state

    update = {} if given.update is None else given.update
    await asyncio.to_thread(
        update_state,
        graph,
        thread_id,
        update,
        as_node=None,
        checkpoint_id=None,
        goto=[
            Send(t["node"], t.get("input") or {}) if isinstance(t, dict) else t
            for t in given.targets()
        ],
    )
    return None if given.resume is None else Command(resume=given.resume)


class FollowedRun(Protocol):
    """A run as the API follows it, wherever it executes."""

    record: dict[str, Any]
    """The run's row: ``run_id``, ``thread_id``, ``status``, ..."""

    result: Any
    """The thread's values where the run stopped, once :meth:`follow` has ended."""

    def follow(self, start: int | None = 0) -> AsyncIterator[tuple[int, str, Any]]:
        """Every part ``(index, event, data)`` from ``start`` on, until the run ends.

        ``start=None`` begins with the next part to come.
        """
        ...


class Runs(Protocol):
    """Whoever executes the API's runs: :class:`Runner` here, or the task queue."""

    def busy(self, thread_id: str) -> bool:
        """Whether the thread has a run that has not ended."""
        ...

    async def start(self, request: RunRequest) -> FollowedRun:
        """Start (or queue) a run on the thread. Raises :class:`Busy` (``reject``)."""
        ...

    async def find(self, record: dict[str, Any]) -> FollowedRun | None:
        """The run ``record`` describes, if its stream parts are still kept."""
        ...

    async def going(self, record: dict[str, Any]) -> FollowedRun | None:
        """The run ``record`` describes, if it has not ended."""
        ...

    async def cancel(self, run_id: str, *, wait: bool) -> bool:
        """Cancel a run that has not ended; ``False`` when there is none."""
        ...

    async def open(self) -> None:
        """Connect to what the runs need, before the first request."""
        ...

    async def shutdown(self) -> None:
        """Stop: this process's part of the runs ends."""
        ...


@dataclass(eq=False)
class ActiveRun:
    """A run of this process, from its start until its last follower has read its end."""

    record: dict[str, Any]
    parts: list[tuple[str, Any]] = field(default_factory=list)
    done: bool = False
    task: asyncio.Task[None] | None = None
    result: Any = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def emit(self, event: str, data: Any) -> None:
        """Add a stream part and wake the followers."""
        self.parts.append((event, data))
        self._wake.set()
        self._wake = asyncio.Event()

    async def aemit(self, event: str, data: Any) -> None:
        """:meth:`emit`, as :func:`execute` calls it."""
        self.emit(event, data)

    def finish(self) -> None:
        """Mark the run ended and wake the followers."""
        self.done = True
        self._wake.set()

    async def follow(self, start: int | None = 0) -> AsyncIterator[tuple[int, str, Any]]:
        """Every part ``(index, event, data)`` from ``start`` on, until the run ends.

        ``start=None`` begins with the next part to come.
        """
        index = len(self.parts) if start is None else start
        while True:
            wake = self._wake
            while index < len(self.parts):
                event, data = self.parts[index]
                yield index, event, data
                index += 1
            if self.done:
                return
            await wake.wait()


class Runner:
    """Starts, follows and cancels the runs of the served graphs in this process.

    A run asked for on a busy thread is refused (multitask strategy ``reject``), queued
    behind the runs before it (``enqueue``), or started once the active run is cancelled
    (``interrupt``). Runs left unfinished by a process that stopped are marked failed
    when the store opens (:meth:`~graphnb.serve.store.Store.forget_unfinished_runs`).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        store.forget_unfinished_runs()
        self.active: dict[str, ActiveRun] = {}  # the running run, by thread id
        self.queued: dict[str, deque[tuple[ActiveRun, Callable[[], None]]]] = {}
        self.by_id: dict[str, ActiveRun] = {}  # running and queued runs, by run id
        # the last runs that ended, parts kept, for a client reconnecting with Last-Event-ID
        self.recent: OrderedDict[str, ActiveRun] = OrderedDict()

    async def find(self, record: dict[str, Any]) -> ActiveRun | None:
        """The run with its stream parts, if it is active or ended lately."""
        run_id = record["run_id"]
        return self.by_id.get(run_id) or self.recent.get(run_id)

    async def going(self, record: dict[str, Any]) -> ActiveRun | None:
        """The run, if it is running or queued."""
        return self.by_id.get(record["run_id"])

    def busy(self, thread_id: str) -> bool:
        """Whether the thread has an active run."""
        return thread_id in self.active

    async def start(self, request: RunRequest) -> ActiveRun:
        """Start a run on the thread as an asyncio task, or queue it (``enqueue``).

        Raises:
            Busy: the thread has an active run and ``strategy`` is ``reject`` (or, with
                ``interrupt``, another run took the thread while the active one stopped).
        """
        thread_id, strategy = request.thread_id, request.strategy
        current = self.active.get(thread_id)
        if current is not None:
            if strategy == "reject":
                raise Busy(thread_id)
            if strategy == "interrupt":
                await self.cancel(current.record["run_id"], wait=True)
                if thread_id in self.active:
                    raise Busy(thread_id)
        record = request.record()
        self.store.add_run(record)
        self.store.touch_thread(thread_id, request.graph_id)
        active = ActiveRun(record)
        active.emit("metadata", {"run_id": record["run_id"], "attempt": 1})
        self.by_id[record["run_id"]] = active

        def launch() -> None:
            self.active[thread_id] = active
            active.task = asyncio.create_task(self._execute(active, request))
            # a run cancelled before its first step never enters _execute: end it here
            active.task.add_done_callback(lambda _: self._ended(active, "interrupted"))

        if thread_id in self.active:  # enqueue: it starts when the runs before it end
            self.queued.setdefault(thread_id, deque()).append((active, launch))
        else:
            launch()
        return active

    async def _execute(self, active: ActiveRun, request: RunRequest) -> None:
        self._status(active, "running")
        status = "error"
        try:
            status, active.result = await execute(
                request.graph,
                thread_id=request.thread_id,
                run_id=active.record["run_id"],
                input=request.input,
                modes=request.modes,
                options=request.options,
                emit=active.aemit,
            )
        finally:
            self._ended(active, status)

    def _ended(self, active: ActiveRun, status: str) -> None:
        if active.done:
            return
        run_id, thread_id = active.record["run_id"], active.record["thread_id"]
        self._status(active, status)
        self.store.touch_thread(thread_id)
        if self.active.get(thread_id) is active:
            del self.active[thread_id]
        self.by_id.pop(run_id, None)
        self.recent[run_id] = active
        while len(self.recent) > RECENT_RUNS:
            self.recent.popitem(last=False)
        active.finish()
        waiting = self.queued.get(thread_id)
        if waiting and thread_id not in self.active:
            _, launch = waiting.popleft()
            if not waiting:
                del self.queued[thread_id]
            launch()

    def _status(self, active: ActiveRun, status: str) -> None:
        active.record["status"] = status
        active.record["updated_at"] = time.time()
        self.store.set_status(active.record["run_id"], status)

    async def cancel(self, run_id: str, *, wait: bool) -> bool:
        """Cancel an active run; ``False`` when it is not active (ended, or unknown)."""
        active = self.by_id.get(run_id)
        if active is None:
            return False
        if active.task is None:  # queued: it never starts
            waiting = self.queued[active.record["thread_id"]]
            for index, (queued, _) in enumerate(waiting):
                if queued is active:
                    del waiting[index]
                    break
            self._ended(active, "interrupted")
            return True
        cancel_until_done(active.task)
        if wait:
            with contextlib.suppress(asyncio.CancelledError):
                await active.task
        return True

    async def open(self) -> None:
        """Nothing to connect to: the runs are this process's tasks."""

    async def shutdown(self) -> None:
        """Cancel every active run (the server is stopping)."""
        for waiting in list(self.queued.values()):
            for queued, _ in list(waiting):
                await self.cancel(queued.record["run_id"], wait=False)
        tasks = [a.task for a in self.active.values() if a.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
