"""A validated, runnable graph: ``invoke``, ``stream``, ``batch`` and their async twins."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar, overload

from ..schema import StateSchema
from ..spec import START, GraphSpec
from .events import Chunk, Event, NodeFinished, StepFinished, StreamMode
from .node import Node, Router
from .run import Run, step_async, step_sync

__all__ = ["DEFAULT_RECURSION_LIMIT", "CompiledGraph"]

S = TypeVar("S")

DEFAULT_RECURSION_LIMIT = 100
"""Super-steps a run may take before it is stopped with GraphRecursionError."""

_MODES = frozenset({"events", "values", "updates", "chunks", "custom"})


class CompiledGraph(Generic[S]):
    """A graph ready to run. Build one with :meth:`StateGraph.compile`."""

    def __init__(
        self,
        spec: GraphSpec,
        schema: StateSchema[S],
        nodes: Mapping[str, Any],
        routers: Mapping[str, Router],
        *,
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
        max_concurrency: int | None = None,
    ) -> None:
        self.spec = spec
        self.schema = schema
        self.recursion_limit = recursion_limit
        self.max_concurrency = max_concurrency
        self.nodes: dict[str, Node] = {
            name: Node(name, index, fn) for index, (name, fn) in enumerate(nodes.items())
        }
        self.routers = dict(routers)
        successors: dict[str, list[str]] = {}
        join_sources: dict[str, list[str]] = {}
        for edge in spec.edges:
            if edge.kind == "direct":
                successors.setdefault(edge.source, []).append(edge.target)
            elif edge.kind == "join":
                join_sources.setdefault(edge.target, []).append(edge.source)
        self.successors = {name: tuple(dict.fromkeys(ts)) for name, ts in successors.items()}
        self.joins = [(frozenset(sources), target) for target, sources in join_sources.items()]
        self.joins_of: dict[str, list[int]] = {}
        for index, (sources, _) in enumerate(self.joins):
            for source in sources:
                self.joins_of.setdefault(source, []).append(index)

    @property
    def name(self) -> str:
        """The graph's name."""
        return self.spec.name

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ..diagram import mimebundle

        return mimebundle(self.spec)

    def __repr__(self) -> str:
        return f"<CompiledGraph {self.name!r}: {len(self.nodes)} nodes on {self.schema.label}>"

    # -- running -----------------------------------------------------------------------

    def _run(
        self,
        *,
        events: bool,
        context: Mapping[str, Any] | None,
        recursion_limit: int | None,
        thread_id: str | None = None,
    ) -> Run[S]:
        return Run(
            self,
            run_id=os.urandom(16).hex(),
            thread_id=thread_id,
            data=context or {},
            recursion_limit=recursion_limit or self.recursion_limit,
            events=events,
            max_concurrency=self.max_concurrency,
        )

    def _events(self, run: Run[S], input: Any) -> Iterator[Event]:
        run.start(input)
        tasks = run.first_tasks()
        if run.steps:
            yield StepFinished(-1, (START,), run.state(), tuple(n.name for n in tasks))
        while tasks:
            run.check_limit()
            results = yield from step_sync(run, tasks)
            run.merge(results)
            finished = [node for node, _ in results]
            tasks = run.next_tasks(finished)
            if run.steps:
                yield run.finished_event(tuple(n.name for n in finished), tasks)
            run.step += 1

    async def _aevents(self, run: Run[S], input: Any) -> AsyncIterator[Event]:
        run.start(input)
        tasks = await run.afirst_tasks()
        if run.steps:
            yield StepFinished(-1, (START,), run.state(), tuple(n.name for n in tasks))
        while tasks:
            run.check_limit()
            results: list[Any] = []
            async for item in step_async(run, tasks):
                if isinstance(item, list):
                    results = item
                else:
                    yield item
            run.merge(results)
            finished = [node for node, _ in results]
            tasks = await run.anext_tasks(finished)
            if run.steps:
                yield run.finished_event(tuple(n.name for n in finished), tasks)
            run.step += 1

    def invoke(
        self,
        input: Mapping[str, Any] | S | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
    ) -> S:
        """Run the graph to its end and return the final state.

        Args:
            input: initial values (field names or aliases), or a state instance; merged
                into the defaults through each field's reducer.
            context: user data nodes see as ``context.data``.
            recursion_limit: maximum super-steps for this run.
        """
        run = self._run(events=False, context=context, recursion_limit=recursion_limit)
        for _ in self._events(run, input):
            pass
        return self.schema.build(run.values)

    async def ainvoke(
        self,
        input: Mapping[str, Any] | S | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
    ) -> S:
        """Async :meth:`invoke`: async nodes run on the event loop."""
        run = self._run(events=False, context=context, recursion_limit=recursion_limit)
        async for _ in self._aevents(run, input):
            pass
        return self.schema.build(run.values)

    @overload
    def stream(
        self,
        input: Mapping[str, Any] | S | None = ...,
        *,
        mode: StreamMode = ...,
        context: Mapping[str, Any] | None = ...,
        recursion_limit: int | None = ...,
    ) -> Iterator[Any]: ...

    @overload
    def stream(
        self,
        input: Mapping[str, Any] | S | None = ...,
        *,
        mode: Sequence[StreamMode],
        context: Mapping[str, Any] | None = ...,
        recursion_limit: int | None = ...,
    ) -> Iterator[tuple[StreamMode, Any]]: ...

    def stream(
        self,
        input: Mapping[str, Any] | S | None = None,
        *,
        mode: StreamMode | Sequence[StreamMode] = "events",
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
    ) -> Iterator[Any]:
        """Run the graph, yielding what ``mode`` selects as it happens.

        With one mode, yields that mode's items; with a list of modes, yields
        ``(mode, item)`` pairs. See :data:`~graphnb.StreamMode`.
        """
        modes = _check_modes(mode)
        run = self._run(events=True, context=context, recursion_limit=recursion_limit)
        run.starts = "events" in modes
        run.steps = bool(modes & {"events", "values"})
        for event in self._events(run, input):
            yield from _select(event, modes, isinstance(mode, str))

    async def astream(
        self,
        input: Mapping[str, Any] | S | None = None,
        *,
        mode: StreamMode | Sequence[StreamMode] = "events",
        context: Mapping[str, Any] | None = None,
        recursion_limit: int | None = None,
    ) -> AsyncIterator[Any]:
        """Async :meth:`stream`."""
        modes = _check_modes(mode)
        run = self._run(events=True, context=context, recursion_limit=recursion_limit)
        run.starts = "events" in modes
        run.steps = bool(modes & {"events", "values"})
        async for event in self._aevents(run, input):
            for item in _select(event, modes, isinstance(mode, str)):
                yield item

    def batch(
        self,
        inputs: Iterable[Mapping[str, Any] | S | None],
        *,
        max_concurrency: int = 8,
        context: Mapping[str, Any] | None = None,
        return_exceptions: bool = False,
    ) -> list[S | BaseException]:
        """Run many inputs, at most ``max_concurrency`` at a time; results in input order."""
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        items = list(inputs)

        def one(item: Any) -> S | BaseException:
            try:
                return self.invoke(item, context=context)
            except Exception as error:
                if return_exceptions:
                    return error
                raise

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(max_concurrency, max(1, len(items)))) as pool:
            return list(pool.map(one, items))

    async def abatch(
        self,
        inputs: Iterable[Mapping[str, Any] | S | None],
        *,
        max_concurrency: int = 8,
        context: Mapping[str, Any] | None = None,
        return_exceptions: bool = False,
    ) -> list[S | BaseException]:
        """Async :meth:`batch`, bounded by a semaphore."""
        import asyncio

        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        gate = asyncio.Semaphore(max_concurrency)

        async def one(item: Any) -> S:
            async with gate:
                return await self.ainvoke(item, context=context)

        results = await asyncio.gather(
            *(one(item) for item in inputs), return_exceptions=return_exceptions
        )
        return list(results)


def _check_modes(mode: StreamMode | Sequence[StreamMode]) -> frozenset[str]:
    modes = frozenset([mode] if isinstance(mode, str) else mode)
    unknown = sorted(modes - _MODES)
    if unknown or not modes:
        raise ValueError(
            f"unknown stream mode(s) {unknown or list(modes)}; choose from {sorted(_MODES)}"
        )
    return modes


def _select(event: Event, modes: frozenset[str], single: bool) -> Iterator[Any]:
    def out(mode: str, item: Any) -> Any:
        return item if single else (mode, item)

    if "events" in modes:
        yield out("events", event)
    if isinstance(event, StepFinished):
        if "values" in modes:
            yield out("values", event.state)
    elif isinstance(event, NodeFinished):
        if "updates" in modes:
            yield out("updates", {event.node: event.update})
    elif isinstance(event, Chunk):
        if "chunks" in modes:
            yield out("chunks", event)
        if "custom" in modes and event.field is None:
            yield out("custom", event.value)
