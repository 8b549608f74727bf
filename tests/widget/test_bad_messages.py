"""Every message from the canvas gets an answer the canvas shows (issue 11, item 10).

A bad payload used to raise inside the comm handler: the kernel logged it and the widget
never knew. Each handler now answers in the ``notice`` trait.
"""

from __future__ import annotations

from typing import Any

import pytest

from graphnb.widget import Builder

BAD_REQUESTS = [
    # (what the canvas sent, words the notice must hold)
    ({"nothing": True}, ["no `type`"]),
    ({"type": 7}, ["no `type`"]),
    ({"type": "no-such-request"}, ["unknown request type 'no-such-request'", "use_saver"]),
    ({"type": "run"}, ["bad `run` request", "input: Field required"]),
    (
        {"type": "run", "input": ["topic"], "thread_id": None},
        ["bad `run` request", "input: Input should be a valid dictionary"],
    ),
    (
        {"type": "run", "input": {}, "thread_id": 12},
        ["bad `run` request", "thread_id: Input should be a valid string"],
    ),
    ({"type": "export", "overwrite": "yes"}, ["bad `export` request", "overwrite"]),
    ({"type": "inspect"}, ["bad `inspect` request", "binding: Field required"]),
    (
        {"type": "inspect", "binding": None},
        ["bad `inspect` request", "binding: Input should be a valid string"],
    ),
    (
        {"type": "debug_threads", "search": "", "limit": 0, "after": None},
        ["bad `debug_threads` request", "limit must be 1 to 500, got 0"],
    ),
    ({"type": "use_model"}, ["bad `use_model` request", "binding: Field required"]),
    ({"type": "use_model", "binding": 42}, ["bad `use_model` request", "binding"]),
    ({"type": "use_model", "binding": "Nowhere"}, ["use_model failed", "Nowhere"]),
    ({"type": "use_model", "binding": "research"}, ["use_model failed", "research"]),
    ({"type": "use_saver"}, ["bad `use_saver` request", "url: Field required"]),
    ({"type": "use_saver", "url": None}, ["bad `use_saver` request", "url"]),
    ({"type": "use_saver", "url": "nosuch://x"}, ["use_saver failed", "no saver for"]),
]


@pytest.mark.parametrize(("content", "words"), BAD_REQUESTS, ids=lambda v: repr(v)[:40])
def test_a_bad_request_from_the_canvas_is_answered_with_a_notice(
    comm: Any, notebook: dict[str, Any], content: dict[str, Any], words: list[str]
) -> None:
    builder = Builder(notebook["graph"], namespace=notebook)
    before = builder.spec
    comm.clear()
    comm.receive(content)
    for word in words:
        assert word in builder.notice, builder.notice
    assert comm.updates("notice")[-1] == builder.notice, "the notice reached the canvas"
    assert builder.spec == before
    assert builder.run_state["status"] == "idle"


def test_every_request_type_has_a_bad_payload_case() -> None:
    from graphnb.widget.protocol import REQUEST_TYPES

    needs_fields = {"run", "export", "inspect", "use_model", "use_saver"}
    covered = {content.get("type") for content, _ in BAD_REQUESTS}
    assert needs_fields <= covered
    assert needs_fields <= set(REQUEST_TYPES)


def test_a_good_request_after_a_bad_one_clears_the_notice(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    comm.receive({"type": "use_model"})
    assert builder.notice
    comm.receive({"type": "refresh"})
    assert builder.notice == ""


def test_a_spec_that_is_not_a_graph_is_refused_with_a_notice_and_the_canvas_reset(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    before = builder.spec
    comm.clear()
    broken = before.to_dict()
    broken["nodes"][0]["id"] = 5
    broken["edges"] = "none"
    comm.receive_update({"spec": broken})  # before the fix: a ValidationError in the handler
    assert builder.spec == before
    assert builder.notice.startswith("the builder kept the drawing it had: the canvas sent ")
    assert "nodes.0.id" in builder.notice
    assert "edges" in builder.notice
    assert comm.updates("notice")[-1] == builder.notice
    # The canvas is sent Python's drawing back, so it shows what Python has.
    assert comm.updates("spec")[-1] == before.to_dict()

    # The next valid edit clears that notice.
    moved = before.to_dict()
    moved["nodes"][0]["position"] = {"x": 5, "y": 6}
    comm.receive_update({"spec": moved})
    assert builder.notice == ""
    assert builder.spec.nodes[0].position is not None
    assert builder.spec.nodes[0].position.x == 5


def test_the_canvas_cannot_change_traits_python_owns(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    comm.clear()
    comm.receive_update({"saver": "memory://", "saves_threads": True, "run_state": {}})
    assert (builder.saver, builder.saves_threads) == ("", False)
    assert builder.run_state["status"] == "idle"
    assert "may not change `run_state`, `saver`, `saves_threads`" in builder.notice
    assert comm.updates("saver")[-1] == ""
    assert comm.updates("saves_threads")[-1] is False


def test_an_edit_of_the_drawing_keeps_a_notice_about_something_else(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    comm.receive({"type": "use_saver", "url": "nosuch://x"})
    notice = builder.notice
    assert notice.startswith("use_saver failed")
    moved = builder.spec.to_dict()
    moved["nodes"][0]["position"] = {"x": 1, "y": 2}
    comm.receive_update({"spec": moved})
    assert builder.notice == notice


def test_a_message_outside_the_request_command_is_refused_with_a_notice(comm, notebook):
    """Requests come through one channel: a plain custom message is not run."""
    builder = Builder(notebook["graph"], namespace=notebook)
    comm.receive_custom({"type": "run", "input": {"topic": "x"}, "thread_id": None})
    assert "requests come through the `_graphnb_request` command" in builder.notice
    assert builder.run_state["status"] == "idle"
    comm.receive_custom({"id": "1", "kind": "anywidget-command", "name": "_graphnb_x", "msg": {}})
    assert "unknown command '_graphnb_x'" in builder.notice


def test_every_reply_says_whether_it_was_answered(comm, notebook):
    """A refused request's reply names the error and the field; an answered one has none."""
    builder = Builder(notebook["graph"], namespace=notebook)
    assert comm.receive({"type": "refresh"}) == {"error": None}
    refused = comm.receive({"type": "use_model", "binding": "Nowhere"})
    assert set(refused) == {"error", "field"}
    assert "Nowhere" in refused["error"]
    assert refused["field"] is None
    bad = comm.receive({"type": "stop", "extra": 1, "type2": []})
    assert bad == {"error": None}, "unknown keys are ignored, as pydantic's TypedDict does"
    assert builder.notice == ""
