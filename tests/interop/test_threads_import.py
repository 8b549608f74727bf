"""LangGraph threads copied into graphnb savers: history, time travel, refusals."""

from __future__ import annotations

import operator
import os
import pickle
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Send

from graphnb.checkpoint import CheckpointLoadError, MemorySaver
from graphnb.checkpoint import SqliteSaver as GraphnbSqliteSaver
from graphnb.interop import (
    RefusedPayloadError,
    from_langgraph,
    import_langgraph_threads,
)
from graphnb.interop.langgraph_threads import Refused, decode_payload


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def model(state: Chat) -> dict[str, Any]:
    # A scripted model: a tool call for each question, then the tool's answer.
    last = state["messages"][-1]
    turn = sum(1 for m in state["messages"] if m.type == "human")
    if last.type == "tool":
        return {"messages": [AIMessage(content=f"it is {last.content}", id=f"a{turn}b")]}
    call = {"name": "clock", "args": {"turn": turn}, "id": f"c{turn}"}
    return {"messages": [AIMessage(content="", tool_calls=[call], id=f"a{turn}a")]}


def tools(state: Chat) -> dict[str, Any]:
    call = state["messages"][-1].tool_calls[0]
    answer = f"noon {call['args']['turn']}"
    return {"messages": [ToolMessage(content=answer, tool_call_id=call["id"], id=f"t{call['id']}")]}


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


def plain(values: Any) -> list[tuple[Any, ...]]:
    return [(m.type, m.content, m.id, getattr(m, "tool_calls", None)) for m in values["messages"]]


def started_on_langgraph(path: Path) -> tuple[Any, SqliteSaver]:
    saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    graph = agent().compile(checkpointer=saver)
    graph.invoke({"messages": [HumanMessage("time?", id="h1")]}, thread_config("t"))
    return graph, saver


def thread_config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def test_a_thread_continues_on_graphnb_as_on_langgraph(tmp_path):
    langgraph, saver = started_on_langgraph(tmp_path / "lg.db")
    config = thread_config("t")
    lg_history = list(reversed(list(langgraph.get_state_history(config))))
    assert len(lg_history) == 5  # input, then 4 steps: __start__, model, tools, model

    graphnb = from_langgraph(agent()).compile(checkpointer=MemorySaver())
    copied = import_langgraph_threads(saver, graphnb.checkpointer, graph=graphnb)
    assert [(t.thread_id, t.checkpoints) for t in copied] == [("t", 4)]

    history = list(reversed(graphnb.get_state_history("t")))
    # LangGraph's first checkpoint holds the input not yet applied; graphnb has none.
    assert [s.checkpoint_id for s in history] == [
        s.config["configurable"]["checkpoint_id"] for s in lg_history[1:]
    ]
    assert [s.next for s in history] == [s.next for s in lg_history[1:]]
    assert [s.step for s in history] == [s.metadata["step"] - 1 for s in lg_history[1:]]
    assert [s.source for s in history] == ["input", "loop", "loop", "loop"]
    assert [s.ran for s in history] == [(), ("model",), ("tools",), ("model",)]
    assert [plain(s.values) for s in history] == [plain(s.values) for s in lg_history[1:]]
    assert history[1].writes[0][0] == "model"

    question = {"messages": [HumanMessage("and now?", id="h2")]}
    expected = langgraph.invoke(question, config)
    assert plain(graphnb.invoke(question, thread_id="t")) == plain(expected)
    assert len(expected["messages"]) == 8
    # The thread continued on LangGraph, imported again, is the one continued on graphnb.
    again = from_langgraph(agent()).compile(checkpointer=MemorySaver())
    import_langgraph_threads(saver, again.checkpointer, graph=again)
    after = list(reversed(graphnb.get_state_history("t")))
    imported = list(reversed(again.get_state_history("t")))
    assert len(after) == len(imported) == 8
    for mine, theirs in zip(after, imported, strict=True):
        assert (mine.step, mine.source, mine.next, mine.ran) == (
            theirs.step,
            theirs.source,
            theirs.next,
            theirs.ran,
        )
        assert plain(mine.values) == plain(theirs.values)

    # Time travel: from the checkpoint after the first tool call, on both engines.
    fork = history[2].checkpoint_id
    lg_fork = {"configurable": {"thread_id": "t", "checkpoint_id": fork}}
    assert plain(graphnb.invoke(None, thread_id="t", checkpoint_id=fork)) == plain(
        langgraph.invoke(None, lg_fork)
    )


