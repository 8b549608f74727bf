"""Deferred nodes: ``add_node(..., defer=True)`` runs once the run has nothing else to run."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphnb import END, START, GraphSpec, StateGraph
from graphnb.checkpoint import MemorySaver


class Trail(TypedDict, total=False):
    trail: Annotated[list[str], operator.add]


def a(state: Trail) -> dict[str, Any]:
    return {"trail": ["a"]}


def b1(state: Trail) -> dict[str, Any]:
    return {"trail": ["b1"]}


def b2(state: Trail) -> dict[str, Any]:
    return {"trail": ["b2"]}


def b3(state: Trail) -> dict[str, Any]:
    return {"trail": ["b3"]}


def done(state: Trail) -> dict[str, Any]:
    return {"trail": ["done"]}


NODES = {"a": a, "b1": b1, "b2": b2, "b3": b3, "done": done}


def branches(*, defer: bool = True) -> Any:
    """START -> a -> done, START -> b1 -> b2 -> b3 -> done; done deferred."""
    graph = StateGraph(Trail)
    for name in ("a", "b1", "b2", "b3"):
        graph.add_node(name, NODES[name])
    graph.add_node("done", done, defer=defer)
    graph.add_edge(START, "a").add_edge(START, "b1").add_edge("b1", "b2").add_edge("b2", "b3")
    graph.add_edge("a", "done").add_edge("b3", "done").add_edge("done", END)
    return graph


def test_a_deferred_node_runs_once_after_the_longest_branch() -> None:
    assert branches().compile().invoke({})["trail"] == ["a", "b1", "b2", "b3", "done"]
    # not deferred: done runs after each branch
    assert branches(defer=False).compile().invoke({})["trail"].count("done") == 2


def test_a_held_node_survives_an_interrupt_and_a_resume() -> None:
    app = branches().compile(checkpointer=MemorySaver(), interrupt_before=["b2"])
    app.invoke({}, thread_id="t")
    stopped = app.get_state("t")
    assert stopped.next == ("b2",)  # done is held, not next
    assert app.invoke(None, thread_id="t")["trail"] == ["a", "b1", "b2", "b3", "done"]


def test_defer_lives_in_the_spec_and_the_export(tmp_path: Path) -> None:
    from graphnb.export import load_module, write_module

    spec = GraphSpec.from_json(branches().spec.to_json())
    assert spec.node("done").defer
    assert not spec.node("a").defer
    assert '"defer"' not in StateGraph(Trail).add_node("a", a).spec.to_json()
    module = load_module(write_module(branches(), tmp_path / "deferred.py", ruff=False))
    assert module.graph.invoke({})["trail"][-1] == "done"


@pytest.mark.parametrize("driven", ["sync", "async"])
def test_async_runs_defer_the_same(driven: str) -> None:
    import asyncio

    app = branches().compile()
    result = app.invoke({}) if driven == "sync" else asyncio.run(app.ainvoke({}))
    assert result["trail"] == ["a", "b1", "b2", "b3", "done"]


def test_defer_takes_a_bool_and_says_so() -> None:
    from graphnb import GraphSetupError

    with pytest.raises(GraphSetupError, match="defer= of `a` must be True or False, got 'maybe'"):
        StateGraph(Trail).add_node("a", a, defer="maybe")  # type: ignore[arg-type]
