"""``graphnb serve``'s API driven by LangGraph's own client, ``langgraph-sdk``, sync and async.

The server is the real one, and every test runs on three of them:

- ``sqlite``: uvicorn on a free loopback port, on a thread of this process
  (:func:`graphnb.serve.serving`), its threads, runs and checkpoints in a SQLite file;
- ``postgresql``: the same in a new database of the local PostgreSQL server;
- ``cluster``: two ``graphnb serve --jobs 0`` API processes and three ``graphnb worker``
  processes on a new PostgreSQL database and the local Redis; each test talks to one API
  process, the next test to the other, and the runs execute in the workers.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
langgraph_sdk = pytest.importorskip("langgraph_sdk")

from langgraph_sdk import get_client, get_sync_client  # noqa: E402
from langgraph_sdk.errors import ConflictError, NotFoundError  # noqa: E402

from graphnb.checkpoint import MemorySaver  # noqa: E402
from graphnb.serve import serving  # noqa: E402
from graphnb.serve.runs import jsonable  # noqa: E402

from . import graphs  # noqa: E402
from .cluster import a_cluster, a_database  # noqa: E402


@pytest.fixture(
    scope="module",
    params=[
        "sqlite",
        pytest.param("postgresql", marks=pytest.mark.db),
        pytest.param("cluster", marks=pytest.mark.db),
    ],
)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Iterator[str], str]]:
    """The server's addresses (taken in turn) and its database."""
    where = tmp_path_factory.mktemp("serve")
    kind = "sqlite" if request.param == "sqlite" else "postgresql"
    with a_database(kind, where) as db:
        if request.param == "cluster":
            with a_cluster(db, where) as cluster:
                yield itertools.cycle(cluster.urls), db
            return
        chosen = (graphs.chain, graphs.asker, graphs.sleeper, graphs.journey, graphs.talker)
        served = [g.compile(checkpointer=db) for g in chosen]
        try:
            with serving(served, store=db) as address:
                yield itertools.repeat(address), db
        finally:
            for graph in served:
                graph.checkpointer.close()


@pytest.fixture
def url(server: tuple[Iterator[str], str]) -> str:
    """A server's address: SQLite, PostgreSQL, or one of a cluster's API processes."""
    return next(server[0])


@pytest.fixture
def client(url: str) -> Iterator[Any]:
    with get_sync_client(url=url, api_key=None) as sync_client:
        yield sync_client


