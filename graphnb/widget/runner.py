"""The run controller: runs a compiled graph as an asyncio task and reports on it.

The run goes on as a task on the kernel's event loop, so the kernel keeps reading the
front end's messages (Stop cancels the task); the builder hands it a graph whose nodes run
off that loop (see :mod:`graphnb.widget.offload`). Its events are drawn by a
:class:`~graphnb.widget.publisher.RunPublisher`, which publishes the run panel's picture
and the streamed text at a steady pace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..engine.compiled import CompiledGraph
from ..engine.events import StepFinished
from .offload import NodeExit
from .protocol import RunState, ServerMessage
from .publisher import RunPublisher
from .run_picture import idle_run, jsonable, started, unstartable

__all__ = ["RunController"]


class RunController:
    """Runs one graph at a time for a widget and keeps the run panel's picture current.

    Args:
        publish: called with each new picture of the run (see :class:`RunPublisher`).
        send: sends a message to the front end (streamed text).
    """

    def __init__(
        self, publish: Callable[[RunState], None], send: Callable[[ServerMessage], None]
    ) -> None:
        self.publisher = RunPublisher(publish, send)
        self.task: asyncio.Task[Any] | None = None

    @property
    def state(self) -> RunState:
        """The latest picture of the run."""
        return self.publisher.state

    @property
    def running(self) -> bool:
        """Whether a run is going on."""
        return self.task is not None and not self.task.done()

    def reset(self, nodes: list[str]) -> None:
        """Show every node idle (after the graph changed, when no run goes on)."""
        if not self.running:
            self.publisher.show(idle_run(nodes))

    # -- starting and stopping ---------------------------------------------------------

    def start(
        self,
        graph: CompiledGraph[Any],
        input: Mapping[str, Any] | None,
        *,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: Sequence[str] = (),
        interrupt_after: Sequence[str] = (),
    ) -> asyncio.Task[Any]:
        """Start a run as a task on the running event loop and return the task.

        Raises:
            RuntimeError: a run is already going on, or no event loop runs in this thread.
        """
        if self.running:
            raise RuntimeError("a run is already going on; stop it before starting another")
        loop = asyncio.get_running_loop()
        # Breakpoints: a run without a thread has nowhere to pause.
        wanted = {"interrupt_before": interrupt_before, "interrupt_after": interrupt_after}
        stops = {key: list(nodes) for key, nodes in wanted.items() if nodes and thread_id}
        self.task = loop.create_task(self._drive(graph, input, thread_id, checkpoint_id, stops))
        return self.task

    def fail(
        self,
        nodes: list[str],
        error: BaseException,
        problems: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Show a run that could not start (the graph did not compile, say).

        ``problems``: what is wrong with the graph, listed one by one under the error.
        """
        self.publisher.show(unstartable(nodes, error, problems))

    def stop(self) -> bool:
        """Cancel the current run; ``False`` when none was going on."""
        if not self.running:
            return False
        assert self.task is not None
        loop = self.task.get_loop()
        if loop.is_closed():  # nothing runs there any more
            return False
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is loop:
            self.task.cancel()
        else:
            # JupyterLab sends widget messages to a kernel subshell while the main shell is
            # busy: Stop then arrives on another thread and loop. A plain cancel() from
            # there is not thread-safe and does not wake the run's loop, which noticed it
            # only when the running node returned.
            loop.call_soon_threadsafe(self.task.cancel)
        return True

    # -- the run -----------------------------------------------------------------------

    async def _drive(
        self,
        graph: CompiledGraph[Any],
        input: Mapping[str, Any] | None,
        thread_id: str | None,
        checkpoint_id: str | None = None,
        stops: Mapping[str, list[str]] | None = None,
    ) -> Any:
        publisher = self.publisher
        nodes = [node.id for node in graph.spec.nodes]
        # The input step highlights what the input set, not every field.
        defaults = jsonable(graph.schema.defaults())
        publisher.begin(
            started(nodes, thread_id=thread_id, field=graph.schema.streaming),
            baseline=defaults if isinstance(defaults, dict) else {},
        )
        # Events from inside subgraphs too: the canvas lights nodes inside expanded groups.
        options: dict[str, Any] = {"mode": "events", "subgraphs": True}
        if thread_id:
            options["thread_id"] = thread_id
        if checkpoint_id:
            options["checkpoint_id"] = checkpoint_id
        options.update(stops or {})
        final: Any = None
        try:
            async for event in graph.astream(input, **options):
                if isinstance(event, StepFinished):
                    final = event.state
                publisher.on_event(event)
                # Let the kernel read the front end's messages (Stop) between events,
                # even when every node is synchronous.
                await asyncio.sleep(0)
        except (asyncio.CancelledError, KeyboardInterrupt):  # Stop, or the kernel's interrupt
            publisher.finish("stopped")
            raise
        except BaseException as caught:  # shown in the run panel, not raised
            # A SystemExit that got this far must not reach the loop: asyncio re-raises it
            # out of the kernel's event loop, and the kernel dies.
            error = caught if isinstance(caught, Exception) else NodeExit(caught)
            # What propagates carries the node's own exception as its cause, so its
            # traceback reaches the user's frame; the failure event's copy may not.
            publisher.finish("error", error=error)
            return None
        publisher.finish()
        return final
