"""A graph's input and output schemas: LangGraph's input_schema/output_schema."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from typing import Any, TypedDict

import pytest

from graphnb import END, START, StateGraph
from graphnb.checkpoint import MemorySaver
from graphnb.errors import GraphSetupError


class Full(TypedDict, total=False):
    question: str
    answer: str
    scratch: str


class Ask(TypedDict):
    question: str


class Reply(TypedDict):
    answer: str


def think(state: Full) -> dict[str, Any]:
    return {"scratch": "notes", "answer": f"{state['question']}? {state.get('scratch')}"}


def _graph(**schemas: Any) -> StateGraph[Full]:
    graph = StateGraph(Full, name="qa", **schemas).add_node(think)
    return graph.add_edge(START, "think").add_edge("think", END)


def test_input_is_read_through_the_input_schema_and_output_cut_to_the_output_schema() -> None:
    app = _graph(input_schema=Ask, output_schema=Reply).compile()
    # scratch is not an input field: dropped, as LangGraph drops it
    assert app.invoke({"question": "why", "scratch": "given"}) == {"answer": "why? None"}
    assert asyncio.run(app.ainvoke({"question": "why"})) == {"answer": "why? None"}


def test_the_values_stream_keeps_the_whole_state_as_langgraph_does() -> None:
    app = _graph(input_schema=Ask, output_schema=Reply).compile()
    values = list(app.stream({"question": "why"}, mode="values"))
    assert values[-1] == {"question": "why", "answer": "why? None", "scratch": "notes"}


def test_langgraphs_older_names_are_taken() -> None:
    app = _graph(input=Ask, output=Reply).compile()
    assert app.invoke({"question": "q"}) == {"answer": "q? None"}


def test_a_threaded_run_returns_the_output_fields() -> None:
    app = _graph(output_schema=Reply).compile(checkpointer=MemorySaver())
    assert app.invoke({"question": "q"}, thread_id="t") == {"answer": "q? None"}
    assert app.get_state("t").values["scratch"] == "notes"  # the thread keeps everything


def test_a_schema_naming_fields_the_state_lacks_is_refused() -> None:
    class Other(TypedDict):
        elsewhere: str

    with pytest.raises(GraphSetupError, match="'elsewhere'"):
        _graph(output_schema=Other)


def test_the_schemas_are_kept_in_the_spec_and_exported(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphnb.export import to_module

    graph = _graph(input_schema=Ask, output_schema=Reply)
    spec = graph.spec
    assert spec.input_schema is not None
    assert spec.input_schema.endswith("Ask")
    assert spec.output_schema is not None
    assert spec.output_schema.endswith("Reply")
    text = to_module(graph, ruff=False)
    assert "input_schema=Ask" in text
    assert "output_schema=Reply" in text
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    path = tmp_path / "qa_gnb.py"
    path.write_text(text, encoding="utf-8")
    loaded = importlib.util.spec_from_file_location(path.stem, path)
    assert loaded is not None
    assert loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    sys.modules[path.stem] = module
    loaded.loader.exec_module(module)
    assert module.build_graph().compile().invoke({"question": "q"}) == {"answer": "q? None"}


def test_the_langgraph_module_has_the_schemas() -> None:
    pytest.importorskip("langgraph")
    from graphnb.interop import to_langgraph_module

    text = to_langgraph_module(_graph(input_schema=Ask, output_schema=Reply), ruff=False)
    assert "input_schema=Ask" in text
    assert "output_schema=Reply" in text


def test_a_graph_compiled_again_for_a_database_keeps_its_schemas() -> None:
    # `graphnb run --db` and the teaching subject compile a graph again around a saver
    from graphnb.console import compile_for

    app = compile_for(_graph(input_schema=Ask, output_schema=Reply).compile(), MemorySaver())
    assert app.invoke({"question": "why", "scratch": "given"}, thread_id="t") == {
        "answer": "why? None"
    }
