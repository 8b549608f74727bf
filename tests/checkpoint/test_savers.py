"""The saver conformance suite: the same behaviour from every saver."""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import replace
from typing import Annotated, Any

import pytest

from graphnb import GraphState, StateField, append
from graphnb.checkpoint import (
    BaseSaver,
    CheckpointConflictError,
    CheckpointLoadError,
    MemorySaver,
    MySQLSaver,
    PostgresSaver,
    SaverSetupError,
    SqliteSaver,
    SqlSaver,
    StoredCheckpoint,
    StoredFieldDroppedWarning,
    ThreadNotFoundError,
    Threads,
    UnsafeCheckpointError,
    UnstorableValueError,
)
from graphnb.checkpoint.sql import SCHEMA_VERSION
from graphnb.records import NewCheckpoint
from graphnb.schema import StateSchema

from .conftest import drop_tables


class Chat(GraphState):
    messages: Annotated[list[str], StateField(reducer=append)] = []
    count: int = 0


SCHEMA = StateSchema.of(Chat)


def threads(saver: BaseSaver, **options: Any) -> Threads[Chat]:
    return Threads(saver, SCHEMA, **options)


def grow(store: Threads[Chat], thread: str, steps: int, *, start: int = 0) -> list[str]:
    """Write a thread of ``steps`` checkpoints, each appending one message; returns ids."""
    position = store.load(thread)
    writer = store.writer(thread, position, metadata={"run_id": "r"})
    values = dict(position.values) if position else SCHEMA.defaults()
    ids = []
    for step in range(start, start + steps):
        update = {"messages": [f"m{step}"], "count": step + 1}
        SCHEMA.apply(values, update)
        row = writer.put(
            NewCheckpoint(
                step=step,
                source="loop",
                ran=["a"],
                writes=[("a", update)],
                next=["a"],
                values=values,
            )
        )
        ids.append(row.checkpoint_id)
    return ids


def test_a_new_thread_has_no_checkpoint(saver: BaseSaver) -> None:
    assert saver.load("nobody") is None
    assert threads(saver).load("nobody") is None
    assert saver.history("nobody") == []
    with pytest.raises(ThreadNotFoundError, match="no checkpoint 'nope'"):
        threads(saver).load("nobody", "nope")


def test_state_is_rebuilt_from_writes_and_snapshots(saver: BaseSaver) -> None:
    store = threads(saver, snapshot_every=4)
    grow(store, "t", 10)
    position = store.load("t")
    assert position is not None
    assert position.values["messages"] == [f"m{i}" for i in range(10)]
    assert position.values["count"] == 10
    rows = saver.history("t")
    assert [row.seq for row in rows] == list(range(10))
    snapshots = [row.seq for row in rows if row.snapshot is not None]
    assert snapshots[0] == 0
    assert all(b - a <= 4 for a, b in zip(snapshots, [*snapshots[1:], 10], strict=True))
    assert len(snapshots) < 10  # most rows hold only their step's writes


def test_typed_values_come_back_as_the_state_model(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 2)
    position = store.load("t")
    assert position is not None
    snapshot = store.snapshot(position)
    assert isinstance(snapshot.values, Chat)
    assert snapshot.values.messages == ["m0", "m1"]
    assert snapshot.next == ("a",)
    assert snapshot.step == 1
    assert snapshot.ran == ("a",)
    assert snapshot.writes == (("a", {"messages": ["m1"], "count": 2}),)
    assert snapshot.metadata == {"run_id": "r"}


def test_a_second_writer_on_the_same_head_gets_a_conflict(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 2)
    first = store.writer("t", store.load("t"), metadata=None)
    second = store.writer("t", store.load("t"), metadata=None)
    values = {"messages": ["m0", "m1", "x"], "count": 2}
    first.put(
        NewCheckpoint(
            step=2,
            source="loop",
            ran=["a"],
            writes=[("a", {"messages": ["x"]})],
            next=[],
            values=values,
        )
    )
    with pytest.raises(CheckpointConflictError, match="another writer") as caught:
        second.put(
            NewCheckpoint(
                step=2,
                source="loop",
                ran=["b"],
                writes=[("b", {"messages": ["y"]})],
                next=[],
                values=values,
            )
        )
    assert caught.value.thread_id == "t"
    assert caught.value.expected == 1
    history = saver.history("t")
    assert [row.meta["ran"] for row in history] == [["a"], ["a"], ["a"]]
    position = store.load("t")
    assert position is not None
    assert position.values["messages"] == ["m0", "m1", "x"]


