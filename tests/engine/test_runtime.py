"""LangGraph's run context: context_schema, runtime/config/writer parameters, stream writer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest

from graphnb import (
    END,
    START,
    Command,
    NodeError,
    RunContext,
    Runtime,
    StateGraph,
    get_stream_writer,
    interrupt,
)
from graphnb.checkpoint import MemorySaver
from graphnb.errors import GraphSetupError


@dataclass
class Ctx:
    user: str
    tone: str = "plain"


def greet(state: dict[str, Any], runtime: Runtime[Ctx]) -> dict[str, Any]:
    runtime.stream_writer({"greeting": runtime.context.user})
    return {"text": f"hello {runtime.context.user}"}


def configured(state: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    return {
        "thread": config["configurable"]["thread_id"],
        "node": config["metadata"]["langgraph_node"],
        "step": config["metadata"]["langgraph_step"],
    }


def written(state: dict[str, Any], *, writer: Any, store: Any) -> dict[str, Any]:
    writer("from writer")
    get_stream_writer()("from get_stream_writer")
    return {"store": store}


def _graph() -> StateGraph[dict[str, Any]]:
    graph = StateGraph(dict, context_schema=Ctx).add_node(greet).add_node(configured)
    graph.add_node(written).add_edge(START, "greet").add_edge("greet", "configured")
    return graph.add_edge("configured", "written").add_edge("written", END)


def test_runtime_config_writer_and_store_parameters_are_injected() -> None:
    result = (
        _graph().compile(checkpointer=MemorySaver()).invoke({}, context=Ctx("ada"), thread_id="t")
    )
    assert result == {
        "text": "hello ada",
        "thread": "t",
        "node": "configured",
        "step": 1,
        "store": None,
    }


def test_a_mapping_context_is_made_the_context_schema() -> None:
    assert _graph().compile().invoke({}, context={"user": "bo"})["text"] == "hello bo"


def test_a_bad_context_is_refused_naming_the_schema() -> None:
    app = _graph().compile()
    with pytest.raises(TypeError, match="Ctx"):
        app.invoke({}, context={"nobody": 1})
    with pytest.raises(TypeError, match="context_schema"):
        app.invoke({}, context=42)
    with pytest.raises(GraphSetupError, match="context_schema is a class"):
        StateGraph(dict, context_schema=Ctx("x"))  # type: ignore[arg-type]


def test_custom_mode_streams_what_writers_write() -> None:
    app = _graph().compile()
    assert list(app.stream({}, context=Ctx("ada"), mode="custom")) == [
        {"greeting": "ada"},
        "from writer",
        "from get_stream_writer",
    ]
    both = list(app.stream({}, context=Ctx("ada"), mode=["custom", "updates"]))
    assert both[0] == ("custom", {"greeting": "ada"})
    assert ("updates", {"greet": {"text": "hello ada"}}) in both


def test_what_a_node_writes_before_it_stops_streams_at_once() -> None:
    # LangGraph (test_pregel.py::test_interrupt_stream_mode_custom): the chunks a node
    # wrote before interrupt() or before it failed stream then, not only on a rerun.
    def ask(state: dict[str, Any]) -> dict[str, Any]:
        get_stream_writer()("before asking")
        return {"answer": interrupt("ok?")}

    def fail(state: dict[str, Any]) -> dict[str, Any]:
        get_stream_writer()("before failing")
        raise ValueError("no")

    def one(fn: Any) -> Any:
        graph = StateGraph(dict).add_node("n", fn).add_edge(START, "n").add_edge("n", END)
        return graph.compile(checkpointer=MemorySaver())

    asking = one(ask)
    assert list(asking.stream({}, thread_id="t", mode="custom")) == ["before asking"]
    resumed = asking.stream(Command(resume="yes"), thread_id="t", mode="custom")
    assert list(resumed) == ["before asking"]  # the node ran again, and wrote again
    chunks: list[Any] = []
    with pytest.raises(NodeError):
        chunks.extend(one(fail).stream({}, thread_id="t", mode="custom"))
    assert chunks == ["before failing"]


def test_get_stream_writer_in_async_nodes_and_outside_a_stream() -> None:
    async def node(state: dict[str, Any]) -> dict[str, Any]:
        get_stream_writer()("async chunk")
        return {"done": True}

    app = StateGraph(dict).add_node("node", node).add_edge(START, "node")
    compiled = app.add_edge("node", END).compile()

    async def collect() -> list[Any]:
        return [chunk async for chunk in compiled.astream({}, mode="custom")]

    assert asyncio.run(collect()) == ["async chunk"]
    assert compiled.invoke({}) == {"done": True}  # writes nowhere, fails nothing
    get_stream_writer()("outside any run")  # no-op


def test_the_runtime_is_the_run_context() -> None:
    seen: list[Any] = []

    def node(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
        seen.append(runtime)
        return {}

    app = StateGraph(dict).add_node("node", node).add_edge(START, "node").add_edge("node", END)
    app.compile().invoke({}, context={"k": 1})
    assert isinstance(seen[0], RunContext)
    assert seen[0].context == {"k": 1}
    assert (seen[0].store, seen[0].previous) == (None, None)


def test_context_schema_is_kept_in_the_spec() -> None:
    spec = _graph().spec
    assert spec.context_schema is not None
    assert spec.context_schema.endswith("Ctx")
    assert "context_schema" not in StateGraph(dict).spec.to_json()


def _load(text: str, path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    import importlib.util
    import sys

    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


class Text(TypedDict, total=False):
    text: str


def _typed() -> StateGraph[Any]:
    graph = StateGraph(Text, name="greeter", context_schema=Ctx).add_node(greet)
    return graph.add_edge(START, "greet").add_edge("greet", END)


def test_the_exports_write_context_schema_back(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphnb.export import to_module

    text = to_module(_typed(), ruff=False)
    assert "context_schema=Ctx" in text
    module = _load(text, tmp_path / "greeter_gnb.py", monkeypatch)
    built = module.build_graph()
    assert built.context_schema.__name__ == "Ctx"
    assert built.spec.context_schema.endswith("Ctx")
    assert built.compile().invoke({}, context={"user": "ada"}) == {"text": "hello ada"}


def test_the_langgraph_module_has_the_context_schema(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langgraph")
    from graphnb.interop import to_langgraph_module

    text = to_langgraph_module(_typed(), ruff=False)
    assert "context_schema=Ctx" in text
    module = _load(text, tmp_path / "greeter_lg.py", monkeypatch)
    assert module.build_graph().context_schema.__name__ == "Ctx"
    # the node reads runtime.context and writes through runtime.stream_writer on LangGraph
    context = module.build_graph().context_schema("ada")
    assert module.graph.invoke({}, context=context) == {"text": "hello ada"}
