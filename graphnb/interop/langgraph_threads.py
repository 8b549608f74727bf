"""Copy a LangGraph checkpointer's threads into a graphnb saver, decoding nothing unsafe.

LangGraph's ``JsonPlusSerializer`` stores values as ``msgpack`` (sometimes ``json``, or
``pickle``). Its msgpack ext types name a class and the arguments to construct it with;
this module never constructs them. A known *data* type becomes plain data: a LangChain
message its field dict (``type``, ``content``, ``tool_calls`` ...), a Pydantic model, a
dataclass or a named tuple its field dict, a ``Send`` its node and argument, a set a
list, a UUID or a Decimal its text, a date or a datetime itself. Anything else, a pickle
payload above all, is refused with an error naming the type, the thread and the
checkpoint, and nothing is written. The plain data is then validated by the graph's own
state model, as graphnb reads its own rows: the only classes built are those it names.

A LangGraph thread maps to a graphnb thread checkpoint by checkpoint, ids kept, so
``checkpoint_id=`` picks the same point in time on both. LangGraph writes two
checkpoints where graphnb writes one for a run's input (one holding the input not yet
applied, one after its ``__start__`` task applied it): the first is left out and the
second becomes graphnb's ``input`` checkpoint, so a step is LangGraph's minus the number
of runs started before it.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
import reprlib
from collections.abc import Iterable, Mapping
from typing import Any

from ..checkpoint_errors import CheckpointLoadError, UnsafeCheckpointError
from ..records import CheckpointSource, NewCheckpoint, StoredCheckpoint
from .errors import LangGraphMissingError

__all__ = [
    "ImportedThread",
    "RefusedPayloadError",
    "decode_payload",
    "import_langgraph_threads",
    "langgraph_checkpointer",
]

# LangGraph's msgpack ext codes (langgraph.checkpoint.serde.jsonplus).
_SINGLE_ARG, _POS_ARGS, _KW_ARGS, _METHOD, _PYDANTIC_V1, _PYDANTIC_V2 = range(6)
_EXT_NAMES = {6: "numpy array", 7: "delta snapshot"}

# Constructor calls whose argument is kept as plain data (the value is not built).
_SINGLE_AS_DATA = {
    ("uuid", "UUID"),
    ("decimal", "Decimal"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("collections", "deque"),
    ("zoneinfo", "ZoneInfo"),
    ("ipaddress", "IPv4Address"),
    ("ipaddress", "IPv6Address"),
}
_MESSAGE_MODULE = "langchain_core.messages"
_SEND = ("langgraph.types", "Send")
_INTERRUPT = "__interrupt__"
_SOURCES: dict[str, CheckpointSource] = {"loop": "loop", "update": "update", "input": "input"}
"""LangGraph's checkpoint sources that mean what graphnb's of the same name mean."""


class RefusedPayloadError(UnsafeCheckpointError):
    """A LangGraph payload graphnb will not decode (it would construct or unpickle).

    Attributes:
        type_name: the payload's type (``pickle``, ``builtins.eval``, ``msgpack ext 6``).
    """

    def __init__(self, message: str, *, type_name: str, thread_id: str, checkpoint_id: str):
        self.type_name = type_name
        super().__init__(message, thread_id=thread_id, checkpoint_id=checkpoint_id)


@dataclasses.dataclass(frozen=True, slots=True)
class Refused:
    """What a refused payload decodes to, until the importer knows where it was."""

    type_name: str


@dataclasses.dataclass(frozen=True, slots=True)
class Undecodable:
    """What a damaged payload decodes to: it is not what its type says (no risk, no data)."""

    type_name: str
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class ImportedThread:
    """One thread copied: its id and how many checkpoints it holds now."""

    thread_id: str
    checkpoints: int


class _Refuse(Exception):
    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def decode_payload(type_: str, data: bytes | None) -> Any:
    """A LangGraph ``(type, bytes)`` payload as plain data.

    :class:`Refused` if decoding it would construct or unpickle; :class:`Undecodable` if
    it is damaged (not the msgpack or JSON it says, nested too deep, a date out of range).
    """
    try:
        if type_ in ("null", "empty") or data is None:
            return None
        if type_ in ("bytes", "bytearray"):
            return bytes(data)
        if type_ == "json":
            return _revive(json.loads(data))
        if type_ == "msgpack":
            import msgpack  # type: ignore[import-untyped]  # LangGraph needs it; graphnb here only

            return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
        raise _Refuse(type_)
    except _Refuse as refused:
        return Refused(refused.type_name)
    except (ValueError, TypeError, OverflowError) as error:  # msgpack's and json's too
        return Undecodable(type_, str(error) or type(error).__name__)
    except RecursionError:
        return Undecodable(type_, "it is nested too deep to read")


def _ext_hook(code: int, data: bytes) -> Any:
    import msgpack

    if code not in range(6):
        raise _Refuse(_EXT_NAMES.get(code, f"msgpack ext {code}"))
    parts = msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
    if not isinstance(parts, list | tuple) or len(parts) < 3:
        raise _Refuse(f"msgpack ext {code}")
    module, name, args = parts[0], parts[1], parts[2]
    key = (str(module), str(name))
    shown = f"{module}.{name}"
    if code in (_PYDANTIC_V1, _PYDANTIC_V2, _KW_ARGS) and isinstance(args, dict):
        # The model's / dataclass's / named tuple's fields; a message keeps its "type".
        return dict(args)
    if code == _POS_ARGS and key == _SEND and isinstance(args, list | tuple) and len(args) >= 2:
        return {"node": args[0], "arg": args[1]}
    try:
        if code == _POS_ARGS and key == ("datetime", "date") and isinstance(args, list | tuple):
            return datetime.date(*(int(a) for a in args))
        if (
            code == _POS_ARGS
            and key == ("datetime", "timedelta")
            and isinstance(args, list | tuple)
        ):
            return datetime.timedelta(*(int(a) for a in args))
        if code == _METHOD and key == ("datetime", "datetime") and isinstance(args, str):
            return datetime.datetime.fromisoformat(args)
    except (ValueError, TypeError, OverflowError) as error:  # out of range, not numbers
        raise ValueError(f"a {shown} of {reprlib.repr(args)}: {error}") from None
    if code == _SINGLE_ARG and key in _SINGLE_AS_DATA:
        return list(args) if isinstance(args, list | tuple) else str(args)
    raise _Refuse(shown)


def _revive(value: Any) -> Any:
    """LangChain's ``{"lc": 1, "type": "constructor"}`` JSON: messages as their fields."""
    if isinstance(value, list):
        return [_revive(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("lc") == 1 and value.get("type") in ("constructor", "secret"):
        ident = value.get("id")
        path = ".".join(map(str, ident)) if isinstance(ident, list) else str(ident)
        if (
            value["type"] == "constructor"
            and isinstance(ident, list)
            and ident[:3] == ["langchain", "schema", "messages"]
            and isinstance(value.get("kwargs"), dict)
        ):
            # HumanMessage -> "human", AIMessageChunk -> "ai", ToolMessage -> "tool" ...
            kind = str(ident[-1]).removesuffix("MessageChunk").removesuffix("Message").lower()
            return {"type": kind, **_revive(value["kwargs"])}
        raise _Refuse(path)
    return {key: _revive(item) for key, item in value.items()}


class _SafeSerde:
    """A LangGraph serializer that reads payloads as plain data and never writes."""

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return decode_payload(*data)

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        raise TypeError("graphnb reads LangGraph checkpoints; it does not write them")

    def loads(self, data: bytes) -> Any:
        return decode_payload("json", data)

    def dumps(self, obj: Any) -> bytes:
        raise TypeError("graphnb reads LangGraph checkpoints; it does not write them")


def langgraph_checkpointer(source: Any) -> Any:
    """A copy of a LangGraph checkpointer reading through the safe decoder.

    ``source`` is a LangGraph checkpointer (``SqliteSaver``, ``PostgresSaver``,
    ``InMemorySaver`` ...) or a URL: ``sqlite:///path.db`` or ``postgresql://...``.
    A checkpointer opened from a URL has ``.close()``; one passed in is shared, not closed.
    A SQLite file is opened read-only: nothing is ever written to it.

    Raises:
        ValueError: the URL names no LangGraph checkpointer graphnb can open (a SQLite
            file that does not exist, or holds no LangGraph tables).
        LangGraphMissingError: LangGraph (or its SQLite/PostgreSQL checkpointer, or
            msgpack, which its payloads are read with) is not installed.
    """
    try:
        import msgpack  # noqa: F401  # the safe decoder reads LangGraph's payloads with it
    except ImportError:
        raise LangGraphMissingError("msgpack") from None
    if not isinstance(source, str):
        if not hasattr(source, "list") or not hasattr(source, "serde"):
            raise TypeError(
                f"expected a LangGraph checkpointer or its URL, got {type(source).__name__}"
            )
        reader = copy.copy(source)
        reader.serde = _SafeSerde()
        reader.close = lambda: None
        return reader
    scheme, _, rest = source.partition("://")
    scheme = scheme.split("+")[0].lower()
    if scheme == "sqlite" and rest:
        path = rest[1:] if rest.startswith("/") else rest
        return _sqlite_reader(path)
    if scheme in ("postgres", "postgresql"):
        try:
            import psycopg
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
        except ImportError:
            raise LangGraphMissingError("langgraph-checkpoint-postgres") from None
        from ..checkpoint.postgres import CONNECTION_DEFAULTS

        url = "postgresql://" + source.partition("://")[2]
        # the timeouts and keepalives of graphnb's own connections: without them, a source
        # whose network silently drops packets hangs the import forever
        given = psycopg.conninfo.conninfo_to_dict(url)
        defaults = {key: value for key, value in CONNECTION_DEFAULTS.items() if key not in given}
        pg = psycopg.connect(
            psycopg.conninfo.make_conninfo(url, **defaults), autocommit=True, row_factory=dict_row
        )
        postgres_reader = PostgresSaver(pg, serde=_SafeSerde())
        postgres_reader.close = pg.close  # type: ignore[attr-defined]
        return postgres_reader
    raise ValueError(
        f"expected a LangGraph checkpointer URL (sqlite:///path.db or postgresql://...), "
        f"got {source.split('://')[0]!r}://..."
    )


def _sqlite_reader(path: str) -> Any:
    """LangGraph's ``SqliteSaver`` on the file ``path``, through a read-only connection.

    The saver's ``setup()`` creates its tables (in whatever database it is given) and
    switches the file to WAL mode: it is skipped, the tables checked here instead.
    """
    import sqlite3
    from pathlib import Path

    if path != ":memory:" and not Path(path).exists():
        raise ValueError(f"no such LangGraph SQLite database: {path!r}")
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver
    except ImportError:
        raise LangGraphMissingError("langgraph-checkpoint-sqlite") from None
    where = path if path == ":memory:" else f"{Path(path).absolute().as_uri()}?mode=ro"
    conn = sqlite3.connect(where, uri=True, check_same_thread=False)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        if not {"checkpoints", "writes"} <= tables:
            raise ValueError(
                f"{path!r} holds no LangGraph checkpoints (no 'checkpoints' and 'writes' "
                "tables); nothing to import"
            )
        columns = {row[1] for row in conn.execute("PRAGMA table_info(writes)")}
    except BaseException:
        conn.close()
        raise
    reader = SqliteSaver(conn, serde=_SafeSerde())
    reader.is_setup = True
    if "task_path" not in columns:  # a file from before LangGraph added the column
        reader._has_task_path = False  # what setup() decides for such a read-only file
    reader.close = conn.close  # type: ignore[attr-defined]
    return reader


def import_langgraph_threads(
    source: Any,
    saver: Any,
    *,
    graph: Any = None,
    thread_ids: Iterable[str] | None = None,
) -> list[ImportedThread]:
    """Copy LangGraph threads (latest state and history, in order) into a graphnb saver.

    Args:
        source: a LangGraph checkpointer, or its URL (``sqlite:///...``,
            ``postgresql://...``).
        saver: the graphnb saver (or its URL) to copy into.
        graph: the graph the threads run: a graphnb ``StateGraph`` or compiled graph, or
            the LangGraph graph itself (imported with :func:`import_langgraph`). Its state
            model checks every value. ``None`` stores the values as plain data, read
            through the state model when the graph loads the thread.
        thread_ids: copy these threads only (default: every thread of ``source``).

    Returns:
        The threads copied, in order.

    Raises:
        RefusedPayloadError: a payload would construct or unpickle; names the type, the
            thread and the checkpoint. Nothing is written.
        CheckpointLoadError: a value does not fit the state model, a thread holds a
            pending ``interrupt()``, or the saver already has the thread.
        ThreadNotFoundError: a thread asked for is not in ``source``.
    """
    from ..checkpoint import ThreadNotFoundError, as_saver
    from ..records import check_own_thread

    schema = _schema_of(graph)
    reader = langgraph_checkpointer(source)
    try:
        found = _tuples(reader)
    finally:
        if isinstance(source, str):
            reader.close()
    wanted = list(dict.fromkeys(thread_ids)) if thread_ids is not None else sorted(found)
    for thread_id in wanted:
        # before anything is written: such a thread would vanish from graphnb's listings
        check_own_thread(thread_id, "the LangGraph thread id")
        if thread_id not in found:
            raise ThreadNotFoundError(
                f"the LangGraph checkpointer has no thread {thread_id!r}", thread_id=thread_id
            )
    target = as_saver(saver) if isinstance(saver, str) else saver
    try:
        return _write(target, schema, wanted, found)
    finally:
        if isinstance(saver, str):
            target.close()


def _write(
    target: Any, schema: Any, wanted: list[str], found: dict[str, list[Any]]
) -> list[ImportedThread]:
    """Decode every thread first, then store them; a failed store removes them all."""
    from ..checkpoint import Threads

    threads = Threads(target, schema)
    planned = [(thread_id, _read(threads, thread_id, found[thread_id])) for thread_id in wanted]
    for thread_id, _ in planned:
        if target.load(thread_id) is not None:
            raise CheckpointLoadError(
                f"the graphnb saver already has a thread {thread_id!r}; delete it first "
                "(graphnb threads import copies into new threads only)",
                thread_id=thread_id,
                checkpoint_id=None,
            )
    done: list[ImportedThread] = []
    try:
        for thread_id, rows in planned:
            done.append(ImportedThread(thread_id, len(rows)))
            for row in rows:
                target.put(row)
    except BaseException:
        for thread in done:
            target.delete_thread(thread.thread_id)
        raise
    return done


def _read(threads: Any, thread_id: str, items: list[Any]) -> list[StoredCheckpoint]:
    """:func:`_rows`, a damaged row it did not foresee named by its thread, not a traceback."""
    from ..errors import GraphnbError

    try:
        return _rows(threads, thread_id, items)
    except GraphnbError:
        raise
    except (
        AttributeError,
        KeyError,
        TypeError,
        ValueError,
        OverflowError,
        RecursionError,
    ) as error:
        raise CheckpointLoadError(
            f"LangGraph thread {thread_id!r} is damaged: {type(error).__name__}: "
            f"{' '.join(str(error).split())[:200]}; nothing was imported",
            thread_id=thread_id,
            checkpoint_id=None,
        ) from error


def _schema_of(graph: Any) -> Any:
    from ..graph import StateGraph
    from .langgraph_in import import_langgraph, is_langgraph

    if graph is None:
        return StateGraph(dict).schema  # plain data, read through the graph when it runs
    if is_langgraph(graph):
        graph = import_langgraph(graph).graph
    schema = getattr(graph, "schema", None)
    if schema is None or not hasattr(schema, "fields"):
        raise TypeError(
            f"graph= expects a graphnb StateGraph or compiled graph, or a LangGraph graph; "
            f"got {type(graph).__name__}"
        )
    return schema


def _tuples(reader: Any) -> dict[str, list[Any]]:
    """Every root-namespace checkpoint tuple by thread, oldest first.

    Raises:
        CheckpointLoadError: LangGraph's reader failed on a damaged row (metadata that is
            not JSON, or nested too deep to parse), naming it when it can be found.
    """
    from ..errors import GraphnbError

    found: dict[str, list[Any]] = {}
    try:
        for item in reader.list(None):
            configurable = item.config["configurable"]
            if configurable.get("checkpoint_ns", ""):
                continue  # a subgraph's own checkpoints: graphnb does not checkpoint children
            found.setdefault(str(configurable["thread_id"]), []).append(item)
    except GraphnbError:  # a TypeError or ValueError too, but said already
        raise
    except (ValueError, TypeError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise _unreadable(reader, error) from None
    for items in found.values():
        items.sort(key=lambda item: str(item.config["configurable"]["checkpoint_id"]))
    return found


def _unreadable(reader: Any, error: BaseException) -> CheckpointLoadError:
    """The error for a row LangGraph's reader failed on, naming it where it can be found.

    LangGraph parses a SQLite row's metadata itself, so the row is found by reading the
    metadata column again; other readers' failures are named by their error alone.
    """
    reason = "it is nested too deep to read" if isinstance(error, RecursionError) else error
    conn = getattr(reader, "conn", None)
    if conn is not None and not hasattr(conn, "pgconn"):  # a sqlite3 connection
        rows = conn.execute("SELECT thread_id, checkpoint_id, metadata FROM checkpoints")
        for thread_id, checkpoint_id, metadata in rows:
            try:
                json.loads(metadata) if metadata is not None else None
            except (ValueError, TypeError, RecursionError):
                return CheckpointLoadError(
                    f"checkpoint {checkpoint_id!r} of LangGraph thread {thread_id!r} is "
                    f"damaged: its metadata is not JSON ({reason}); nothing was imported",
                    thread_id=str(thread_id),
                    checkpoint_id=str(checkpoint_id),
                )
    return CheckpointLoadError(
        f"the LangGraph checkpointer holds a damaged checkpoint ({type(error).__name__}: "
        f"{reason}); nothing was imported",
        thread_id=None,
        checkpoint_id=None,
    )


def _damaged(thread_id: str, checkpoint_id: str, what: str) -> CheckpointLoadError:
    return CheckpointLoadError(
        f"checkpoint {checkpoint_id!r} of LangGraph thread {thread_id!r} is damaged: {what}; "
        "nothing was imported",
        thread_id=thread_id,
        checkpoint_id=checkpoint_id,
    )


def _shape(thread_id: str, checkpoint_id: str, checkpoint: Any, metadata: Any) -> int:
    """Check the parts of a checkpoint :func:`_rows` reads; returns LangGraph's step.

    Raises:
        CheckpointLoadError: a part is not what LangGraph writes (a mapping, a step that
            is an integer), naming the checkpoint and the part.
    """

    def refuse(what: str) -> CheckpointLoadError:
        return _damaged(thread_id, checkpoint_id, what)

    def kind(value: Any) -> str:
        return f"the {type(value).__name__} {reprlib.repr(value)}"

    if not isinstance(metadata, Mapping):
        raise refuse(f"its metadata is {kind(metadata)}, not a JSON object")
    if not isinstance(checkpoint, Mapping):
        raise refuse(f"its checkpoint is {kind(checkpoint)}, not a mapping")
    for part in ("channel_values", "channel_versions", "versions_seen"):
        value = checkpoint.get(part)
        if value is not None and not isinstance(value, Mapping):
            raise refuse(f"its checkpoint's {part} is {kind(value)}, not a mapping")
    for node, versions in (checkpoint.get("versions_seen") or {}).items():
        if versions is not None and not isinstance(versions, Mapping):
            raise refuse(f"its versions_seen of {node!r} is {kind(versions)}, not a mapping")
    step = metadata.get("step", 0)
    if isinstance(step, bool) or not isinstance(step, int):
        raise refuse(f"its metadata's step is {kind(step)}, not an integer")
    return step


def _check(value: Any, thread_id: str, checkpoint_id: str, part: str) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Undecodable):
            raise CheckpointLoadError(
                f"checkpoint {checkpoint_id!r} of LangGraph thread {thread_id!r} is damaged: "
                f"its {part} is not readable {item.type_name} ({item.reason}); nothing was "
                "imported",
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
            )
        if isinstance(item, Refused):
            raise RefusedPayloadError(
                f"checkpoint {checkpoint_id!r} of LangGraph thread {thread_id!r} holds a "
                f"{item.type_name} payload in its {part}, which graphnb does not decode: it "
                "would construct an object or unpickle code; nothing was imported",
                type_name=item.type_name,
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
            )
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def _rows(threads: Any, thread_id: str, items: list[Any]) -> list[StoredCheckpoint]:
    from ..checkpoint.serde import StoredValues

    schema = threads.schema
    fields = set(schema.fields) if schema.fields else None
    writer = threads.writer(thread_id, None, metadata=None)
    kept: dict[str, StoredCheckpoint] = {}  # LangGraph id -> row written for it
    skipped: dict[str, str | None] = {}  # a left-out input checkpoint -> its parent
    seen_before: dict[str, Mapping[str, Any]] = {}
    # LangGraph's input checkpoints take a step number each; graphnb's do not.
    offsets: dict[str | None, int] = {None: 0}
    rows: list[StoredCheckpoint] = []
    by_id = {str(item.config["configurable"]["checkpoint_id"]): item for item in items}
    for item in items:
        checkpoint_id = str(item.config["configurable"]["checkpoint_id"])
        direct = item.parent_config["configurable"]["checkpoint_id"] if item.parent_config else None
        parent = direct
        checkpoint = item.checkpoint
        _check(checkpoint, thread_id, checkpoint_id, "checkpoint")
        _check(list(item.pending_writes or ()), thread_id, checkpoint_id, "pending writes")
        metadata = item.metadata or {}
        step = _shape(thread_id, checkpoint_id, checkpoint, metadata)
        seen = checkpoint.get("versions_seen", {}) or {}
        seen_before[checkpoint_id] = seen
        while parent in skipped:
            parent = skipped[parent]
        is_input = metadata.get("source") == "input"
        offsets[checkpoint_id] = offsets.get(direct, 0) + (1 if is_input else 0)
        if is_input:
            skipped[checkpoint_id] = parent
            continue
        if any(write[1] == _INTERRUPT for write in item.pending_writes or ()) and (
            item is items[-1]
        ):
            raise CheckpointLoadError(
                f"checkpoint {checkpoint_id!r} of LangGraph thread {thread_id!r} waits in a "
                "LangGraph interrupt(), which graphnb cannot resume; resume it on LangGraph "
                "first, then import the thread",
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
            )
        channels = checkpoint.get("channel_values", {}) or {}
        plain = {
            key: value
            for key, value in channels.items()
            if not key.startswith(("branch:", "join:", "__")) and (fields is None or key in fields)
        }
        stored = StoredValues(schema, thread_id, checkpoint_id)
        values = stored.snapshot(plain)
        before = seen_before.get(direct, {}) if direct is not None else {}
        ran = [
            node
            for node, versions in seen.items()
            if not node.startswith("__") and versions != before.get(node)
        ]
        started = "__start__" in seen and seen.get("__start__") != before.get("__start__")
        nxt = [key.removeprefix("branch:to:") for key in channels if key.startswith("branch:to:")]
        joins = _joins(checkpoint, channels, seen, nxt)
        sends = [
            (str(send["node"]), stored.update(dict(send.get("arg") or {})))
            for send in channels.get("__pregel_tasks", None) or []
            if isinstance(send, dict) and "node" in send
        ]
        source: CheckpointSource = (
            "input"
            if started and not ran
            # a fork and what else LangGraph writes are edits of the state, as graphnb sees them
            else _SOURCES.get(str(metadata.get("source", "loop")), "update")
        )
        writes = []
        if len(ran) == 1 and direct in by_id:
            update = {
                channel: value
                for _, channel, value in by_id[direct].pending_writes or ()
                if channel in plain or (fields is not None and channel in fields)
            }
            if update:
                writes = [(ran[0], stored.update(update))]
        row = writer.row(
            NewCheckpoint(
                step=step - offsets[checkpoint_id],
                source=source,
                ran=ran,
                writes=writes,
                next=nxt,
                values=values,
                sends=sends,
                joins=joins or None,
            ),
            snapshot=True,  # every row whole: LangGraph's tree is copied as it is
        )
        parent_row = kept.get(parent) if parent is not None else None
        row = dataclasses.replace(
            row,
            checkpoint_id=checkpoint_id,
            parent_id=parent_row.checkpoint_id if parent_row is not None else None,
            parent_seq=parent_row.seq if parent_row is not None else None,
            created_at=_timestamp(checkpoint.get("ts"), row.created_at),
        )
        writer.advance(row)
        kept[checkpoint_id] = row
        rows.append(row)
    return rows


def _joins(
    checkpoint: Mapping[str, Any],
    channels: Mapping[str, Any],
    seen: Mapping[str, Any],
    nxt: list[str],
) -> dict[str, list[str]]:
    """Join progress of a checkpoint; a join complete and not yet run goes to ``nxt``.

    LangGraph keeps a join (``add_edge([a, b], c)``) as a ``join:a+b:c`` channel holding
    the sources that arrived (a set, or a list once decoded). Only sources that have run
    by this checkpoint count: LangGraph may store the set as it was later (its channel
    object is shared with the run that goes on). A complete join whose target has not
    read it yet is a pending run of the target: graphnb's next node.
    """
    versions = checkpoint.get("channel_versions", {}) or {}
    joins: dict[str, list[str]] = {}
    for key, value in channels.items():
        if not key.startswith("join:") or not isinstance(value, list | set | tuple | frozenset):
            continue
        target = key.rsplit(":", 1)[-1]
        sources = set(key[len("join:") : -len(target) - 1].split("+"))
        arrived = sorted(str(source) for source in value if str(source) in seen)
        if not arrived:
            continue
        if set(arrived) != sources:
            joins[target] = arrived
        elif (seen.get(target) or {}).get(key) != versions.get(key) and target not in nxt:
            nxt.append(target)
    return joins


def _timestamp(text: Any, default: float) -> float:
    try:
        return datetime.datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return default
