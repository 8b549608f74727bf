"""The widget protocol: every message and synced payload, typed.

Two channels join the Python :class:`~graphnb.widget.Builder` and its front end:

- *traits* (``spec``, ``problems``, ``callables``, ``models``, ``run`` ...) hold everything a
  view needs to draw itself, so a view opened late, or reopened after the notebook was
  saved, shows the current picture;
- *custom messages* carry requests from the front end (:data:`ClientMessage`) and the few
  replies and streams that need not survive (:data:`ServerMessage`).

Every message has a ``type`` literal. The TypeScript twins live in
``widgets/src/protocol.ts``; keep the two files in step.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypeAlias

# pydantic reads these to check what the front end sends; on Python < 3.12 it needs
# typing_extensions' TypedDict for that.
from typing_extensions import TypedDict

__all__ = [
    "CLIENT_TYPES",
    "CallableInfo",
    "ChunksMessage",
    "ChunksReplacedMessage",
    "ClientMessage",
    "ExportExistsMessage",
    "ExportRequest",
    "FieldInfo",
    "GraphInfo",
    "InspectedMessage",
    "InspectRequest",
    "LayoutRequest",
    "ModelInfo",
    "NodeRun",
    "NodeStatus",
    "ProblemInfo",
    "RefreshRequest",
    "RunError",
    "RunRequest",
    "RunState",
    "RunStatus",
    "SendCount",
    "ServerMessage",
    "StepRecord",
    "StopRequest",
    "UseModelRequest",
    "UseSaverRequest",
    "explain",
    "read_client_message",
]

NodeStatus = Literal["idle", "pending", "running", "done", "error", "paused", "waiting"]
"""What a node is doing in the current run."""

RunStatus = Literal["idle", "running", "done", "error", "stopped", "paused", "waiting"]
"""Where the current run is."""


# -- trait payloads ----------------------------------------------------------------------


class ProblemInfo(TypedDict):
    """A validation problem, pinned on the nodes it names (``problems`` trait)."""

    code: str
    message: str
    nodes: list[str]


class CallableInfo(TypedDict):
    """A callable the binding panel offers (``callables`` trait, and inspect replies)."""

    name: str
    binding: str
    kind: Literal["function", "async", "generator", "async-generator", "callable"]
    signature: str
    doc: str
    source: str


class FieldInfo(TypedDict):
    """One field of a state model, as the state-model panel shows it."""

    name: str
    type: str
    reducer: str
    alias: str | None
    streaming: bool
    required: bool


class ModelInfo(TypedDict):
    """A state model the state-model panel offers (``models`` trait)."""

    name: str
    binding: str
    kind: Literal["model", "typeddict", "dict"]
    doc: str
    fields: list[FieldInfo]
    json_schema: dict[str, Any]


class SendCount(TypedDict):
    """A node's ``Send`` instances in the current run: how many, and how they stand."""

    total: int
    running: int
    done: int
    failed: int


class NodeRun(TypedDict):
    """One node's part in the current run.

    A node inside a subgraph is keyed by its path joined with ``/`` (``research/search``).
    ``instances``: the node ran once per ``Send`` item; ``cache_hits`` and ``retries``:
    how often its cache answered for it and its retry policy ran it again. ``step`` and
    ``writes``: the super-step of the node's last finished run and the update it wrote
    there (JSON), for inspecting a node (absent until it finished once).
    """

    status: NodeStatus
    duration: float | None
    runs: int
    instances: NotRequired[SendCount]
    cache_hits: NotRequired[int]
    retries: NotRequired[int]
    step: NotRequired[int]
    writes: NotRequired[dict[str, Any]]


class GraphInfo(TypedDict):
    """A graph in the notebook a node can run as its subgraph (``graphs`` trait)."""

    name: str
    kind: Literal["StateGraph", "CompiledGraph"]
    nodes: int
    spec: dict[str, Any]


class StepRecord(TypedDict):
    """The state after one super-step, and which fields that step changed."""

    step: int
    nodes: list[str]
    state: dict[str, Any]
    changed: list[str]


class RunError(TypedDict):
    """Why a run failed: the node (if any), the message and the formatted traceback.

    ``problems``: a graph that could not start lists what is wrong with it, each pinned on
    its nodes (empty for a run that failed while running).
    """

    node: str | None
    message: str
    traceback: str
    problems: list[ProblemInfo]


class RunState(TypedDict):
    """The ``run`` trait: everything the run panel and the canvas show about a run."""

    id: str | None
    status: RunStatus
    thread_id: str | None
    nodes: dict[str, NodeRun]
    active: list[str]
    steps: list[StepRecord]
    chunks: str
    field: str | None
    error: RunError | None
    elapsed: float | None


# -- front end -> Python -----------------------------------------------------------------


