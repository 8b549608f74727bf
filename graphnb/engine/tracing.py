"""OpenTelemetry spans of graph runs: runs, super-steps, nodes, checkpoints, interrupts.

Tracing is on when the application has set up OpenTelemetry: ``opentelemetry.trace`` is
imported and a real tracer provider is set (an SDK ``TracerProvider``, Logfire...), or
one was given to :func:`instrument`. graphnb never imports OpenTelemetry itself, so
without it (or before it is set up) a run pays one dictionary lookup and nothing else.

The spans are built from the run's own events, by a wrapper around its event stream, so
the engine's step and node code knows nothing of them:

- ``run <graph>``: the whole run (a child of whatever span is current when it starts);
- ``step``: one super-step, with the nodes it ran;
- ``node <name>``: one node; a node that raised records the exception and ends in error;
- ``checkpoint``: one checkpoint written by a threaded run, with its id;
- ``interrupt``: a threaded run stopping for a human, with the checkpoint holding it;
- ``retry``: a custom write ``{"type": "retry", ...}`` (what the ReAct agent's FAILED
  state writes when it decides to retry or give up).

Attributes (``graphnb.*``): ``graph``, ``run_id``, ``thread_id``, ``step``, ``node``,
``nodes``, ``checkpoint_id``, and the retry's and interrupt's details.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .events import Chunk, Event, Interrupted, NodeFailed, NodeFinished, NodeStarted, StepFinished

if TYPE_CHECKING:
    from ..records import NewCheckpoint, StoredCheckpoint
    from .run import Run
    from .store import CheckpointWriter

__all__ = ["instrument", "trace_aevents", "trace_events", "trace_writer", "uninstrument"]

_SCOPE = "graphnb"
_provider: Any = None  # given to instrument(); None: the global provider


def instrument(tracer_provider: Any = None) -> None:
    """Trace runs to ``tracer_provider`` instead of OpenTelemetry's global provider.

    The instrumentors' convention (``tracer_provider=``), for tests and for applications
    that keep several providers; :func:`uninstrument` goes back to the global one.
    """
    global _provider
    _provider = tracer_provider


def uninstrument() -> None:
    """Trace runs to OpenTelemetry's global tracer provider again (the default)."""
    global _provider
    _provider = None


def _tracer() -> Any:
    """The tracer runs report to, or ``None`` when tracing is off."""
    provider = _provider
    if provider is None:
        trace = sys.modules.get("opentelemetry.trace")
        if trace is None:  # nobody set OpenTelemetry up: nothing to report to
            return None
        provider = trace.get_tracer_provider()
        # The API's defaults record nothing: skip building the spans at all.
        if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
            return None
    return provider.get_tracer(_SCOPE)


def trace_events(run: Run[Any], events: Iterator[Event]) -> Iterator[Event]:
    """``events`` with spans made of them, or ``events`` itself when tracing is off."""
    tracer = _tracer()
    if tracer is None:
        return events
    return _traced(_RunSpans(tracer, run), events)


