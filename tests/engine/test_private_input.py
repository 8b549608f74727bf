"""A node's private input schema: it reads only its schema's fields, as in LangGraph."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from graphnb import END, START, GraphSpec, StateGraph
from graphnb.errors import GraphSetupError


class Full(TypedDict, total=False):
    question: str
    answer: str
    secret: str


class Sees(TypedDict, total=False):
    question: str


class Elsewhere(TypedDict, total=False):
    unknown: str


def hide(state: Full) -> dict[str, Any]:
    return {"secret": "kept from the reader"}


def reader(state: Sees) -> dict[str, Any]:
    return {"answer": ",".join(sorted(state))}


def _graph(node: Any = reader, **options: Any) -> StateGraph[Full]:
    graph = StateGraph(Full).add_node(hide).add_node("reader", node, **options)
    return graph.add_edge(START, "hide").add_edge("hide", "reader").add_edge("reader", END)


def test_the_first_parameters_annotation_is_the_nodes_input_schema() -> None:
    graph = _graph()
    assert graph.spec.node("reader").input_schema is not None
    result = graph.compile().invoke({"question": "q"})
    assert result == {"question": "q", "secret": "kept from the reader", "answer": "question"}


def test_input_schema_given_to_add_node() -> None:
    def plain(state: Any) -> dict[str, Any]:
        return {"answer": ",".join(sorted(state))}

    app = _graph(plain, input_schema=Sees).compile()
    assert app.invoke({"question": "q"})["answer"] == "question"
    assert asyncio.run(app.ainvoke({"question": "q"}))["answer"] == "question"


def test_the_states_own_type_or_an_unrelated_annotation_changes_nothing() -> None:
    def whole(state: Full) -> dict[str, Any]:
        return {"answer": ",".join(sorted(state))}

    def other(state: Elsewhere) -> dict[str, Any]:
        return {"answer": ",".join(sorted(state))}

    assert _graph(whole).spec.node("reader").input_schema is None
    assert _graph(other).compile().invoke({"question": "q"})["answer"] == "question,secret"


def test_a_given_input_schema_naming_fields_the_state_lacks_is_refused() -> None:
    with pytest.raises(GraphSetupError, match="'unknown'"):
        _graph(input_schema=Elsewhere)


def test_the_input_schema_survives_the_spec_and_the_exports() -> None:
    spec = _graph().spec
    again = GraphSpec.from_json(spec.to_json())
    rebuilt = StateGraph.from_spec(again, state=Full)
    assert rebuilt.compile().invoke({"question": "q"})["answer"] == "question"
    from graphnb.export import to_module

    assert "input_schema=Sees" in to_module(_graph(), ruff=False)
    pytest.importorskip("langgraph")
    from graphnb.interop import to_langgraph_module

    assert "input_schema=Sees" in to_langgraph_module(_graph(), ruff=False)
