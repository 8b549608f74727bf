"""The builder keeps a small loader in its state and sends its front end on request."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.widget import Builder
from graphnb.widget.bundle import COMMAND, LOADER, STATIC, VERSION
from graphnb.widget.picture import DIAGRAM_UP_TO, drawing


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


def test_past_the_diagrams_size_the_picture_is_the_canvas_drawing() -> None:
    size = DIAGRAM_UP_TO + 1
    graph = StateGraph(dict, name="long")
    for index in range(size):
        graph.add_node(f"n{index}", lambda state: {})
    graph.add_edge(START, "n0").add_edge(f"n{size - 1}", END)
    for index in range(1, size):
        graph.add_edge(f"n{index - 1}", f"n{index}")
    builder = Builder(graph)
    bundle = builder._repr_mimebundle_()
    assert bundle is not None
    svg = bundle[0]["image/svg+xml"]
    assert svg == drawing(builder.spec)
    # Every node where the canvas placed it, START and END too, and every edge a line.
    first = builder.spec.nodes[0].position
    assert first is not None
    assert f'<rect x="{first.x:g}" y="{first.y:g}"' in svg
    assert all(f">n{index}</text>" in svg for index in range(size))
    assert ">start</text>" in svg
    assert ">end</text>" in svg
    assert svg.count("<line ") == len(builder.spec.edges)
    # One node fewer: the diagram, as before.
    smaller = Builder(builder.spec.model_copy(update={"nodes": builder.spec.nodes[:-1]}))
    smaller_bundle = smaller._repr_mimebundle_()
    assert smaller_bundle is not None
    assert 'class="gnb gnb-graph"' in smaller_bundle[0]["image/svg+xml"]