def test_a_langgraph_graph_names_the_state_and_threads_can_be_picked(tmp_path):
    _, saver = started_on_langgraph(tmp_path / "lg.db")
    # the same file holds one more thread
    agent().compile(checkpointer=saver).invoke(
        {"messages": [HumanMessage("hi", id="h1")]}, thread_config("other")
    )
    target = GraphnbSqliteSaver(str(tmp_path / "graphnb.db"))
    url = f"sqlite:///{tmp_path / 'lg.db'}"
    copied = import_langgraph_threads(url, target, graph=agent(), thread_ids=["other"])
    assert [t.thread_id for t in copied] == ["other"]
    assert target.threads() == ["other"]
    again = f"sqlite:///{tmp_path / 'graphnb.db'}"  # the same database, by its URL
    with pytest.raises(CheckpointLoadError, match="already has a thread 'other'"):
        import_langgraph_threads(url, again, graph=agent(), thread_ids=["other"])
    with pytest.raises(LookupError, match="no thread 'missing'"):
        import_langgraph_threads(url, target, graph=agent(), thread_ids=["missing"])


class Boom:
    def __reduce__(self) -> tuple[Any, ...]:
        return (print, ("pwned",))


def test_a_pickle_payload_is_refused_and_nothing_is_written(tmp_path, capsys):
    path = tmp_path / "lg.db"
    _, saver = started_on_langgraph(path)
    agent().compile(checkpointer=saver).invoke(
        {"messages": [HumanMessage("hi", id="h1")]}, thread_config("clean")
    )
    conn = sqlite3.connect(path)
    (checkpoint_id,) = conn.execute(
        "SELECT checkpoint_id FROM writes WHERE thread_id = 't' ORDER BY checkpoint_id LIMIT 1"
    ).fetchone()
    conn.execute(
        "UPDATE writes SET type = 'pickle', value = ? WHERE thread_id = 't' AND checkpoint_id = ?",
        (pickle.dumps(Boom()), checkpoint_id),
    )
    conn.commit()
    conn.close()
    target = MemorySaver()
    with pytest.raises(RefusedPayloadError) as caught:
        import_langgraph_threads(f"sqlite:///{path}", target, graph=agent())
    assert caught.value.type_name == "pickle"
    assert caught.value.thread_id == "t"
    assert caught.value.checkpoint_id == checkpoint_id
    assert "pickle" in str(caught.value)
    assert repr(checkpoint_id) in str(caught.value)
    assert target.threads() == []  # not even the clean thread
    assert "pwned" not in capsys.readouterr().out


def test_payloads_decode_as_data_or_are_refused():
    import msgpack

    def ext(code: int, parts: Any) -> bytes:
        return msgpack.packb(msgpack.ExtType(code, msgpack.packb(parts)))

    message = ext(
        5,
        [
            "langchain_core.messages.ai",
            "AIMessage",
            {"type": "ai", "content": "x"},
            "model_validate_json",
        ],
    )
    assert decode_payload("msgpack", message) == {"type": "ai", "content": "x"}
    assert decode_payload("msgpack", ext(2, ["app", "Point", {"x": 1}])) == {"x": 1}
    assert decode_payload("msgpack", ext(1, ["langgraph.types", "Send", ["n", {"a": 1}]])) == {
        "node": "n",
        "arg": {"a": 1},
    }
    assert decode_payload("msgpack", ext(0, ["builtins", "set", [1, 2]])) == [1, 2]
    assert decode_payload("msgpack", ext(0, ["os", "system", "rm -rf /"])) == Refused("os.system")
    assert decode_payload("msgpack", ext(1, ["re", "compile", ["x", 0]])) == Refused("re.compile")
    assert decode_payload("msgpack", ext(6, ["<f8", [1], "C", b""])) == Refused("numpy array")
    assert decode_payload("msgpack", ext(42, [])) == Refused("msgpack ext 42")
    assert decode_payload("pickle", pickle.dumps(Boom())) == Refused("pickle")
    lc = (
        b'{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", '
        b'"HumanMessage"], "kwargs": {"content": "hi"}}'
    )
    assert decode_payload("json", lc) == {"type": "human", "content": "hi"}
    evil = b'{"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {}}'
    assert decode_payload("json", evil) == Refused("os.system")


POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture
def langgraph_postgres() -> Any:
    """A LangGraph PostgresSaver in a schema of its own, and the URL reaching it."""
    psycopg = pytest.importorskip("psycopg")
    postgres = pytest.importorskip("langgraph.checkpoint.postgres")
    from psycopg.rows import dict_row

    schema = f"lg_interop_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL is not reachable: {error}")
    admin.execute(f"CREATE SCHEMA {schema}")
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    conn = psycopg.connect(url, autocommit=True, row_factory=dict_row)
    saver = postgres.PostgresSaver(conn)
    saver.setup()
    try:
        yield saver, url
    finally:
        conn.close()
        admin.execute(f"DROP SCHEMA {schema} CASCADE")
        admin.close()


@pytest.mark.db
def test_a_postgres_thread_continues_on_graphnb_as_on_langgraph(langgraph_postgres):
    saver, url = langgraph_postgres
    langgraph = agent().compile(checkpointer=saver)
    config = thread_config("pg")
    langgraph.invoke({"messages": [HumanMessage("time?", id="h1")]}, config)
    lg_history = list(reversed(list(langgraph.get_state_history(config))))

    graphnb = from_langgraph(agent()).compile(checkpointer=MemorySaver())
    copied = import_langgraph_threads(url, graphnb.checkpointer, graph=graphnb)
    assert [(t.thread_id, t.checkpoints) for t in copied] == [("pg", 4)]
    history = list(reversed(graphnb.get_state_history("pg")))
    assert [s.next for s in history] == [s.next for s in lg_history[1:]]
    assert [plain(s.values) for s in history] == [plain(s.values) for s in lg_history[1:]]

    question = {"messages": [HumanMessage("and now?", id="h2")]}
    assert plain(graphnb.invoke(question, thread_id="pg")) == plain(
        langgraph.invoke(question, config)
    )


def test_a_thread_paused_before_a_node_resumes_on_graphnb(tmp_path):
    saver = SqliteSaver(sqlite3.connect(tmp_path / "lg.db", check_same_thread=False))
    langgraph = agent().compile(checkpointer=saver, interrupt_before=["tools"])
    config = thread_config("t")
    langgraph.invoke({"messages": [HumanMessage("time?", id="h1")]}, config)
    graphnb = from_langgraph(agent()).compile(
        checkpointer=MemorySaver(), interrupt_before=["tools"]
    )
    import_langgraph_threads(saver, graphnb.checkpointer, graph=graphnb)
    assert graphnb.get_state("t").next == langgraph.get_state(config).next == ("tools",)
    assert plain(graphnb.invoke(None, thread_id="t")) == plain(langgraph.invoke(None, config))
    assert graphnb.get_state("t").next == ()


def test_importing_graphnb_interop_loads_no_msgpack():
    code = "import sys, graphnb.interop; print('msgpack' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


class Jokes(TypedDict):
    subjects: list[str]
    subject: str
    jokes: Annotated[list[str], operator.add]


def fan_out(state: Jokes) -> list[Send]:
    return [Send("joke", {"subject": subject}) for subject in state["subjects"]]


def joke(state: Jokes) -> dict[str, Any]:
    return {"jokes": [f"a {state['subject']} walks into a bar"]}


