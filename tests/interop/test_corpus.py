"""A corpus of LangGraph-doc-style graphs, run on LangGraph and, imported, on graphnb.

Each graph must give the same final state, the same node updates in the same steps and
the same streamed states on both engines, and again on LangGraph once exported back.
"""

from __future__ import annotations

import importlib.util
import operator
import sys
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Send
from pydantic import BaseModel

from graphnb.interop import from_langgraph, import_langgraph, to_langgraph_module


class Text(TypedDict):
    text: str
    steps: Annotated[list[str], operator.add]


def upper(state: Text) -> dict[str, Any]:
    return {"text": state["text"].upper(), "steps": ["upper"]}


def exclaim(state: Text) -> dict[str, Any]:
    return {"text": state["text"] + "!", "steps": ["exclaim"]}


def route(state: Text) -> Literal["upper", "exclaim"]:
    return "upper" if state["text"].islower() else "exclaim"


def chain() -> StateGraph:
    graph = StateGraph(Text)
    graph.add_node("upper", upper)
    graph.add_node("exclaim", exclaim)
    graph.add_edge(START, "upper")
    graph.add_edge("upper", "exclaim")
    graph.add_edge("exclaim", END)
    return graph


def router() -> StateGraph:
    graph = StateGraph(Text)
    graph.add_node("upper", upper)
    graph.add_node("exclaim", exclaim)
    graph.add_conditional_edges(START, route)
    graph.add_edge("upper", END)
    graph.add_edge("exclaim", END)
    return graph


class Loop(TypedDict):
    count: int
    steps: Annotated[list[str], operator.add]


def tick(state: Loop) -> dict[str, Any]:
    return {"count": state["count"] + 1, "steps": ["tick"]}


def limit(state: Loop) -> str:
    return "again" if state["count"] < 4 else "stop"


def loop() -> StateGraph:
    graph = StateGraph(Loop)
    graph.add_node("tick", tick)
    graph.add_edge(START, "tick")
    graph.add_conditional_edges("tick", limit, {"again": "tick", "stop": END})
    return graph


def left(state: Text) -> dict[str, Any]:
    return {"steps": ["left"]}


def right(state: Text) -> dict[str, Any]:
    return {"steps": ["right"]}


def merge(state: Text) -> dict[str, Any]:
    return {"text": "+".join(sorted(state["steps"])), "steps": ["merge"]}


def parallel() -> StateGraph:
    graph = StateGraph(Text)
    for name, fn in (("left", left), ("right", right), ("merge", merge)):
        graph.add_node(name, fn)
    graph.add_edge(START, "left")
    graph.add_edge(START, "right")
    graph.add_edge("left", "merge")
    graph.add_edge("right", "merge")
    graph.add_edge("merge", END)
    return graph


def join() -> StateGraph:
    graph = StateGraph(Text)
    for name, fn in (("left", left), ("upper", upper), ("right", right), ("merge", merge)):
        graph.add_node(name, fn)
    graph.add_edge(START, "left")
    graph.add_edge(START, "upper")
    graph.add_edge("upper", "right")
    graph.add_edge(["left", "right"], "merge")
    graph.add_edge("merge", END)
    return graph


@dataclass
class Tally:
    total: int = 0
    seen: Annotated[list[int], operator.add] = field(default_factory=list)


class TallyModel(BaseModel):
    total: int = 0
    seen: Annotated[list[int], operator.add] = []


def add_three(state: Any) -> dict[str, Any]:
    return {"total": state.total + 3, "seen": [state.total]}


def double(state: Any) -> dict[str, Any]:
    return {"total": state.total * 2, "seen": [state.total]}


def tally(schema: type) -> Any:
    def make() -> StateGraph:
        graph = StateGraph(schema)
        graph.add_node("add_three", add_three)
        graph.add_node("double", double)
        graph.add_edge(START, "add_three")
        graph.add_edge("add_three", "double")
        graph.add_edge("double", END)
        return graph

    return make


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def model(state: Chat) -> dict[str, Any]:
    # A scripted model: asks for a tool once, then answers with the tool's result.
    last = state["messages"][-1]
    if last.type == "tool":
        return {"messages": [AIMessage(content=f"it is {last.content}", id="a2")]}
    call = {"name": "clock", "args": {}, "id": "c1"}
    return {"messages": [AIMessage(content="", tool_calls=[call], id="a1")]}


def tools(state: Chat) -> dict[str, Any]:
    call = state["messages"][-1].tool_calls[0]
    return {"messages": [ToolMessage(content="noon", tool_call_id=call["id"], id="t1")]}


def wants_tool(state: Chat) -> Literal["tools", "__end__"]:
    return "tools" if state["messages"][-1].tool_calls else END


