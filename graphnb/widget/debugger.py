"""The builder as a debugger: its saver's threads, their history, and forks from the past.

The front end's threads and history panels ask with ``debug_*`` messages, each carrying a
``request`` number that the reply repeats; every answer comes from the engine
(:meth:`~graphnb.CompiledGraph.threads_info`, ``get_state_history(limit, before)``,
``update_state``), never from a copy of the rows kept here. Picking a checkpoint shows it
on the canvas through the ``run_state`` trait the run panel already draws: the nodes that
ran are done, the nodes it runs next are pending, and the state panel shows its values
with the fields that step changed highlighted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import ValidationError
from typing_extensions import TypedDict

from .messages import NodeRun, RunState, StepRecord, explain
from .runner import _jsonable, idle_run

if TYPE_CHECKING:
    from ..engine.compiled import CompiledGraph
    from ..records import StateSnapshot

__all__ = [
    "DEBUG_TYPES",
    "CheckpointItem",
    "Debugger",
    "ThreadItem",
]

PAGE_LIMIT = 500
"""The most rows one request may ask for."""


# -- front end -> Python ----------------------------------------------------------------


class ThreadsRequest(TypedDict):
    """One page of the saver's threads, newest first, after the thread ``after``."""

    type: Literal["debug_threads"]
    request: int
    search: str
    limit: int
    after: str | None


class HistoryRequest(TypedDict):
    """One page of a thread's checkpoints, newest first, written before ``before``."""

    type: Literal["debug_history"]
    request: int
    thread_id: str
    limit: int
    before: str | None


class ShowRequest(TypedDict):
    """Show a checkpoint on the canvas and in the state panel."""

    type: Literal["debug_show"]
    request: int
    thread_id: str
    checkpoint_id: str


class ForkRequest(TypedDict):
    """Edit the state at a checkpoint: ``update_state`` there, a new branch of the thread."""

    type: Literal["debug_fork"]
    request: int
    thread_id: str
    checkpoint_id: str
    values: dict[str, Any]
    as_node: str | None


class BreakpointRequest(TypedDict):
    """Pause runs before (or after) ``node``; ``on=False`` removes the breakpoint."""

    type: Literal["debug_breakpoint"]
    request: int
    node: str
    when: Literal["before", "after"]
    on: bool


class ContinueRequest(TypedDict):
    """Resume a paused thread: to the next breakpoint, or (``step``) one super-step."""

    type: Literal["debug_continue"]
    request: int
    thread_id: str
    step: bool


class LeavePauseRequest(TypedDict):
    """Leave the pause: the thread stays where it is, the pause is no longer shown."""

    type: Literal["debug_stop"]
    request: int


class ResumeRequest(TypedDict):
    """Answer pending ``interrupt()`` calls, by interrupt id, and resume the thread."""

    type: Literal["debug_resume"]
    request: int
    thread_id: str
    answers: dict[str, Any]


class RerunRequest(TypedDict):
    """Run the thread again from a checkpoint (a fork), streamed like any run."""

    type: Literal["debug_rerun"]
    request: int
    thread_id: str
    checkpoint_id: str


DebugRequest = (
    ThreadsRequest
    | HistoryRequest
    | ShowRequest
    | ForkRequest
    | RerunRequest
    | BreakpointRequest
    | ContinueRequest
    | LeavePauseRequest
    | ResumeRequest
)

DEBUG_TYPES = (
    "debug_threads",
    "debug_history",
    "debug_show",
    "debug_fork",
    "debug_rerun",
    "debug_breakpoint",
    "debug_continue",
    "debug_stop",
    "debug_resume",
)
"""The ``type`` of every debugger request."""


# -- Python -> front end ----------------------------------------------------------------


class ThreadItem(TypedDict):
    """A thread as the threads panel lists it."""

    thread_id: str
    step: int
    status: str
    updated_at: float
    checkpoint_id: str
    error: str | None


