"""Builder.connect: a served graph's threads in the debugger, read through langgraph-sdk.

A real server (:func:`graphnb.serve.serving` on loopback, its store a SQLite file) serves
a graph whose node asks with ``interrupt()``; the builder is driven through its comm as
the front end's panels drive it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph_sdk")

from graphnb import END, START, GraphState, StateGraph, interrupt
from graphnb.serve import serving
from graphnb.widget import Builder
from graphnb.widget.remote import RemoteError


class Greeting(GraphState):
    name: str = ""
    greeting: str = ""


def ask(state: Greeting) -> dict[str, str]:
    name = interrupt({"question": "what is your name?"})
    return {"name": name}


def greet(state: Greeting) -> dict[str, str]:
    return {"greeting": f"Hello, {state.name}!"}


graph = (
    StateGraph(Greeting, name="asker")
    .add_node("ask", ask)
    .add_node("greet", greet)
    .add_edge(START, "ask")
    .add_edge("ask", "greet")
    .add_edge("greet", END)
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    db = f"sqlite:///{tmp_path_factory.mktemp('connect') / 'threads.db'}"
    app = graph.compile(checkpointer=db)
    try:
        with serving({"asker": app}, store=db) as url:
            from langgraph_sdk import get_sync_client

            client = get_sync_client(url=url, api_key=None)
            yield url, client
            client.http.client.close()
    finally:
        app.checkpointer.close()


def asked_thread(client: Any) -> str:
    thread_id: str = client.threads.create()["thread_id"]
    client.runs.wait(thread_id, "asker", input={})
    return thread_id


def test_connect_lists_served_threads_and_their_history(comm, served):
    url, client = served
    thread_id = asked_thread(client)
    builder = Builder.connect(url, assistant="asker")
    assert [n.id for n in builder.spec.nodes] == ["ask", "greet"]  # the server's drawing
    assert builder.saves_threads
    assert builder.saver == url
    page = comm.receive({"type": "debug_threads", "search": "", "limit": 50, "after": None})
    assert page["error"] is None
    mine = [t for t in page["items"] if t["thread_id"] == thread_id]
    assert len(mine) == 1
    assert mine[0]["status"] == "interrupted"
    history = comm.receive(
        {"type": "debug_history", "thread_id": thread_id, "limit": 10, "before": None}
    )
    assert history["error"] is None
    newest = history["items"][0]
    assert newest["next"] == ["ask"]
    assert newest["interrupts"][0]["value"] == {"question": "what is your name?"}
    # Picking a thread that waits shows its answer form (the paused trait), as after a run.
    assert builder.paused["thread_id"] == thread_id
    assert builder.paused["interrupts"][0]["value"] == {"question": "what is your name?"}
    assert (
        newest["checkpoint_id"]
        == client.threads.get_state(thread_id)["checkpoint"]["checkpoint_id"]
    )
    builder.close()


def test_time_travel_fork_and_answer_an_interrupt_on_the_server(comm, served):
    url, client = served
    thread_id = asked_thread(client)
    builder = Builder.connect(url, graph, assistant="asker")
    history = comm.receive(
        {"type": "debug_history", "thread_id": thread_id, "limit": 10, "before": None}
    )["items"]
    oldest = history[-1]
    shown = comm.receive(
        {"type": "debug_show", "thread_id": thread_id, "checkpoint_id": oldest["checkpoint_id"]}
    )
    assert shown["error"] is None
    assert shown["checkpoint_id"] == oldest["checkpoint_id"]
    assert builder.run_state["id"] == f"checkpoint:{oldest['checkpoint_id']}"

    fork = comm.receive(
        {
            "type": "debug_fork",
            "thread_id": thread_id,
            "checkpoint_id": history[0]["checkpoint_id"],
            "values": {"name": "forked"},
            "as_node": "",
        }
    )
    assert fork["error"] is None
    state = client.threads.get_state(thread_id)
    assert state["checkpoint"]["checkpoint_id"] == fork["checkpoint_id"]
    assert state["values"]["name"] == "forked"

    other = asked_thread(client)
    pending = client.threads.get_state(other)["interrupts"][0]["id"]
    done = comm.receive({"type": "debug_resume", "thread_id": other, "answers": {pending: "Ada"}})
    assert done["error"] is None, done
    assert client.threads.get_state(other)["values"]["greeting"] == "Hello, Ada!"
    assert client.threads.get(other)["status"] == "idle"
    assert builder.paused == {}
    builder.close()


def test_rerun_of_a_served_thread_says_where_runs_happen(comm, served):
    url, client = served
    thread_id = asked_thread(client)
    builder = Builder.connect(url, assistant="asker")
    state = client.threads.get_state(thread_id)
    reply = comm.receive(
        {
            "type": "debug_rerun",
            "thread_id": thread_id,
            "checkpoint_id": state["checkpoint"]["checkpoint_id"],
        }
    )
    assert url in reply["error"]
    assert "Rerun" in reply["error"]
    builder.close()


def test_errors_name_the_url_and_what_was_expected(served):
    url, _ = served
    with pytest.raises(RemoteError, match=r"knows no assistant 'nope'.*it serves: 'asker'"):
        Builder.connect(url, assistant="nope")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = f"http://127.0.0.1:{port}"
    with pytest.raises(RemoteError, match=rf"no graph server answers at {down}"):
        Builder.connect(down)


def test_a_refused_key_is_named(tmp_path: Path):
    app = graph.compile(checkpointer=f"sqlite:///{tmp_path / 'auth.db'}")
    with app.checkpointer, serving({"asker": app}, auth_token="s3cret") as url:
        with pytest.raises(RemoteError, match=rf"{url} refused .*\(401\).*API key"):
            Builder.connect(url, assistant="asker", api_key="wrong")
        builder = Builder.connect(url, assistant="asker", api_key="s3cret")
        assert builder.saver == url
        builder.close()