def agent() -> StateGraph:
    graph = StateGraph(Chat)
    graph.add_node("model", model)
    graph.add_node("tools", tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", wants_tool)
    graph.add_edge("tools", "model")
    return graph


class Jokes(TypedDict):
    subjects: list[str]
    subject: str
    jokes: Annotated[list[str], operator.add]
    best: str


def fan_out(state: Jokes) -> list[Send]:
    # The map-reduce example of LangGraph's docs: one Send per subject.
    return [Send("joke", {"subject": subject}) for subject in state["subjects"]]


def joke(state: Jokes) -> dict[str, Any]:
    return {"jokes": [f"a {state['subject']} walks into a bar"]}


def best(state: Jokes) -> dict[str, Any]:
    return {"best": max(state["jokes"], key=len)}


def map_reduce() -> StateGraph:
    graph = StateGraph(Jokes)
    graph.add_node("joke", joke)
    graph.add_node("best", best)
    graph.add_conditional_edges(START, fan_out, ["joke"])
    graph.add_edge("joke", "best")
    graph.add_edge("best", END)
    return graph


class Inner(TypedDict):
    text: str


def shout(state: Inner) -> dict[str, Any]:
    return {"text": state["text"].upper()}


def twice(state: Inner) -> dict[str, Any]:
    return {"text": state["text"] * 2}


def subgraph() -> StateGraph:
    child = StateGraph(Inner)
    child.add_node("shout", shout)
    child.add_node("twice", twice)
    child.add_edge(START, "shout")
    child.add_edge("shout", "twice")
    child.add_edge("twice", END)
    graph = StateGraph(Text)
    graph.add_node("exclaim", exclaim)
    graph.add_node("inner", child.compile())
    graph.add_edge(START, "exclaim")
    graph.add_edge("exclaim", "inner")
    graph.add_edge("inner", END)
    return graph


def streaming() -> StateGraph:
    # Streamed states, LangGraph's stream_mode="values": checked for every graph below.
    graph = StateGraph(Loop)
    graph.add_node("tick", tick)
    graph.add_node("tock", tick)
    graph.add_edge(START, "tick")
    graph.add_edge("tick", "tock")
    graph.add_edge("tock", END)
    return graph


CORPUS = {
    "map-reduce with Send": (map_reduce, {"subjects": ["cat", "horse", "ox"]}),
    "subgraph": (subgraph, {"text": "hi"}),
    "streaming": (streaming, {"count": 0}),
    "dataclass state": (tally(Tally), {"total": 1}),
    "pydantic state": (tally(TallyModel), {"total": 2}),
    "message state with tool calls": (agent, {"messages": [HumanMessage("time?", id="h1")]}),
    "chain": (chain, {"text": "hi"}),
    "router": (router, {"text": "HI"}),
    "loop with a limit": (loop, {"count": 0}),
    "parallel branches with a reducer": (parallel, {"text": ""}),
    "join": (join, {"text": "a"}),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_graph_runs_alike_on_both_engines_and_back(name, tmp_path, monkeypatch):
    make, given = CORPUS[name]
    langgraph = make().compile()
    graphnb = from_langgraph(make()).compile()
    expected = langgraph.invoke(dict(given))
    assert dict(graphnb.invoke(dict(given))) == dict(expected)
    expected_updates = list(langgraph.stream(dict(given), stream_mode="updates"))
    assert list(graphnb.stream(dict(given), mode="updates")) == expected_updates
    expected_values = list(langgraph.stream(dict(given), stream_mode="values"))
    values = [dict(v) for v in graphnb.stream(dict(given), mode="values")]
    # The input's state: LangGraph shows a reducer field it was not given as its empty
    # value (operator.add's list()), graphnb leaves such a TypedDict key out until written.
    assert values[0] == {k: v for k, v in expected_values[0].items() if k in values[0]}
    assert values[1:] == expected_values[1:]

    path = tmp_path / "exported.py"
    path.write_text(to_langgraph_module(from_langgraph(make())), encoding="utf-8")
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    spec = importlib.util.spec_from_file_location("exported", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["exported"] = module
    spec.loader.exec_module(module)
    assert module.graph.invoke(dict(given)) == expected
    assert list(module.graph.stream(dict(given), stream_mode="updates")) == expected_updates
    assert list(module.graph.stream(dict(given), stream_mode="values")) == expected_values


def approval() -> StateGraph:
    # Interrupt and resume, as LangGraph's breakpoint docs write it: stop before the tool
    # call, look at the state, resume with input None.
    return agent()


def test_interrupt_and_resume_runs_alike_on_both_engines_and_back(tmp_path, monkeypatch):
    given = {"messages": [HumanMessage("time?", id="h1")]}
    langgraph = approval().compile(checkpointer=InMemorySaver(), interrupt_before=["tools"])
    imported = import_langgraph(
        approval().compile(checkpointer=InMemorySaver(), interrupt_before=["tools"])
    )
    assert imported.unmapped == []
    graphnb = imported.compile()
    config = {"configurable": {"thread_id": "t"}}

    expected_first = [u for u in langgraph.stream(given, config, stream_mode="updates")]
    first = list(graphnb.stream(given, thread_id="t", mode="updates"))
    # Both end with an "__interrupt__" update: LangGraph's is empty for a static stop,
    # graphnb's names the node and when.
    assert [list(u) for u in first] == [list(u) for u in expected_first]
    assert first[:-1] == expected_first[:-1]
    assert [(i.node, i.when) for i in first[-1]["__interrupt__"]] == [("tools", "before")]
    paused = langgraph.get_state(config)
    assert graphnb.get_state("t").next == paused.next == ("tools",)
    assert graphnb.get_state("t").values == paused.values  # messages read back from JSON

    expected_rest = list(langgraph.stream(None, config, stream_mode="updates"))
    assert list(graphnb.stream(None, thread_id="t", mode="updates")) == expected_rest
    assert graphnb.get_state("t").values == langgraph.get_state(config).values

    path = tmp_path / "exported_approval.py"
    path.write_text(to_langgraph_module(imported.graph.compile(**imported.compile_options)))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    spec = importlib.util.spec_from_file_location("exported_approval", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["exported_approval"] = module
    spec.loader.exec_module(module)
    assert list(module.graph.stream(given, config, stream_mode="updates")) == expected_first
    assert list(module.graph.stream(None, config, stream_mode="updates")) == expected_rest