class PauseInfo(TypedDict):
    """The ``paused`` trait: a thread stopped at breakpoints or waiting for answers.

    ``interrupts``: each pending stop, ``{"node", "when", "value", "id"}``; ``when`` is
    ``"before"``/``"after"`` for a breakpoint, ``"during"`` for a node's ``interrupt()``.
    """

    thread_id: str
    checkpoint_id: str
    step: int
    next: list[str]
    interrupts: list[dict[str, Any]]


class CheckpointItem(TypedDict):
    """A checkpoint as the history panel lists it."""

    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    ran: list[str]
    next: list[str]
    values: dict[str, Any]
    changed: list[str]
    created_at: float
    error: str | None
    interrupts: list[dict[str, Any]]


_adapter: Any = None


def read_debug_request(content: Mapping[str, Any]) -> DebugRequest:
    """``content`` checked as a debugger request (strictly).

    Raises:
        ValueError: it is not one; the message says what is wrong.
    """
    from pydantic import Field, TypeAdapter

    global _adapter
    if _adapter is None:
        from typing import Annotated

        _adapter = TypeAdapter(Annotated[DebugRequest, Field(discriminator="type")])
    try:
        request: DebugRequest = _adapter.validate_python(dict(content), strict=True)
    except ValidationError as error:
        raise ValueError(f"bad `{content.get('type')}` request: {explain(error, skip=1)}") from None
    limit = request.get("limit")
    if isinstance(limit, int) and not 1 <= limit <= PAGE_LIMIT:
        raise ValueError(f"`{request['type']}` limit must be 1 to {PAGE_LIMIT}, got {limit}")
    return request


def _values(snapshot: StateSnapshot[Any]) -> dict[str, Any]:
    values = _jsonable(snapshot.values)
    return values if isinstance(values, dict) else {"value": values}


