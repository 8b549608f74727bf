"""Hostile and careless input, the same on every saver: ids, forged rows, odd values."""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import sys
import unicodedata
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ImportString
from typing_extensions import TypedDict

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.checkpoint import (
    BaseSaver,
    CheckpointLoadError,
    MemorySaver,
    MySQLSaver,
    PostgresSaver,
    SqliteSaver,
    SqlSaver,
    ThreadNotFoundError,
    Threads,
    UnstorableValueError,
)
from graphnb.errors import GraphSetupError
from graphnb.records import NewCheckpoint
from graphnb.schema import StateSchema

from .conftest import drop_tables, make_saver
from .test_savers import grow, threads

# -- item 1: thread ids compare byte for byte ----------------------------------------------

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")
LOOKALIKES = ["alice", "alice ", "alice  ", " alice", "Alice", "ALICE", "alice\t", NFC, NFD]


def test_thread_ids_differing_in_spaces_case_or_normalisation_are_different_threads(
    saver: BaseSaver,
) -> None:
    assert NFC != NFD
    store = threads(saver)
    for count, thread in enumerate(LOOKALIKES, start=1):
        grow(store, thread, count)  # a thread taken for another would conflict here
    assert saver.threads() == sorted(LOOKALIKES)
    for count, thread in enumerate(LOOKALIKES, start=1):
        position = store.load(thread)
        assert position is not None
        assert position.values["count"] == count, repr(thread)
        assert [row.thread_id for row in saver.history(thread)] == [thread] * count
    assert saver.delete_thread("alice ") == 2
    assert saver.delete_thread(NFD) == len(LOOKALIKES)
    assert saver.threads() == sorted(set(LOOKALIKES) - {"alice ", NFD})
    alice = store.load("alice")
    assert alice is not None
    assert alice.values["count"] == 1


def test_checkpoint_ids_compare_byte_for_byte(saver: BaseSaver) -> None:
    store = threads(saver)
    ids = grow(store, "t", 2)
    for lookalike in (ids[0] + " ", ids[0].upper(), " " + ids[0]):
        assert saver.load("t", lookalike) is None
        with pytest.raises(ThreadNotFoundError):
            store.load("t", lookalike)
    found = saver.load("t", ids[0])
    assert found is not None
    assert found.target.checkpoint_id == ids[0]


# -- item 3: no type that imports on validation, however deep -----------------------------


class _HookModel(BaseModel):
    hook: ImportString[Any] | None = None


class _HookDict(TypedDict):
    hook: ImportString[Any]


@dataclasses.dataclass
class _HookData:
    hook: ImportString[Any] | None = None


class _Outer(BaseModel):
    inner: list[dict[str, _HookModel]] = []


NESTED_IMPORT_STRINGS: dict[str, Any] = {
    "sub-model": _HookModel,
    "list of sub-models": list[_HookModel],
    "TypedDict": _HookDict,
    "dataclass": _HookData,
    "dict values": dict[str, ImportString[Any]],
    "union": int | _HookModel | None,
    "tuple": tuple[int, ImportString[Any]],
    "deep": _Outer,
    "optional list": list[ImportString[Any]] | None,
}


@pytest.mark.parametrize("where", list(NESTED_IMPORT_STRINGS))
def test_an_import_string_anywhere_in_the_state_type_is_refused(where: str) -> None:
    annotation = NESTED_IMPORT_STRINGS[where]
    plugin = type(
        "Plugin", (GraphState,), {"__annotations__": {"plugin": annotation | None}, "plugin": None}
    )
    with pytest.raises(GraphSetupError, match="'plugin' use ImportString"):
        Threads(MemorySaver(), StateSchema.of(plugin))


def test_models_without_import_strings_are_accepted() -> None:
    class Fine(GraphState):
        name: str = "os.path:join"  # a dotted name stored as text is harmless
        items: list[dict[str, int]] = []
        sub: _Outer | None = None  # reaches an ImportString ...

    with pytest.raises(GraphSetupError):  # ... so this one is refused
        Threads(MemorySaver(), StateSchema.of(Fine))

    class Plain(GraphState):
        name: str = "os.path:join"
        items: list[dict[str, int]] = []

    Threads(MemorySaver(), StateSchema.of(Plain))


