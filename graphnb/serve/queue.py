"""Runs handed to worker processes: a task queue in PostgreSQL, stream parts in Redis.

With ``graphnb serve --db postgresql://... --broker redis://...`` any number of API
processes and worker processes (``graphnb worker``), on any number of machines, share the
threads. The pieces, none written here:

- **procrastinate**, a task queue living in the same PostgreSQL database: an API process
  defers one job per run, locked by its thread id, so a thread's runs execute one at a
  time and in order (the ``enqueue`` strategy comes free) on whichever worker is free.
  Cancelling is its job abort, which reaches the worker running the job. Each worker beats
  a heartbeat; a worker whose heartbeat stops (``kill -9``, a lost machine) has its jobs
  handed to another by :func:`retry_stalled`. A job waits in the table across restarts.
- **Redis streams** carry each run's parts from its worker to every client following it
  (:class:`~graphnb.serve.events.RunEvents`), from the start or from a ``Last-Event-ID``.
- The **checkpoints** in PostgreSQL make a taken-over run go on: a run that had written a
  checkpoint continues from the thread's last one (input ``None``), so what a checkpoint
  covers is not done twice; one that had not starts again from its input.

The API side is :class:`QueuedRuns` (the :class:`~graphnb.serve.runs.Runs` the API asks);
the worker side is :func:`work`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import procrastinate
import psycopg
from procrastinate.schema import SchemaManager

from ..checkpoint_errors import ThreadNotFoundError
from ..engine.compiled import CompiledGraph
from ..human import Command
from .events import END, RunEvents
from .runs import ACTIVE, RunRequest, cancel_until_done, execute
from .store import Store, open_store

__all__ = ["QUEUE", "TASK", "QueuedRun", "QueuedRuns", "queue_app", "retry_stalled", "work"]

QUEUE = "graphnb"
"""The procrastinate queue the runs go through."""

TASK = "graphnb_run"
"""The name of the task that executes one run."""

STALLED_AFTER = 30.0
"""Seconds without a heartbeat after which a worker counts as gone and its runs move."""

_log = logging.getLogger(__name__)

_CANCEL_WAIT = 30.0  # seconds a cancel with wait=True waits for the run to stop


def queue_app(db: str) -> procrastinate.App:
    """The procrastinate app on the PostgreSQL database ``db`` (not opened)."""
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=db))


async def ensure_schema(db: str) -> None:
    """Create procrastinate's tables in ``db`` unless they are there (one process at a time)."""
    connect = psycopg.AsyncConnection.connect(db, autocommit=True)
    async with await connect as connection, connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(hashtext('graphnb_queue'))")
        cursor = await connection.execute("SELECT to_regclass('procrastinate_jobs')")
        found = await cursor.fetchone()
        if found is None or found[0] is None:
            await connection.execute(SchemaManager.get_schema())


def _job_args(run_id: str, request: RunRequest) -> dict[str, Any]:
    """The job's arguments: JSON, so a Command travels as its parts."""
    input, command = request.input, None
    if isinstance(input, Command):
        command = {"resume": input.resume, "update": input.update, "goto": input.targets()}
        input = None
    return {
        "run_id": run_id,
        "thread_id": request.thread_id,
        "graph_id": request.graph_id,
        "input": input,
        "command": command,
        "modes": request.modes,
        "options": request.options,
    }


@dataclass(eq=False)
class QueuedRun:
    """A run of the queue as an API process follows it: its parts read from Redis."""

    record: dict[str, Any]
    events: RunEvents
    result: Any = None

    async def follow(self, start: int | None = 0) -> AsyncIterator[tuple[int, str, Any]]:
        """Every part ``(index, event, data)`` from ``start`` on, until the run ends.

        ``start=None`` begins with the next part to come.
        """
        run_id = self.record["run_id"]
        if start is None:
            start = await self.events.next_index(run_id)
            if start is None:  # ended: nothing more will come
                return
        async for index, event, data in self.events.follow(run_id, start):
            if event == END:
                self.record["status"], self.result = data["status"], data["result"]
                return
            yield index, event, data


