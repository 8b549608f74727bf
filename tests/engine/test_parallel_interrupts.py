"""Interrupts in parallel branches: all reported, answered by id, finished work kept."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from graphnb import END, START, Command, StateGraph, interrupt
from graphnb.checkpoint import MemorySaver


class Branches(TypedDict, total=False):
    out: Annotated[list[str], operator.add]


def branches(calls: list[str]) -> Any:
    def asking(name: str) -> Any:
        def node(state: Branches) -> dict[str, Any]:
            calls.append(name)
            return {"out": [f"{name}:{interrupt(f'q{name}')}"]}

        return node

    def quiet(state: Branches) -> dict[str, Any]:
        calls.append("c")
        return {"out": ["c"]}

    graph = StateGraph(Branches).add_node("a", asking("a")).add_node("b", asking("b"))
    graph.add_node("c", quiet)
    for name in "abc":
        graph.add_edge(START, name).add_edge(name, END)
    return graph.compile(checkpointer=MemorySaver())


def test_both_branches_are_reported_and_resumed_by_id() -> None:
    calls: list[str] = []
    app = branches(calls)
    app.invoke({}, thread_id="t")
    pending = app.get_state("t").interrupts
    assert [(i.node, i.value) for i in pending] == [("a", "qa"), ("b", "qb")]
    ids = {i.node: i.id for i in pending}
    calls.clear()
    result = app.invoke(Command(resume={ids["b"]: "2", ids["a"]: "1"}), thread_id="t")
    assert result["out"] == ["a:1", "b:2", "c"]
    assert calls == ["a", "b"]  # the branch that finished is not run again


def test_answering_one_branch_leaves_the_other_pending() -> None:
    calls: list[str] = []
    app = branches(calls)
    app.invoke({}, thread_id="t")
    ids = {i.node: i.id for i in app.get_state("t").interrupts}
    app.invoke(Command(resume={ids["a"]: "1"}), thread_id="t")
    (left,) = app.get_state("t").interrupts
    assert left.node == "b"
    calls.clear()
    result = app.invoke(Command(resume={left.id: "2"}), thread_id="t")
    assert result["out"] == ["a:1", "b:2", "c"]
    assert calls == ["b"]  # a's answered run was kept with the step's pending writes