def test_a_forged_row_naming_a_module_imports_nothing(tmp_path: Path) -> None:
    module = f"graphnb_forged_{uuid.uuid4().hex}"
    (tmp_path / f"{module}.py").write_text("IMPORTED = True\n")

    class Inner(BaseModel):
        hook: ImportString[Any] | None = None

    class Plugins(GraphState):
        plugins: list[Inner] = []

    graph = StateGraph(Plugins).add_node("a", lambda state: None)
    graph.add_edge(START, "a").add_edge("a", END)
    saver = MemorySaver()
    forged = grow(threads(saver), "t", 1)
    row = saver.history("t")[0]
    saver.delete_thread("t")
    saver.put(replace(row, snapshot={"plugins": [{"hook": f"{module}:IMPORTED"}]}))
    assert forged
    sys.path.insert(0, str(tmp_path))
    try:
        try:
            app = graph.compile(checkpointer=saver)
        except GraphSetupError:
            app = None
        if app is not None:  # the refusal failed: show what loading the row does
            with contextlib.suppress(Exception):
                app.get_state("t")
        assert module not in sys.modules, "loading a stored row imported a module"
        assert app is None
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(module, None)


# -- item 5: forged rows and unstorable writes give the documented errors ---------------


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _first_row(saver: BaseSaver) -> Any:
    grow(threads(saver), "t", 1)
    grow(threads(saver), "good", 2)
    return saver.history("t")[0]


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        ("writes", [["a", {"count": _deep(100_000)}]], "nests too deeply"),
        ("writes", [["a", {"count": 10**5000}]], "digits"),
        ("snapshot", {"count": float("nan"), "messages": []}, "Out of range float"),
        ("meta", {"ran": [], "next": [], "metadata": {"x": object()}}, "not JSON serializable"),
    ],
    ids=["deep", "long-int", "nan", "object"],
)
def test_a_row_that_is_not_json_is_refused_naming_the_column(
    saver: BaseSaver, column: str, value: Any, reason: str
) -> None:
    row = _first_row(saver)
    forged = replace(row, seq=1, checkpoint_id="forged", **{column: value})
    with pytest.raises(UnstorableValueError, match=reason) as caught:
        saver.put(forged)
    assert caught.value.field == column
    assert caught.value.thread_id == "t"
    assert len(saver.history("t")) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("checkpoint_id", "nul\x00id"),
        ("checkpoint_id", "x" * 65),
        ("checkpoint_id", ""),
        ("checkpoint_id", "lone \ud800"),
        ("parent_id", "nul\x00"),
        ("source", "lo\x00op"),
        ("thread_id", "t\x00"),
        ("step", "3"),
        ("step", 2**40),
        ("seq", 1.5),
        ("created_at", "yesterday"),
        ("created_at", float("inf")),
    ],
    ids=lambda value: ascii(value)[:20],
)
def test_a_row_with_a_bad_column_is_refused_naming_it(
    saver: BaseSaver, field: str, value: Any
) -> None:
    row = _first_row(saver)
    forged = replace(row, **{"seq": 1, "checkpoint_id": "forged", field: value})
    with pytest.raises(UnstorableValueError, match=f"its {field} is") as caught:
        saver.put(forged)
    assert caught.value.field == field
    assert len(saver.history("t")) == 1


def test_lookups_by_ids_no_saver_can_store_find_nothing(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 1)
    for checkpoint_id in ("nul\x00id", "lone \ud800", "x" * 200):
        assert saver.load("t", checkpoint_id) is None
        with pytest.raises(ThreadNotFoundError, match="has no checkpoint"):
            store.load("t", checkpoint_id)
    for thread_id in ("t\x00", "lone \ud800", "t" * 300):
        assert saver.load(thread_id) is None
        assert saver.history(thread_id) == []
        assert saver.delete_thread(thread_id) == 0
    assert saver.threads() == ["t"]


