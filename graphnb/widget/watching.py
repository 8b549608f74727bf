"""Runs started elsewhere, drawn live on the builder's canvas (``Builder.watch``).

A graph compiled from the builder and run in another cell (``app.invoke(...,
thread_id=...)``), or any run on a watched thread in this process, sends its events
through the engine's feed (:mod:`graphnb.engine.feed`); this module draws them with a
:class:`~graphnb.widget.publisher.RunPublisher` of its own, so the canvas lights nodes and
streams text exactly as for a run started with Run. The events arrive on the run's thread
(a blocking cell holds the kernel's loop); the publisher paces them from there.
The builder's own runs are left to its own controller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.feed import RunEnded, RunStarted, Watch, watch
from .protocol import RunState, RunStatus, ServerMessage
from .publisher import RunPublisher
from .run_picture import started

__all__ = ["LiveView"]

_ENDED: dict[str, RunStatus] = {"done": "done", "failed": "error", "stopped": "stopped"}


class LiveView:
    """Draws watched runs through ``publish`` and ``send`` (the builder's).

    Args:
        nodes: the node ids the canvas shows.
        own_run: whether the builder itself is running (its run is drawn already).
        publish: publishes a run picture (the ``run_state`` trait).
        send: sends streamed text to the front end.
    """

    def __init__(
        self,
        nodes: Callable[[], list[str]],
        own_run: Callable[[], bool],
        publish: Callable[[RunState], None],
        send: Callable[[ServerMessage], None],
    ) -> None:
        self._nodes = nodes
        self._own_run = own_run
        self._publisher = RunPublisher(publish, send)
        self._ignored: set[str] = set()
        self._current: str | None = None

    def watch(self, thread_id: str | None) -> Watch:
        """Start drawing the runs of ``thread_id`` (``None``: every thread)."""
        return watch(thread_id, self.on_event)

    def on_event(self, event: Any) -> None:
        """One event of the feed."""
        if isinstance(event, RunStarted):
            if self._own_run():
                self._ignored.add(event.run_id)
                return
            self._current = event.run_id
            self._publisher.begin(started(self._nodes(), thread_id=event.thread_id, field=None))
        elif isinstance(event, RunEnded):
            self._ignored.discard(event.run_id)
            if event.run_id == self._current:
                self._current = None
                self._publisher.finish(_ENDED[event.outcome], error=event.error)
        elif self._current is not None:  # else the builder's own run, or one begun unwatched
            self._publisher.on_event(event)
