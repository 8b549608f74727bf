"""A validated, runnable graph: ``invoke``, ``stream``, ``batch`` and their async twins.

The graph's parts are its :class:`~graphnb.engine.wiring.Wiring`; this class adds the
public ways to run it, each picking a loop: the plain loop (:mod:`graphnb.engine.plain`)
without a thread, the threaded one (:mod:`graphnb.engine.driver`) with one.

Why the twins stay twins here: Python cannot make one function both plain and a
coroutine function, so each public method has an ``a``-twin of a few lines picking a
loop.

The engine's modules below this one take the wiring, never this class, so none imports
back up. The thread modules (driver, subgraph, editing, feed) load on first use, not
with the graph: a run without a thread pays nothing for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

from ..records import DURABILITIES, Durability, check_own_thread, is_child_thread
from . import display
from .batch import (
    OnProgress,
    as_completed,
    as_executor,
    check_thread_ids,
    progress_callback,
    recipe_of,
    run_item,
    submit_remote,
)
from .events import Chunk, Event, Interrupted, NodeFinished, StepFinished, StreamMode
from .plain import aplain_events, plain_events
from .run import Run
from .threadlist import ThreadInfo, list_threads_info
from .tracing import trace_aevents, trace_events
from .wiring import DEFAULT_RECURSION_LIMIT, Wiring

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from ..human import Command
    from ..records import StateSnapshot
    from .driver import RunOptions
    from .feed import Watch

__all__ = ["DEFAULT_RECURSION_LIMIT", "CompiledGraph"]

S = TypeVar("S")

_MODES = frozenset({"events", "values", "updates", "chunks", "custom"})


class CompiledGraph(Wiring[S]):
    """A graph ready to run. Build one with :meth:`StateGraph.compile`."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return display.mimebundle(self.spec)

    def __repr__(self) -> str:
        return f"<CompiledGraph {self.name!r}: {len(self.nodes)} nodes on {self.schema.label}>"

    # -- threads -----------------------------------------------------------------------

    def _options(
        self,
        thread_id: str | None,
        checkpoint_id: str | None,
        interrupt_before: Sequence[str] | str | None,
        interrupt_after: Sequence[str] | str | None,
        durability: Durability = "sync",
    ) -> RunOptions:
        from ..checkpoint_errors import ThreadRequiredError
        from .driver import RunOptions
        from .subgraph import check_thread_type

        self.threads  # noqa: B018 - raises when there is no checkpointer
        if thread_id is None:
            raise ThreadRequiredError(
                f"{self.name!r} has a checkpointer, so each run belongs to a thread: pass "
                "thread_id=... (any string naming the conversation or job)"
            )
        check_thread_type(thread_id)
        into: tuple[tuple[str, str | None], ...] = ()
        if "|" in thread_id:  # a subgraph's thread: time travel into the child
            from .subgraph import split_thread

            thread_id, checkpoint_id, into = split_thread(self, thread_id, checkpoint_id)
            if not into:  # not a child of this graph's subgraph nodes: the user's own id
                check_own_thread(thread_id)
        return RunOptions(
            thread_id,
            checkpoint_id,
            self.interrupt_before
            if interrupt_before is None
            else self.check_node_names(interrupt_before, "interrupt_before"),
            self.interrupt_after
            if interrupt_after is None
            else self.check_node_names(interrupt_after, "interrupt_after"),
            into=into,
            durability=durability,
        )

    def get_state(
        self, thread_id: str, checkpoint_id: str | None = None, *, subgraphs: bool = False
    ) -> StateSnapshot[S]:
        """The thread's state at its last checkpoint (or at ``checkpoint_id``).

        With ``subgraphs=True``, :attr:`~graphnb.StateSnapshot.subgraphs` holds the
        state of each subgraph node the next step runs (an interrupted or crashed child,
        say), nested to any depth.

        Raises:
            ThreadNotFoundError: the thread (or that checkpoint) does not exist.
        """
        from .editing import snapshot_of
        from .subgraph import graph_of

        graph, threads = graph_of(self, thread_id)
        position = threads.load(thread_id, checkpoint_id)
        return snapshot_of(threads, thread_id, position, graph if subgraphs else None)

    async def aget_state(
        self, thread_id: str, checkpoint_id: str | None = None, *, subgraphs: bool = False
    ) -> StateSnapshot[S]:
        """Async :meth:`get_state`."""
        from .editing import snapshot_of
        from .subgraph import graph_of

        graph, threads = graph_of(self, thread_id)
        position = await threads.aload(thread_id, checkpoint_id)
        return snapshot_of(threads, thread_id, position, graph if subgraphs else None)

    def get_state_history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot[S]]:
        """Every checkpoint of the thread, newest first (forks included).

        With ``limit``, one page: the ``limit`` newest checkpoints written before the
        checkpoint ``before`` names (pass the last one of a page to get the next), read
        without going through the rest of the thread.

        A subgraph's thread (a child snapshot's ``thread_id``) reads in the child's model.

        Raises:
            ValueError: ``limit`` is not a positive int, ``before`` comes without
                ``limit``, or ``before`` is not a checkpoint of the thread.
        """
        from .subgraph import graph_of

        threads = graph_of(self, thread_id)[1]
        if limit is None:
            if before is not None:
                raise ValueError("get_state_history(before=...) pages: give limit=... too")
            return threads.history(thread_id)
        return threads.history_page(thread_id, limit=limit, before=before)

    async def aget_state_history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot[S]]:
        """Async :meth:`get_state_history`."""
        from .subgraph import graph_of

        threads = graph_of(self, thread_id)[1]
        if limit is None:
            if before is not None:
                raise ValueError("get_state_history(before=...) pages: give limit=... too")
            return await threads.ahistory(thread_id)
        return await threads.ahistory_page(thread_id, limit=limit, before=before)

    def update_state(
        self,
        thread_id: str,
        values: Mapping[str, Any] | S | None,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        """Edit a thread's state as if ``as_node`` had returned ``values``.

        The values merge through each field's reducer. With ``as_node``, the next nodes
        are those that follow it (its edges, router and joins); without, they stay as
        they were, and so do pending interrupts. ``as_node=END`` finishes the thread
        (LangGraph's way): no next nodes, pending interrupts and their answers cleared,
        ``values`` (``None`` for none) written first.

        Args:
            thread_id: the thread to edit; a subgraph's thread (a child snapshot's
                ``thread_id``) is edited in the child's model.
            values: a partial update (field names or aliases), or a state instance.
            as_node: the node the update is attributed to, or ``END``.
            checkpoint_id: edit this past checkpoint instead of the last (a fork).

        Returns:
            The id of the new checkpoint.
        """
        from .editing import update_state

        return update_state(self, thread_id, values, as_node=as_node, checkpoint_id=checkpoint_id)

    async def aupdate_state(
        self,
        thread_id: str,
        values: Mapping[str, Any] | S | None,
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        """Async :meth:`update_state`, on a worker thread (it waits for the thread's lock)."""
        import asyncio

        return await asyncio.to_thread(
            self.update_state, thread_id, values, as_node=as_node, checkpoint_id=checkpoint_id
        )

    def seed_thread(
        self,
        thread_id: str,
        values: Mapping[str, Any] | S,
        *,
        start_at: str | Sequence[str] | None = None,
    ) -> str:
        """Put initial values into a new thread before its first run.

        The first run on the thread then starts from these values with its input merged
        in through the reducers (seeded messages first, then the input's), at
        ``start_at`` when given, else at the graph's entry.

        Returns:
            The id of the seed checkpoint.

        Raises:
            CheckpointConflictError: the thread already has checkpoints.
        """
        from .editing import seed_thread

        return seed_thread(self, thread_id, values, start_at=start_at)

    async def aseed_thread(
        self,
        thread_id: str,
        values: Mapping[str, Any] | S,
        *,
        start_at: str | Sequence[str] | None = None,
    ) -> str:
        """Async :meth:`seed_thread`, on a worker thread (it waits for the thread's lock)."""
        import asyncio

        return await asyncio.to_thread(self.seed_thread, thread_id, values, start_at=start_at)

    def list_threads(self) -> list[str]:
        """The ids of the checkpointer's threads, sorted (subgraphs' own threads left out)."""
        return [t for t in self.threads.saver.threads() if not is_child_thread(t)]

    def threads_info(
        self, *, search: str | None = None, limit: int | None = None, after: str | None = None
    ) -> list[ThreadInfo]:
        """The checkpointer's threads newest first, with last step, status and time.

        See :func:`graphnb.engine.threadlist.list_threads_info` for the arguments.
        """
        return list_threads_info(self.threads.saver, search=search, limit=limit, after=after)

    def watch(self, thread_id: str | None, callback: Callable[[Any], None]) -> Watch:
        """Send the events of every run on ``thread_id`` in this process to ``callback``.

        Whoever starts the run (another cell, a batch, a thread), the callback gets a
        :class:`~graphnb.engine.feed.RunStarted`, every event of the run, and a
        :class:`~graphnb.engine.feed.RunEnded`; see :mod:`graphnb.engine.feed`. The
        watch is not tied to this graph: runs of any graph on that thread id are sent;
        ``thread_id=None`` watches every thread.

        Returns:
            The subscription; ``close()`` it (or use it in ``with``) to stop.
        """
        from .feed import watch

        return watch(thread_id, callback)

    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread's checkpoints, its subgraphs' threads too; returns how many.

        The same as ``self.threads.delete(thread_id)``, with the thread id checked first.
        """
        from .subgraph import check_thread_type

        check_thread_type(thread_id)
        return self.threads.delete(thread_id)

    # -- running -----------------------------------------------------------------------

    def _output(self, values: dict[str, Any]) -> S:
        """What a run returns: the state, or the output schema's fields of it (a dict)."""
        fields = self.output_fields
        if fields is None:
            return self.schema.build(values)
        # typed as the state, as LangGraph types it (its output schema is a view of it)
        return cast("S", {name: value for name, value in values.items() if name in fields})

    def _run(
        self,
        *,
        events: bool,
        context: Mapping[str, Any] | None,
        recursion_limit: int | None,
        thread_id: str | None = None,
    ) -> Run[S]:
        kind = Run
        if thread_id is not None:
            from .driver import ThreadedRun  # a run without a thread loads no driver

            kind = ThreadedRun
        return kind.open(
            self,
            events=events,
            context=context,
            recursion_limit=recursion_limit,
            thread_id=thread_id,
        )

    def invoke(
        self,
        input: Mapping[str, Any] | S | Command | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: Durability = "sync",
    ) -> S:
        """Run the graph to its end (or to an interrupt) and return the state.

        Args:
            input: initial values (field names or aliases), or a state instance; merged
                into the defaults (or a thread's state) through each field's reducer.
                With a thread, ``None`` resumes where the thread stopped and
                ``Command(resume=answer)`` answers a pending ``interrupt()``.
            context: user data nodes see as ``context.data``.
            recursion_limit: maximum super-steps for this run.
            thread_id: the thread the run belongs to (needs a checkpointer): each step
                is checkpointed there.
            checkpoint_id: run from this past checkpoint of the thread instead of its
                last one (time travel); the new checkpoints fork from it, the original
                history stays.
            interrupt_before: stop before these nodes (``"*"``: all), for this run.
            interrupt_after: stop after these nodes (``"*"``: all), for this run.
            durability: when a threaded run's checkpoints are stored: ``"sync"`` before
                each next step, ``"async"`` in the background while it runs (all before
                the run returns), ``"exit"`` once, when the run ends, stops or fails.
        """
        run = self._run(
            events=False, context=context, recursion_limit=recursion_limit, thread_id=thread_id
        )
        for _ in self._select_events(
            run, input, thread_id, checkpoint_id, interrupt_before, interrupt_after, durability
        ):
            pass
        return self._output(run.values)

    async def ainvoke(
        self,
        input: Mapping[str, Any] | S | Command | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: Durability = "sync",
    ) -> S:
        """Async :meth:`invoke`: async nodes run on the event loop."""
        run = self._run(
            events=False, context=context, recursion_limit=recursion_limit, thread_id=thread_id
        )
        async for _ in self._select_aevents(
            run, input, thread_id, checkpoint_id, interrupt_before, interrupt_after, durability
        ):
            pass
        return self._output(run.values)

    def _select_events(
        self,
        run: Run[S],
        input: Any,
        thread_id: str | None,
        checkpoint_id: str | None,
        interrupt_before: Sequence[str] | str | None,
        interrupt_after: Sequence[str] | str | None,
        durability: Durability = "sync",
    ) -> Iterator[Event]:
        check_durability(durability)
        if thread_id is None and self._threads is None and checkpoint_id is None:
            return trace_events(run, plain_events(run, input))
        options = self._options(
            thread_id, checkpoint_id, interrupt_before, interrupt_after, durability
        )
        run.thread_id = options.thread_id
        from .driver import thread_events

        return trace_events(run, thread_events(self, run, input, options))  # type: ignore[arg-type]

    def _select_aevents(
        self,
        run: Run[S],
        input: Any,
        thread_id: str | None,
        checkpoint_id: str | None,
        interrupt_before: Sequence[str] | str | None,
        interrupt_after: Sequence[str] | str | None,
        durability: Durability = "sync",
    ) -> AsyncIterator[Event]:
        check_durability(durability)
        if thread_id is None and self._threads is None and checkpoint_id is None:
            return trace_aevents(run, aplain_events(run, input))
        options = self._options(
            thread_id, checkpoint_id, interrupt_before, interrupt_after, durability
        )
        run.thread_id = options.thread_id
        from .driver import athread_events

        return trace_aevents(run, athread_events(self, run, input, options))  # type: ignore[arg-type]

    @overload
    def stream(
        self,
        input: Mapping[str, Any] | S | Command | None = ...,
        *,
        mode: StreamMode = ...,
        context: Mapping[str, Any] | None = ...,
        recursion_limit: int | None = ...,
        thread_id: str | None = ...,
        checkpoint_id: str | None = ...,
        interrupt_before: Sequence[str] | str | None = ...,
        interrupt_after: Sequence[str] | str | None = ...,
        durability: Durability = ...,
        subgraphs: bool = ...,
    ) -> Iterator[Any]: ...

    @overload
    def stream(
        self,
        input: Mapping[str, Any] | S | Command | None = ...,
        *,
        mode: Sequence[StreamMode],
        context: Mapping[str, Any] | None = ...,
        recursion_limit: int | None = ...,
        thread_id: str | None = ...,
        checkpoint_id: str | None = ...,
        interrupt_before: Sequence[str] | str | None = ...,
        interrupt_after: Sequence[str] | str | None = ...,
        durability: Durability = ...,
        subgraphs: bool = ...,
    ) -> Iterator[tuple[StreamMode, Any]]: ...

    def stream(
        self,
        input: Mapping[str, Any] | S | Command | None = None,
        *,
        mode: StreamMode | Sequence[StreamMode] = "events",
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: Durability = "sync",
        subgraphs: bool = False,
    ) -> Iterator[Any]:
        """Run the graph, yielding what ``mode`` selects as it happens.

        With one mode, yields that mode's items; with a list of modes, yields
        ``(mode, item)`` pairs. See :data:`~graphnb.StreamMode`. The thread options are
        those of :meth:`invoke`; a threaded run that stops for a human yields an
        :class:`~graphnb.Interrupted` event last. With ``subgraphs=True``, the events of
        nodes inside subgraph nodes are streamed too, each with its ``namespace``
        (``updates`` then keys them by their path joined with ``/``).
        """
        modes = _check_modes(mode)
        run = self._run(
            events=True, context=context, recursion_limit=recursion_limit, thread_id=thread_id
        )
        run.starts = "events" in modes
        run.steps = bool(modes & {"events", "values"})
        run.custom = bool(modes & {"events", "custom"})
        run.subgraphs = subgraphs
        events = self._select_events(
            run, input, thread_id, checkpoint_id, interrupt_before, interrupt_after, durability
        )
        if "values" not in modes:
            for event in events:
                yield from _select(event, modes, isinstance(mode, str))
            return
        state: Any = None
        for event in events:
            yield from _select(event, modes, isinstance(mode, str))
            if type(event) is StepFinished:
                state = event.state
            elif type(event) is Interrupted:
                yield from _stopped_state(state, event, isinstance(mode, str))

    async def astream(
        self,
        input: Mapping[str, Any] | S | Command | None = None,
        *,
        mode: StreamMode | Sequence[StreamMode] = "events",
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: Durability = "sync",
        subgraphs: bool = False,
    ) -> AsyncIterator[Any]:
        """Async :meth:`stream`."""
        modes = _check_modes(mode)
        run = self._run(
            events=True, context=context, recursion_limit=recursion_limit, thread_id=thread_id
        )
        run.starts = "events" in modes
        run.steps = bool(modes & {"events", "values"})
        run.custom = bool(modes & {"events", "custom"})
        run.subgraphs = subgraphs
        state: Any = None
        values = "values" in modes
        async for event in self._select_aevents(
            run, input, thread_id, checkpoint_id, interrupt_before, interrupt_after, durability
        ):
            for item in _select(event, modes, isinstance(mode, str)):
                yield item
            if not values:
                continue
            if type(event) is StepFinished:
                state = event.state
            elif type(event) is Interrupted:
                for item in _stopped_state(state, event, isinstance(mode, str)):
                    yield item

    def batch(
        self,
        inputs: Iterable[Mapping[str, Any] | S | None],
        *,
        max_concurrency: int = 8,
        context: Mapping[str, Any] | None = None,
        return_exceptions: bool = False,
        executor: Executor | None = None,
        thread_ids: Sequence[str] | None = None,
        progress: bool | OnProgress = False,
    ) -> list[S | BaseException]:
        """Run many inputs; results (or errors) in input order.

        Args:
            inputs: one input per run.
            max_concurrency: runs at once on the local thread pool (without ``executor``).
            context: user data every run's nodes see as ``context.data``.
            return_exceptions: put a failed input's error in its place in the results;
                otherwise every input still runs to its end, then the first error (in
                input order) is raised.
            executor: any :class:`concurrent.futures.Executor`. A thread pool runs this
                graph itself; any other (a Dask ``client.get_executor()`` or the client
                itself, a process pool, Ray) receives the graph as its spec plus
                importable bindings and its checkpointer as a URL, see
                :mod:`graphnb.engine.batch`.
            thread_ids: one thread per input (needs a checkpointer); a rerun with the
                same ids resumes only the inputs whose threads did not finish.
            progress: ``True`` shows a live progress bar (done, failed, running, rate,
                ETA): a widget in a notebook, a text bar on stderr elsewhere; a callable
                receives each :class:`~graphnb.engine.batch.BatchProgress` instead.

        Raises:
            BatchSetupError: the graph cannot travel to the executor's workers (names the
                node), or a worker cannot rebuild it.
        """
        items = list(inputs)
        done = dict(self._outcomes(items, max_concurrency, context, executor, thread_ids, progress))
        return _collect([done[index] for index in range(len(items))], return_exceptions)

    def batch_as_completed(
        self,
        inputs: Iterable[Mapping[str, Any] | S | None],
        *,
        max_concurrency: int = 8,
        context: Mapping[str, Any] | None = None,
        return_exceptions: bool = False,
        executor: Executor | None = None,
        thread_ids: Sequence[str] | None = None,
        progress: bool | OnProgress = False,
    ) -> Iterator[tuple[int, S | BaseException]]:
        """:meth:`batch`, yielding each input's index and result as soon as it finishes.

        What has finished is in hand even if the batch is interrupted; leaving the loop
        early cancels the inputs not yet started.

        Raises:
            BatchSetupError: as :meth:`batch`.
            Exception: without ``return_exceptions``, the first input that fails, when it
                fails (the inputs not yet started are cancelled).
        """
        items = list(inputs)
        for index, (ok, value) in self._outcomes(
            items, max_concurrency, context, executor, thread_ids, progress
        ):
            if not ok and not return_exceptions:
                raise value
            yield index, value

    def _outcomes(
        self,
        items: list[Any],
        max_concurrency: int,
        context: Mapping[str, Any] | None,
        executor: Executor | None,
        thread_ids: Sequence[str] | None,
        progress: bool | OnProgress,
    ) -> Iterator[tuple[int, tuple[bool, Any]]]:
        """Each input's index and ``(ok, result or error)``, in the order they finish."""
        from concurrent.futures import ThreadPoolExecutor

        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        ids = check_thread_ids(self, thread_ids, len(items))
        on_progress = progress_callback(progress, len(items))
        futures = self._submit(items, ids, context, executor)
        if futures is None:
            with ThreadPoolExecutor(min(max_concurrency, max(1, len(items)))) as pool:
                futures = self._submit(items, ids, context, pool)
                assert futures is not None
                yield from as_completed(futures, on_progress)
            return
        yield from as_completed(futures, on_progress)

    def _submit(
        self,
        items: list[Any],
        ids: list[str | None],
        context: Mapping[str, Any] | None,
        executor: Executor | None,
    ) -> list[Future[tuple[bool, Any]]] | None:
        from concurrent.futures import ThreadPoolExecutor

        if executor is None:
            return None
        executor = as_executor(executor)
        if isinstance(executor, ThreadPoolExecutor):

            def local(item: Any, thread_id: str | None) -> tuple[bool, Any]:
                try:
                    return True, run_item(self, item, thread_id, context)
                except Exception as error:
                    return False, error

            return [executor.submit(local, i, t) for i, t in zip(items, ids, strict=True)]
        return submit_remote(executor, recipe_of(self), items, ids, context)

    async def abatch(
        self,
        inputs: Iterable[Mapping[str, Any] | S | None],
        *,
        max_concurrency: int = 8,
        context: Mapping[str, Any] | None = None,
        return_exceptions: bool = False,
        executor: Executor | None = None,
        thread_ids: Sequence[str] | None = None,
    ) -> list[S | BaseException]:
        """Async :meth:`batch`: on the event loop under a semaphore, or on ``executor``."""
        import asyncio

        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        items = list(inputs)
        ids = check_thread_ids(self, thread_ids, len(items))
        if executor is not None:
            futures = self._submit(items, ids, context, executor)
            assert futures is not None
            outcomes = await asyncio.gather(
                *(asyncio.wrap_future(f) for f in futures), return_exceptions=True
            )
            return _collect(
                [(False, o) if isinstance(o, BaseException) else o for o in outcomes],
                return_exceptions,
            )
        gate = asyncio.Semaphore(max_concurrency)

        async def one(item: Any, thread_id: str | None) -> tuple[bool, Any]:
            async with gate:
                try:
                    return True, await self._arun_item(item, thread_id, context)
                except Exception as error:
                    return False, error

        done = await asyncio.gather(*(one(i, t) for i, t in zip(items, ids, strict=True)))
        return _collect(list(done), return_exceptions)

    async def _arun_item(
        self, item: Any, thread_id: str | None, context: Mapping[str, Any] | None
    ) -> S:
        # the async twin of engine.batch.run_item
        if thread_id is None:
            return await self.ainvoke(item, context=context)
        if await self.threads.aload(thread_id) is None:
            return await self.ainvoke(item, context=context, thread_id=thread_id)
        snapshot = await self.aget_state(thread_id)
        if not snapshot.next or snapshot.interrupts:
            return snapshot.values
        return await self.ainvoke(None, context=context, thread_id=thread_id)


def _collect(done: list[tuple[bool, Any]], return_exceptions: bool) -> list[Any]:
    # every input has run to its end before the first error (in input order) is raised
    if not return_exceptions:
        for ok, value in done:
            if not ok:
                raise value
    return [value for _, value in done]


def check_durability(durability: object) -> None:
    """Refuse a durability that is not one of :data:`~graphnb.records.DURABILITIES`."""
    if durability not in DURABILITIES:
        choices = ", ".join(repr(d) for d in DURABILITIES)
        raise ValueError(f"durability must be one of {choices}; got {durability!r:.80}")


def _check_modes(mode: StreamMode | Sequence[StreamMode]) -> frozenset[str]:
    modes = frozenset([mode] if isinstance(mode, str) else mode)
    unknown = sorted(modes - _MODES)
    if unknown or not modes:
        raise ValueError(
            f"unknown stream mode(s) {unknown or list(modes)}; choose from {sorted(_MODES)}"
        )
    return modes


def _stopped_state(state: Any, event: Interrupted, single: bool) -> list[Any]:
    """The ``values`` item closing a run stopped by ``interrupt()``, as LangGraph's.

    A mapping state (TypedDict, dict) is streamed once more with the pending interrupts
    under ``"__interrupt__"``, so a loop over the values stream sees why the run stopped;
    a typed state has no such field, and a static stop (``interrupt_before``/``_after``)
    none either, as on LangGraph.
    """
    if not isinstance(state, Mapping) or not any(i.asks for i in event.interrupts):
        return []
    stopped = {**state, "__interrupt__": event.interrupts}
    return [stopped if single else ("values", stopped)]


def _select(event: Event, modes: frozenset[str], single: bool) -> list[Any]:
    """What the stream yields for ``event``: items, or ``(mode, item)`` pairs."""
    # A list, not a generator, and no pairs built for a single mode: this runs for every
    # event of every stream. The event types are disjoint; the most frequent comes first.
    selected: list[Any] = []
    if "events" in modes:
        selected.append(event if single else ("events", event))
    if isinstance(event, NodeFinished):
        if "updates" in modes:
            key = "/".join(event.path) if event.namespace else event.node
            # a node that wrote nothing: None, as LangGraph streams it
            update = {key: event.update or None}
            if event.cached:
                update["__metadata__"] = {"cached": True}
            selected.append(update if single else ("updates", update))
    elif isinstance(event, StepFinished):
        if "values" in modes and event.wrote:  # a step that wrote nothing left the state as it was
            selected.append(event.state if single else ("values", event.state))
    elif isinstance(event, Chunk):
        if "chunks" in modes:
            selected.append(event if single else ("chunks", event))
        if "custom" in modes and event.field is None:
            selected.append(event.value if single else ("custom", event.value))
    elif isinstance(event, Interrupted) and "updates" in modes:
        stop = {"__interrupt__": event.interrupts}
        selected.append(stop if single else ("updates", stop))
    return selected