def _waiting(snapshot: StateSnapshot[Any]) -> bool:
    """Whether the thread waits at an interrupt that resuming would pass."""
    return any(i.when == "during" for i in snapshot.interrupts) or bool(
        snapshot.interrupts and snapshot.next
    )


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
        send: sends a message to the front end.
        show: publishes a run picture (the ``run_state`` trait).
        running: whether a run is going on (nothing is shown over it).
    """

    def __init__(
        self,
        owner: Owner,
        send: Callable[[dict[str, Any]], None],
        show: Callable[[RunState], None],
        running: Callable[[], bool],
    ) -> None:
        self._owner = owner
        self._graph = owner.compile
        self._send = send
        self._show = show
        self._running = running

    def after_run(self, thread_id: str | None) -> None:
        """Show where the run on ``thread_id`` stopped, if it stopped at an interrupt."""
        paused: dict[str, Any] = {}
        if thread_id:
            try:
                snapshot = self._graph().get_state(thread_id)
            except Exception:  # the run failed before its first checkpoint, say
                snapshot = None
            # A stop after the last node (next is empty) has nothing left to resume.
            if snapshot is not None and _waiting(snapshot):
                paused = dict(
                    PauseInfo(
                        thread_id=thread_id,
                        checkpoint_id=snapshot.checkpoint_id,
                        step=snapshot.step,
                        next=list(snapshot.next),
                        interrupts=[_jsonable(i.to_json()) for i in snapshot.interrupts],
                    )
                )
        self._owner.paused = paused

    def handle(self, content: Any) -> bool:
        """Answer ``content`` if it is a debugger request; ``False`` when it is not one.

        A request that fails is answered with its error (``error``), so the panel that
        asked says why.
        """
        if not isinstance(content, dict) or content.get("type") not in DEBUG_TYPES:
            return False
        number = content.get("request") if isinstance(content.get("request"), int) else 0
        kind = str(content["type"])
        try:
            request = read_debug_request(content)
            reply = self._answer(request)
        except Exception as error:
            field = getattr(error, "field", None)
            self._send(
                {
                    "type": kind,
                    "request": number,
                    "error": f"{type(error).__name__}: {error}",
                    "field": field if isinstance(field, str) else None,
                }
            )
        else:
            self._send({"type": kind, "request": number, "error": None, **reply})
        return True

    def _answer(self, request: DebugRequest) -> dict[str, Any]:
        graph = self._graph()
        if request["type"] == "debug_threads":
            infos = graph.threads_info(
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
            return {"items": items, "after": items[-1]["thread_id"] if more else None}
        if request["type"] == "debug_history":
            return self._history(graph, request)
        if request["type"] == "debug_show":
            snapshot = graph.get_state(request["thread_id"], request["checkpoint_id"])
            parent = (
                graph.get_state(request["thread_id"], snapshot.parent_id)
                if snapshot.parent_id
                else None
            )
            if not self._running():
                self._show(self.picture(graph, snapshot, parent))
            return {"checkpoint_id": snapshot.checkpoint_id}
        if request["type"] == "debug_fork":
            checkpoint = graph.update_state(
                request["thread_id"],
                request["values"],
                as_node=request["as_node"] or None,
                checkpoint_id=request["checkpoint_id"],
            )
            return {"checkpoint_id": checkpoint}
        if request["type"] == "debug_breakpoint":
            return self._breakpoint(graph, request)
        owner = self._owner
        if request["type"] == "debug_stop":
            owner.paused = {}
            owner.stop()
            return {}
        if request["type"] == "debug_continue":
            owner.paused = {}
            step = list(graph.nodes) if request["step"] else None
            owner.run(None, thread_id=request["thread_id"], interrupt_after=step)
            return {}
        if request["type"] == "debug_resume":
            from ..human import Command

            owner.paused = {}
            answers = request["answers"]
            pending = graph.get_state(request["thread_id"]).interrupts
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
            owner.run(Command(resume=resume), thread_id=request["thread_id"])
            return {}
        owner.paused = {}
        owner.run(None, thread_id=request["thread_id"], checkpoint_id=request["checkpoint_id"])
        return {"checkpoint_id": request["checkpoint_id"]}

    def _breakpoint(self, graph: CompiledGraph[Any], request: BreakpointRequest) -> dict[str, Any]:
        node, when = request["node"], request["when"]
        if node not in graph.nodes:
            raise ValueError(f"`{node}` is not a node of {graph.name!r}; breakpoints go on nodes")
        points = {name: list(whens) for name, whens in self._owner.breakpoints.items()}
        kept = [w for w in points.get(node, []) if w != when]
        points[node] = sorted([*kept, when]) if request["on"] else kept
        self._owner.breakpoints = {name: whens for name, whens in points.items() if whens}
        return {"breakpoints": self._owner.breakpoints}

    def _history(self, graph: CompiledGraph[Any], request: HistoryRequest) -> dict[str, Any]:
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
                    interrupts=[_jsonable(i.to_json()) for i in snapshot.interrupts],
                )
            )
        more = len(page) > limit
        return {
            "thread_id": request["thread_id"],
            "items": items,
            "before": items[-1]["checkpoint_id"] if more else None,
        }

    @staticmethod
    def picture(
        graph: CompiledGraph[Any],
        snapshot: StateSnapshot[Any],
        parent: StateSnapshot[Any] | None,
    ) -> RunState:
        """A checkpoint as the run panel draws a run: ran nodes done, next ones pending."""
        state = idle_run([node.id for node in graph.spec.nodes])
        state["status"] = "error" if snapshot.error else "done"
        state["thread_id"] = snapshot.thread_id
        state["id"] = f"checkpoint:{snapshot.checkpoint_id}"
        nodes = state["nodes"]
        for name in snapshot.ran:
            nodes[name] = NodeRun(status="done", duration=None, runs=1)
        for name in snapshot.next:
            if name in nodes:
                nodes[name]["status"] = "pending"
        error = snapshot.error
        if error and error.get("node") in nodes:
            nodes[error["node"]]["status"] = "error"
        values = _values(snapshot)
        before = _values(parent) if parent is not None else {}
        steps = []
        if parent is not None:
            steps.append(
                StepRecord(step=parent.step, nodes=list(parent.ran), state=before, changed=[])
            )
        changed = [k for k, v in values.items() if before.get(k) != v]
        steps.append(
            StepRecord(step=snapshot.step, nodes=list(snapshot.ran), state=values, changed=changed)
        )
        state["steps"] = steps
        return state
