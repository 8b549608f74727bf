"""Runs started elsewhere, drawn live on the builder's canvas (``Builder.watch``).

A graph compiled from the builder and run in another cell (``app.invoke(...,
thread_id=...)``), or any run on a watched thread in this process, sends its events
through the engine's feed (:mod:`graphnb.engine.feed`); this module turns them into the
run panel's picture with a :class:`~graphnb.widget.runner.RunController` of its own, so
the canvas lights nodes and streams text exactly as for a run started with Run. The
events arrive on the run's thread (a blocking cell holds the kernel's loop), so the
picture is published from there, at most every ``interval`` seconds, by the controller's
watchdog thread while a node works, and once at the end.
The builder's own runs are left to its own controller.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from ..engine.feed import RunEnded, RunStarted, Watch, watch
from .protocol import RunState, ServerMessage
from .runner import RunController, idle_run

__all__ = ["LiveView"]


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
        # The controller's drawing helpers are reused as they are; its task is never used.
        self._view = RunController(publish, send)
        self._ignored: set[str] = set()
        self._current: str | None = None

    def watch(self, thread_id: str | None) -> Watch:
        """Start drawing the runs of ``thread_id`` (``None``: every thread)."""
        return watch(thread_id, self.on_event)

    def on_event(self, event: Any) -> None:
        """One event of the feed."""
        view = self._view
        if isinstance(event, RunStarted):
            if self._own_run():
                self._ignored.add(event.run_id)
                return
            self._current = event.run_id
            with view._lock:
                state = idle_run(self._nodes())
                state["id"] = uuid.uuid4().hex
                state["status"] = "running"
                state["thread_id"] = event.thread_id
                view.state = state
                view._pending, view._pending_node = [], ""
                view._started = view._clock()
                view._publish_now(force=True, from_thread=True)
            # Between events (a node working), a thread publishes what is overdue.
            view._start_watchdog()
            return
        if isinstance(event, RunEnded):
            self._ignored.discard(event.run_id)
            if event.run_id != self._current:
                return
            self._current = None
            with view._lock:
                if event.error is not None:
                    from .protocol import RunError

                    view.state["error"] = view.state["error"] or RunError(
                        node=None, message=event.error, traceback="", problems=[]
                    )
            view._finish({"done": "done", "failed": "error", "stopped": "stopped"}[event.outcome])
            return
        if self._current is None:
            return  # a run the builder draws itself, or one that began before the watch
        with view._lock:
            view._on_event(event)
            if view._clock() - view._last >= view.interval:
                view._publish_now(from_thread=True)
