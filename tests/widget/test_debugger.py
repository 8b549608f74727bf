"""The builder's debugger requests, Python side: threads, history, show, fork, rerun."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


def debug_builder(notebook: dict[str, Any], tmp_path: Path) -> Builder:
    builder = Builder(
        notebook["graph"], namespace=notebook, checkpointer=f"sqlite:///{tmp_path / 't.db'}"
    )
    app = builder.compile()
    for index in range(3):
        app.invoke({"topic": f"topic-{index}"}, thread_id=f"thread-{index}")
    return builder


def ask(comm: Any, content: dict[str, Any]) -> dict[str, Any]:
    comm.clear()
    comm.receive(content)
    [reply] = comm.custom(content["type"])
    assert reply["request"] == content["request"]
    return reply


def test_threads_are_listed_newest_first_searched_and_paged(comm, notebook, tmp_path):
    debug_builder(notebook, tmp_path)
    request = {"type": "debug_threads", "request": 1, "search": "", "limit": 2, "after": None}
    first = ask(comm, request)
    assert first["error"] is None
    assert [item["thread_id"] for item in first["items"]] == ["thread-2", "thread-1"]
    assert first["items"][0]["status"] == "finished"
    assert first["after"] == "thread-1"
    second = ask(comm, {**request, "request": 2, "after": first["after"]})
    assert [item["thread_id"] for item in second["items"]] == ["thread-0"]
    assert second["after"] is None
    found = ask(comm, {**request, "request": 3, "search": "-1", "limit": 10})
    assert [item["thread_id"] for item in found["items"]] == ["thread-1"]


def test_history_shows_each_checkpoint_with_what_it_changed(comm, notebook, tmp_path):
    builder = debug_builder(notebook, tmp_path)
    request = {"type": "debug_history", "request": 4, "thread_id": "thread-0", "limit": 2}
    reply = ask(comm, {**request, "before": None})
    items = reply["items"]
    assert [(i["step"], i["ran"]) for i in items] == [(1, ["draft"]), (0, ["research"])]
    assert items[0]["changed"] == ["text"]
    assert items[1]["changed"] == ["notes"]
    assert reply["before"] == items[1]["checkpoint_id"]
    rest = ask(
        comm,
        {
            "type": "debug_history",
            "request": 5,
            "thread_id": "thread-0",
            "limit": 2,
            "before": reply["before"],
        },
    )
    assert [i["source"] for i in rest["items"]] == ["input"]
    assert rest["before"] is None

    comm.clear()
    comm.receive(
        {
            "type": "debug_show",
            "request": 6,
            "thread_id": "thread-0",
            "checkpoint_id": items[1]["checkpoint_id"],
        }
    )
    shown = builder.run_state
    assert shown["thread_id"] == "thread-0"
    assert shown["nodes"]["research"]["status"] == "done"
    assert shown["nodes"]["draft"]["status"] == "pending"
    assert shown["steps"][-1]["changed"] == ["notes"]


def test_editing_a_past_state_forks_and_a_bad_value_names_its_field(comm, notebook, tmp_path):
    builder = debug_builder(notebook, tmp_path)
    app = builder.compile()
    before = app.get_state_history("thread-1")
    past = before[1]  # after research
    bad = ask(
        comm,
        {
            "type": "debug_fork",
            "request": 7,
            "thread_id": "thread-1",
            "checkpoint_id": past.checkpoint_id,
            "values": {"notes": [1]},
            "as_node": None,
        },
    )
    assert bad["error"] is not None
    assert bad["field"] == "notes"
    assert len(app.get_state_history("thread-1")) == len(before)  # nothing written
    good = ask(
        comm,
        {
            "type": "debug_fork",
            "request": 8,
            "thread_id": "thread-1",
            "checkpoint_id": past.checkpoint_id,
            "values": {"topic": "edited"},
            "as_node": "research",
        },
    )
    assert good["error"] is None
    fork = app.get_state("thread-1")
    assert fork.checkpoint_id == good["checkpoint_id"]
    assert fork.parent_id == past.checkpoint_id
    assert fork.next == ("draft",)
    # The old branch is intact, row for row.
    after = {s.checkpoint_id: s for s in app.get_state_history("thread-1")}
    for old in before:
        assert after[old.checkpoint_id].values == old.values

    async def rerun() -> Any:
        comm.receive(
            {
                "type": "debug_rerun",
                "request": 9,
                "thread_id": "thread-1",
                "checkpoint_id": fork.checkpoint_id,
            }
        )
        return await builder._runner.task  # type: ignore[misc]

    final = run_async(rerun())
    assert final.text.startswith("edited-0")
    assert app.get_state("thread-1").parent_id == fork.checkpoint_id


def test_bad_debugger_requests_are_answered_with_their_error(comm, notebook, tmp_path):
    debug_builder(notebook, tmp_path)
    reply = ask(
        comm, {"type": "debug_threads", "request": 10, "search": "", "limit": 0, "after": None}
    )
    assert "limit" in reply["error"]
    reply = ask(comm, {"type": "debug_history", "request": 11, "thread_id": 3})
    assert "thread_id" in reply["error"]
    without = Builder(notebook["graph"], namespace=notebook)
    comm.clear()
    comm.receive({"type": "debug_threads", "request": 12, "search": "", "limit": 5, "after": None})
    [reply] = comm.custom("debug_threads")
    assert "checkpointer" in reply["error"]
    assert without.threads is False