def test_a_huge_int_in_the_state_names_the_field_and_the_reason(saver: BaseSaver) -> None:
    store = threads(saver)
    grow(store, "t", 1)
    writer = store.writer("t", store.load("t"), metadata=None)
    with pytest.raises(UnstorableValueError, match="field 'count' holds an int of more than"):
        writer.put(
            NewCheckpoint(
                step=1,
                source="loop",
                ran=["a"],
                writes=[("a", {"count": 10**5000})],
                next=[],
                values={"messages": ["m0"], "count": 10**5000},
            )
        )
    assert len(saver.history("t")) == 1


def test_json_nested_deeper_than_graphnb_writes_is_a_load_error(saver: BaseSaver) -> None:
    row = _first_row(saver)
    # Storable (Python's own JSON handles it), but deeper than any state graphnb writes.
    saver.put(replace(row, seq=1, checkpoint_id="deep", writes=[["a", {"count": _deep(600)}]]))
    with pytest.raises(CheckpointLoadError, match="nests deeper than") as caught:
        threads(saver).load("t")
    assert (caught.value.thread_id, caught.value.checkpoint_id) == ("t", "deep")
    good = threads(saver).load("good")
    assert good is not None
    assert good.values["count"] == 2


@pytest.mark.timeout(5)  # before the fix, reading looped forever, eating memory
@pytest.mark.parametrize("loop", ["itself", "each-other"])
def test_rows_whose_parents_loop_are_a_load_error_not_a_hang(saver: BaseSaver, loop: str) -> None:
    row = _first_row(saver)  # "t": one checkpoint, with a snapshot
    looping = {"itself": [(1, 1)], "each-other": [(1, 2), (2, 1)]}[loop]
    for seq, parent_seq in looping:
        saver.put(
            replace(
                row,
                seq=seq,
                checkpoint_id=f"c{seq}",
                parent_id=f"c{parent_seq}",
                parent_seq=parent_seq,
                snapshot=None,
                texts=None,
            )
        )
    store = threads(saver)
    with pytest.raises(CheckpointLoadError, match="which is not older than it") as caught:
        store.load("t")
    assert (caught.value.thread_id, caught.value.checkpoint_id) == ("t", "c1")
    with pytest.raises(CheckpointLoadError, match="the thread's rows are damaged") as caught:
        store.history_page("t", limit=1)
    assert (caught.value.thread_id, caught.value.checkpoint_id) == ("t", "c1")
    good = store.load("good")
    assert good is not None
    assert good.values["count"] == 2


@pytest.mark.parametrize(
    ("column", "text", "reason"),
    [
        ("writes", "[" * 100_000 + "]" * 100_000, "nests too deeply"),
        ("snapshot", '{"count": 1' + "0" * 5000 + "}", "digits"),
        ("meta", '{"ran": [], "next": [}', "does not parse"),
    ],
    ids=["deep", "long-int", "syntax"],
)
def test_a_forged_json_column_is_a_load_error(
    sql_saver: SqlSaver, column: str, text: str, reason: str
) -> None:
    _first_row(sql_saver)
    store = threads(sql_saver)
    if isinstance(sql_saver, PostgresSaver) and reason != "digits":
        # PostgreSQL's json type checks the text itself: such a row cannot even be forged.
        import psycopg

        with pytest.raises((psycopg.DataError, psycopg.errors.StatementTooComplex)):
            _raw_update_text(sql_saver, column, text, "t")
        return
    _raw_update_text(sql_saver, column, text, "t")
    with pytest.raises(CheckpointLoadError, match=reason) as caught:
        store.load("t")
    assert caught.value.thread_id == "t"
    with pytest.raises(CheckpointLoadError, match=reason):
        store.history("t")
    good = store.load("good")
    assert good is not None
    assert good.values["count"] == 2
    assert sql_saver.threads() == ["good", "t"]


def _raw_update_text(saver: SqlSaver, column: str, text: str, thread_id: str) -> None:
    cast = "::json" if isinstance(saver, PostgresSaver) else ""
    with saver._cursor() as cursor:
        cursor.execute(
            f"UPDATE {saver.table} SET {column} = {saver.param}{cast} "
            f"WHERE thread_id = {saver.param}",
            (text, thread_id),
        )


