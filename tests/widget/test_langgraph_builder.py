"""The builder opens a LangGraph graph through graphnb.interop."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from graphnb.interop import UnmappedFeatureError
from graphnb.widget import Builder


class Notes(TypedDict):
    notes: Annotated[list[str], operator.add]


def research(state: Notes) -> dict[str, list[str]]:
    return {"notes": ["facts"]}


def test_builder_opens_a_langgraph_graph_with_its_callables(comm):
    graph = StateGraph(Notes)
    graph.add_node("research", research)
    graph.add_edge(START, "research")
    graph.add_edge("research", END)
    builder = Builder(graph.compile())
    assert [node.id for node in builder.spec.nodes] == ["research"]
    assert builder.problems == []
    assert builder.to_graph().compile().invoke({})["notes"] == ["facts"]


def test_builder_refuses_a_langgraph_graph_naming_what_it_cannot_map(comm):
    graph = StateGraph(Notes)
    graph.add_node("research", research, retry_policy=[RetryPolicy(), RetryPolicy()])
    graph.add_edge(START, "research")
    with pytest.raises(UnmappedFeatureError, match="several RetryPolicy \\(node 'research'\\)"):
        Builder(graph)