def test_forking_from_a_past_checkpoint_keeps_the_original_branch(saver: BaseSaver) -> None:
    store = threads(saver, snapshot_every=100)
    ids = grow(store, "t", 4)
    past = store.load("t", ids[1])
    assert past is not None
    assert past.values["messages"] == ["m0", "m1"]
    writer = store.writer("t", past, metadata=None)
    values = {**past.values, "messages": ["m0", "m1", "fork"]}
    fork = writer.put(
        NewCheckpoint(
            step=2,
            source="loop",
            ran=["b"],
            writes=[("b", {"messages": ["fork"]})],
            next=[],
            values=values,
        )
    )
    assert fork.parent_id == ids[1]
    assert fork.seq == 4
    latest = store.load("t")
    assert latest is not None
    assert latest.values["messages"] == ["m0", "m1", "fork"]
    original = store.load("t", ids[3])
    assert original is not None
    assert original.values["messages"] == ["m0", "m1", "m2", "m3"]
    assert [s.checkpoint_id for s in store.history("t")] == [fork.checkpoint_id, *reversed(ids)]


def test_a_fork_from_an_old_checkpoint_stays_fast_to_read(saver: BaseSaver) -> None:
    store = threads(saver, snapshot_every=5)
    ids = grow(store, "t", 30)
    fork = store.load("t", ids[1])
    assert fork is not None
    writer = store.writer("t", fork, metadata=None)
    values = dict(fork.values)
    for step in range(2, 4):
        update = {"messages": [f"f{step}"], "count": step + 1}
        SCHEMA.apply(values, update)
        writer.put(
            NewCheckpoint(
                step=step, source="loop", ran=["b"], writes=[("b", update)], next=[], values=values
            )
        )
    loaded = saver.load("t")
    assert loaded is not None
    assert len(loaded.rows) <= 5  # not the 28 rows of the original branch since seq 0
    position = store.load("t")
    assert position is not None
    assert position.values["messages"] == ["m0", "m1", "f2", "f3"]


def test_threads_are_listed_and_deleted(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "b", 1)
    grow(store, "a", 2)
    grow(store, "A", 1)  # thread ids are case-sensitive
    assert saver.threads() == ["A", "a", "b"]
    assert saver.delete_thread("a") == 2
    assert saver.threads() == ["A", "b"]
    assert saver.load("a") is None
    assert saver.delete_thread("a") == 0


def test_changing_a_record_after_storing_it_changes_nothing_stored(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 1)
    writer = store.writer("t", store.load("t"), metadata={})
    values = {"messages": ["m0", "m1"], "count": 2}
    given = writer.put(
        NewCheckpoint(
            step=1, source="loop", ran=["a"], writes=[("a", {"count": 2})], next=[], values=values
        )
    )
    kept = saver.history("t")
    given.meta["ran"].append("forged")
    given.writes.clear()
    given.seq = given.base_seq = 7
    assert saver.history("t") == kept
    kept[-1].meta["next"].append("forged")  # what a reader gets is its own copy, too
    assert saver.history("t")[-1].meta["next"] == []
    assert store.load("t").values == {"messages": ["m0"], "count": 2}


def test_history_lists_every_state_newest_first(saver: BaseSaver) -> None:
    store = threads(saver, snapshot_every=2)
    grow(store, "t", 5)
    history = store.history("t")
    assert [s.values.count for s in history] == [5, 4, 3, 2, 1]
    assert history[0].values.messages == ["m0", "m1", "m2", "m3", "m4"]
    assert [s.parent_id for s in history[:-1]] == [s.checkpoint_id for s in history[1:]]
    assert len(store.history("t", limit=2)) == 2


def test_an_unstorable_value_fails_the_write_naming_the_field(saver: BaseSaver) -> None:
    class Loose(GraphState):
        payload: Any = None

    schema = StateSchema.of(Loose)
    store: Threads[Any] = Threads(saver, schema)
    writer = store.writer("t", None, metadata=None)
    writer.put(
        NewCheckpoint(step=-1, source="input", ran=[], writes=[], next=["a"], values={"payload": 1})
    )
    with pytest.raises(UnstorableValueError, match="field 'payload'") as caught:
        writer.put(
            NewCheckpoint(
                step=0,
                source="loop",
                ran=["a"],
                writes=[("a", {"payload": object()})],
                next=[],
                values={"payload": object()},
            )
        )
    assert caught.value.field == "payload"
    assert len(saver.history("t")) == 1  # nothing partial


