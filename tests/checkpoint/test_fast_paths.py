"""Fast paths of checkpoint writing give what the general path gives, on fuzzed data.

- ``check_row`` passes the usual row in one expression and falls back to checking column
  by column (which names the column at fault): both must accept and refuse the same rows.
- ``to_json`` reuses one C encoder: its text and its refusals are ``json.dumps``'s.
- ``encode_update`` stores plain str/int/bool/None as they are, without the field's
  serializer: the stored JSON is what the serializer would have made of them.
- ``SqlSaver.put`` runs the insert of the ``_put`` plan without the plan: it stores the
  same rows and refuses the same ones, with the same errors, as the plan driven by
  ``_run`` (the path every other SQL call, and the async savers, take).
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphnb import GraphState, StateField, append
from graphnb.checkpoint import SqliteSaver, SqlSaver, UnstorableValueError
from graphnb.checkpoint.rows import check_row, check_row_by_column, to_json
from graphnb.checkpoint.serde import encode_update
from graphnb.records import StoredCheckpoint
from graphnb.schema import StateSchema, WriteError

texts = st.one_of(
    st.text(max_size=70),
    st.text(alphabet="ab\x00é", max_size=5),
    st.just(""),
    st.integers(),
    st.none(),
)
ints = st.one_of(
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([0, 2**31 - 1, 2**31, -(2**31), 2**63 - 1, 2**63, -(2**63)]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
)
stamps = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.text())


@st.composite
def rows(draw: st.DrawFn) -> StoredCheckpoint:
    def maybe(strategy: st.SearchStrategy[Any], usual: Any) -> Any:
        return draw(st.one_of(st.just(usual), strategy))

    return StoredCheckpoint(
        thread_id=maybe(texts, "thread-1"),
        seq=maybe(ints, 3),
        checkpoint_id=maybe(texts, "c" * 32),
        parent_id=maybe(texts, None),
        parent_seq=maybe(ints, None),
        base_seq=maybe(ints, 0),
        step=maybe(ints, 2),
        source=maybe(texts, "loop"),
        created_at=maybe(stamps, 1.5e9),
        meta={},
        writes=[],
    )


def verdict(check: Any, row: StoredCheckpoint) -> str | None:
    try:
        check(row)
    except UnstorableValueError as error:
        return error.field
    return None


@settings(max_examples=600, deadline=None)
@given(rows())
def test_check_row_refuses_exactly_what_the_column_check_refuses(row: StoredCheckpoint) -> None:
    assert verdict(check_row, row) == verdict(check_row_by_column, row)


def test_the_usual_row_passes_and_each_bad_column_is_named() -> None:
    usual = dict(
        thread_id="t",
        seq=1,
        checkpoint_id="c1",
        parent_id="c0",
        parent_seq=0,
        base_seq=0,
        step=0,
        source="loop",
        created_at=1.5e9,
        meta={},
        writes=[],
    )
    check_row(StoredCheckpoint(**usual))  # type: ignore[arg-type]
    bad = {
        "thread_id": "a\x00b",
        "seq": 2**63,
        "parent_id": "",
        "step": True,
        "created_at": math.nan,
        "source": "fork",  # a str, but not a CheckpointSource
    }
    for name, value in bad.items():
        with pytest.raises(UnstorableValueError) as caught:
            check_row(StoredCheckpoint(**{**usual, name: value}))  # type: ignore[arg-type]
        assert caught.value.field == name


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(), st.integers(), st.none()), children, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_to_json_is_compact_json_dumps(value: Any) -> None:
    try:
        expected: str | None = json.dumps(value, separators=(",", ":"), allow_nan=False)
    except ValueError:
        expected = None
    if expected is None:
        with pytest.raises(ValueError, match="float values are not JSON compliant"):
            to_json(value)
    else:
        assert to_json(value) == expected


def test_to_json_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        to_json({"a": object()})
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(RecursionError):
        to_json(cycle)


class Typed(GraphState):
    name: str = ""
    count: int = 0
    flag: bool = False
    maybe: int | None = None
    shout: Annotated[str, StateField()] = ""
    items: Annotated[list[str], StateField(reducer=append)] = []


plain = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["name", "count", "flag", "maybe", "extra"]), plain))
def test_plain_values_store_as_their_fields_serializer_would(update: dict[str, Any]) -> None:
    from pydantic_core import to_jsonable_python

    schema = StateSchema.of(dict)
    assert encode_update(schema, update) == {k: to_jsonable_python(v) for k, v in update.items()}
    typed = StateSchema.of(Typed)
    try:  # a node's update is checked before it is stored
        checked = typed.check_writes({k: v for k, v in update.items() if k in typed.fields})
    except WriteError:
        return
    expected = {
        name: typed.fields[name].adapter.dump_python(value, mode="json")  # type: ignore[union-attr]
        for name, value in checked.items()
    }
    assert encode_update(typed, checked) == expected


def put_outcome(put: Any, saver: SqlSaver, row: StoredCheckpoint, thread_id: str) -> list[Any]:
    """What putting ``row`` twice gives: each error or "stored", then the thread's rows.

    Rows and messages are told as if the thread were ``thread_id``.
    """
    outcome: list[Any] = []
    for _ in range(2):  # the second time, the seq is taken (when the first was stored)
        try:
            put(row)
        except Exception as error:
            message = str(error).replace(repr(row.thread_id), repr(thread_id))
            outcome.append((type(error), message, getattr(error, "field", None)))
        else:
            outcome.append("stored")
    if "stored" in outcome:
        outcome.append(
            [dataclasses.replace(r, thread_id=thread_id) for r in saver.history(row.thread_id)]
        )
    return outcome


def both_puts(
    direct: SqlSaver, planned: SqlSaver, row: StoredCheckpoint, other_thread: str | None = None
) -> tuple[list[Any], list[Any]]:
    """The outcome of the direct put and of the planned put of ``row`` (the direct one on
    ``other_thread`` when given, so both may share one saver)."""
    moved = row if other_thread is None else dataclasses.replace(row, thread_id=other_thread)
    return (
        put_outcome(direct.put, direct, moved, row.thread_id),
        put_outcome(lambda r: planned._run(planned._put(r)), planned, row, row.thread_id),
    )


@settings(max_examples=200, deadline=None)
@given(rows(), st.lists(st.tuples(st.text(max_size=5), json_values), max_size=3))
def test_sql_put_stores_and_refuses_what_its_plan_does(
    row: StoredCheckpoint, writes: list[tuple[str, Any]]
) -> None:
    row = dataclasses.replace(row, writes=[list(write) for write in writes])
    direct, planned = SqliteSaver(":memory:"), SqliteSaver(":memory:")
    try:
        put_direct, put_planned = both_puts(direct, planned, row)
    finally:
        direct.close()
        planned.close()
    assert put_direct == put_planned


def test_sql_put_matches_its_plan_on_every_sql_saver(sql_saver: SqlSaver) -> None:
    def row(seq: int, checkpoint_id: str, **fields: Any) -> StoredCheckpoint:
        usual: dict[str, Any] = dict(
            parent_id=None, parent_seq=None, base_seq=0, step=0, source="loop",
            created_at=1.5e9, meta={}, writes=[],
        )  # fmt: skip
        return StoredCheckpoint("t", seq, checkpoint_id, **{**usual, **fields})

    for made in [
        row(0, "c0", step=-1, source="input", meta={"ran": []}, snapshot={"x": 1}),
        row(1, "c1", parent_id="c0", parent_seq=0, writes=[["n", {"x": "é"}]]),
        row(2, "c1"),  # the checkpoint id is taken
        row(3, "c3", base_seq=3, snapshot={"s": [1, None]}),
        row(4, "c4", meta={"n": math.nan}),  # not JSON
        row(5, "c\x005"),  # refused before the database
    ]:
        put_direct, put_planned = both_puts(sql_saver, sql_saver, made, other_thread="u")
        assert put_direct == put_planned, made