@pytest.mark.parametrize(("column", "text"), [("step", "'three'"), ("created_at", "'now'")])
def test_text_in_a_number_column_is_a_load_error(tmp_path: Path, column: str, text: str) -> None:
    # Only SQLite lets a column hold a value of another type.
    saver = SqliteSaver(tmp_path / "t.db")
    store = threads(saver)
    grow(store, "t", 1)
    grow(store, "good", 1)
    saver.close()
    with sqlite3.connect(tmp_path / "t.db") as conn:
        conn.execute(f"UPDATE graphnb_checkpoints SET {column} = {text} WHERE thread_id = 't'")
    conn.close()
    with pytest.raises(CheckpointLoadError, match=f"its {column} column holds") as caught:
        store.load("t")
    assert caught.value.thread_id == "t"
    assert store.load("good") is not None
    saver.close()


def test_a_source_graphnb_never_writes_is_a_load_error(sql_saver: SqlSaver) -> None:
    # A row's source is typed (CheckpointSource): a value outside it is a corrupt row.
    _first_row(sql_saver)
    store = threads(sql_saver)
    with sql_saver._cursor() as cursor:
        cursor.execute(
            f"UPDATE {sql_saver.table} SET source = 'fork' WHERE thread_id = {sql_saver.param}",
            ("t",),
        )
    with pytest.raises(CheckpointLoadError, match="its source column holds 'fork'") as caught:
        store.load("t")
    assert caught.value.thread_id == "t"
    assert "expected one of error, input, interrupt, loop, seed, update" in str(caught.value)
    good = store.load("good")
    assert good is not None
    assert good.row.source == "loop"


# -- item 6: dict keys come back in the order they were written ---------------------------


class Doc(GraphState):
    data: dict[str, int] = {}
    tree: Any = None
    log: Annotated[list[dict[str, Any]], StateField(reducer=append)] = []


def test_dict_keys_keep_their_order_on_every_saver(saver: BaseSaver) -> None:
    # jsonb (PostgreSQL) and MySQL's JSON sort keys by length, then bytes.
    data = {"zeta": 1, "alpha": 2, "mid": 3, "b": 4, "aa": 5}
    tree = {"z": {"yy": 1, "b": [{"k2": 1, "k1": 2}]}, "a": None, "ccc": {"2": 1, "10": 2}}
    schema = StateSchema.of(Doc)
    store: Threads[Doc] = Threads(saver, schema, snapshot_every=2)
    writer = store.writer("t", None, metadata={"zz": 1, "aa": 2})
    values: dict[str, Any] = schema.defaults()
    for step in range(3):
        update = {"data": data, "tree": tree, "log": [{"second": step, "first": step}]}
        schema.apply(values, update)
        writer.put(
            NewCheckpoint(
                step=step, source="loop", ran=["a"], writes=[("a", update)], next=[], values=values
            )
        )
    for snapshot in (store.snapshot(store.load("t")), *store.history("t")):  # type: ignore[arg-type]
        state = snapshot.values
        assert list(state.data) == list(data)
        assert _keys(state.tree) == _keys(tree)
        assert [list(entry) for entry in state.log] == [["second", "first"]] * len(state.log)
        assert list(snapshot.metadata) == ["zz", "aa"]
        assert [list(update["data"]) for _, update in snapshot.writes] == [list(data)]
    assert list(store.load("t").values["data"]) == list(data)  # type: ignore[union-attr]


def _keys(value: Any) -> Any:
    if isinstance(value, dict):
        return [(key, _keys(child)) for key, child in value.items()]
    if isinstance(value, list):
        return [_keys(child) for child in value]
    return value