class QueuedRuns:
    """The API's runs, deferred to the task queue and followed through Redis."""

    def __init__(self, store: Store, *, db: str, broker: str) -> None:
        self.store = store
        self.db = db
        self.events = RunEvents(broker)
        self.app = queue_app(db)

    async def open(self) -> None:
        """Connect to Redis and the queue (creating its tables the first time)."""
        await self.events.check()
        await ensure_schema(self.db)
        await self.app.open_async()

    async def shutdown(self) -> None:
        """Disconnect; the runs go on in the workers, the queued ones wait in the queue."""
        await self.app.close_async()
        await self.events.close()

    def busy(self, thread_id: str) -> bool:
        """Whether the thread has a run pending or running, in any process."""
        return self.store.busy(thread_id)

    async def start(self, request: RunRequest) -> QueuedRun:
        """Record the run and queue it behind the thread's earlier runs.

        Raises:
            Busy: ``strategy`` is ``reject`` and the thread has a run that has not ended.
        """
        thread_id, strategy = request.thread_id, request.strategy
        if strategy == "interrupt":
            for row in self.store.runs(thread_id, limit=100, offset=0, status=None):
                if row["status"] in ACTIVE:
                    await self.cancel(row["run_id"], wait=True)
        record = request.record()
        # on threads: a commit waits for the disk, and the loop serves others meanwhile
        await asyncio.to_thread(self.store.add_run, record, unless_busy=strategy == "reject")
        await asyncio.to_thread(self.store.touch_thread, thread_id, request.graph_id)
        await self.events.add(
            record["run_id"], 0, "metadata", {"run_id": record["run_id"], "attempt": 1}
        )
        job = self.app.configure_task(TASK, queue=QUEUE, lock=thread_id)
        await job.defer_async(**_job_args(record["run_id"], request))
        return QueuedRun(record, self.events)

    async def find(self, record: dict[str, Any]) -> QueuedRun | None:
        """The run, while its parts are kept in Redis."""
        if not await self.events.kept(record["run_id"]):
            return None
        return QueuedRun(record, self.events)

    async def going(self, record: dict[str, Any]) -> QueuedRun | None:
        """The run, if it is pending or running."""
        return QueuedRun(record, self.events) if record["status"] in ACTIVE else None

    async def cancel(self, run_id: str, *, wait: bool) -> bool:
        """Cancel the run, queued or running on any worker; ``False`` if it has ended."""
        jobs = await self.app.connector.execute_query_all_async(
            "SELECT id FROM procrastinate_jobs WHERE args->>'run_id' = %(run_id)s "
            "AND status IN ('todo', 'doing')",
            run_id=run_id,
        )
        if not jobs:
            return False
        job = jobs[0]
        await self.app.job_manager.cancel_job_by_id_async(job["id"], abort=True)
        status = await self.app.job_manager.get_job_status_async(job["id"])
        if status == procrastinate.jobs.Status.CANCELLED:  # it never started: end it here
            await _finish(self.store, self.events, run_id, "interrupted", None)
            return True
        if wait:
            deadline = time.monotonic() + _CANCEL_WAIT
            while time.monotonic() < deadline and self.store.run_status(run_id) in ACTIVE:
                await asyncio.sleep(0.05)
        return True


async def _finish(store: Store, events: RunEvents, run_id: str, status: str, result: Any) -> None:
    await asyncio.to_thread(store.set_status, run_id, status)
    await events.end(run_id, status, result)


async def _head(graph: CompiledGraph[Any], thread_id: str) -> str:
    try:
        return (await graph.aget_state(thread_id)).checkpoint_id
    except ThreadNotFoundError:
        return ""


def register_run_task(
    app: procrastinate.App,
    graphs: Mapping[str, CompiledGraph[Any]],
    store: Store,
    events: RunEvents,
) -> None:
    """Teach ``app`` the task that executes a run with ``graphs`` (the worker side)."""

    @app.task(name=TASK, queue=QUEUE)
    async def run(
        *,
        run_id: str,
        thread_id: str,
        graph_id: str,
        input: Any,
        command: dict[str, Any] | None,
        modes: list[str],
        options: dict[str, Any],
    ) -> None:
        if store.run_status(run_id) not in ACTIVE:  # cancelled, or deleted, while it waited
            return
        attempt = asyncio.ensure_future(
            _attempt(
                graphs[graph_id],
                store,
                events,
                run_id=run_id,
                thread_id=thread_id,
                given=_given(input, command),
                modes=modes,
                options=options,
            )
        )
        # The job's abort cancels this task once; the attempt is cancelled until it ends,
        # and the run is ended here whatever happened to it.
        while not attempt.done():
            try:
                await asyncio.wait({attempt})
            except asyncio.CancelledError:
                cancel_until_done(attempt)
        status, result = "interrupted", None
        if not attempt.cancelled():
            if attempt.exception() is None:
                status, result = attempt.result()
            else:
                status = "error"
                _log.error("run %s failed", run_id, exc_info=attempt.exception())
        # shielded: a shutdown's abort arriving now must not leave the run marked running
        settling = asyncio.ensure_future(_settle(store, events, run_id, thread_id, status, result))
        try:
            await asyncio.shield(settling)
        except asyncio.CancelledError:
            await settling


