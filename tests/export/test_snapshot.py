"""The exported text itself, compared byte for byte with a reviewed copy.

Set ``GRAPHNB_UPDATE_SNAPSHOTS=1`` to rewrite the copies after an intended change, then
review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.cli.demo import build as build_demo
from graphnb.export import to_module

SNAPSHOTS = Path(__file__).parent / "snapshots"
RETRIES = 2


class Review(GraphState):
    draft: str = ""
    notes: Annotated[list[str], StateField(reducer=append)] = []
    attempts: int = 0


def write(state: Review) -> dict[str, Any]:
    return {"draft": f"draft {state.attempts + 1}", "attempts": state.attempts + 1}


def critique(state: Review) -> dict[str, Any]:
    return {"notes": [f"{state.draft}: tighten the intro"]}


def verdict(state: Review) -> Literal["revise", "ship"]:
    return "revise" if state.attempts < RETRIES else "ship"


def review_graph() -> StateGraph[Review]:
    graph = StateGraph(Review, name="review loop")
    graph.add_node("write", write, label="Write a draft", position=(0, 0))
    graph.add_node("critique", critique, label="Critique", position=(0, 120))
    graph.add_edge(START, "write").add_edge("write", "critique")
    graph.add_conditional_edges("critique", verdict, {"revise": "write", "ship": END})
    return graph


@pytest.mark.parametrize(("name", "make"), [("demo", build_demo), ("review_loop", review_graph)])
def test_exported_text_matches_the_reviewed_snapshot(name: str, make: Any) -> None:
    text = to_module(make(), ruff=False)
    snapshot = SNAPSHOTS / f"{name}.py.txt"
    if os.environ.get("GRAPHNB_UPDATE_SNAPSHOTS") == "1":
        snapshot.write_text(text, encoding="utf-8")
    assert text == snapshot.read_text(encoding="utf-8")
