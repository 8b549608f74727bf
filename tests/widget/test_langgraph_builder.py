"""The builder opens a LangGraph graph through graphnb.interop."""

from __future__ import annotations

import operator
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, RetryPolicy

from graphnb.interop import UnmappedFeatureError, from_langgraph, import_langgraph
from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


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


def test_a_messages_state_agent_sends_the_chat_view_its_messages_with_tool_calls(comm):
    def model(state: MessagesState) -> dict:
        if state["messages"][-1].type == "tool":
            return {"messages": [AIMessage("it is noon", id="a2")]}
        call = {"name": "clock", "args": {"tz": "UTC"}, "id": "c1"}
        return {"messages": [AIMessage("", tool_calls=[call], id="a1")]}

    def tools(state: MessagesState) -> dict:
        return {"messages": [ToolMessage("noon", tool_call_id="c1", name="clock", id="t1")]}

    def route(state: MessagesState) -> Literal["tools", "__end__"]:
        return "tools" if state["messages"][-1].tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("tools", tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route)
    graph.add_edge("tools", "model")
    builder = Builder(graph, namespace={})

    async def main() -> object:
        return await builder.run({"messages": [HumanMessage("time?", id="h1")]})

    run_async(main())
    assert builder.run_state["error"] is None
    sent = builder.run_state["steps"][-1]["state"]["messages"]
    # What widgets/src/chat.ts reads: each message's type (its speaker), content, and an
    # AI message's tool calls with their name, args and id.
    assert [(m["type"], m["content"]) for m in sent] == [
        ("human", "time?"),
        ("ai", ""),
        ("tool", "noon"),
        ("ai", "it is noon"),
    ]
    assert [(c["name"], c["args"], c["id"]) for c in sent[1]["tool_calls"]] == [
        ("clock", {"tz": "UTC"}, "c1")
    ]
    assert (sent[2]["tool_call_id"], sent[2]["name"]) == ("c1", "clock")


def handing_over(state: Notes) -> Command[Literal["research", "__end__"]]:
    if len(state["notes"]) >= 2:
        return Command(goto=END)
    return Command(goto="research", update={"notes": ["handed over"]})


def test_builder_draws_a_command_nodes_destinations_and_runs_it(comm):
    graph = StateGraph(Notes)
    graph.add_node("research", research)
    graph.add_node("triage", handing_over)
    graph.add_edge(START, "triage")
    graph.add_edge("research", "triage")
    builder = Builder(graph, namespace={})
    assert builder.problems == []
    # its Command's destinations, which the canvas and the diagrams draw dashed
    triage = next(node for node in builder.spec.nodes if node.id == "triage")
    assert triage.destinations is not None
    assert sorted(triage.destinations) == [END, "research"]
    assert not [e for e in builder.spec.edges if e.source == "triage"]
    assert builder.to_graph().compile().invoke({"notes": []})["notes"] == ["handed over", "facts"]


def _peer_scenarios() -> list[Any]:
    """The peer suite's LangGraph programs (tests/interop/peer), loaded by their names."""
    peer = Path(__file__).resolve().parents[1] / "interop" / "peer"
    if str(peer) not in sys.path:
        sys.path.insert(0, str(peer))
    import peer_scenarios  # type: ignore[import-not-found]

    return list(peer_scenarios.SCENARIOS)


@pytest.mark.parametrize("scenario", _peer_scenarios(), ids=lambda s: s.name)
def test_the_builder_opens_every_peer_program_and_draws_what_langgraph_draws(comm, scenario):
    options = scenario.compile() if callable(scenario.compile) else dict(scenario.compile)
    options.pop("cache", None)
    options.pop("store", None)
    program = scenario.build()
    unmapped = import_langgraph(program).unmapped
    if unmapped:  # refused by name, never opened with a part missing
        with pytest.raises(UnmappedFeatureError) as refused:
            Builder(program.compile(**options))
        assert list(refused.value.unmapped) == unmapped
        return
    builder = Builder(program.compile(**options))
    assert builder.problems == []
    drawn = {node.id: node for node in builder.spec.nodes}
    assert set(drawn) == set(program.nodes)
    for name, node in program.nodes.items():
        # Command destinations drawn as dashed edges, compiled children as groups
        if node.ends:
            assert drawn[name].destinations is not None
            assert set(drawn[name].destinations) == {str(end) for end in node.ends}
        is_child = hasattr(node.runnable, "builder") and hasattr(node.runnable, "get_graph")
        assert (drawn[name].subgraph is not None) == is_child
    first = scenario.steps[0].value
    if not scenario.thread and not scenario.context and isinstance(first, dict):
        # run from the canvas as drawn: what the imported graph gives (each on a new build:
        # some programs count their calls)
        imported = from_langgraph(scenario.build()).compile()
        expected, got = outcome(imported, first), outcome(builder.compile(), first)
        if isinstance(expected, dict) and isinstance(got, dict):
            # the canvas shows the whole state; the imported graph returns its output keys
            got = {key: got[key] for key in expected}
        assert got == expected


def outcome(app: Any, given: Any) -> Any:
    """The run's result as data (a model as its fields, a message as its kind and text),
    or the name of what it raised."""
    try:
        result = app.invoke(given)
    except Exception as error:
        return type(error).__name__
    values = result.model_dump() if hasattr(result, "model_dump") else dict(result)
    return {key: _plain(value) for key, value in values.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if hasattr(value, "content") and hasattr(value, "type"):  # ids may be new uuids
        return (value.type, value.content)
    return value