async def _attempt(
    graph: CompiledGraph[Any],
    store: Store,
    events: RunEvents,
    *,
    run_id: str,
    thread_id: str,
    given: Any,
    modes: list[str],
    options: dict[str, Any],
) -> tuple[str, Any]:
    """One worker's attempt at the run: its status and result (``interrupted`` if cancelled)."""
    next_index: int | None = None  # read from the stream at the first part

    async def emit(event: str, data: Any) -> None:
        nonlocal next_index
        if next_index is None:
            next_index = await events.count(run_id)
        await events.add(run_id, next_index, event, data)
        next_index += 1

    try:
        attempt, started_from = await events.attempt(run_id, await _head(graph, thread_id))
        if attempt > 1:
            # taken over from a worker that stopped: say so, and go on from the thread's
            # last checkpoint if that run wrote one
            await emit("metadata", {"run_id": run_id, "attempt": attempt})
            if await _head(graph, thread_id) != started_from:
                given, options = None, options | {"checkpoint_id": None}
        # on the loop, not a thread: a cancel landing in a to_thread await would leave the
        # thread's write to finish after the end's, and the run marked running
        store.set_status(run_id, "running")
        return await execute(
            graph,
            thread_id=thread_id,
            run_id=run_id,
            input=given,
            modes=modes,
            options=options,
            emit=emit,
        )
    except asyncio.CancelledError:  # cancelled before its first step
        await emit("error", {"error": "Cancelled", "message": f"run {run_id} was cancelled"})
        return "interrupted", None


def _given(input: Any, command: dict[str, Any] | None) -> Any:
    if command is None:
        return input
    return Command(
        resume=command["resume"], update=command.get("update"), goto=command.get("goto", ())
    )


async def _settle(
    store: Store, events: RunEvents, run_id: str, thread_id: str, status: str, result: Any
) -> None:
    await asyncio.to_thread(store.touch_thread, thread_id)
    await _finish(store, events, run_id, status, result)


async def retry_stalled(app: procrastinate.App, stalled_after: float) -> None:
    """Forever: hand the runs of workers whose heartbeat stopped to the queue again."""
    while True:
        await asyncio.sleep(stalled_after / 3)
        try:
            stalled = await app.job_manager.get_stalled_jobs(
                queue=QUEUE, seconds_since_heartbeat=stalled_after
            )
            for job in stalled:
                await app.job_manager.retry_job(job)
        except procrastinate.exceptions.ConnectorException:  # the database is away: next time
            _log.warning("could not look for stalled runs", exc_info=True)


async def work(
    graphs: Mapping[str, CompiledGraph[Any]],
    *,
    db: str,
    broker: str,
    jobs: int = 10,
    stalled_after: float = STALLED_AFTER,
    install_signal_handlers: bool = True,
) -> None:
    """Execute queued runs of ``graphs`` until stopped (``graphnb worker``).

    ``jobs`` runs at once; a worker silent for ``stalled_after`` seconds counts as
    gone, and its runs go to another. SIGINT or SIGTERM lets the running runs finish.
    """
    store = open_store(db)
    events = RunEvents(broker)
    await events.check()
    await ensure_schema(db)
    app = queue_app(db)
    register_run_task(app, graphs, store, events)
    async with app.open_async():
        sweeper = asyncio.create_task(retry_stalled(app, stalled_after))
        try:
            await app.run_worker_async(
                queues=[QUEUE],
                concurrency=jobs,
                install_signal_handlers=install_signal_handlers,
                update_heartbeat_interval=stalled_after / 3,
                stalled_worker_timeout=stalled_after,
                abort_job_polling_interval=1.0,
                delete_jobs="always",  # a run's record is the runs table, not its job
            )
        finally:
            sweeper.cancel()
            await events.close()
            store.close()
