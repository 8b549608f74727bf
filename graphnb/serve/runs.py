"""Runs executed in this process: each an asyncio task driving the graph's ``astream``.

A run's stream parts are kept in order while it is active, so every client that follows
it (the one that started it with ``runs.stream``, a ``join``, a ``wait``) reads them from
the first; a thread has at most one active run (the "reject" multitask strategy).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..engine.compiled import CompiledGraph
from ..engine.events import StreamMode
from ..records import Interrupt, StateSnapshot
from .store import Store

__all__ = ["RECENT_RUNS", "ActiveRun", "Busy", "Runner", "jsonable"]

RECENT_RUNS = 64
"""Ended runs whose stream parts are kept, for clients that reconnect after the end."""


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


class Busy(Exception):
    """The thread already has an active run."""


@dataclass(eq=False)
class ActiveRun:
    """A run of this process, from its start until its last follower has read its end."""

    record: dict[str, Any]
    parts: list[tuple[str, Any]] = field(default_factory=list)
    done: bool = False
    task: asyncio.Task[None] | None = None
    snapshot: StateSnapshot[Any] | None = None  # the thread's state where the run ended
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def emit(self, event: str, data: Any) -> None:
        """Add a stream part and wake the followers."""
        self.parts.append((event, data))
        self._wake.set()
        self._wake = asyncio.Event()

    def finish(self) -> None:
        """Mark the run ended and wake the followers."""
        self.done = True
        self._wake.set()

    async def follow(self, start: int = 0) -> AsyncIterator[tuple[int, str, Any]]:
        """Every part ``(index, event, data)`` from ``start`` on, until the run ends."""
        index = start
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
    """Starts, follows and cancels the runs of the served graphs, one per thread at a time.

    A run asked for on a busy thread is refused (multitask strategy ``reject``), queued
    behind the runs before it (``enqueue``), or started once the active run is cancelled
    (``interrupt``).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.active: dict[str, ActiveRun] = {}  # the running run, by thread id
        self.queued: dict[str, deque[tuple[ActiveRun, Callable[[], None]]]] = {}
        self.by_id: dict[str, ActiveRun] = {}  # running and queued runs, by run id
        # the last runs that ended, parts kept, for a client reconnecting with Last-Event-ID
        self.recent: OrderedDict[str, ActiveRun] = OrderedDict()

    def find(self, run_id: str) -> ActiveRun | None:
        """The run with its stream parts, if it is active or ended lately."""
        return self.by_id.get(run_id) or self.recent.get(run_id)

    def busy(self, thread_id: str) -> bool:
        """Whether the thread has an active run."""
        return thread_id in self.active

    async def start(
        self,
        graph: CompiledGraph[Any],
        *,
        graph_id: str,
        assistant_id: str,
        thread_id: str,
        input: Any,
        modes: list[str],
        options: dict[str, Any],
        metadata: dict[str, Any],
        strategy: str = "reject",
    ) -> ActiveRun:
        """Start a run on the thread as an asyncio task, or queue it (``enqueue``).

        Raises:
            Busy: the thread has an active run and ``strategy`` is ``reject`` (or, with
                ``interrupt``, another run took the thread while the active one stopped).
        """
        current = self.active.get(thread_id)
        if current is not None:
            if strategy == "reject":
                raise Busy(thread_id)
            if strategy == "interrupt":
                await self.cancel(current.record["run_id"], wait=True)
                if thread_id in self.active:
                    raise Busy(thread_id)
        now = time.time()
        record: dict[str, Any] = {
            "run_id": str(uuid.uuid4()),
            "thread_id": thread_id,
            "assistant_id": assistant_id,
            "status": "pending",
            "metadata": metadata,
            "multitask_strategy": strategy,
            "created_at": now,
            "updated_at": now,
        }
        self.store.add_run(record)
        self.store.touch_thread(thread_id, graph_id)
        active = ActiveRun(record)
        active.emit("metadata", {"run_id": record["run_id"], "attempt": 1})
        self.by_id[record["run_id"]] = active

        def launch() -> None:
            self.active[thread_id] = active
            active.task = asyncio.create_task(self._execute(active, graph, input, modes, options))
            # a run cancelled before its first step never enters _execute: end it here
            active.task.add_done_callback(lambda _: self._ended(active, "interrupted"))

        if thread_id in self.active:  # enqueue: it starts when the runs before it end
            self.queued.setdefault(thread_id, deque()).append((active, launch))
        else:
            launch()
        return active

    async def _execute(
        self,
        active: ActiveRun,
        graph: CompiledGraph[Any],
        input: Any,
        modes: list[str],
        options: dict[str, Any],
    ) -> None:
        run_id, thread_id = active.record["run_id"], active.record["thread_id"]
        self._status(active, "running")
        status = "success"
        try:
            selected = cast("list[StreamMode]", modes)  # checked by the API
            stream = cast(
                "AsyncGenerator[tuple[str, Any], None]",
                graph.astream(input, mode=selected, thread_id=thread_id, **options),
            )
            # aclosing: a cancelled run closes the stream now, releasing the thread's lock
            async with contextlib.aclosing(stream):
                async for mode, item in stream:
                    active.emit(mode, jsonable(item))
            active.snapshot = snapshot = await graph.aget_state(thread_id)
            if snapshot.interrupts:
                status = "interrupted"
                if "values" in modes:  # as LangGraph's values stream ends an interrupted run
                    active.emit("values", {"__interrupt__": jsonable(snapshot.interrupts)})
        except asyncio.CancelledError:
            status = "interrupted"
            active.emit("error", {"error": "Cancelled", "message": f"run {run_id} was cancelled"})
        except Exception as error:  # the run's failure is its result, told to its followers
            status = "error"
            active.emit("error", {"error": type(error).__name__, "message": str(error)})
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
        active.task.cancel()
        if wait:
            with contextlib.suppress(asyncio.CancelledError):
                await active.task
        return True

    async def shutdown(self) -> None:
        """Cancel every active run (the server is stopping)."""
        for waiting in list(self.queued.values()):
            for queued, _ in list(waiting):
                await self.cancel(queued.record["run_id"], wait=False)
        tasks = [a.task for a in self.active.values() if a.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
