"""Faults of a served cluster: a worker killed mid-run, a dropped stream, a restarted API.

Each test starts its own cluster (real ``graphnb serve --broker`` and ``graphnb worker``
processes on a new PostgreSQL database and the local Redis) and breaks it as a machine
would: ``kill -9``, a connection closed mid-stream. The graph is ``journey``: six async
steps of 0.4 s, each appending ``"step pid"`` to a journal file, so the test can tell
what ran, where, and how many times.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("procrastinate")
langgraph_sdk = pytest.importorskip("langgraph_sdk")

from langgraph_sdk import get_sync_client  # noqa: E402

from .cluster import Cluster, a_cluster, a_database  # noqa: E402

pytestmark = [pytest.mark.db, pytest.mark.timeout(240)]

LEGS = ["one", "two", "three", "four", "five", "six"]


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    with a_database("postgresql", tmp_path) as db:
        yield db


def _journal(path: Path) -> list[tuple[str, int]]:
    if not path.exists():
        return []
    return [
        (leg, int(pid))
        for leg, pid in (line.split() for line in path.read_text().split("\n") if line)
    ]


def _wait_for(predicate: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_killed_workers_run_goes_on_in_another_from_its_last_checkpoint(
    database: str, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.txt"
    with (
        a_cluster(database, tmp_path, apis=1, workers=2) as cluster,
        get_sync_client(url=cluster.urls[0], api_key=None) as client,
    ):
        thread_id = client.threads.create()["thread_id"]
        parts = client.runs.stream(
            thread_id,
            "journey",
            input={"journal": str(journal)},
            stream_mode="updates",
            on_disconnect="continue",
        )
        seen = [next(parts)]  # metadata
        run_id = seen[0].data["run_id"]
        _wait_for(lambda: len(_journal(journal)) >= 2, "two steps")
        pid = _journal(journal)[0][1]
        victim = next(w for w in cluster.workers if w.pid == pid)
        cluster.kill(victim)
        killed_at = len(_journal(journal))
        seen += list(parts)

        events = [(p.event, p.data) for p in seen]
        metadata = [data for event, data in events if event == "metadata"]
        assert metadata == [
            {"run_id": run_id, "attempt": 1},
            {"run_id": run_id, "attempt": 2},
        ], "the stream says the run was taken over"
        assert "error" not in [event for event, _ in events]
        takeover = [event for event, _ in events].index("metadata", 1)
        before, after = (
            [next(iter(d)) for e, d in part if e == "updates"]
            for part in (events[:takeover], events[takeover:])
        )
        # the step in flight at the kill may have streamed its update before its checkpoint
        # was written: the new attempt runs it again, and says so again
        if before and after and before[-1] == after[0]:
            after = after[1:]
        assert before + after == LEGS, "the client saw every step's update, in order"
        run = client.runs.get(thread_id, run_id)
        assert run["status"] == "success"
        state = client.threads.get_state(thread_id)
        assert state["values"]["visited"] == LEGS, "every step's update, each once"

    entries = _journal(journal)
    ran = Counter(leg for leg, _ in entries)
    assert set(ran) == set(LEGS)
    # the steps a checkpoint covered before the kill ran once; at most the one in flight
    # at the kill ran twice (its effect had no checkpoint yet)
    assert sum(count - 1 for count in ran.values()) <= 1
    assert all(ran[leg] == 1 for leg, _ in entries[: killed_at - 1])
    survivor = {p for _, p in entries[killed_at:]}
    assert survivor, "steps ran after the kill"
    assert pid not in survivor, "the rest ran in another worker"


def test_a_dropped_stream_gets_the_rest_from_another_api_process(
    database: str, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.txt"
    with a_cluster(database, tmp_path, apis=2, workers=1) as cluster:
        first, second = cluster.urls
        with get_sync_client(url=first, api_key=None) as client:
            thread_id = client.threads.create()["thread_id"]
        body = {
            "assistant_id": "journey",
            "input": {"journal": str(journal)},
            "stream_mode": ["updates"],
            "on_disconnect": "continue",
        }
        got: list[tuple[str, str, str]] = []
        with httpx.stream(
            "POST", f"{first}/threads/{thread_id}/runs/stream", json=body, timeout=30
        ) as response:
            assert response.status_code == 200
            run_path = response.headers["content-location"]
            fields: dict[str, str] = {}
            for line in response.iter_lines():  # two parts, then the connection drops
                if line:
                    name, _, value = line.partition(": ")
                    fields[name] = value
                    continue
                got.append((fields["id"], fields["event"], fields["data"]))
                fields = {}
                if len(got) == 2:
                    break
        assert [e for _, e, _ in got] == ["metadata", "updates"]
        with get_sync_client(url=second, api_key=None) as client:
            run_id = run_path.rsplit("/", 1)[1]
            rest = list(client.runs.join_stream(thread_id, run_id, last_event_id=got[-1][0]))
            assert [p.event for p in rest] == ["updates"] * 5
            ids = [int(i) for i, _, _ in got] + [int(str(p.id)) for p in rest]
            assert ids == list(range(7)), "every part once, in order, none lost"
            updates = [next(iter(p.data)) for p in rest]
            assert updates == LEGS[1:]
            assert client.runs.get(thread_id, run_id)["status"] == "success"


def test_queued_runs_survive_a_restart_of_the_api_and_wait_for_a_worker(
    database: str, tmp_path: Path
) -> None:
    cluster = Cluster(database, tmp_path)
    try:
        url, api = cluster.start_api("api-0")
        runs: list[tuple[str, str]] = []
        with get_sync_client(url=url, api_key=None) as client:
            for index in range(3):
                thread_id = client.threads.create()["thread_id"]
                journal = str(tmp_path / f"journal-{index}.txt")
                run = client.runs.create(thread_id, "journey", input={"journal": journal})
                runs.append((thread_id, run["run_id"]))
            assert {client.runs.get(*r)["status"] for r in runs} == {"pending"}, "no worker yet"
        cluster.kill(api)  # kill -9 with three runs queued and no worker
        url, _ = cluster.start_api("api-1")
        cluster.start_worker()
        with get_sync_client(url=url, api_key=None) as client:
            for thread_id, run_id in runs:
                values = client.runs.join(thread_id, run_id)
                assert values["visited"] == LEGS
                assert client.runs.get(thread_id, run_id)["status"] == "success"
    finally:
        cluster.stop()
    for index in range(3):
        assert [leg for leg, _ in _journal(tmp_path / f"journal-{index}.txt")] == LEGS


def test_cancel_reaches_the_worker_running_the_run(database: str, tmp_path: Path) -> None:
    journal = tmp_path / "journal.txt"
    with a_cluster(database, tmp_path, apis=2, workers=2) as cluster:
        first, second = cluster.urls
        with get_sync_client(url=first, api_key=None) as client:
            thread_id = client.threads.create()["thread_id"]
            run = client.runs.create(thread_id, "journey", input={"journal": str(journal)})
        _wait_for(lambda: len(_journal(journal)) >= 1, "the first step")
        with get_sync_client(url=second, api_key=None) as client:
            client.runs.cancel(thread_id, run["run_id"], wait=True)
            assert client.runs.get(thread_id, run["run_id"])["status"] == "interrupted"
            stopped_at = len(_journal(journal))
            time.sleep(1.0)  # more than a step: a run still going would write again
            assert len(_journal(journal)) == stopped_at < len(LEGS)
            assert client.threads.get(thread_id)["status"] != "busy"
