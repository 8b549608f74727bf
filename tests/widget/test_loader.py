"""The builder keeps a small loader in its state and sends its front end on request."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.widget import Builder
from graphnb.widget.bundle import COMMAND, LOADER, STATIC, VERSION


def _builder() -> Builder:
    graph = StateGraph(dict, name="tiny").add_node("hello", lambda state: {})
    return Builder(graph.add_edge(START, "hello").add_edge("hello", END))


def test_the_synced_state_holds_the_loader_not_the_bundle() -> None:
    state = _builder().get_state()
    assert state["_esm"] == LOADER
    assert "_css" not in state
    assert len(LOADER) < 4_000
    assert (STATIC / "widget.js").stat().st_size > 100 * len(LOADER)


def test_a_view_asking_for_the_bundle_gets_the_javascript_and_css(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    builder = _builder()
    sent: list[tuple[Any, Any]] = []
    monkeypatch.setattr(
        builder, "send", lambda content, buffers=None: sent.append((content, buffers))
    )
    request = {"kind": "anywidget-command", "id": "7", "name": COMMAND, "msg": {}}
    with caplog.at_level(logging.WARNING, logger="graphnb.widget"):
        builder._handle_custom_msg(request, [])
    ((reply, buffers),) = sent
    assert reply == {
        "id": "7",
        "kind": "anywidget-command-response",
        "response": {"version": VERSION},
    }
    assert buffers == [(STATIC / "widget.js").read_bytes(), (STATIC / "widget.css").read_bytes()]
    assert caplog.records == []  # the builder's own message handler let it pass
    assert builder.notice == ""


def test_the_output_carries_an_svg_picture_beside_the_widget_view() -> None:
    bundle = _builder()._repr_mimebundle_()
    assert bundle is not None
    data, _ = bundle
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert data["image/svg+xml"].startswith("<svg")
    assert ">hello<" in data["image/svg+xml"]
