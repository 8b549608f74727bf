"""The builder as a debugger: its saver's threads, their history, and forks from the past.

The front end's threads and history panels make ``debug_*`` requests (declared in
:mod:`~graphnb.widget.protocol`); :attr:`Debugger.handlers` answers them, one handler per
request type, on the builder's one dispatcher. Every answer comes from the engine
(:meth:`~graphnb.CompiledGraph.threads_info`, ``get_state_history(limit, before)``,
``update_state``), never from a copy of the rows kept here. Picking a checkpoint shows it
on the canvas through the ``run_state`` trait the run panel already draws: the nodes that
ran are done, the nodes it runs next are pending, and the state panel shows its values
with the fields that step changed highlighted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

from .protocol import (
    BreakpointRequest,
    Breakpoints,
    CheckpointItem,
    CheckpointReply,
    ContinueRequest,
    Done,
    ForkRequest,
    HistoryPage,
    HistoryRequest,
    InterruptInfo,
    LeavePauseRequest,
    PauseInfo,
    RerunRequest,
    ResumeRequest,
    RunState,
    ShowRequest,
    ThreadItem,
    ThreadsPage,
    ThreadsRequest,
)
from .run_picture import checkpoint_picture, jsonable

if TYPE_CHECKING:
    from ..engine.compiled import CompiledGraph
    from ..records import StateSnapshot
    from .remote import RemoteSource

__all__ = ["Debugger", "breakpoints_after_edit"]


def _values(snapshot: StateSnapshot[Any]) -> dict[str, Any]:
    values = jsonable(snapshot.values)
    return values if isinstance(values, dict) else {"value": values}


def _waiting(snapshot: StateSnapshot[Any]) -> bool:
    """Whether the thread waits at an interrupt that resuming would pass."""
    return any(i.when == "during" for i in snapshot.interrupts) or bool(
        snapshot.interrupts and snapshot.next
    )


def _interrupts(snapshot: StateSnapshot[Any]) -> list[InterruptInfo]:
    return [cast("InterruptInfo", jsonable(i.to_json())) for i in snapshot.interrupts]


def _error_text(error: Mapping[str, Any] | None) -> str | None:
    if not error:
        return None
    where = f" in `{error['node']}`" if error.get("node") else ""
    return f"{error.get('type', 'Error')}{where}: {error.get('message', '')}"


def breakpoints_after_edit(
    points: Mapping[str, list[str]], old_ids: list[str], new_ids: list[str]
) -> dict[str, list[str]]:
    """The breakpoints of the nodes an edit of the drawing left, a renamed node's included.

    A breakpoint on a deleted node would make every run fail (``interrupt_before`` names
    no node) with nothing on the canvas to clear it. A rename keeps the node's place in
    the list, so one id changed in place is a rename, and its breakpoints follow it.

    >>> breakpoints_after_edit({"a": ["before"], "b": ["after"]}, ["a", "b"], ["x", "b"])
    {'x': ['before'], 'b': ['after']}
    >>> breakpoints_after_edit({"a": ["before"], "b": ["after"]}, ["a", "b"], ["a"])
    {'a': ['before']}
    """
    renamed: dict[str, str] = {}
    if len(old_ids) == len(new_ids):
        changed = [(old, new) for old, new in zip(old_ids, new_ids, strict=True) if old != new]
        if len(changed) == 1:
            renamed = dict(changed)
    present = set(new_ids)
    kept = {renamed.get(node, node): whens for node, whens in points.items()}
    return {node: whens for node, whens in kept.items() if node in present}


class Owner(Protocol):
    """What the debugger needs of its builder (:class:`~graphnb.widget.Builder`)."""

    breakpoints: dict[str, list[str]]
    paused: dict[str, Any]

    def compile(self, **options: Any) -> CompiledGraph[Any]:
        """The drawing compiled with the builder's checkpointer."""

    def run(
        self,
        input: Any = None,
        *,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: list[str] | None = None,
        interrupt_after: list[str] | None = None,
    ) -> Any:
        """Start a streamed run (the run panel's)."""

    def stop(self) -> bool:
        """Cancel the current run."""


