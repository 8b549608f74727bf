"""The long-term store: compile(store=...) reaches every node, run and subgraph."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from graphnb import END, START, RunContext, StateGraph
from graphnb.checkpoint import MemorySaver

memory = pytest.importorskip("langgraph.store.memory")


def remember(state: dict[str, Any], *, store: Any) -> dict[str, Any]:
    seen = store.get(("visits",), "ada")
    visits = seen.value["n"] + 1 if seen is not None else 1
    store.put(("visits",), "ada", {"n": visits})
    return {"visits": visits}


def recall(state: dict[str, Any], context: RunContext) -> dict[str, Any]:
    found = context.store.search(("visits",))
    return {"found": [(item.key, item.value["n"]) for item in found]}


def _graph() -> StateGraph[dict[str, Any]]:
    graph = StateGraph(dict).add_node(remember).add_node(recall)
    return graph.add_edge(START, "remember").add_edge("remember", "recall").add_edge("recall", END)


def test_nodes_share_the_compiled_graphs_store_across_runs_and_threads() -> None:
    store = memory.InMemoryStore()
    app = _graph().compile(store=store, checkpointer=MemorySaver())
    assert app.invoke({}, thread_id="one") == {"visits": 1, "found": [("ada", 1)]}
    assert app.invoke({}, thread_id="two") == {"visits": 2, "found": [("ada", 2)]}
    assert store.get(("visits",), "ada").value == {"n": 2}


def test_a_subgraphs_nodes_use_the_parents_store() -> None:
    store = memory.InMemoryStore()
    child = _graph()
    parent = StateGraph(dict).add_node("child", child).add_edge(START, "child")
    app = parent.add_edge("child", END).compile(store=store)
    assert app.invoke({})["found"] == [("ada", 1)]
    assert store.get(("visits",), "ada").value == {"n": 1}


def test_without_a_store_nodes_get_none() -> None:
    def look(state: dict[str, Any], context: RunContext) -> dict[str, Any]:
        return {"store": context.store}

    app = StateGraph(dict).add_node(look).add_edge(START, "look").add_edge("look", END)
    assert app.compile().invoke({}) == {"store": None}


def _two_processes_share(store: Any) -> None:
    # Two compiled graphs (as two processes would have) on one persistent store.
    namespace = ("visits", uuid.uuid4().hex)

    def visit(state: dict[str, Any], *, store: Any) -> dict[str, Any]:
        seen = store.get(namespace, "ada")
        visits = seen.value["n"] + 1 if seen is not None else 1
        store.put(namespace, "ada", {"n": visits})
        return {"visits": visits}

    def build() -> Any:
        graph = StateGraph(dict).add_node(visit).add_edge(START, "visit")
        return graph.add_edge("visit", END).compile(store=store)

    assert build().invoke({}) == {"visits": 1}
    assert build().invoke({}) == {"visits": 2}
    assert [item.key for item in store.search(namespace)] == ["ada"]
    store.delete(namespace, "ada")


def test_langgraphs_sqlite_store_keeps_items_for_every_compiled_graph(tmp_path):
    sqlite = pytest.importorskip("langgraph.store.sqlite")
    with sqlite.SqliteStore.from_conn_string(str(tmp_path / "store.db")) as store:
        store.setup()
        _two_processes_share(store)


@pytest.mark.db
def test_langgraphs_postgres_store_keeps_items_for_every_compiled_graph():
    postgres = pytest.importorskip("langgraph.store.postgres")
    url = "postgresql://postgres@127.0.0.1:5432/test"
    with postgres.PostgresStore.from_conn_string(url) as store:
        store.setup()
        _two_processes_share(store)
