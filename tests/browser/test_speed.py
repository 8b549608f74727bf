"""The builder's speed promises, checked in the browser with generous bounds.

``benchmarks/widget_browser.py`` measures the figures; these tests fail only when a promise
is clearly broken: a drag that floods the comm, chunks sent one message each, a canvas that
freezes while a run streams, a 200-node graph that takes seconds to show.
"""

from __future__ import annotations

import itertools
import time

import pytest

pytestmark = pytest.mark.slow

SETUP = '''
import time
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph
from graphnb.widget import Builder

class Stream(GraphState):
    text: Annotated[str, StateField(streaming=True)] = ""

def step(state) -> dict:
    return {}

RATE, SECONDS = 500, 2.0

def firehose(state: Stream):
    """About RATE chunks a second, paced by the clock."""
    start = time.perf_counter()
    for index in range(int(RATE * SECONDS)):
        ahead = start + index / RATE - time.perf_counter()
        if ahead > 0:
            time.sleep(ahead)
        yield "x"

def chain(size: int) -> StateGraph:
    graph = StateGraph(dict, name="big").add_edge(START, "n0")
    for index in range(size):
        graph.add_node(f"n{index}", step)
        if index:
            graph.add_edge(f"n{index - 1}", f"n{index}")
    return graph.add_edge(f"n{size - 1}", END)

builder = Builder(
    StateGraph(Stream, name="stream")
    .add_node("prepare", step).add_node("firehose", firehose).add_node("finish", step)
    .add_edge(START, "prepare").add_edge("prepare", "firehose")
    .add_edge("firehose", "finish").add_edge("finish", END)
)
builder
'''


def test_one_drag_sends_one_message_and_a_fast_stream_is_batched_without_freezing(lab):
    kernel = lab.open_notebook("speed", [SETUP])
    lab.builder()
    lab.count_comm_messages()

    # A drag of 30 mouse moves: one message to Python, one spec change there.
    kernel.run("changes = []; builder.observe(lambda c: changes.append(1), names='spec')")
    before = kernel.json("builder.spec.node('finish').position")
    lab.drag_node("finish", 150, 40, steps=30)
    lab.wait_until(lambda: kernel.json("len(changes)") >= 1, message="the drag never synced")
    lab.page.wait_for_timeout(500)
    assert lab.comm_messages(reset=True)["send"] == 1
    assert kernel.json("len(changes)") == 1
    assert kernel.json("builder.spec.node('finish').position") != before

    # 1,000 chunks in 2 s: batched into far fewer messages; frames keep coming.
    lab.page.evaluate(
        """() => {
            window.__frames = [];
            const tick = (t) => {
                window.__frames.push(t);
                if (!window.__stop) requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
        }"""
    )
    lab.page.get_by_test_id("toolbar-run").click()
    lab.page.wait_for_function(
        """() => /done|error|stopped/i.test(
            document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=30_000,
    )
    frames = lab.page.evaluate("() => { window.__stop = true; return window.__frames; }")
    received = lab.comm_messages()["recv"]
    assert kernel.json("builder.last_run['status']") == "done"
    chunks = kernel.json("len(builder.last_run['chunks'])")
    assert chunks == 1000
    assert received < chunks / 5, f"{received} messages for {chunks} chunks: not batched"
    longest = max(later - earlier for earlier, later in itertools.pairwise(frames))
    assert longest < 250, f"the page froze for {longest:.0f} ms while the run streamed"
    lab.assert_no_js_errors()


def test_a_200_node_graph_shows_quickly(lab):
    lab.open_notebook("big", [SETUP])
    lab.builder()
    started = lab.run_new_cell("big = Builder(chain(200))\nbig")
    # Shown: the view fitted to the graph (React Flow fits it once it has the nodes' sizes)
    # and the cards on screen drawn. Past 150 nodes only those are ever drawn.
    shown = lab.page.wait_for_function(
        """() => {
            const views = document.querySelectorAll('.graphnb-builder');
            const big = views.length > 1 ? views[views.length - 1] : null;
            const viewport = big?.querySelector('.react-flow__viewport');
            const fitted = viewport && !/scale\\(1\\)/.test(viewport.style.transform);
            return fitted && big.querySelectorAll('.react-flow__node').length >= 20
                && performance.now();
        }""",
        polling="raf",
        timeout=30_000,
    ).json_value()
    # The benchmark's target is 1 s; a loaded CI machine gets three.
    assert (shown - started) / 1000 < 3
    lab.assert_no_js_errors()


def test_a_1000_node_graph_renders_what_is_on_screen_and_lays_out_without_blocking(lab):
    kernel = lab.open_notebook("huge", [SETUP])
    lab.builder()
    lab.run_new_cell("huge = Builder(chain(1000), height=600)\nhuge")
    # React Flow draws every node once to measure it, then only those on screen.
    lab.page.wait_for_function(
        """() => {
            const count = document.querySelectorAll('.react-flow__node').length;
            return count > 0 && count < 500;
        }""",
        polling=200,
        timeout=60_000,
    )
    on_screen = set(
        lab.page.evaluate(
            "() => [...document.querySelectorAll('.react-flow__node')].map((n) => n.dataset.id)"
        )
    )
    assert 0 < len(on_screen) < 500
    # Panning brings other nodes on the page.
    pane = lab.page.locator(".react-flow__pane").last.bounding_box()
    assert pane is not None
    x, y = pane["x"] + pane["width"] / 2, pane["y"] + pane["height"] - 20
    lab.page.mouse.move(x, y)
    lab.page.mouse.down()
    lab.page.mouse.move(x, y - 400, steps=20)
    lab.page.mouse.up()
    lab.page.wait_for_function(
        """(before) => [...document.querySelectorAll('.react-flow__node')]
            .some((n) => !before.includes(n.dataset.id))""",
        arg=sorted(on_screen),
        timeout=30_000,
    )
    # The Layout button at this size: the positions computed off the kernel's loop arrive.
    kernel.run(
        "from graphnb.spec import Position\n"
        "_stacked = huge.spec.model_copy(deep=True)\n"
        "for _node in _stacked.nodes:\n"
        "    _node.position = Position(x=0, y=0)\n"
        "huge.spec = _stacked"
    )
    lab.page.locator('[data-testid="toolbar-layout"]').last.click()
    deadline = time.monotonic() + 60
    while kernel.json("len({(n.position.x, n.position.y) for n in huge.spec.nodes})") < 1000:
        assert time.monotonic() < deadline, "the layout never arrived"
        time.sleep(0.2)
    lab.assert_no_js_errors()
