"""LangGraph's ``stream_mode="messages"`` on an imported graph, compared with LangGraph's."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command

from graphnb.interop import from_langgraph

INPUT = {"messages": [HumanMessage("what time is it?", id="h1")]}


def chat() -> StateGraph:
    def agent(state: MessagesState) -> dict[str, Any]:
        if isinstance(state["messages"][-1], ToolMessage):
            return {"messages": [AIMessage("it is noon", id="a2")]}
        return {"messages": [AIMessage("", id="a1", tool_calls=[_call()])]}

    def tools(state: MessagesState) -> dict[str, Any]:
        # the whole conversation again, and one new message without an id
        return {"messages": [*state["messages"], ToolMessage("noon", tool_call_id="c1")]}

    def route(state: MessagesState) -> Literal["tools", "__end__"]:
        return "tools" if state["messages"][-1].tool_calls else END

    graph = StateGraph(MessagesState).add_node("agent", agent).add_node("tools", tools)
    graph.add_edge(START, "agent").add_conditional_edges("agent", route)
    return graph.add_edge("tools", "agent")


def handoff() -> StateGraph:
    def triage(state: MessagesState) -> Command[Literal["helper"]]:
        return Command(goto="helper", update={"messages": [AIMessage("over to you", id="t")]})

    def helper(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("done", id="d")]}

    graph = StateGraph(MessagesState).add_node("triage", triage).add_node("helper", helper)
    return graph.add_edge(START, "triage").add_edge("helper", END)


def _call() -> dict[str, Any]:
    return {"name": "clock", "args": {}, "id": "c1", "type": "tool_call"}


def seen(items: Any) -> list[tuple[str, str, str]]:
    """What a chat client reads: each message's kind, text and node (ids may be new)."""
    return [(m.type, m.content, meta["langgraph_node"]) for m, meta in items]


@pytest.mark.parametrize("build", [chat, handoff])
def test_each_new_message_streams_once_with_its_node(build: Any) -> None:
    expected = seen(build().compile().stream(INPUT, stream_mode="messages"))
    got = seen(from_langgraph(build()).compile().stream(INPUT, stream_mode="messages"))
    assert got == expected
    assert ("human", "what time is it?", "agent") not in got  # the input is not streamed


def test_chat_streams_the_tool_answer_but_not_the_conversation_again() -> None:
    got = seen(from_langgraph(chat()).compile().stream(INPUT, stream_mode="messages"))
    assert got == [
        ("ai", "", "agent"),
        ("tool", "noon", "tools"),
        ("ai", "it is noon", "agent"),
    ]


def test_messages_beside_other_modes_and_async() -> None:
    app = from_langgraph(chat()).compile()
    pairs = list(app.stream(INPUT, stream_mode=["messages", "updates"]))
    expected = list(chat().compile().stream(INPUT, stream_mode=["messages", "updates"]))
    assert [mode for mode, _ in pairs] == [mode for mode, _ in expected]

    async def collect() -> list[Any]:
        return [item async for item in app.astream(INPUT, stream_mode="messages")]

    assert seen(asyncio.run(collect())) == seen(app.stream(INPUT, stream_mode="messages"))
    message, metadata = next(iter(app.stream(INPUT, stream_mode="messages")))
    assert isinstance(message, AIMessage)
    assert (metadata["langgraph_node"], metadata["langgraph_path"]) == (
        "agent",
        ("__pregel_pull", "agent"),
    )