class Debugger:
    """Answers the debugger's panels for one builder.

    Args:
        owner: the builder: its checkpointer, its runs, its ``breakpoints`` and
            ``paused`` traits.
        show: publishes a run picture (the ``run_state`` trait).
        running: whether a run is going on (nothing is shown over it).
    """

    def __init__(
        self,
        owner: Owner,
        show: Callable[[RunState], None],
        running: Callable[[], bool],
    ) -> None:
        self._owner = owner
        self.source: RemoteSource | None = None
        """A served graph's threads (:meth:`Builder.connect`); ``None``: the builder's saver."""
        self._show = show
        self._running = running
        self.handlers: dict[str, Callable[[Any], Any]] = {
            "debug_threads": self.threads,
            "debug_history": self.history,
            "debug_show": self.show,
            "debug_fork": self.fork,
            "debug_rerun": self.rerun,
            "debug_breakpoint": self.breakpoint,
            "debug_continue": self.go_on,
            "debug_stop": self.leave_pause,
            "debug_resume": self.resume,
        }
        """The handler of each ``debug_*`` request type, for the builder's dispatcher."""

    def _graph(self) -> Any:
        """Where threads are read: the served graph when connected, else the builder's own.

        Both answer ``threads_info``, ``get_state_history``, ``get_state`` and
        ``update_state`` with the engine's records (see :mod:`~graphnb.widget.remote`).
        """
        return self.source if self.source is not None else self._owner.compile()

    def _local_only(self, what: str) -> None:
        if self.source is not None:
            raise ValueError(
                f"{what} runs the graph, and the threads of {self.source.url} run on that "
                "server: answer a pending interrupt there (Resume), or run from code with "
                "langgraph-sdk"
            )

    def after_run(self, thread_id: str | None) -> None:
        """Show where the run on ``thread_id`` stopped, if it stopped at an interrupt."""
        paused: PauseInfo | dict[str, Any] = {}
        if thread_id:
            try:
                snapshot = self._graph().get_state(thread_id)
            except Exception:  # the run failed before its first checkpoint, say
                snapshot = None
            # A stop after the last node (next is empty) has nothing left to resume.
            if snapshot is not None and _waiting(snapshot):
                paused = PauseInfo(
                    thread_id=thread_id,
                    checkpoint_id=snapshot.checkpoint_id,
                    step=snapshot.step,
                    next=list(snapshot.next),
                    interrupts=_interrupts(snapshot),
                )
        self._owner.paused = dict(paused)

    def threads(self, request: ThreadsRequest) -> ThreadsPage:
        """A page of the saver's threads, newest first."""
        infos = self._graph().threads_info(
            search=request["search"] or None, limit=request["limit"], after=request["after"]
        )
        items = [
            ThreadItem(
                thread_id=info.thread_id,
                step=info.step,
                status=info.status,
                updated_at=info.updated_at,
                checkpoint_id=info.checkpoint_id,
                error=_error_text(info.error),
            )
            for info in infos
        ]
        more = len(items) == request["limit"]
        return ThreadsPage(items=items, after=items[-1]["thread_id"] if more else None)

    def history(self, request: HistoryRequest) -> HistoryPage:
        """A page of a thread's checkpoints, newest first, each with what its step changed."""
        graph = self._graph()
        # One more than asked: the oldest row of the page needs its parent's values to
        # say what it changed (when the parent is that next one, as it is but for forks).
        limit = request["limit"]
        page = graph.get_state_history(
            request["thread_id"], limit=limit + 1, before=request["before"]
        )
        values = [_values(snapshot) for snapshot in page]
        by_id = {s.checkpoint_id: v for s, v in zip(page, values, strict=True)}
        items: list[CheckpointItem] = []
        for snapshot, state in list(zip(page, values, strict=True))[:limit]:
            parent = by_id.get(snapshot.parent_id or "")
            if parent is None and snapshot.parent_id:
                parent = _values(graph.get_state(request["thread_id"], snapshot.parent_id))
            changed = sorted(k for k, v in state.items() if parent is None or parent.get(k) != v)
            items.append(
                CheckpointItem(
                    checkpoint_id=snapshot.checkpoint_id,
                    parent_id=snapshot.parent_id,
                    step=snapshot.step,
                    source=snapshot.source,
                    ran=list(snapshot.ran),
                    next=list(snapshot.next),
                    values=state,
                    changed=changed,
                    created_at=snapshot.created_at,
                    error=_error_text(snapshot.error),
                    interrupts=_interrupts(snapshot),
                )
            )
        if self.source is not None and request["before"] is None and not self._running():
            # A served thread waiting at an interrupt: its answer form, as after a run here.
            self.after_run(request["thread_id"])
        more = len(page) > limit
        return HistoryPage(
            thread_id=request["thread_id"],
            items=items,
            before=items[-1]["checkpoint_id"] if more else None,
        )

    def show(self, request: ShowRequest) -> CheckpointReply:
        """Draw a checkpoint on the canvas (unless a run is going on)."""
        graph = self._graph()
        snapshot = graph.get_state(request["thread_id"], request["checkpoint_id"])
        parent = (
            graph.get_state(request["thread_id"], snapshot.parent_id)
            if snapshot.parent_id
            else None
        )
        if not self._running():
            self._show(checkpoint_picture(graph, snapshot, parent))
        return CheckpointReply(checkpoint_id=snapshot.checkpoint_id)

    def fork(self, request: ForkRequest) -> CheckpointReply:
        """``update_state`` at a checkpoint: a new branch of the thread."""
        checkpoint = self._graph().update_state(
            request["thread_id"],
            request["values"],
            as_node=request["as_node"] or None,
            checkpoint_id=request["checkpoint_id"],
        )
        return CheckpointReply(checkpoint_id=checkpoint)

    def rerun(self, request: RerunRequest) -> CheckpointReply:
        """Run the thread again from a checkpoint, streamed like any run."""
        self._local_only("Rerun")
        self._owner.paused = {}
        self._owner.run(
            None, thread_id=request["thread_id"], checkpoint_id=request["checkpoint_id"]
        )
        return CheckpointReply(checkpoint_id=request["checkpoint_id"])

    def breakpoint(self, request: BreakpointRequest) -> Breakpoints:
        """Set or clear a breakpoint; every breakpoint after the change."""
        graph = self._graph()
        node, when = request["node"], request["when"]
        if node not in graph.nodes:
            raise ValueError(f"`{node}` is not a node of {graph.name!r}; breakpoints go on nodes")
        points = {name: list(whens) for name, whens in self._owner.breakpoints.items()}
        kept = [w for w in points.get(node, []) if w != when]
        points[node] = sorted([*kept, when]) if request["on"] else kept
        self._owner.breakpoints = {name: whens for name, whens in points.items() if whens}
        return Breakpoints(breakpoints=cast("Any", self._owner.breakpoints))

    def go_on(self, request: ContinueRequest) -> Done:
        """Resume a paused thread: to the next breakpoint, or one super-step."""
        self._local_only("Continue")
        self._owner.paused = {}
        step = list(self._graph().nodes) if request["step"] else None
        self._owner.run(None, thread_id=request["thread_id"], interrupt_after=step)
        return Done()

    def leave_pause(self, request: LeavePauseRequest) -> Done:
        """Stop showing the pause; the thread stays where it is."""
        self._owner.paused = {}
        self._owner.stop()
        return Done()

    def resume(self, request: ResumeRequest) -> Done:
        """Answer pending ``interrupt()`` calls by id and resume the thread."""
        from ..human import Command

        self._owner.paused = {}
        answers = request["answers"]
        pending = self._graph().get_state(request["thread_id"]).interrupts
        during = [i for i in pending if i.when == "during"]
        unknown = sorted(set(answers) - {i.id for i in during})
        if unknown or not answers:
            ids = ", ".join(repr(i.id) for i in during) or "none"
            raise ValueError(
                f"thread {request['thread_id']!r} has no pending interrupt "
                f"{', '.join(map(repr, unknown)) or '(no answer given)'}; pending: {ids}"
            )
        # One pending interrupt takes its answer as is (a dict answer stays a dict).
        resume = next(iter(answers.values())) if len(during) == 1 else answers
        if self.source is not None:  # a served thread resumes on its server
            self.source.resume(request["thread_id"], resume)
            self.after_run(request["thread_id"])
            return Done()
        self._owner.run(Command(resume=resume), thread_id=request["thread_id"])
        return Done()