@pytest.mark.db
def test_a_row_over_mysqls_packet_limit_names_its_largest_part(tmp_path: Path) -> None:
    saver = make_saver("mysql", tmp_path)
    assert isinstance(saver, MySQLSaver)
    try:
        with saver._cursor() as cursor:
            cursor.execute("SELECT @@max_allowed_packet")
            limit = int(cursor.fetchone()[0])
        row = _first_row(saver)
        huge = replace(row, seq=1, checkpoint_id="huge", writes=[["a", {"x": "y" * limit}]])
        with pytest.raises(UnstorableValueError, match="largest part is its writes") as caught:
            saver.put(huge)
        assert (caught.value.field, caught.value.thread_id) == ("writes", "t")
        # Refused before it was sent (or by the server): the next calls work as before.
        assert [r.checkpoint_id for r in saver.history("t")] == [row.checkpoint_id]
        assert saver.threads() == ["good", "t"]
    finally:
        drop_tables(saver)


@pytest.mark.db
def test_a_state_over_mysqls_packet_limit_is_refused_before_it_is_sent(tmp_path: Path) -> None:
    class Blob(GraphState):
        blob: str = ""

    saver = make_saver("mysql", tmp_path)
    assert isinstance(saver, MySQLSaver)
    try:
        with saver._cursor() as cursor:
            cursor.execute("SELECT @@max_allowed_packet")
            limit = int(cursor.fetchone()[0])
        graph = StateGraph(Blob).add_node("grow", lambda state: {"blob": "x" * (limit + 2**20)})
        app = graph.add_edge(START, "grow").add_edge("grow", END).compile(checkpointer=saver)
        app.invoke({"blob": "small"}, thread_id="t", interrupt_before=["grow"])
        connection = saver._conn
        # Sent, the row made the server drop the connection: "MySQL server has gone away".
        with pytest.raises(UnstorableValueError, match="max_allowed_packet") as caught:
            app.invoke(None, thread_id="t")
        assert "a checkpoint of thread 't' is " in str(caught.value)
        assert f"max_allowed_packet of {limit:,} bytes" in str(caught.value)
        assert (caught.value.field, caught.value.thread_id) == ("writes", "t")
        assert saver._conn is connection  # never sent, so the connection was kept
        assert app.get_state("t").values.blob == "small"  # nothing stored before was lost
        assert saver.threads() == ["t"]
    finally:
        drop_tables(saver)


def test_a_send_payload_holding_nan_names_its_field(saver: BaseSaver) -> None:
    from graphnb import Send

    graph = StateGraph(dict).add_node("split", lambda state: {}).add_node("score", lambda s: {})
    graph.add_edge(START, "split").add_edge("score", END)
    graph.add_conditional_edges(
        "split", lambda state: [Send("score", {"score": float("nan")})], sends=["score"]
    )
    app = graph.compile(checkpointer=saver)
    with pytest.raises(UnstorableValueError) as caught:
        app.invoke({"topic": "x"}, thread_id="nan")
    assert caught.value.field == "score"
    assert str(caught.value).startswith("field 'score' holds NaN or an infinity")


def test_a_state_value_nested_thousands_deep_names_its_field(saver: BaseSaver) -> None:
    deep: list[Any] = []
    inner = deep
    for _ in range(3_000):
        inner.append([])
        inner = inner[0]
    graph = StateGraph(dict).add_node("nest", lambda state: {"tree": deep})
    app = graph.add_edge(START, "nest").add_edge("nest", END).compile(checkpointer=saver)
    with pytest.raises(UnstorableValueError) as caught:
        app.invoke({"topic": "x"}, thread_id="deep")
    assert caught.value.field == "tree"
    assert "field 'tree' holds list [[[[[...]]]]], nested too deeply" in str(caught.value)


def test_an_interrupt_value_nested_thousands_deep_is_refused_plainly(saver: BaseSaver) -> None:
    from graphnb.checkpoint import interrupt

    deep: list[Any] = []
    inner = deep
    for _ in range(3_000):
        inner.append([])
        inner = inner[0]
    graph = StateGraph(dict).add_node("ask", lambda state: {"answer": interrupt(deep)})
    app = graph.add_edge(START, "ask").add_edge("ask", END).compile(checkpointer=saver)
    with pytest.raises(UnstorableValueError) as caught:
        app.invoke({"topic": "x"}, thread_id="deep")
    assert str(caught.value) == (
        "the value `ask` passed to interrupt() cannot be stored as JSON (it is nested too deeply)"
    )