def map_reduce() -> StateGraph:
    graph = StateGraph(Jokes)
    graph.add_node("joke", joke)
    graph.add_conditional_edges(START, fan_out, ["joke"])
    return graph


def test_pending_sends_of_a_map_reduce_thread_run_on_graphnb(tmp_path):
    saver = SqliteSaver(sqlite3.connect(tmp_path / "lg.db", check_same_thread=False))
    langgraph = map_reduce().compile(checkpointer=saver, interrupt_before=["joke"])
    config = thread_config("t")
    langgraph.invoke({"subjects": ["cat", "ox"]}, config)
    graphnb = from_langgraph(map_reduce()).compile(
        checkpointer=MemorySaver(), interrupt_before=["joke"]
    )
    import_langgraph_threads(saver, graphnb.checkpointer, graph=graphnb)
    # The two Send packets waiting in LangGraph's checkpoint are graphnb's next step.
    assert graphnb.get_state("t").next == langgraph.get_state(config).next == ("joke", "joke")
    expected = langgraph.invoke(None, config)
    assert dict(graphnb.invoke(None, thread_id="t")) == expected
    assert expected["jokes"] == ["a cat walks into a bar", "a ox walks into a bar"]


class Steps(TypedDict):
    steps: Annotated[list[str], operator.add]


def _step(name: str) -> Any:
    def node(state: Steps) -> dict[str, Any]:
        return {"steps": [name]}

    node.__name__ = name
    return node


def joined() -> StateGraph:
    graph = StateGraph(Steps)
    for name in ("a", "b", "b2", "merge"):
        graph.add_node(name, _step(name))
    graph.add_edge(START, "a")
    graph.add_edge(START, "b")
    graph.add_edge("b", "b2")
    graph.add_edge(["a", "b2"], "merge")
    graph.add_edge("merge", END)
    return graph


@pytest.mark.parametrize("stop", ["merge", "b2"])
def test_a_thread_paused_before_or_inside_a_join_keeps_its_pending_node(stop):
    # Paused before the join's target, the complete join is the thread's next node (it was
    # lost: the resumed run ended without `merge`); paused inside it, its progress carries.
    langgraph_saver = SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    on_langgraph = joined().compile(checkpointer=langgraph_saver, interrupt_before=[stop])
    config = {"configurable": {"thread_id": "t"}}
    on_langgraph.invoke({"steps": []}, config)
    on_graphnb = from_langgraph(joined()).compile(checkpointer=MemorySaver())
    import_langgraph_threads(langgraph_saver, on_graphnb.checkpointer, graph=on_graphnb)

    assert on_graphnb.get_state("t").next == on_langgraph.get_state(config).next == (stop,)
    history = [s.next for s in reversed(on_graphnb.get_state_history("t"))]
    assert history == [("a", "b"), ("b2",), (stop,)][: len(history)]
    expected = on_langgraph.invoke(None, config)["steps"]
    assert on_graphnb.invoke(None, thread_id="t")["steps"] == expected == ["a", "b", "b2", "merge"]


@pytest.mark.db
def test_a_postgres_source_connects_with_timeouts_and_keepalives(langgraph_postgres):
    # issue 29, item 16: a source whose network silently drops packets hung the import
    # with no timeout; its connection gets the timeouts PostgresSaver's connections get
    from graphnb.checkpoint.postgres import CONNECTION_DEFAULTS
    from graphnb.interop.langgraph_threads import langgraph_checkpointer

    _, url = langgraph_postgres
    reader = langgraph_checkpointer(url + "&keepalives_idle=45")
    try:
        settings = reader.conn.info.get_parameters()
        assert {key: int(settings[key]) for key in CONNECTION_DEFAULTS} == {
            **CONNECTION_DEFAULTS,
            "keepalives_idle": 45,  # what the URL says wins
        }
        assert "search_path" in settings.get("options", ""), "the URL's options stay"
    finally:
        reader.close()
