"""The widget protocol, its one home: every payload, request and reply, typed.

Three channels join the Python :class:`~graphnb.widget.Builder` and its front end:

- *traits* (``spec``, ``problems``, ``callables``, ``models``, ``run_state`` ...) hold
  everything a view needs to draw itself, so a view opened late, or reopened after the
  notebook was saved, shows the current picture;
- *requests* (:data:`Request`) go from the front end to the kernel through anywidget's
  command channel (``experimental.invoke`` there, :data:`REQUEST_COMMAND` here), and each
  gets its reply: the :class:`Replies` entry of its ``type``, or :class:`Refused`;
- *pushes* (:data:`ServerMessage`): streamed text, sent as custom messages as it comes.

The front end's types are generated from this module: ``widgets/protocol.mjs`` (part of the
front end's build) reads :func:`protocol_schema` and turns it into
``widgets/src/protocol.generated.ts`` with json-schema-to-typescript, and the graph spec's
types (:func:`spec_schema`) into ``widgets/src/spec.generated.ts``; a test fails when either
file is older than the Python it comes from.

Every request and push has a ``type`` literal. Payloads are ``TypedDict`` s: plain dicts
on the wire and in traits, checked by pydantic where they come in.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypeAlias, cast

from pydantic import Field, TypeAdapter, ValidationError, WithJsonSchema
from pydantic.json_schema import GenerateJsonSchema

# pydantic reads these to check what the front end sends; on Python < 3.12 it needs
# typing_extensions' TypedDict for that.
from typing_extensions import TypedDict

from ..spec import GraphSpec

__all__ = [
    "PAGE_LIMIT",
    "REQUEST_COMMAND",
    "REQUEST_TYPES",
    "BreakpointRequest",
    "Breakpoints",
    "CallableInfo",
    "CheckpointItem",
    "CheckpointReply",
    "ChunksMessage",
    "ChunksReplacedMessage",
    "ContinueRequest",
    "Done",
    "ExportReply",
    "ExportRequest",
    "ForkRequest",
    "GraphInfo",
    "HistoryPage",
    "HistoryRequest",
    "InspectReply",
    "InspectRequest",
    "InterruptInfo",
    "Json",
    "JsonObject",
    "LayoutRequest",
    "LeavePauseRequest",
    "ModelInfo",
    "NodeRun",
    "NodeStatus",
    "PauseInfo",
    "ProblemInfo",
    "Protocol",
    "RefreshRequest",
    "Refused",
    "Replies",
    "Request",
    "RerunRequest",
    "ResumeRequest",
    "RunError",
    "RunRequest",
    "RunState",
    "RunStatus",
    "SendCount",
    "ServerMessage",
    "ShowRequest",
    "StepRecord",
    "StopRequest",
    "ThreadItem",
    "ThreadStatus",
    "ThreadsPage",
    "ThreadsRequest",
    "UseModelRequest",
    "UseSaverRequest",
    "explain",
    "protocol_schema",
    "read_request",
    "spec_schema",
]


def _ts(name: str) -> WithJsonSchema:
    """A JSON value the front end types as ``name`` (a type of ``graphSpec.ts``).

    The JSON Schema says only "any JSON"; json-schema-to-typescript writes ``name``.
    """
    return WithJsonSchema({"tsType": name})


Json: TypeAlias = Annotated[Any, _ts("Json")]
"""Any JSON value (a state's values, an interrupt's question, a user's answer)."""

JsonObject: TypeAlias = Annotated[dict[str, Any], _ts("Record<string, Json>")]
"""A JSON object (a state, a node's update, the values a fork writes)."""

NodeStatus = Literal["idle", "pending", "running", "done", "error", "paused", "waiting"]
"""What a node is doing in the current run."""

RunStatus = Literal["idle", "running", "done", "error", "stopped", "paused", "waiting"]
"""Where the current run is."""

ThreadStatus = Literal["finished", "interrupted", "failed", "pending", "damaged"]
"""How a saved thread stands (:attr:`graphnb.ThreadInfo.status`)."""

PAGE_LIMIT = 500
"""The most rows one threads or history request may ask for."""


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


class ModelInfo(TypedDict):
    """A state model the state-model panel offers (``models`` trait)."""

    name: str
    binding: str
    kind: Literal["model", "typeddict", "dict"]
    doc: str
    fields: Annotated[list[dict[str, Any]], _ts("FieldSpec[]")]  # graphnb.spec.FieldSpec
    json_schema: Annotated[dict[str, Any], _ts("JsonSchema")]


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
    writes: NotRequired[JsonObject]


class GraphInfo(TypedDict):
    """A graph in the notebook a node can run as its subgraph (``graphs`` trait)."""

    name: str
    kind: Literal["StateGraph", "CompiledGraph"]
    nodes: int
    spec: Annotated[dict[str, Any], _ts("GraphSpec")]


class StepRecord(TypedDict):
    """The state after one super-step, and which fields that step changed."""

    step: int
    nodes: list[str]
    state: JsonObject
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
    """The ``run_state`` trait: everything the run panel and the canvas show of a run."""

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


class InterruptInfo(TypedDict):
    """A pending stop of a thread, with the question it asks and its id (answers name it).

    ``when``: ``"before"``/``"after"`` a node for a breakpoint, ``"during"`` for a node's
    ``interrupt()``.
    """

    node: str
    when: Literal["before", "after", "during"]
    value: Json
    id: str


class PauseInfo(TypedDict):
    """The ``paused`` trait: a thread stopped at breakpoints or waiting for answers."""

    thread_id: str
    checkpoint_id: str
    step: int
    next: list[str]
    interrupts: list[InterruptInfo]


# -- requests: front end -> Python ---------------------------------------------------------


class RunRequest(TypedDict):
    """Start a run with this input (field names or aliases) and optional thread."""

    type: Literal["run"]
    input: JsonObject
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
    existing file is left alone and the reply's ``exists`` asks. ``serve``: the module is
    for ``graphnb serve``, and the reply's ``command`` serves it.
    """

    type: Literal["export"]
    overwrite: NotRequired[bool]
    serve: NotRequired[bool]


class InspectRequest(TypedDict):
    """Describe the callable a typed-in binding names."""

    type: Literal["inspect"]
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


class ThreadsRequest(TypedDict):
    """One page of the saver's threads, newest first, after the thread ``after``."""

    type: Literal["debug_threads"]
    search: str
    limit: int
    after: str | None


class HistoryRequest(TypedDict):
    """One page of a thread's checkpoints, newest first, written before ``before``."""

    type: Literal["debug_history"]
    thread_id: str
    limit: int
    before: str | None


class ShowRequest(TypedDict):
    """Show a checkpoint on the canvas and in the state panel."""

    type: Literal["debug_show"]
    thread_id: str
    checkpoint_id: str


class ForkRequest(TypedDict):
    """Edit the state at a checkpoint: ``update_state`` there, a new branch of the thread."""

    type: Literal["debug_fork"]
    thread_id: str
    checkpoint_id: str
    values: JsonObject
    as_node: str | None


class RerunRequest(TypedDict):
    """Run the thread again from a checkpoint (a fork), streamed like any run."""

    type: Literal["debug_rerun"]
    thread_id: str
    checkpoint_id: str


class BreakpointRequest(TypedDict):
    """Pause runs before (or after) ``node``; ``on=False`` removes the breakpoint."""

    type: Literal["debug_breakpoint"]
    node: str
    when: Literal["before", "after"]
    on: bool


class ContinueRequest(TypedDict):
    """Resume a paused thread: to the next breakpoint, or (``step``) one super-step."""

    type: Literal["debug_continue"]
    thread_id: str
    step: bool


class LeavePauseRequest(TypedDict):
    """Leave the pause: the thread stays where it is, the pause is no longer shown."""

    type: Literal["debug_stop"]


class ResumeRequest(TypedDict):
    """Answer pending ``interrupt()`` calls, by interrupt id, and resume the thread."""

    type: Literal["debug_resume"]
    thread_id: str
    answers: dict[str, Json]


Request: TypeAlias = (
    RunRequest
    | StopRequest
    | LayoutRequest
    | ExportRequest
    | InspectRequest
    | RefreshRequest
    | UseModelRequest
    | UseSaverRequest
    | ThreadsRequest
    | HistoryRequest
    | ShowRequest
    | ForkRequest
    | RerunRequest
    | BreakpointRequest
    | ContinueRequest
    | LeavePauseRequest
    | ResumeRequest
)
"""Every request the front end makes."""


# -- replies: Python -> front end, one per request ----------------------------------------


class Done(TypedDict):
    """An action carried out: what it changed reaches the front end in the traits."""


class Refused(TypedDict):
    """A request that failed: why, and the field it refused when one is to blame.

    Every reply has ``error``: ``None`` in the reply of a request that was answered.
    """

    error: str
    field: str | None


class ExportReply(TypedDict):
    """Where the export went; ``exists``: the file is there, ask before replacing it.

    ``command``: with ``serve``, the ``graphnb serve`` command line that serves the module.
    """

    written: str | None
    exists: str | None
    command: str | None


class InspectReply(TypedDict):
    """The callable a binding names."""

    info: CallableInfo


class ThreadItem(TypedDict):
    """A thread as the threads panel lists it."""

    thread_id: str
    step: int
    status: ThreadStatus
    updated_at: float
    checkpoint_id: str
    error: str | None


class ThreadsPage(TypedDict):
    """A page of threads; ``after``: the cursor of the next page (``None``: the last)."""

    items: list[ThreadItem]
    after: str | None


class CheckpointItem(TypedDict):
    """A checkpoint as the history panel lists it."""

    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    ran: list[str]
    next: list[str]
    values: JsonObject
    changed: list[str]
    created_at: float
    error: str | None
    interrupts: list[InterruptInfo]


class HistoryPage(TypedDict):
    """A page of a thread's checkpoints; ``before``: the next page's cursor, or ``None``."""

    thread_id: str
    items: list[CheckpointItem]
    before: str | None


class CheckpointReply(TypedDict):
    """The checkpoint a request showed, wrote or runs from."""

    checkpoint_id: str


class Breakpoints(TypedDict):
    """Every breakpoint after the change: node -> ``"before"`` and/or ``"after"``."""

    breakpoints: dict[str, list[Literal["before", "after"]]]


class Replies(TypedDict):
    """What the kernel answers to each request, by the request's ``type``."""

    run: Done
    stop: Done
    layout: Done
    export: ExportReply
    inspect: InspectReply
    refresh: Done
    use_model: Done
    use_saver: Done
    debug_threads: ThreadsPage
    debug_history: HistoryPage
    debug_show: CheckpointReply
    debug_fork: CheckpointReply
    debug_rerun: CheckpointReply
    debug_breakpoint: Breakpoints
    debug_continue: Done
    debug_stop: Done
    debug_resume: Done


REQUEST_TYPES: tuple[str, ...] = tuple(Replies.__annotations__)
"""The ``type`` of every :data:`Request`."""

REQUEST_COMMAND = "_graphnb_request"
"""The anywidget command every request goes through (the builder's method of that name)."""


def read_request(content: Any) -> Request:
    """``content`` checked as a :data:`Request` (strictly: no type coercion).

    Raises:
        ValueError: ``content`` is not one; the message says what is wrong, field by field.
    """
    global _adapter
    if not isinstance(content, dict):
        raise ValueError(f"expected a JSON object, got {_short(content)}")
    kind = content.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"the request has no `type`: {_short(content)}")
    if kind not in REQUEST_TYPES:
        known = ", ".join(REQUEST_TYPES)
        raise ValueError(f"unknown request type {kind!r}; expected one of {known}")
    if _adapter is None:
        _adapter = TypeAdapter(Annotated[Request, Field(discriminator="type")])
    try:
        request: Request = _adapter.validate_python(content, strict=True)
    except ValidationError as error:
        raise ValueError(f"bad `{kind}` request: {explain(error, skip=1)}") from None
    limit = request.get("limit")
    if isinstance(limit, int) and not 1 <= limit <= PAGE_LIMIT:
        raise ValueError(f"bad `{kind}` request: limit must be 1 to {PAGE_LIMIT}, got {limit}")
    return request


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


