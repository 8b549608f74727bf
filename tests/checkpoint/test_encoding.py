"""Each checkpoint's writes and snapshot are encoded as JSON once, and stored as encoded."""

from __future__ import annotations

import json
from typing import Any

import pytest

import graphnb
from graphnb.checkpoint import BaseSaver, MemorySaver, StoredCheckpoint
from graphnb.checkpoint import rows as saver_rows
from graphnb.checkpoint import threads as thread_module


def counting_chain(saver: BaseSaver) -> Any:
    def add(state: dict[str, Any]) -> dict[str, Any]:
        return {"count": state["count"] + 1, "seen": [*state["seen"], state["count"]]}

    graph = graphnb.StateGraph(dict).add_node("a", add).add_node("b", add)
    graph.add_edge(graphnb.START, "a").add_edge("a", "b").add_edge("b", graphnb.END)
    return graph.compile(checkpointer=saver)


def test_writes_and_snapshots_are_encoded_once_per_checkpoint(
    saver: BaseSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[int] = []  # ids of the lists and dicts encoded as JSON
    real = saver_rows.to_json

    def to_json(value: Any) -> str:
        encoded.append(id(value))
        return real(value)

    for module in (thread_module, saver_rows):
        monkeypatch.setattr(module, "to_json", to_json)
    rows: list[StoredCheckpoint] = []  # as written, before any saver reads them back
    put = saver.put

    def keep(row: StoredCheckpoint) -> None:
        rows.append(row)
        put(row)

    monkeypatch.setattr(saver, "put", keep)
    app = counting_chain(saver)

    final = app.invoke({"count": 0, "seen": []}, thread_id="t")

    assert final == {"count": 2, "seen": [0, 1]}
    assert [len(row.writes) for row in rows] == [1, 1, 1]
    assert rows[0].snapshot is not None
    for row in rows:
        assert encoded.count(id(row.writes)) == 1
        assert encoded.count(id(row.snapshot)) == (0 if row.snapshot is None else 1)


def test_what_is_stored_reads_back_as_what_was_written(saver: BaseSaver) -> None:
    app = counting_chain(saver)
    app.invoke({"count": 0, "seen": []}, thread_id="t")

    rows = saver.history("t")

    assert [row.writes for row in rows] == [
        [["__input__", {"count": 0, "seen": []}]],
        [["a", {"count": 1, "seen": [0]}]],
        [["b", {"count": 2, "seen": [0, 1]}]],
    ]
    assert rows[0].snapshot == {"count": 0, "seen": []}
    assert app.get_state("t").values == {"count": 2, "seen": [0, 1]}


def test_a_row_without_texts_is_encoded_by_the_saver() -> None:
    saver = MemorySaver()
    app = counting_chain(saver)
    app.invoke({"count": 0, "seen": []}, thread_id="t")
    row = saver.history("t")[-1]
    bare = type(row)(*(getattr(row, name) for name in row.__slots__ if name != "texts"))
    assert bare.texts is None

    meta, writes, snapshot = saver_rows.row_json(bare)

    assert (json.loads(meta), json.loads(writes)) == (row.meta, row.writes)
    assert snapshot is None if row.snapshot is None else json.loads(snapshot) == row.snapshot
