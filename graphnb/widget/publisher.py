"""The run panel's publisher: one run's picture, sent to the front end at a steady pace.

Events go through :meth:`RunPublisher.on_event`; the picture they draw
(:func:`~graphnb.widget.run_picture.advance`) is published as a whole at most every
``interval`` seconds, and streamed text goes out as small ``chunks`` messages batched at
the same pace, never one message per chunk. Streamed text is a streaming field's chunks,
or custom writes ``{"type": "token", "text": ...}`` (an agent's tokens); a custom write
``{"type": "abandoned", "text": ..., "replacement": ...}`` withdraws streamed text (see
docs/agent.md), which a ``chunks_replaced`` message tells the front end.

On an event loop a timer publishes what is due. A synchronous node that holds the loop
stops every loop timer while it works, and events from another thread (a run watched from
another cell) have no loop: a watchdog thread publishes what is overdue instead, so a view
shows a node running from its first moment.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..engine.events import Chunk, Event, Interrupted, StepFinished
from ..records import Interrupt
from .protocol import ChunksMessage, ChunksReplacedMessage, RunState, RunStatus, ServerMessage
from .run_picture import advance, ending, failed, finished, idle_run

__all__ = ["RunPublisher"]


class RunPublisher:
    """Keeps one run's picture and publishes it.

    Args:
        publish: called with each new picture (at most every ``interval`` seconds while
            a run goes on, and at its start and end).
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
        """The latest picture (published or due)."""
        self.stops: tuple[Interrupt, ...] = ()
        """Where the run stopped (its interrupts), if it did."""
        self._baseline: Mapping[str, Any] = {}
        self._pending: list[str] = []
        self._pending_node = ""
        self._dirty = False
        self._live = False
        self._last = 0.0
        self._started = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_loop: asyncio.AbstractEventLoop | None = None
        # Held by whoever changes or publishes the picture: the loop, the run's thread or
        # the watchdog, so none sees a change half made.
        self._lock = threading.RLock()
        self._watch_stop: threading.Event | None = None

    def show(self, state: RunState) -> None:
        """Publish ``state`` at once: a picture that is not a live run (idle, unstartable)."""
        with self._lock:
            self.state = state
            self._publish_now(force=True)

    def begin(self, state: RunState, *, baseline: Mapping[str, Any] | None = None) -> None:
        """Start drawing a run from ``state`` (see :func:`~graphnb.widget.run_picture.started`).

        ``baseline``: the state's defaults, so the input step highlights what the input set.
        """
        with self._lock:
            self.state = state
            self.stops = ()
            self._baseline = baseline or {}
            self._pending, self._pending_node = [], ""
            self._started = self._clock()
            self._live = True
            self._publish_now(force=True)
        stop = threading.Event()
        self._watch_stop = stop
        threading.Thread(
            target=self._watch, args=(stop, state["id"]), name="graphnb-run-watchdog", daemon=True
        ).start()

    def on_event(self, event: Event) -> None:
        """Draw one event of the run; publish if it is due."""
        with self._lock:
            if isinstance(event, Chunk):
                self._take_chunk(event)
            elif isinstance(event, Interrupted):
                self.stops = event.interrupts
            else:
                if isinstance(event, StepFinished):
                    self._flush_chunks()  # the step's text goes out before the step
                drawn = advance(self.state, event, baseline=self._baseline)
                self._dirty = self._dirty or drawn is not self.state
                self.state = drawn
            self._tick()

    def finish(
        self, status: RunStatus | None = None, *, error: BaseException | str | None = None
    ) -> None:
        """Publish the run's last picture.

        Args:
            status: how it ended; by default from where it stopped (done, paused, waiting).
            error: why it failed (see :func:`~graphnb.widget.run_picture.failed`).
        """
        if self._watch_stop is not None:
            self._watch_stop.set()
            self._watch_stop = None
        with self._lock:
            self._live = False
            self._flush_chunks()
            last = failed(self.state, error) if error is not None else self.state
            elapsed = self._clock() - self._started
            ended = status or ending(self.stops)
            self.state = finished(last, ended, stops=self.stops, elapsed=elapsed)
            self._publish_now(force=True)

    # -- streamed text --------------------------------------------------------------------

    def _take_chunk(self, event: Chunk) -> None:
        value = event.value
        if event.field is not None:
            self._stream(event.node, str(value))
        elif isinstance(value, Mapping) and isinstance(value.get("text"), str):
            if value.get("type") == "token":
                self._stream(event.node, value["text"])
            elif value.get("type") == "abandoned":
                self._withdraw(event.node, value["text"], str(value.get("replacement", "")))

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
        chunks = shown[:start] + replacement + shown[end:]
        self.state = {**self.state, "chunks": chunks}
        run = self.state["id"] or ""
        self._send(
            ChunksReplacedMessage(
                type="chunks_replaced", run=run, node=node, offset=start, text=chunks[start:]
            )
        )
        self._dirty = True

    def _flush_chunks(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        sizes = [len(piece) for piece in self._pending]
        offset = len(self.state["chunks"])
        self._pending = []
        self.state = {**self.state, "chunks": self.state["chunks"] + text}
        run = self.state["id"] or ""
        node = self._pending_node
        self._send(
            ChunksMessage(type="chunks", run=run, node=node, offset=offset, text=text, sizes=sizes)
        )

    # -- pacing ---------------------------------------------------------------------------

    def _tick(self) -> None:
        """Publish if the interval has passed; otherwise make sure a timer will.

        Without an event loop here (a run on another thread) the watchdog publishes.
        """
        if not (self._dirty or self._pending):
            return
        if self._clock() - self._last >= self.interval:
            self._publish_now()
        elif self._timer is None:
            loop = _running_loop()
            if loop is not None:
                self._timer = loop.call_later(self.interval, self._on_timer)
                self._timer_loop = loop

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            if self._live and (self._dirty or self._pending):
                self._publish_now()

    def _watch(self, stop: threading.Event, run: str | None) -> None:
        """Publish what is overdue while no loop timer can.

        With the loop free, its timer publishes within ``interval``; twice that overdue
        means the loop cannot, so this thread does.
        """
        while not stop.wait(self.interval):
            with self._lock:
                if stop.is_set() or self.state["id"] != run:
                    return
                due = self._dirty or self._pending
                if due and self._clock() - self._last >= 2 * self.interval:
                    self._publish_now()

    def _publish_now(self, *, force: bool = False) -> None:
        self._flush_chunks()
        self._last = self._clock()
        if self._timer is not None and _running_loop() is self._timer_loop:
            # A loop timer is the loop's to cancel; one left armed finds nothing due.
            self._timer.cancel()
            self._timer = None
        if self._dirty or force:
            self._dirty = False
            self._publish(self.state)  # never changed again: advance makes new pictures


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