def test_nan_and_infinity_fail_the_write_naming_the_field(saver: BaseSaver) -> None:
    class Measures(GraphState):
        score: float = 0.0
        extra: list[float] = []

    store: Threads[Any] = Threads(saver, StateSchema.of(Measures))
    writer = store.writer("t", None, metadata=None)
    writer.put(
        NewCheckpoint(step=-1, source="input", ran=[], writes=[], next=["a"], values={"score": 1.0})
    )
    for field, bad in (("score", float("inf")), ("extra", [1.0, float("nan")])):
        with pytest.raises(UnstorableValueError, match=f"field '{field}' holds NaN") as caught:
            writer.put(
                NewCheckpoint(
                    step=0,
                    source="loop",
                    ran=["a"],
                    writes=[("a", {field: bad})],
                    next=[],
                    values={"score": 1.0, field: bad},
                )
            )
        assert caught.value.field == field
        assert caught.value.thread_id == "t"
    assert len(saver.history("t")) == 1  # nothing partial


class Loose(GraphState):
    anything: Any = None
    table: dict = {}  # type: ignore[type-arg]
    items: list[Any] = []


@pytest.mark.parametrize(
    ("field", "bad"),
    [("anything", float("nan")), ("table", {"a": float("inf")}), ("items", [1, float("-inf")])],
    ids=["Any", "dict", "list[Any]"],
)
def test_nan_in_a_field_of_inferred_type_fails_the_write_naming_the_field(
    saver: BaseSaver, field: str, bad: Any
) -> None:
    # Pydantic's JSON dump turns NaN into None where it infers a value's type: it was
    # stored as null, and read back as None.
    store: Threads[Any] = Threads(saver, StateSchema.of(Loose))
    writer = store.writer("t", None, metadata=None)
    writer.put(NewCheckpoint(step=-1, source="input", ran=[], writes=[], next=["a"], values={}))
    with pytest.raises(UnstorableValueError, match=f"field '{field}' holds NaN") as caught:
        writer.row(
            NewCheckpoint(
                step=0,
                source="loop",
                ran=["a"],
                writes=[("a", {field: bad})],
                next=[],
                values={field: bad},
            ),
            snapshot=True,
        )
    assert (caught.value.field, caught.value.thread_id) == (field, "t")
    assert len(saver.history("t")) == 1  # nothing partial


def test_a_row_naming_a_class_is_refused(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 1)
    good = saver.history("t")[0]
    forged = replace(
        good,
        thread_id="evil",
        snapshot={"messages": {"__class__": "os.system", "args": ["echo pwned"]}, "count": 0},
    )
    saver.put(forged)
    with pytest.raises(UnsafeCheckpointError, match="never imports") as caught:
        store.load("evil")
    assert caught.value.thread_id == "evil"
    assert caught.value.checkpoint_id == good.checkpoint_id