# -- pushes: Python -> front end -----------------------------------------------------------


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


ServerMessage: TypeAlias = ChunksMessage | ChunksReplacedMessage
"""Every message the kernel pushes without being asked."""


# -- the whole protocol, for the front end's generated types -------------------------------


class Protocol(TypedDict):
    """Everything the front end's types are generated from (see the module docstring)."""

    command: Literal["_graphnb_request"]  # REQUEST_COMMAND, for the front end's invoke
    request: Request
    replies: Replies
    refused: Refused
    push: ServerMessage
    run_state: RunState
    problems: list[ProblemInfo]
    callables: list[CallableInfo]
    models: list[ModelInfo]
    graphs: list[GraphInfo]
    paused: PauseInfo


class _NamedTypesOnly(GenerateJsonSchema):
    """Titles on the declared types only: a titled field would become a TypeScript alias."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`Protocol`, every declared type a named definition."""
    return TypeAdapter(Protocol).json_schema(mode="serialization", schema_generator=_NamedTypesOnly)


class _SpecAsWritten(_NamedTypesOnly):
    """A spec field is optional only where its model leaves it out when unset."""

    def field_is_required(self, field: Any, total: bool) -> bool:
        return "serialization_exclude_if" not in field and not field.get("serialization_exclude")


def spec_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`~graphnb.spec.GraphSpec` as Python writes one.

    The front end's spec types (``widgets/src/spec.generated.ts``) are generated from it.
    """
    written = GraphSpec.model_json_schema(mode="serialization", schema_generator=_SpecAsWritten)
    definitions = written["$defs"]
    definitions["JsonValue"] = {"tsType": "Json"}  # pydantic's JsonValue: any JSON
    # the spec itself at the root, so a subgraph's spec refers back to it by name
    return cast("dict[str, Any]", _to_root({**definitions.pop("GraphSpec"), "$defs": definitions}))


def _to_root(schema: Any) -> Any:
    """``schema`` with every reference to the GraphSpec definition pointing at the root."""
    if isinstance(schema, dict):
        if schema.get("$ref") == "#/$defs/GraphSpec":
            return {**schema, "$ref": "#"}
        return {key: _to_root(value) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_to_root(item) for item in schema]
    return schema
