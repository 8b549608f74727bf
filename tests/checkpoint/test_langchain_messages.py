"""LangChain messages (``MessagesState`` / ``add_messages``) in every saver, as JSON.

A LangGraph agent imported with ``graphnb.interop`` keeps its messages in graphnb's saver:
each checkpoint stores them as plain JSON (no pickle, no LangChain constructor markers),
and a graph opened later on the same database reads back messages equal to LangGraph's
own, tool calls included, for every saver.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from graphnb.interop import from_langgraph


def model(state: MessagesState) -> dict[str, Any]:
    last = state["messages"][-1]
    if last.type == "tool":
        return {"messages": AIMessage(f"it is {last.content}", id="ai-2")}  # one, not a list
    call = {"name": "clock", "args": {"tz": "UTC"}, "id": "call-1"}
    return {"messages": [AIMessage("", tool_calls=[call], id="ai-1")]}


def tools(state: MessagesState) -> dict[str, Any]:
    (call,) = state["messages"][-1].tool_calls
    return {"messages": [ToolMessage("noon", tool_call_id=call["id"], name="clock", id="t-1")]}


def forget(state: MessagesState) -> dict[str, Any]:
    return {"messages": [RemoveMessage(id="h-1")]}


def route(state: MessagesState) -> Literal["tools", "forget"]:
    return "tools" if state["messages"][-1].tool_calls else "forget"


def agent() -> StateGraph:
    builder = StateGraph(MessagesState)
    builder.add_node("model", model)
    builder.add_node("tools", tools)
    builder.add_node("forget", forget)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", route)
    builder.add_edge("tools", "model")
    builder.add_edge("forget", END)
    return builder


def test_messages_round_trip_through_every_saver_as_json(saver: Any) -> None:
    given = {"messages": [HumanMessage("time?", id="h-1"), HumanMessage("in UTC", id="h-2")]}
    expected = agent().compile().invoke(given)["messages"]
    assert [m.id for m in expected] == ["h-2", "ai-1", "t-1", "ai-2"]

    app = from_langgraph(agent()).compile(checkpointer=saver)
    assert app.invoke(given, thread_id="chat")["messages"] == expected

    # Read back by a graph compiled afresh: from the stored JSON alone.
    again = from_langgraph(agent()).compile(checkpointer=saver)
    loaded = again.get_state("chat").values["messages"]
    assert loaded == expected
    assert [type(m) for m in loaded] == [type(m) for m in expected]
    assert loaded[1].tool_calls == [
        {"name": "clock", "args": {"tz": "UTC"}, "id": "call-1", "type": "tool_call"}
    ]
    for snapshot in again.get_state_history("chat"):
        assert all(
            type(m).__module__.startswith("langchain_core") for m in snapshot.values["messages"]
        )

    for row in saver.history("chat"):
        for part in (row.writes, row.snapshot):
            text = json.dumps(part)  # plain JSON, or this raises
            assert '"lc"' not in text
            assert "pickle" not in text
    written = [update for row in saver.history("chat") for _, update in row.writes]
    assert {"messages": [dict(expected[1].model_dump(mode="json"))]} in written


def test_a_stored_update_that_does_not_read_back_exactly_stays_as_stored() -> None:
    from pydantic import TypeAdapter

    from graphnb.checkpoint.serde import _rebuilt

    # A lax coercion ("1" -> 1) would change what the node wrote: kept as stored.
    assert _rebuilt(TypeAdapter(list[dict[str, int]]), [{"a": "1"}]) == [{"a": "1"}]
    # Plain values have no objects to rebuild.
    assert _rebuilt(TypeAdapter(list[int]), ["1"]) == ["1"]