def _wait_status(client: Any, thread_id: str, run_id: str, status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        run = client.runs.get(thread_id, run_id)
        if run["status"] == status or time.monotonic() > deadline:
            return dict(run)
        time.sleep(0.02)


def test_assistants_are_the_served_graphs(client: Any) -> None:
    found = client.assistants.search()
    assert sorted(a["graph_id"] for a in found) == [
        "asker",
        "chain",
        "journey",
        "sleeper",
        "talker",
    ]
    by_uuid = client.assistants.get(found[0]["assistant_id"])
    assert by_uuid["graph_id"] == found[0]["graph_id"]
    assert client.assistants.get("chain")["assistant_id"] == next(
        a["assistant_id"] for a in found if a["graph_id"] == "chain"
    )
    drawn = client.assistants.get_graph("chain")
    assert [n["id"] for n in drawn["nodes"]] == ["__start__", "bump", "double", "__end__"]
    assert {(e["source"], e["target"]) for e in drawn["edges"]} == {
        ("__start__", "bump"),
        ("bump", "double"),
        ("double", "__end__"),
    }
    with pytest.raises(NotFoundError, match="no assistant 'nope'"):
        client.assistants.get("nope")


def test_streamed_run_is_the_graphs_own_stream(client: Any) -> None:
    thread = client.threads.create(metadata={"user": "ada"})
    assert thread["status"] == "idle"
    assert thread["values"] == {}
    modes = ["values", "updates", "custom"]
    parts = list(
        client.runs.stream(thread["thread_id"], "chain", input={"count": 3}, stream_mode=modes)
    )
    assert parts[0].event == "metadata"
    assert set(parts[0].data) == {"run_id", "attempt"}
    local = graphs.chain.compile(checkpointer=MemorySaver())
    expected = [
        (mode, jsonable(item))
        for mode, item in local.stream({"count": 3}, mode=modes, thread_id="t")
    ]
    assert [(p.event, p.data) for p in parts[1:]] == expected
    assert expected[-1] == ("values", {"count": 8, "log": ["bump", "double"]})
    run = client.runs.get(thread["thread_id"], parts[0].data["run_id"])
    assert run["status"] == "success"
    shown = client.threads.get(thread["thread_id"])
    assert shown["values"] == {"count": 8, "log": ["bump", "double"]}
    assert shown["metadata"] == {"user": "ada", "graph_id": "chain"}


def test_wait_history_and_update_state(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    assert client.runs.wait(thread_id, "chain", input={"count": 1}) == {
        "count": 4,
        "log": ["bump", "double"],
    }
    history = client.threads.get_history(thread_id)
    assert [h["next"] for h in history] == [[], ["double"], ["bump"]]
    assert history[0]["parent_checkpoint"] == history[1]["checkpoint"]
    page = client.threads.get_history(thread_id, limit=1, before=history[0]["checkpoint"])
    assert [h["checkpoint"] for h in page] == [history[1]["checkpoint"]]
    updated = client.threads.update_state(thread_id, {"count": 10}, as_node="double")
    state = client.threads.get_state(thread_id)
    assert state["checkpoint"] == updated["checkpoint"]
    assert state["values"] == {"count": 10, "log": ["bump", "double"]}
    past = client.threads.get_state(
        thread_id, checkpoint_id=history[1]["checkpoint"]["checkpoint_id"]
    )
    assert past["values"] == {"count": 2, "log": ["bump"]}
    assert past["next"] == ["double"]


def test_interrupt_answered_with_a_command(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    asked = client.runs.wait(thread_id, "asker", input={})
    question = {"question": "what is your name?"}
    assert asked["__interrupt__"][0]["value"] == question
    thread = client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    state = client.threads.get_state(thread_id)
    assert state["next"] == ["ask"]
    assert [i["value"] for i in state["interrupts"]] == [question]
    answered = list(
        client.runs.stream(thread_id, "asker", command={"resume": "Ada"}, stream_mode="updates")
    )
    assert [p.data for p in answered[1:]] == [{"ask": {"name": "Ada", "greeting": "Hello, Ada!"}}]
    assert client.threads.get(thread_id)["status"] == "idle"
    runs = client.runs.list(thread_id)
    assert [r["status"] for r in runs] == ["success", "interrupted"]


def test_background_run_join_and_busy_thread_is_refused(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    run = client.runs.create(thread_id, "sleeper", input={"count": 3})  # 0.3 s
    assert run["status"] in ("pending", "running")
    with pytest.raises(ConflictError, match="busy"):
        client.runs.create(thread_id, "sleeper", input={"count": 1})
    assert client.threads.get(thread_id)["status"] == "busy"
    assert client.runs.join(thread_id, run["run_id"]) == {"count": 4, "log": []}
    assert client.runs.get(thread_id, run["run_id"])["status"] == "success"
    assert client.runs.join(thread_id, run["run_id"]) == {"count": 4, "log": []}  # ended


def test_cancel_stops_the_run_and_frees_the_thread(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    run = client.runs.create(thread_id, "sleeper", input={"count": 600})  # 60 s
    _wait_status(client, thread_id, run["run_id"], "running")
    started = time.monotonic()
    client.runs.cancel(thread_id, run["run_id"], wait=True)
    assert time.monotonic() - started < 5
    assert client.runs.get(thread_id, run["run_id"])["status"] == "interrupted"
    assert client.threads.get(thread_id)["status"] != "busy"
    with pytest.raises(ConflictError, match="not running"):
        client.runs.cancel(thread_id, run["run_id"])
    # the thread's lock was released: the next run goes
    assert client.runs.wait(thread_id, "sleeper", input={"count": 1})["count"] == 2


def test_thread_search_and_delete(client: Any) -> None:
    thread_id = client.threads.create(metadata={"team": "blue"})["thread_id"]
    client.runs.wait(thread_id, "chain", input={"count": 0})
    found = client.threads.search(metadata={"team": "blue"})
    assert [t["thread_id"] for t in found] == [thread_id]
    with pytest.raises(ConflictError, match="already exists"):
        client.threads.create(thread_id=thread_id)
    client.threads.delete(thread_id)
    with pytest.raises(NotFoundError, match=thread_id):
        client.threads.get(thread_id)
    assert client.threads.search(metadata={"team": "blue"}) == []


def test_threads_are_counted_and_copied(client: Any) -> None:
    team = f"team-{time.monotonic_ns()}"
    before = client.threads.count()
    thread_id = client.threads.create(metadata={"team": team})["thread_id"]
    client.runs.wait(thread_id, "chain", input={"count": 1})
    assert client.threads.count() == before + 1
    assert client.threads.count(metadata={"team": team}) == 1
    assert client.threads.count(metadata={"team": team}, status="busy") == 0
    copy = client.threads.copy(thread_id)
    assert copy["thread_id"] != thread_id
    assert copy["metadata"] == {"team": team, "graph_id": "chain"}
    assert copy["values"] == {"count": 4, "log": ["bump", "double"]}
    assert client.threads.count(metadata={"team": team}) == 2
    history = client.threads.get_history(thread_id)
    copied = client.threads.get_history(copy["thread_id"])
    assert [h["checkpoint"]["checkpoint_id"] for h in copied] == [
        h["checkpoint"]["checkpoint_id"] for h in history
    ]
    assert [h["values"] for h in copied] == [h["values"] for h in history]
    # the copy runs on its own: the original is left as it was
    assert client.runs.wait(copy["thread_id"], "chain", input={"count": 0})["count"] == 2
    assert client.threads.get_state(thread_id)["values"]["count"] == 4
    with pytest.raises(NotFoundError):
        client.threads.copy("no-such-thread")


def test_threads_are_pruned(client: Any) -> None:
    kept, gone = (client.threads.create()["thread_id"] for _ in range(2))
    for thread_id in (kept, gone):
        client.runs.wait(thread_id, "chain", input={"count": 1})
        client.runs.wait(thread_id, "chain", input={"count": 1})
    before = client.threads.get_state(kept)
    assert len(client.threads.get_history(kept)) == 6
    answer = client.threads.prune([kept, "no-such-thread"], strategy="keep_latest")
    assert answer == {"pruned_count": 1}
    assert [h["checkpoint"] for h in client.threads.get_history(kept)] == [before["checkpoint"]]
    assert client.threads.get_state(kept)["values"] == before["values"]
    assert client.threads.prune([gone]) == {"pruned_count": 1}
    with pytest.raises(NotFoundError):
        client.threads.get(gone)
    assert client.runs.wait(kept, "chain", input={"count": 1})["count"] == 4  # runs on


def test_a_command_updates_and_goes_to_nodes(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    client.runs.wait(thread_id, "chain", input={"count": 1})  # count 4, ended
    # goto runs the node (and on from its edges); update is written before it runs
    answer = client.runs.wait(
        thread_id, "chain", command={"update": {"count": 5}, "goto": "double"}
    )
    assert answer == {"count": 10, "log": ["bump", "double", "double"]}
    parts = list(
        client.runs.stream(thread_id, "chain", command={"goto": ["bump"]}, stream_mode="updates")
    )
    assert [p.data for p in parts[1:]] == [
        {"bump": {"count": 11, "log": ["bump"]}},
        {"double": {"count": 22, "log": ["double"]}},
    ]
    # a Send runs the node on its own input, its update merged into the thread's
    sent = client.runs.wait(
        thread_id, "chain", command={"goto": {"node": "double", "input": {"count": 7}}}
    )
    assert sent == {"count": 14, "log": ["bump", "double", "double", "bump", "double", "double"]}
    # an update alone runs nothing: it is written, as LangGraph's input Command writes it
    assert client.runs.wait(thread_id, "chain", command={"update": [["count", 1]]})["count"] == 1
    # with a resume, the update is there when the asking node runs again
    asker = client.threads.create()["thread_id"]
    client.runs.wait(asker, "asker", input={})
    answered = client.runs.wait(
        asker, "asker", command={"resume": "Ada", "update": {"greeting": "hi"}}
    )
    assert answered == {"name": "Ada", "greeting": "Hello, Ada!"}
    history = client.threads.get_history(asker)
    assert history[1]["values"]["greeting"] == "hi"
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.wait(thread_id, "chain", command={"goto": "ghost"})
    assert refused.value.response.status_code == 422
    assert "ghost" in refused.value.response.json()["detail"]


def test_unserved_routes_and_options_answer_501_naming_them(url: str, client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as stored:
        client.store.put_item(["notes"], "k", {"v": 1})
    assert stored.value.response.status_code == 501
    assert "PUT /store/items" in stored.value.response.json()["detail"]
    answer = httpx.post(
        f"{url}/threads/{thread_id}/runs/wait", json={"assistant_id": "chain", "webhook": "x"}
    )
    assert answer.status_code == 501
    assert "a run's 'webhook'" in answer.json()["detail"]
    answer = httpx.post(
        f"{url}/threads/{thread_id}/runs/wait",
        json={"assistant_id": "chain", "stream_mode": "telepathy"},
    )
    assert answer.status_code == 422
    assert "stream_mode ['telepathy'] is no stream mode" in answer.json()["detail"]


def test_bad_requests_get_json_4xx_naming_the_fault(url: str, client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    runs = f"{url}/threads/{thread_id}/runs/wait"
    answer = httpx.post(runs, content=b"{not json", headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert "not valid JSON" in answer.json()["detail"]
    answer = httpx.post(runs, json=["a", "list"])
    assert (answer.status_code, answer.json()["detail"]) == (
        422,
        "request body must be a JSON object, got list",
    )
    answer = httpx.post(runs, json={"assistant_id": "chain", "inputs": {}})
    assert answer.status_code == 422
    assert "unknown field(s) ['inputs']" in answer.json()["detail"]
    answer = httpx.post(runs, json={"assistant_id": "chain", "input": {"count": "many"}})
    assert answer.status_code == 200
    assert "count" in answer.json()["__error__"]["message"]
    answer = httpx.post(
        runs, content=b" " * (2 << 20), headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413
    assert "over the limit" in answer.json()["detail"]
    answer = httpx.post(f"{url}/threads/nope/runs/wait", json={"assistant_id": "chain"})
    assert (answer.status_code, answer.json()["detail"]) == (
        404,
        "no thread 'nope' (if_not_exists='create' makes it)",
    )
    answer = httpx.post(
        f"{url}/threads/a%7Cb/runs/wait", json={"assistant_id": "chain", "if_not_exists": "create"}
    )
    assert (answer.status_code, answer.json()["detail"]) == (
        422,
        "thread_id must be a string without '|', got 'a|b'",
    )
    answer = httpx.post(runs, json={"assistant_id": "chain", "interrupt_before": ["ghost"]})
    assert answer.status_code == 422
    assert "ghost" in answer.json()["detail"]


def test_async_client_streams_and_waits(url: str) -> None:
    async def main() -> tuple[list[Any], Any, Any]:
        async with get_client(url=url, api_key=None) as client:
            thread = await client.threads.create()
            parts = [
                (p.event, p.data)
                async for p in client.runs.stream(
                    thread["thread_id"], "chain", input={"count": 2}, stream_mode="values"
                )
            ]
            waited = await client.runs.wait(thread["thread_id"], "chain", input={"count": 2})
            state = await client.threads.get_state(thread["thread_id"])
            return parts, waited, state

    parts, waited, state = asyncio.run(main())
    assert [data for event, data in parts if event == "values"] == [
        {"count": 2, "log": []},
        {"count": 3, "log": ["bump"]},
        {"count": 6, "log": ["bump", "double"]},
    ]
    assert waited == {"count": 6, "log": ["bump", "double", "bump", "double"]}
    assert state["values"] == waited


def test_a_token_is_required_when_given(tmp_path: Path) -> None:
    served = [graphs.chain.compile(checkpointer=MemorySaver())]
    with serving(served, auth_token="s3cret") as address:
        refused = httpx.post(f"{address}/assistants/search", json={})
        assert refused.status_code == 401
        assert "x-api-key" in refused.json()["detail"]
        with (
            get_sync_client(url=address, api_key="guess") as wrong,
            pytest.raises(httpx.HTTPStatusError),
        ):
            wrong.assistants.search()
        with get_sync_client(url=address, api_key="s3cret") as right:
            assert [a["graph_id"] for a in right.assistants.search()] == ["chain"]


def test_a_stream_client_that_leaves_cancels_its_run(url: str, client: Any) -> None:
    async def leave_early(on_disconnect: str) -> str:
        async with get_client(url=url, api_key=None) as aclient:
            thread = await aclient.threads.create()
            async for part in aclient.runs.stream(
                thread["thread_id"],
                "sleeper",
                input={"count": 600},  # 60 s
                on_disconnect=on_disconnect,
            ):
                assert part.event == "metadata"
                return f"{thread['thread_id']} {part.data['run_id']}"
        raise AssertionError("no metadata part")

    thread_id, run_id = asyncio.run(leave_early("cancel")).split()
    assert _wait_status(client, thread_id, run_id, "interrupted")["status"] == "interrupted"
    thread_id, run_id = asyncio.run(leave_early("continue")).split()
    time.sleep(0.3)
    assert client.runs.get(thread_id, run_id)["status"] == "running"
    client.runs.cancel(thread_id, run_id, wait=True)


def test_enqueued_runs_wait_their_turn(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    first = client.runs.create(thread_id, "sleeper", input={"count": 3})  # 0.3 s
    second = client.runs.create(
        thread_id, "sleeper", input={"count": 1}, multitask_strategy="enqueue"
    )
    assert client.runs.get(thread_id, second["run_id"])["status"] == "pending"
    third = client.runs.create(
        thread_id, "sleeper", input={"count": 1}, multitask_strategy="enqueue"
    )
    client.runs.cancel(thread_id, third["run_id"])  # a queued run is dropped, never run
    assert client.runs.join(thread_id, second["run_id"]) == {"count": 2, "log": []}
    runs = {r["run_id"]: r for r in client.runs.list(thread_id)}
    assert runs[first["run_id"]]["status"] == "success"
    assert runs[second["run_id"]]["status"] == "success"
    assert runs[third["run_id"]]["status"] == "interrupted"
    assert runs[second["run_id"]]["multitask_strategy"] == "enqueue"
    # the first run ended before the second started: both steps are in the history
    assert [h["values"]["count"] for h in client.threads.get_history(thread_id)][:2] == [2, 1]


def test_interrupt_strategy_cancels_the_active_run(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    first = client.runs.create(thread_id, "sleeper", input={"count": 600})  # 60 s
    _wait_status(client, thread_id, first["run_id"], "running")
    started = time.monotonic()
    answer = client.runs.wait(
        thread_id, "sleeper", input={"count": 1}, multitask_strategy="interrupt"
    )
    assert answer == {"count": 2, "log": []}
    assert time.monotonic() - started < 5
    assert client.runs.get(thread_id, first["run_id"])["status"] == "interrupted"


def test_rollback_forgets_the_active_run_and_its_checkpoints(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    client.runs.wait(thread_id, "sleeper", input={"count": 1})
    kept = [h["checkpoint"] for h in client.threads.get_history(thread_id)]
    first = client.runs.create(thread_id, "sleeper", input={"count": 600})  # 60 s
    _wait_status(client, thread_id, first["run_id"], "running")
    queued = client.runs.create(
        thread_id, "sleeper", input={"count": 700}, multitask_strategy="enqueue"
    )
    started = time.monotonic()
    answer = client.runs.wait(
        thread_id, "sleeper", input={"count": 1}, multitask_strategy="rollback"
    )
    assert answer == {"count": 2, "log": []}
    assert time.monotonic() - started < 5
    for gone in (first, queued):
        with pytest.raises(NotFoundError):
            client.runs.get(thread_id, gone["run_id"])
    history = client.threads.get_history(thread_id)
    assert [h["checkpoint"] for h in history][-len(kept) :] == kept
    assert all(h["values"]["count"] < 600 for h in history), "the rolled-back input is gone"
    assert [r["multitask_strategy"] for r in client.runs.list(thread_id)] == ["rollback", "reject"]
    # cancel(action="rollback"): the same for one run
    kept = [h["checkpoint"] for h in history]
    second = client.runs.create(thread_id, "sleeper", input={"count": 600})
    _wait_status(client, thread_id, second["run_id"], "running")
    client.runs.cancel(thread_id, second["run_id"], wait=True, action="rollback")
    with pytest.raises(NotFoundError):
        client.runs.get(thread_id, second["run_id"])
    assert [h["checkpoint"] for h in client.threads.get_history(thread_id)] == kept
    assert client.threads.get(thread_id)["status"] == "idle"
    assert client.threads.get_state(thread_id)["values"] == answer


def test_a_dropped_stream_gets_the_rest_after_its_last_event_id(url: str, client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    modes = ["values", "updates"]
    whole = list(  # warnings are errors here: a reconnect without an id would warn
        client.runs.stream(
            thread_id, "chain", input={"count": 1}, stream_mode=modes, stream_resumable=True
        )
    )
    run_id = whole[0].data["run_id"]
    assert [p.id for p in whole] == [str(i) for i in range(len(whole))]
    rest = list(client.runs.join_stream(thread_id, run_id, last_event_id="2"))
    assert [(p.event, p.data) for p in rest] == [(p.event, p.data) for p in whole[3:]]
    only_updates = list(
        client.runs.join_stream(thread_id, run_id, last_event_id="0", stream_mode="updates")
    )
    assert [p.event for p in only_updates] == ["updates", "updates"]
    # joined without an id, an ended run has nothing more to send
    assert list(client.runs.join_stream(thread_id, run_id)) == []
    answer = httpx.get(
        f"{url}/threads/{thread_id}/runs/{run_id}/stream", headers={"Last-Event-ID": "x"}
    )
    assert answer.status_code == 422
    assert "Last-Event-ID must be a part's number" in answer.json()["detail"]


def test_threadless_runs_leave_no_thread_unless_kept(client: Any) -> None:
    before = {t["thread_id"] for t in client.threads.search(limit=1000)}
    assert client.runs.wait(None, "chain", input={"count": 1}) == {
        "count": 4,
        "log": ["bump", "double"],
    }
    parts = list(client.runs.stream(None, "chain", input={"count": 2}, stream_mode="updates"))
    assert [p.event for p in parts] == ["metadata", "updates", "updates"]
    deadline = time.monotonic() + 5
    while {t["thread_id"] for t in client.threads.search(limit=1000)} != before:
        assert time.monotonic() < deadline, "a threadless run's thread was not deleted"
        time.sleep(0.02)
    kept = client.runs.create(None, "chain", input={"count": 0}, on_completion="keep")
    assert client.runs.join(kept["thread_id"], kept["run_id"])["count"] == 2
    assert client.threads.get(kept["thread_id"])["values"]["count"] == 2


def test_thread_metadata_is_merged_by_update(client: Any) -> None:
    thread_id = client.threads.create(metadata={"team": "red", "n": 1})["thread_id"]
    updated = client.threads.update(thread_id, metadata={"n": 2})
    assert updated["metadata"] == {"team": "red", "n": 2}
    assert client.threads.get(thread_id)["metadata"] == {"team": "red", "n": 2}


def test_durability_exit_stores_the_run_once(client: Any) -> None:
    stepwise, at_exit = (client.threads.create()["thread_id"] for _ in range(2))
    client.runs.wait(stepwise, "chain", input={"count": 1}, durability="sync")
    client.runs.wait(at_exit, "chain", input={"count": 1}, durability="exit")
    assert len(client.threads.get_history(at_exit)) < len(client.threads.get_history(stepwise))
    assert client.threads.get_state(at_exit)["values"] == {"count": 4, "log": ["bump", "double"]}


def test_a_served_thread_opens_in_python_on_the_same_database(
    client: Any, server: tuple[Iterator[str], str]
) -> None:
    """Debugging a served thread from the notebook: the same graph on the same database."""
    thread = client.threads.create()
    client.runs.wait(thread["thread_id"], "asker", input={"name": "Ada"})
    served_state = client.threads.get_state(thread["thread_id"])
    app = graphs.asker.compile(checkpointer=server[1])
    try:
        snapshot = app.get_state(thread["thread_id"])
        assert jsonable(snapshot.values) == served_state["values"]
        assert snapshot.checkpoint_id == served_state["checkpoint"]["checkpoint_id"]
        assert [i.value for i in snapshot.interrupts] == [
            i["value"] for i in served_state["interrupts"]
        ]
        assert snapshot.interrupts, "the run waits for the name"
    finally:
        app.checkpointer.close()


def _user(headers: Any) -> str:
    """The serving tests' auth hook: ``Authorization: Bearer NAME`` is user NAME."""
    scheme, _, name = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not name:
        raise LookupError("send Authorization: Bearer NAME")
    if name == "mallory":
        raise PermissionError("mallory is banned")
    return name


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.db)])
def users_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A server whose auth hook is :func:`_user`."""
    with a_database(request.param, tmp_path_factory.mktemp("users")) as db:
        served = [graphs.chain.compile(checkpointer=db)]
        try:
            with serving(served, store=db, auth=_user) as address:
                yield address
        finally:
            served[0].checkpointer.close()


def test_users_see_and_touch_only_their_own_threads(users_url: str) -> None:
    def as_user(name: str) -> Any:
        return get_sync_client(
            url=users_url, api_key=None, headers={"Authorization": f"Bearer {name}"}
        )

    with as_user("ada") as ada, as_user("bob") as bob:
        mine = ada.threads.create(metadata={"topic": "maths"})
        assert mine["metadata"] == {"topic": "maths", "owner": "ada"}
        run = ada.runs.create(mine["thread_id"], "chain", input={"count": 1})
        assert ada.runs.join(mine["thread_id"], run["run_id"])["count"] == 4
        theirs = bob.threads.create()["thread_id"]
        assert bob.runs.wait(None, "chain", input={"count": 0}, on_completion="keep")
        thread_id = mine["thread_id"]
        for call in (
            lambda: bob.threads.get(thread_id),
            lambda: bob.threads.get_state(thread_id),
            lambda: bob.threads.get_history(thread_id),
            lambda: bob.threads.update(thread_id, metadata={"topic": "mine now"}),
            lambda: bob.threads.update_state(thread_id, {"count": 0}),
            lambda: bob.threads.copy(thread_id),
            lambda: bob.threads.delete(thread_id),
            lambda: bob.runs.list(thread_id),
            lambda: bob.runs.get(thread_id, run["run_id"]),
            lambda: bob.runs.join(thread_id, run["run_id"]),
            lambda: bob.runs.cancel(thread_id, run["run_id"]),
            lambda: bob.runs.wait(thread_id, "chain", input={"count": 0}),
        ):
            with pytest.raises(httpx.HTTPStatusError) as hidden:  # the sdk's, or httpx's
                call()
            assert hidden.value.response.status_code == 404
            assert hidden.value.response.json() == {"detail": f"no thread {thread_id!r}"}
        assert [t["thread_id"] for t in ada.threads.search()] == [thread_id]
        assert ada.threads.count() == 1
        assert bob.threads.count() == 2
        assert theirs in {t["thread_id"] for t in bob.threads.search()}
        copied = ada.threads.copy(thread_id)
        assert copied["metadata"]["owner"] == "ada"
        with pytest.raises(httpx.HTTPStatusError) as taken:
            bob.threads.create(metadata={"owner": "ada"})
        assert taken.value.response.status_code == 403
        with pytest.raises(httpx.HTTPStatusError) as taken:
            bob.threads.update(theirs, metadata={"owner": "ada"})
        assert taken.value.response.status_code == 403
        assert ada.threads.get_state(thread_id)["values"]["count"] == 4  # untouched

    async def as_async_user() -> list[str]:
        headers = {"Authorization": "Bearer ada"}
        async with get_client(url=users_url, api_key=None, headers=headers) as client:
            return [t["thread_id"] async for t in _aiter(await client.threads.search())]

    assert sorted(asyncio.run(as_async_user())) == sorted([thread_id, copied["thread_id"]])
    nobody = httpx.post(f"{users_url}/threads/search", json={})
    assert (nobody.status_code, nobody.json()) == (
        401,
        {"detail": "unauthorized: send Authorization: Bearer NAME"},
    )
    banned = httpx.post(
        f"{users_url}/threads/search", json={}, headers={"Authorization": "Bearer mallory"}
    )
    assert (banned.status_code, banned.json()) == (403, {"detail": "forbidden: mallory is banned"})


async def _aiter(items: list[Any]) -> Any:
    for item in items:
        yield item


def test_messages_as_langgraphs_server_folds_them(url: str, client: Any) -> None:
    """A streamed field's pieces are a message's chunks; a whole Message written is one."""
    thread_id = client.threads.create()["thread_id"]
    parts = [
        (p.event, p.data)
        for p in client.runs.stream(thread_id, "talker", input={}, stream_mode="messages")
    ]
    assert [event for event, _ in parts] == [
        "metadata",
        "messages/metadata",
        "messages/partial",
        "messages/partial",
        "messages/partial",
        "messages/metadata",
        "messages/complete",
    ]
    streamed_id = next(iter(parts[1][1]))
    assert parts[1][1][streamed_id]["metadata"]["langgraph_node"] == "speak"
    partial = [data[0] for event, data in parts if event == "messages/partial"]
    assert [m["content"] for m in partial] == ["Hel", "Hello", "Hello!"]
    assert {m["id"] for m in partial} == {streamed_id}
    assert {m["type"] for m in partial} == {"ai"}
    whole = parts[6][1][0]
    assert (whole["type"], whole["content"]) == ("ai", "said Hello!")
    assert parts[5][1][whole["id"]]["metadata"]["langgraph_node"] == "note"

    async def tuples() -> list[tuple[str, Any]]:
        async with get_client(url=url, api_key=None) as aclient:
            return [
                (p.event, p.data)
                async for p in aclient.runs.stream(
                    thread_id, "talker", input={}, stream_mode="messages-tuple"
                )
            ]

    pairs = asyncio.run(tuples())
    assert [event for event, _ in pairs] == ["metadata"] + ["messages"] * 4
    chunks = [data for _, data in pairs[1:]]
    assert [(m["type"], m["content"]) for m, _ in chunks] == [
        ("AIMessageChunk", "Hel"),
        ("AIMessageChunk", "lo"),
        ("AIMessageChunk", "!"),
        ("ai", "said Hello!"),
    ]
    assert [meta["langgraph_node"] for _, meta in chunks] == ["speak"] * 3 + ["note"]
    assert all(meta["thread_id"] == thread_id for _, meta in chunks)


def test_tasks_checkpoints_debug_and_events_modes(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    modes = ["tasks", "checkpoints", "debug", "events"]
    parts = list(client.runs.stream(thread_id, "chain", input={"count": 1}, stream_mode=modes))
    run_id = parts[0].data["run_id"]
    by_mode: dict[str, list[Any]] = {}
    for part in parts[1:]:
        by_mode.setdefault(part.event, []).append(part.data)
    tasks = by_mode["tasks"]
    assert [(t["name"], "input" in t) for t in tasks] == [
        ("bump", True),
        ("bump", False),
        ("double", True),
        ("double", False),
    ]
    assert tasks[0]["id"] == tasks[1]["id"] != tasks[2]["id"]
    assert tasks[0]["input"] == {"count": 1, "log": []}
    assert tasks[1]["result"] == [["count", 2], ["log", ["bump"]]]
    assert tasks[1]["error"] is None
    # every checkpoint the run stored, oldest first, as the thread's history has them
    history = client.threads.get_history(thread_id)
    checkpoints = by_mode["checkpoints"]
    assert [c["config"]["configurable"]["checkpoint_id"] for c in checkpoints] == [
        h["checkpoint"]["checkpoint_id"] for h in reversed(history)
    ]
    assert [c["next"] for c in checkpoints] == [["bump"], ["double"], []]
    assert checkpoints[1]["values"] == {"count": 2, "log": ["bump"]}
    assert checkpoints[1]["parent_config"] == checkpoints[0]["config"]
    assert checkpoints[1]["tasks"][0]["id"] == tasks[2]["id"]  # the task it says comes next
    debug = by_mode["debug"]
    assert [d["type"] for d in debug] == [
        "checkpoint",
        "task",
        "task_result",
        "checkpoint",
        "task",
        "task_result",
        "checkpoint",
    ]
    assert [d["payload"] for d in debug if d["type"] != "checkpoint"] == tasks
    events = [(e["event"], e["name"]) for e in by_mode["events"]]
    assert events == [
        ("on_chain_start", "chain"),
        ("on_chain_start", "bump"),
        ("on_custom_event", "custom"),
        ("on_chain_stream", "bump"),
        ("on_chain_end", "bump"),
        ("on_chain_start", "double"),
        ("on_chain_stream", "double"),
        ("on_chain_end", "double"),
        ("on_chain_end", "chain"),
    ]
    assert by_mode["events"][0]["run_id"] == run_id
    assert by_mode["events"][-1]["data"]["output"] == {"count": 4, "log": ["bump", "double"]}
    # a node that asks: its task ends with the interrupt, the checkpoint says it waits
    asker = client.threads.create()["thread_id"]
    asked = list(client.runs.stream(asker, "asker", input={}, stream_mode=["tasks", "checkpoints"]))
    ended = [p.data for p in asked if p.event == "tasks" and "interrupts" in p.data]
    assert ended[-1]["interrupts"][0]["value"] == {"question": "what is your name?"}
    last = [p.data for p in asked if p.event == "checkpoints"][-1]
    assert last["next"] == ["ask"]
    assert last["tasks"][0]["interrupts"][0]["value"] == {"question": "what is your name?"}
    # joined later with one mode, a run's stream keeps that mode's parts only
    again = list(client.runs.join_stream(thread_id, run_id, last_event_id="0", stream_mode="tasks"))
    assert [p.data for p in again] == tasks


def test_assistant_schemas_are_the_graphs_types(client: Any) -> None:
    schemas = client.assistants.get_schemas("chain")
    assert schemas["graph_id"] == "chain"
    assert sorted(schemas["state_schema"]["properties"]) == ["count", "log"]
    assert schemas["state_schema"]["properties"]["count"]["type"] == "integer"
    assert schemas["input_schema"] == schemas["output_schema"] == schemas["state_schema"]
    assert schemas["context_schema"] is None
    talker = client.assistants.get_schemas("talker")["state_schema"]
    assert "Message" in talker["$defs"]


def test_assistant_schemas_name_the_input_and_output_fields() -> None:
    from typing import TypedDict

    class Asked(TypedDict):
        count: int

    class Told(TypedDict):
        log: list[str]

    graph = graphs.StateGraph(graphs.Counter, name="narrow", input_schema=Asked, output_schema=Told)
    graph.add_node("bump", graphs.bump).add_edge(graphs.START, "bump").add_edge("bump", graphs.END)
    with (
        serving([graph.compile(checkpointer=MemorySaver())]) as address,
        get_sync_client(url=address, api_key=None) as client,
    ):
        schemas = client.assistants.get_schemas("narrow")
    assert list(schemas["input_schema"]["properties"]) == ["count"]
    assert list(schemas["output_schema"]["properties"]) == ["log"]
    assert sorted(schemas["state_schema"]["properties"]) == ["count", "log"]


def test_a_batch_of_runs_starts_only_when_every_run_is_sound(client: Any) -> None:
    thread_id = client.threads.create()["thread_id"]
    before = client.threads.count()
    runs = client.runs.create_batch(
        [
            {"assistant_id": "chain", "input": {"count": 1}, "on_completion": "keep"},
            {"assistant_id": "chain", "input": {"count": 2}, "thread_id": thread_id},
        ]
    )
    assert len(runs) == 2
    assert runs[1]["thread_id"] == thread_id
    assert client.runs.join(runs[0]["thread_id"], runs[0]["run_id"])["count"] == 4
    assert client.runs.join(thread_id, runs[1]["run_id"])["count"] == 6
    assert client.threads.count() == before + 1  # the kept threadless run's thread
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.create_batch(
            [
                {"assistant_id": "chain", "input": {"count": 1}, "on_completion": "keep"},
                {"assistant_id": "ghost"},
            ]
        )
    assert refused.value.response.status_code == 404
    assert "no assistant 'ghost'" in refused.value.response.json()["detail"]
    assert client.threads.count() == before + 1, "a refused batch starts no run"
    url = str(client.http.client.base_url).rstrip("/")
    answer = httpx.post(f"{url}/runs/wait", json={"assistant_id": "chain", "stream_mode": "x"})
    assert answer.status_code == 422
    assert client.threads.count() == before + 1, "a refused threadless run makes no thread"