def test_a_langchain_style_constructor_in_writes_is_refused(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 1)
    base = saver.history("t")[0]
    constructor = {"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {}}
    saver.put(
        StoredCheckpoint(
            "t",
            1,
            "forged",
            base.checkpoint_id,
            0,
            0,
            1,
            "loop",
            0.0,
            {"ran": ["a"], "next": []},
            [["a", {"messages": [constructor]}]],
        )
    )
    with pytest.raises(UnsafeCheckpointError, match=r"lc.*never imports"):
        store.load("t")


def test_unknown_meta_keys_are_refused(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 1)
    good = saver.history("t")[0]
    saver.put(replace(good, thread_id="odd", meta={**good.meta, "state_type": "os:system"}))
    with pytest.raises(CheckpointLoadError, match="malformed meta"):
        store.load("odd")


def test_a_corrupt_thread_does_not_affect_the_others(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "good", 2)
    grow(store, "bad", 1)
    first = saver.history("bad")[0]
    saver.put(
        StoredCheckpoint(
            "bad",
            1,
            "broken",
            first.checkpoint_id,
            0,
            0,
            1,
            "loop",
            0.0,
            {"ran": ["a"], "next": []},
            {"not": "a list"},  # type: ignore[arg-type]
        )
    )
    with pytest.raises(CheckpointLoadError, match="malformed writes") as caught:
        store.load("bad")
    assert caught.value.thread_id == "bad"
    position = store.load("good")
    assert position is not None
    assert position.values["count"] == 2
    grow(store, "good", 1, start=2)
    assert len(saver.history("good")) == 3


def test_a_snapshot_that_is_not_an_object_is_a_load_error(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "bad", 1)
    grow(store, "good", 1)
    row = saver.history("bad")[0]
    saver.delete_thread("bad")
    saver.put(replace(row, snapshot=["not", "fields"]))  # type: ignore[arg-type]
    for read in (store.load, store.history):
        with pytest.raises(CheckpointLoadError, match="malformed snapshot column") as caught:
            read("bad")
        assert (caught.value.thread_id, caught.value.checkpoint_id) == ("bad", row.checkpoint_id)
    position = store.load("good")
    assert position is not None
    assert position.values["messages"] == ["m0"]


def test_a_new_field_with_a_default_loads(saver: BaseSaver) -> None:
    grow(threads(saver), "t", 2)

    class ChatV2(GraphState):
        messages: Annotated[list[str], StateField(reducer=append)] = []
        count: int = 0
        mood: str = "calm"

    position = Threads(saver, StateSchema.of(ChatV2)).load("t")
    assert position is not None
    assert position.values == {"messages": ["m0", "m1"], "count": 2, "mood": "calm"}


def test_a_removed_field_is_dropped_with_a_warning(saver: BaseSaver) -> None:
    grow(threads(saver, snapshot_every=1), "t", 2)

    class Slim(GraphState):
        messages: Annotated[list[str], StateField(reducer=append)] = []

    with pytest.warns(StoredFieldDroppedWarning, match="'count'.*Slim no longer has"):
        position = Threads(saver, StateSchema.of(Slim)).load("t")
    assert position is not None
    assert position.values == {"messages": ["m0", "m1"]}


def test_an_incompatible_value_names_field_thread_and_checkpoint(saver: BaseSaver) -> None:
    ids = grow(threads(saver, snapshot_every=1), "t", 1)

    class Strict(GraphState):
        messages: Annotated[list[int], StateField(reducer=append)] = []
        count: int = 0

    with pytest.raises(CheckpointLoadError) as caught:
        Threads(saver, StateSchema.of(Strict)).load("t")
    error = caught.value
    assert (error.field, error.thread_id, error.checkpoint_id) == ("messages", "t", ids[0])
    assert "field 'messages'" in str(error)
    assert "thread 't'" in str(error)


def test_async_methods_match_the_sync_ones(saver: BaseSaver) -> None:
    store = threads(saver)

    async def scenario() -> None:
        writer = store.writer("t", None, metadata=None)
        await writer.aput(
            NewCheckpoint(
                step=-1,
                source="input",
                ran=[],
                writes=[],
                next=["a"],
                values={"messages": ["hi"], "count": 0},
            )
        )
        position = await store.aload("t")
        assert position is not None
        assert position.values["messages"] == ["hi"]
        assert await saver.athreads() == ["t"]
        assert len(await store.ahistory("t")) == 1
        assert await saver.adelete_thread("t") == 1

    asyncio.run(scenario())
    if isinstance(saver, PostgresSaver):  # psycopg's own async connection, not a thread
        assert saver._aconns


def test_a_table_layout_from_a_newer_version_is_refused(sql_saver: SqlSaver) -> None:
    saver = sql_saver
    saver.threads()  # creates the tables
    with saver._cursor() as cursor:
        cursor.execute(f"UPDATE {saver.version_table} SET version = 99")
    saver.close()
    with pytest.raises(SaverSetupError, match="newer graphnb"):
        saver.threads()


def test_a_sqlite_file_that_cannot_be_opened_is_named_with_the_reason(tmp_path: Any) -> None:
    # SQLite itself says only "unable to open database file".
    with pytest.raises(SaverSetupError, match=r"a database file .* or ':memory:', got ''"):
        SqliteSaver("")
    cases = {
        str(tmp_path): "it is a folder",
        str(tmp_path / "missing" / "t.db"): f"its folder {str(tmp_path / 'missing')!r} does not",
    }
    for path, reason in cases.items():
        saver = SqliteSaver(path)
        with pytest.raises(SaverSetupError, match=re.escape(f"{path!r}: {reason}")):
            saver.threads()
    assert not (tmp_path / "missing").exists()  # nothing was created on the way


def test_a_row_whose_json_does_not_parse_names_its_thread(tmp_path: Any) -> None:
    import sqlite3

    saver = SqliteSaver(tmp_path / "t.db")
    store = threads(saver)
    grow(store, "broken", 1)
    grow(store, "fine", 1)
    saver.close()
    conn = sqlite3.connect(tmp_path / "t.db")
    with conn:
        conn.execute("UPDATE graphnb_checkpoints SET writes = '[[' WHERE thread_id = 'broken'")
    conn.close()
    with pytest.raises(CheckpointLoadError, match="JSON does not parse") as caught:
        store.load("broken")
    assert caught.value.thread_id == "broken"
    position = store.load("fine")
    assert position is not None
    assert position.values["messages"] == ["m0"]
    assert saver.threads() == ["broken", "fine"]
    saver.close()


def test_tables_are_made_on_first_use_with_a_version_and_readable_json(
    sql_saver: SqlSaver,
) -> None:
    grow(threads(sql_saver), "t", 2)
    first_ran = {
        SqliteSaver: "json_extract(meta, '$.ran[0]')",
        PostgresSaver: "meta->'ran'->>0",
        MySQLSaver: "JSON_UNQUOTE(JSON_EXTRACT(meta, '$.ran[0]'))",
    }[type(sql_saver)]
    with sql_saver._cursor() as cursor:
        cursor.execute(f"SELECT version FROM {sql_saver.version_table}")
        assert [tuple(row) for row in cursor.fetchall()] == [(SCHEMA_VERSION,)]
        cursor.execute(f"SELECT {first_ran} FROM {sql_saver.table} ORDER BY seq")
        assert [row[0] for row in cursor.fetchall()] == ["a", "a"]


def test_a_model_whose_loading_would_import_is_refused() -> None:
    from pydantic import ImportString

    from graphnb.errors import GraphSetupError

    class Plugin(GraphState):
        hook: ImportString[Any] | None = None

    with pytest.raises(GraphSetupError, match="'hook' use ImportString"):
        Threads(MemorySaver(), StateSchema.of(Plugin))


def _kill_connection(saver: SqlSaver) -> None:
    """End the saver's connection from the server's side, as a restart or a timeout would."""
    if isinstance(saver, PostgresSaver):
        import psycopg

        pid = saver._conn.info.backend_pid
        with psycopg.connect(saver.url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    else:
        import pymysql

        assert isinstance(saver, MySQLSaver)
        admin = pymysql.connect(**saver._options)
        try:
            with admin.cursor() as cursor:
                cursor.execute(f"KILL {saver._conn.thread_id()}")
        finally:
            admin.close()


@pytest.mark.db
@pytest.mark.parametrize("kind", ["postgres", "mysql"])
def test_a_connection_the_server_closed_is_replaced(kind: str, tmp_path: Any) -> None:
    from .conftest import make_saver

    saver = make_saver(kind, tmp_path)
    assert isinstance(saver, SqlSaver)
    try:
        store = threads(saver)
        grow(store, "t", 1)
        _kill_connection(saver)
        import psycopg
        import pymysql

        with pytest.raises((psycopg.OperationalError, pymysql.err.OperationalError)):
            saver.threads()  # the call in flight fails, as the driver says
        assert saver.threads() == ["t"]  # and the next one reconnects
        grow(store, "t", 1, start=1)
        assert len(saver.history("t")) == 2
    finally:
        drop_tables(saver)


def test_a_connection_closed_under_the_saver_is_replaced(sql_saver: SqlSaver) -> None:
    store = threads(sql_saver)
    grow(store, "t", 1)
    sql_saver._conn.close()  # by a cleanup hook, a notebook cell, another library ...
    assert sql_saver.threads() == ["t"]  # SQLite's saver failed here, and on every call after
    grow(store, "t", 1, start=1)
    assert len(sql_saver.history("t")) == 2


def test_any_text_in_the_state_round_trips_on_every_saver(saver: BaseSaver) -> None:
    # PostgreSQL's jsonb refused both (a raw DataError), MariaDB's JSON check the surrogate.
    store = threads(saver)
    grow(store, "t", 1)
    writer = store.writer("t", store.load("t"), metadata=None)
    texts = ["lone \ud800 surrogate", "a\x00NUL", "\u00e9 \U0001f600 \\u0000"]
    writer.put(
        NewCheckpoint(
            step=1,
            source="loop",
            ran=["a"],
            writes=[("a", {"messages": texts})],
            next=[],
            values={"messages": ["m0", *texts], "count": 1},
        )
    )
    loaded = store.load("t")
    assert loaded is not None
    assert loaded.values["messages"] == ["m0", *texts]
    assert store.history("t")[0].values.messages == ["m0", *texts]


@pytest.mark.db
def test_concurrent_async_calls_share_one_postgres_connection(
    postgres_saver: PostgresSaver,
) -> None:
    import psycopg

    async def scenario() -> None:
        await asyncio.gather(*(postgres_saver.athreads() for _ in range(5)))
        assert postgres_saver._aconns
        await postgres_saver.aclose()

    opened: list[Any] = []
    connect = psycopg.AsyncConnection.connect

    async def counting(*args: Any, **kwargs: Any) -> Any:
        conn = await connect(*args, **kwargs)
        opened.append(conn)
        return conn

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(psycopg.AsyncConnection, "connect", counting)
        asyncio.run(scenario())
    assert len(opened) == 1


@pytest.mark.db
def test_aclose_closes_the_postgres_pool_and_its_threads(tmp_path: Any) -> None:
    from .conftest import make_saver

    saver = make_saver("postgres-pool", tmp_path)
    try:
        saver.threads()  # opens the pool: its scheduler and workers are threads
        pool_threads = f"graphnb:{saver.table}-"

        async def scenario() -> None:
            await saver.athreads()
            await saver.aclose()

        asyncio.run(scenario())
        left = [t.name for t in threading.enumerate() if t.name.startswith(pool_threads)]
        assert left == []
    finally:
        drop_tables(saver)


@pytest.mark.db
def test_event_loops_on_several_threads_each_keep_their_postgres_connection(
    postgres_saver: PostgresSaver,
) -> None:
    import psycopg

    from .conftest import POSTGRES_URL

    saver, store = postgres_saver, threads(postgres_saver)
    saver.threads()  # creates the tables
    outcome: dict[str, Any] = {}

    def on_its_own_loop(name: str, then: Any) -> tuple[threading.Thread, Any, Any]:
        connected, go = threading.Event(), threading.Event()

        async def main() -> None:
            await saver.athreads()  # this loop's connection, made before the table is locked
            connected.set()
            await asyncio.to_thread(go.wait, 30)
            outcome[name] = await then()

        def run() -> None:
            try:
                asyncio.run(main())
            except BaseException as error:
                outcome[f"{name} failed"] = error

        worker = threading.Thread(target=run)
        worker.start()
        assert connected.wait(30)
        return worker, go, connected

    async def put() -> str:
        writer = store.writer("t", None, metadata=None)
        row = await writer.aput(
            NewCheckpoint(step=-1, source="input", ran=[], writes=[], next=[], values={})
        )
        return row.checkpoint_id

    reader, read, _ = on_its_own_loop("read", saver.athreads)
    writer, write, _ = on_its_own_loop("write", put)
    blocker = psycopg.connect(POSTGRES_URL)  # holds back inserts, not reads
    watch = psycopg.connect(POSTGRES_URL, autocommit=True)
    try:
        blocker.execute(f"LOCK TABLE {saver.table} IN SHARE MODE")
        write.set()
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        while not watch.execute(waiting).fetchone()[0]:  # type: ignore[index]
            assert not outcome, outcome  # the insert waits for the blocker
        # The other loop reads meanwhile, on its own connection, not on the writer's.
        read.set()
        reader.join(30)
        assert outcome.get("read") == [], outcome
    finally:
        read.set()
        blocker.commit()
        writer.join(30)
        reader.join(30)
        blocker.close()
        watch.close()
    assert "write failed" not in outcome, outcome
    assert [row.checkpoint_id for row in saver.history("t")] == [outcome["write"]]


@pytest.mark.db
def test_threads_are_sorted_the_same_whatever_the_database_collation(tmp_path: Any) -> None:
    class LinguisticPostgres(PostgresSaver):
        text_type = 'TEXT COLLATE "und-x-icu"'  # as a database made with en_US.UTF-8 sorts

    from .conftest import POSTGRES_URL, make_saver, unique_prefix

    make_saver("postgres", tmp_path).close()  # skips when the server is not running
    saver = LinguisticPostgres(POSTGRES_URL, table_prefix=unique_prefix())
    try:
        store = threads(saver)
        for thread in ("b", "B", "a", "A", "_z"):
            grow(store, thread, 1)
        assert saver.threads() == ["A", "B", "_z", "a", "b"]
        assert asyncio.run(saver.athreads()) == ["A", "B", "_z", "a", "b"]
    finally:
        asyncio.run(saver.aclose())
        drop_tables(saver)