class RunRequest(TypedDict):
    """Start a run with this input (field names or aliases) and optional thread."""

    type: Literal["run"]
    input: dict[str, Any]
    thread_id: str | None


class StopRequest(TypedDict):
    """Cancel the current run."""

    type: Literal["stop"]


class LayoutRequest(TypedDict):
    """Place every node with the diagrams' layout.

    ``direction``: ``"TB"`` top-down or ``"LR"`` left-right (the current one when absent).
    """

    type: Literal["layout"]
    direction: NotRequired[Literal["TB", "LR"]]


class ExportRequest(TypedDict):
    """Write the graph as a Python module next to the notebook.

    ``overwrite``: replace the file when it exists (the user confirmed it); without it an
    existing file is left alone and an :class:`ExportExistsMessage` asks.
    """

    type: Literal["export"]
    overwrite: NotRequired[bool]


class InspectRequest(TypedDict):
    """Describe the callable a typed-in binding names."""

    type: Literal["inspect"]
    request: int
    binding: str


class RefreshRequest(TypedDict):
    """Scan the notebook's namespace again for callables and models."""

    type: Literal["refresh"]


class UseModelRequest(TypedDict):
    """Run the graph on this state model (``None``: a plain dict state)."""

    type: Literal["use_model"]
    binding: str | None


class UseSaverRequest(TypedDict):
    """Save runs to the saver this URL names (``""``: no checkpointer, no threads)."""

    type: Literal["use_saver"]
    url: str


ClientMessage: TypeAlias = (
    RunRequest
    | StopRequest
    | LayoutRequest
    | ExportRequest
    | InspectRequest
    | RefreshRequest
    | UseModelRequest
    | UseSaverRequest
)

CLIENT_TYPES = (
    "run",
    "stop",
    "layout",
    "export",
    "inspect",
    "refresh",
    "use_model",
    "use_saver",
)
"""The ``type`` of every :data:`ClientMessage`."""


def read_client_message(content: Any) -> ClientMessage:
    """``content`` checked as a :data:`ClientMessage` (strictly: no type coercion).

    Raises:
        ValueError: ``content`` is not one; the message says what is wrong, field by field.
    """
    from pydantic import Field, TypeAdapter, ValidationError

    global _adapter
    if not isinstance(content, dict):
        raise ValueError(f"expected a JSON object, got {_short(content)}")
    kind = content.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"the message has no `type`: {_short(content)}")
    if kind not in CLIENT_TYPES:
        known = ", ".join(CLIENT_TYPES)
        raise ValueError(f"unknown request type {kind!r}; expected one of {known}")
    if _adapter is None:
        _adapter = TypeAdapter(Annotated[ClientMessage, Field(discriminator="type")])
    try:
        return _adapter.validate_python(content, strict=True)  # type: ignore[no-any-return]
    except ValidationError as error:
        raise ValueError(f"bad `{kind}` request: {explain(error, skip=1)}") from None


_adapter: Any = None


def explain(error: Any, *, skip: int = 0) -> str:
    """A pydantic ``ValidationError`` as one line: ``field: what is wrong; ...``.

    Args:
        error: the validation error.
        skip: leading parts of each error's location to leave out (a union's tag).
    """
    parts = []
    for item in error.errors(include_url=False)[:5]:
        where = ".".join(str(part) for part in item["loc"][skip:]) or "value"
        parts.append(f"{where}: {item['msg']}")
    more = error.error_count() - len(parts)
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- Python -> front end -----------------------------------------------------------------


class ChunksMessage(TypedDict):
    """A batch of streamed text; ``offset`` is the length of the text before it.

    ``sizes``: the length of each chunk the batch joins, in order, so a view can show the
    stream chunk by chunk.
    """

    type: Literal["chunks"]
    run: str
    node: str
    offset: int
    text: str
    sizes: NotRequired[list[int]]


class ChunksReplacedMessage(TypedDict):
    """Streamed text from ``offset`` on is now ``text`` (text before ``offset`` stays).

    Sent when the run withdraws text it streamed (an agent's ``abandoned`` event).
    """

    type: Literal["chunks_replaced"]
    run: str
    node: str
    offset: int
    text: str


class ExportExistsMessage(TypedDict):
    """The reply to an :class:`ExportRequest` whose file exists: ask before replacing it."""

    type: Literal["export_exists"]
    path: str


class InspectedMessage(TypedDict):
    """The reply to an :class:`InspectRequest`: the callable, or why it was not found."""

    type: Literal["inspected"]
    request: int
    binding: str
    info: CallableInfo | None
    error: str | None


ServerMessage: TypeAlias = (
    ChunksMessage | ChunksReplacedMessage | ExportExistsMessage | InspectedMessage
)
