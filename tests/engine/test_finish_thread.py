"""update_state(thread, values, as_node=END): finish a thread, dropping its interrupts."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from graphnb import END, START, StateGraph, interrupt
from graphnb.checkpoint import MemorySaver, SqliteSaver
from graphnb.errors import GraphSetupError


class Ask(TypedDict, total=False):
    answer: str
    other: str
    after: str


def ask(state: Ask) -> dict[str, Any]:
    return {"answer": interrupt("approve?")}


def other(state: Ask) -> dict[str, Any]:
    return {"other": "done"}


def after(state: Ask) -> dict[str, Any]:
    return {"after": "ran"}


def _app(saver: Any) -> Any:
    graph = StateGraph(Ask).add_node("ask", ask).add_node("other", other)
    graph.add_node("after", after).add_edge(START, "ask").add_edge(START, "other")
    graph.add_edge(["ask", "other"], "after").add_edge("after", END)
    return graph.compile(checkpointer=saver)


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    if request.param == "memory":
        return MemorySaver()
    return SqliteSaver(str(tmp_path / "threads.db"))


def test_as_node_end_clears_the_interrupt_and_keeps_finished_writes(saver: Any) -> None:
    app = _app(saver)
    app.invoke({}, thread_id="t")
    assert len(app.get_state("t").interrupts) == 1
    app.update_state("t", None, as_node=END)
    state = app.get_state("t")
    # as LangGraph: nothing next, no interrupt, the sibling's write kept
    assert (state.next, state.interrupts) == ((), ())
    assert state.values == {"other": "done"}
    assert app.invoke(None, thread_id="t") == {"other": "done"}


def test_as_node_end_writes_the_values_given(saver: Any) -> None:
    app = _app(saver)
    app.invoke({}, thread_id="t")
    app.update_state("t", {"answer": "nobody"}, as_node=END)
    assert app.get_state("t").values == {"other": "done", "answer": "nobody"}
    # a new input starts a new run on the finished thread
    assert app.invoke({}, thread_id="t")["other"] == "done"
    assert len(app.get_state("t").interrupts) == 1


def test_an_unknown_as_node_names_end_as_an_option() -> None:
    app = _app(MemorySaver())
    app.invoke({}, thread_id="t")
    with pytest.raises(GraphSetupError, match="as_node=END finishes the thread"):
        app.update_state("t", None, as_node="nope")