def trace_aevents(run: Run[Any], events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    """Async :func:`trace_events`."""
    tracer = _tracer()
    if tracer is None:
        return events
    return _atraced(_RunSpans(tracer, run), events)


def trace_writer(run: Run[Any], writer: CheckpointWriter) -> CheckpointWriter:
    """``writer``, reporting each checkpoint as a span when the run is traced."""
    spans = run.tracing
    if spans is None:
        return writer
    return _TracedWriter(writer, spans)


def _traced(spans: _RunSpans, events: Iterator[Event]) -> Iterator[Event]:
    spans.begin()
    try:
        for event in events:
            spans.on(event)
            yield event
    except BaseException as error:
        spans.end(error)
        raise
    spans.end(None)


async def _atraced(spans: _RunSpans, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    spans.begin()
    try:
        async for event in events:
            spans.on(event)
            yield event
    except BaseException as error:
        spans.end(error)
        raise
    spans.end(None)


def _is_retry(chunk: Chunk) -> bool:
    value = chunk.value
    return chunk.field is None and isinstance(value, Mapping) and value.get("type") == "retry"


class _RunSpans:
    """The open spans of one run, opened and closed as its events go by."""

    def __init__(self, tracer: Any, run: Run[Any]) -> None:
        from opentelemetry import trace

        self._trace = trace
        self.tracer = tracer
        self.run = run
        self.base: dict[str, Any] = {"graphnb.graph": run.graph.name, "graphnb.run_id": run.run_id}
        if run.thread_id is not None:
            self.base["graphnb.thread_id"] = run.thread_id
        self.root: Any = None
        self.step: Any = None
        self.step_number: int | None = None
        self.step_nodes: list[str] = []
        self.nodes: dict[str, Any] = {}

    def _start(self, name: str, parent: Any, **attributes: Any) -> Any:
        context = self._trace.set_span_in_context(parent) if parent is not None else None
        extra = {f"graphnb.{key}": value for key, value in attributes.items() if value is not None}
        return self.tracer.start_span(name, context=context, attributes={**self.base, **extra})

    def begin(self) -> None:
        # Node events are what the spans are made of: build them even for invoke().
        run = self.run
        run.events = run.starts = True
        run.tracing = self
        self.root = self._start(f"run {run.graph.name}", None)

    def on(self, event: Event) -> None:
        if isinstance(event, NodeStarted):
            if event.step != self.step_number:
                self._end_step()
                self.step_number = event.step
                self.step = self._start("step", self.root, step=event.step)
            self.step_nodes.append(event.node)
            self.nodes[event.node] = self._start(
                f"node {event.node}", self.step, step=event.step, node=event.node
            )
        elif isinstance(event, NodeFinished):
            span = self.nodes.pop(event.node, None)
            if span is not None:
                span.end()
        elif isinstance(event, NodeFailed):
            span = self.nodes.pop(event.node, None)
            if span is not None:
                self.failed(span, event.error)
                span.end()
        elif isinstance(event, StepFinished):
            if event.step == self.step_number:
                self._end_step()
        elif isinstance(event, Chunk):
            if _is_retry(event):
                self._retry(event.node, event.value)
        elif isinstance(event, Interrupted):
            span = self._start(
                "interrupt",
                self.step or self.root,
                step=event.step,
                checkpoint_id=event.checkpoint_id,
                nodes=[i.node for i in event.interrupts],
                when=[i.when for i in event.interrupts],
            )
            span.end()
            for node in self.nodes.values():  # they stopped at interrupt()
                node.set_attribute("graphnb.interrupted", True)
                node.end()
            self.nodes.clear()

    def _retry(self, node: str, value: Mapping[str, Any]) -> None:
        details = {
            key: value[key]
            for key in ("phase", "retry", "delay", "reason", "attempt")
            if isinstance(value.get(key), (str, bool, int, float))
        }
        parent = self.nodes.get(node) or self.step or self.root
        self._start("retry", parent, node=node, **details).end()

    def failed(self, span: Any, error: BaseException) -> None:
        span.record_exception(error)
        span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, str(error)))

    def _end_step(self) -> None:
        if self.step is not None:
            self.step.set_attribute("graphnb.nodes", self.step_nodes)
            self.step.end()
        self.step, self.step_number, self.step_nodes = None, None, []

    def end(self, error: BaseException | None) -> None:
        for span in self.nodes.values():
            span.end()
        self.nodes.clear()
        self._end_step()
        if error is not None and not isinstance(error, GeneratorExit):
            self.failed(self.root, error)
        self.root.end()
        self.run.tracing = None

    @contextmanager
    def storing(self, checkpoint: NewCheckpoint) -> Iterator[Any]:
        """The span of storing ``checkpoint``: marked failed if storing raises, ended anyway."""
        span = self._start(
            "checkpoint", self.step or self.root, step=checkpoint.step, source=checkpoint.source
        )
        try:
            yield span
        except BaseException as error:
            self.failed(span, error)
            raise
        finally:
            span.end()


class _TracedWriter:
    """A checkpoint writer reporting each ``put`` as a ``checkpoint`` span."""

    def __init__(self, writer: CheckpointWriter, spans: _RunSpans) -> None:
        self._writer = writer
        self._spans = spans

    @property
    def last(self) -> StoredCheckpoint | None:
        return self._writer.last

    def put(self, checkpoint: NewCheckpoint) -> StoredCheckpoint:
        with self._spans.storing(checkpoint) as span:
            stored = self._writer.put(checkpoint)
            span.set_attribute("graphnb.checkpoint_id", stored.checkpoint_id)
        return stored

    async def aput(self, checkpoint: NewCheckpoint) -> StoredCheckpoint:
        with self._spans.storing(checkpoint) as span:
            stored = await self._writer.aput(checkpoint)
            span.set_attribute("graphnb.checkpoint_id", stored.checkpoint_id)
        return stored

    def flush(self) -> None:
        self._writer.flush()

    async def aflush(self) -> None:
        await self._writer.aflush()

    def abandon(self) -> None:
        self._writer.abandon()
