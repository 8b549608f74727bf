"""The long-term store: compile(store=...) reaches every node, run and subgraph."""

from __future__ import annotations

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
