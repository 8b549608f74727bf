"""Static checks of graphnb's public generics; mypy --strict must accept this file.

Not collected by pytest (no ``test_`` prefix); ``test_public_types.py`` runs mypy on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, assert_type

from graphnb import END, START, CompiledGraph, GraphState, StateField, StateGraph, append


class Chat(GraphState):
    messages: Annotated[list[str], StateField(reducer=append)] = []


def reply(state: Chat) -> dict[str, Any]:
    return {"messages": ["hi"]}


def typed() -> None:
    graph = StateGraph(Chat)
    assert_type(graph, StateGraph[Chat])
    compiled = (
        graph.add_node("reply", reply).add_edge(START, "reply").add_edge("reply", END).compile()
    )
    assert_type(compiled, CompiledGraph[Chat])
    assert_type(compiled.invoke({}), Chat)
    assert_type(compiled.invoke(Chat()), Chat)
    assert_type(compiled.stream({}, mode="values"), Iterator[Any])


def untyped() -> None:
    graph = StateGraph(dict)
    assert_type(graph, StateGraph[dict[Any, Any]])
    assert_type(graph.compile().invoke({"a": 1}), dict[Any, Any])
