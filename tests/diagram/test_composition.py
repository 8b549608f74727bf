"""Composed graphs in diagrams: subgraph clusters, Send edges, policy marks."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from graphnb import END, START, CachePolicy, RetryPolicy, Send, StateGraph
from graphnb.diagram import to_dot, to_mermaid, to_svg


class State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


def note(state: State) -> dict[str, Any]:
    return {"notes": ["x"]}


def fan(state: State) -> list[Send]:
    return [Send("note", {})]


def composed() -> StateGraph[State]:
    inner = StateGraph(State, name="inner").add_node("search", note)
    inner.add_edge(START, "search").add_edge("search", END)
    middle = StateGraph(State, name="middle").add_node("deep", inner)
    middle.add_edge(START, "deep").add_edge("deep", END)
    graph = StateGraph(State, name="outer").add_node("research", middle)
    graph.add_node("note", note, retry=RetryPolicy(max_attempts=4), timeout=5, cache=CachePolicy())
    graph.add_edge(START, "research").add_conditional_edges("research", fan, sends=["note"])
    return graph.add_edge("note", END)


def test_mermaid_draws_nested_subgraphs_as_clusters() -> None:
    text = to_mermaid(composed())
    assert 'subgraph research["research"]' in text
    assert 'subgraph research__deep["deep"]' in text
    assert 'research__deep__search["search"]' in text
    assert text.count("\n    end\n") + text.count("\n        end\n") >= 2
    assert 'research -.->|"Send"| n0' in text  # "note" is a Mermaid keyword: n0


def test_dot_draws_clusters_with_path_ids() -> None:
    text = to_dot(composed())
    assert 'subgraph "cluster_research" {' in text
    assert 'subgraph "cluster_research/deep" {' in text
    assert '"research/deep/search" [label="search"' in text
    assert "arrowhead=normalnormal" in text


def test_policies_are_marked_on_the_node() -> None:
    mermaid = to_mermaid(composed())
    assert "retry 4, timeout 5s, cache" in mermaid
    assert "retry 4, timeout 5s, cache" in to_svg(composed())
    assert "retry" not in to_mermaid(StateGraph(State).add_node("a", note))
