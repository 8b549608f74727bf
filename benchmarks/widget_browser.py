"""The builder widget's speed in a real JupyterLab page with headless Chromium.

Run: ``python benchmarks/widget_browser.py`` (needs the ``test`` extra and /usr/bin/chromium).

Measures, and prints:

0. a 1,000-node graph (``--big N``): time from executing the cell to the first node on the
   page plus the latency of a click on the node nearest the centre (target under 1 s),
   how many nodes are on the page (React Flow renders only those on screen), and the
   longest gap between animation frames while zooming with the wheel, panning the canvas
   and dragging a node by its card (target: none over 33 ms); ``--only-big`` stops there;
1. a 200-node graph: time from executing the cell that shows it to the view fitted to it
   with the cards on screen drawn, then the latency of a click on a node (until React Flow
   marks it selected); target under 1 s in total;
2. streaming about 500 chunks per second for a few seconds: the longest gap between
   animation frames and click latency during the stream (the canvas must stay
   responsive), and the number of comm messages against the number of chunks (chunks
   must be batched);
3. one drag of a node: the comm messages the front end sends (target: one).

It reuses the browser tests' harness (``tests/browser/conftest.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def load_harness() -> ModuleType:
    path = REPO / "tests" / "browser" / "conftest.py"
    spec = importlib.util.spec_from_file_location("graphnb_browser_harness", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SETUP = """
import time
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph
from graphnb.widget import Builder

class Stream(GraphState):
    text: Annotated[str, StateField(streaming=True)] = ""

def step(state: dict) -> dict:
    return {}

def big_graph(size: int) -> StateGraph:
    # A chain with a side branch every tenth node: wide enough that layout has work to do.
    graph = StateGraph(dict, name="big")
    for index in range(size):
        graph.add_node(f"n{index}", step)
    graph.add_edge(START, "n0")
    for index in range(1, size):
        source = index - 1 if index % 10 else max(index - 5, 0)
        graph.add_edge(f"n{source}", f"n{index}")
    finals = {f"n{size - 1}"} | {f"n{i - 1}" for i in range(10, size, 10)}
    for name in sorted(finals):
        graph.add_edge(name, END)
    return graph

RATE, SECONDS = 500, 3.0

def firehose(state: dict):
    # About RATE chunks per second, paced by the clock rather than by tiny sleeps.
    start = time.perf_counter()
    for index in range(int(RATE * SECONDS)):
        ahead = start + index / RATE - time.perf_counter()
        if ahead > 0:
            time.sleep(ahead)
        yield "x"

stream_graph = (
    StateGraph(Stream, name="stream")
    .add_node("prepare", step)
    .add_node("firehose", firehose)
    .add_node("finish", step)
    .add_edge(START, "prepare")
    .add_edge("prepare", "firehose")
    .add_edge("firehose", "finish")
    .add_edge("finish", END)
)
"""

# Click latency: from the pointer going down to React Flow marking the node selected.
# The promise is parked on window: awaiting it here would block until it times out.
CLICK_PROBE = """(node) => {
    window.__graphnb_click = new Promise((resolve) => {
        let down = null;
        const onDown = () => { down = performance.now(); };
        node.addEventListener('pointerdown', onDown, { capture: true, once: true });
        const observer = new MutationObserver(() => {
            if (down !== null && node.classList.contains('selected')) {
                observer.disconnect();
                resolve(performance.now() - down);
            }
        });
        observer.observe(node, { attributes: true, attributeFilter: ['class'] });
        setTimeout(() => { observer.disconnect(); resolve(null); }, 5000);
    });
}"""


def clear_outputs(lab: Any) -> None:
    lab.page.evaluate(
        "() => { window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs'); }"
    )
    lab.page.wait_for_function("() => !document.querySelector('.react-flow__node')")


def click_latency(lab: Any, node_id: str) -> float | None:
    node = lab.node(node_id)
    lab.show_widget_of(node)
    node.evaluate(CLICK_PROBE)
    node.click()
    return lab.page.evaluate("() => window.__graphnb_click")


def wait_run_status(lab: Any, pattern: str, timeout: float = 60) -> None:
    lab.page.wait_for_function(
        """(pattern) => {
            const status = document.querySelector('[data-testid="run-status"]');
            return status && new RegExp(pattern, 'i').test(status.textContent);
        }""",
        arg=pattern,
        timeout=timeout * 1000,
    )


def bench_render(lab: Any, kernel: Any, size: int) -> dict[str, float | None]:
    started = lab.run_new_cell(
        "_started = time.perf_counter()\n"
        f"big = Builder(big_graph({size}), height=700)\n"
        "_python_s = time.perf_counter() - _started\n"
        "big",
    )
    present = lab.page.wait_for_function(SHOWN, polling="raf", timeout=60_000).json_value()
    latency = click_latency(lab, lab.page.evaluate(CENTRE_NODE))
    return {
        "python_side_s": kernel.json("_python_s"),
        "nodes_present_s": (present - started) / 1000,
        "click_latency_ms": latency,
        "interactive_s": (present - started) / 1000 + (latency or float("inf")) / 1000,
    }


# Shown: the last builder's view fitted to its graph (React Flow fits it once it has the
# nodes' sizes) and the cards on screen drawn. Past 150 nodes only those are ever drawn, so
# "every node on the page" is not a moment that comes (it was React Flow's measuring pass).
SHOWN = """() => {
    const views = document.querySelectorAll('.graphnb-builder');
    const view = views[views.length - 1];
    const viewport = view?.querySelector('.react-flow__viewport');
    const fitted = viewport && !/scale\\(1\\)/.test(viewport.style.transform);
    return fitted && view.querySelectorAll('.react-flow__node').length >= 20 && performance.now();
}"""

# The node nearest the canvas's centre: with more than 150 nodes React Flow renders only
# those on screen (onlyRenderVisibleElements), so a node far down may not be on the page.
CENTRE_NODE = """() => {
    const pane = document.querySelector('.react-flow');
    const box = pane.getBoundingClientRect();
    const centre = [box.x + box.width / 2, box.y + box.height / 2];
    let best = null, distance = Infinity;
    for (const node of document.querySelectorAll('.react-flow__node')) {
        const r = node.getBoundingClientRect();
        const d = Math.hypot(r.x + r.width / 2 - centre[0], r.y + r.height / 2 - centre[1]);
        if (d < distance) { best = node.dataset.id; distance = d; }
    }
    return best;
}"""

# A point that grabs the node's card rather than one of its handles: zoomed out, a card is
# a few pixels tall and its handles' hit areas cover most of it (a drag from there draws a
# connection, and dropped on the canvas adds a node).
GRAB_POINT = """(id) => {
    const node = document.querySelector(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
    const r = node.getBoundingClientRect();
    const rows = 40;
    const order = [...Array(rows - 1).keys()].map((i) => i + 1)
        .sort((a, b) => Math.abs(a - rows / 2) - Math.abs(b - rows / 2));
    for (const i of order) for (const fx of [0.5, 0.3, 0.7, 0.15, 0.85]) {
        const x = r.x + r.width * fx, y = r.y + (r.height * i) / rows;
        const hit = document.elementFromPoint(x, y);
        if (hit && node.contains(hit) && !hit.closest('.react-flow__handle')) return [x, y];
    }
    return null;
}"""

FRAMES_START = """() => {
    window.__graphnb_frames = [];
    window.__graphnb_stop_frames = false;
    const tick = (t) => {
        window.__graphnb_frames.push(t);
        if (!window.__graphnb_stop_frames) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""

FRAMES_STOP = "() => { window.__graphnb_stop_frames = true; return window.__graphnb_frames; }"


def bench_big(lab: Any, kernel: Any, size: int) -> dict[str, Any]:
    """A ``size``-node graph: time to interactive, then frame gaps while panning, zooming, dragging.

    Interactive: the cell executed until a node is on the page and a click on the node
    nearest the centre has selected it (the page handles input).
    """
    started = lab.run_new_cell(
        "_started = time.perf_counter()\n"
        f"huge = Builder(big_graph({size}), height=700)\n"
        "_python_s = time.perf_counter() - _started\n"
        "huge",
    )
    present = lab.page.wait_for_function(
        "() => document.querySelector('.react-flow__node') && performance.now()",
        polling="raf",
        timeout=60_000,
    ).json_value()
    target = lab.page.evaluate(CENTRE_NODE)
    latency = click_latency(lab, target)
    rendered = lab.page.evaluate("() => document.querySelectorAll('.react-flow__node').length")
    pane = lab.page.locator(".react-flow__pane").first
    box = pane.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    gaps: dict[str, float | None] = {}

    def frames_during(name: str, action: Any) -> None:
        lab.page.evaluate(FRAMES_START)
        action()
        lab.page.wait_for_timeout(300)  # the last frames of the gesture
        frames = lab.page.evaluate(FRAMES_STOP)
        gaps[name] = max(
            (later - earlier for earlier, later in itertools.pairwise(frames)), default=None
        )

    def zoom() -> None:
        lab.page.mouse.move(x, y)
        for delta in (-200, -200, -200, 200, 200, 200, -200, -200):
            lab.page.mouse.wheel(0, delta)
            lab.page.wait_for_timeout(60)

    def pan() -> None:
        lab.page.mouse.move(x + 5, y + box["height"] / 2 - 20)
        lab.page.mouse.down()
        lab.page.mouse.move(x + 305, y + box["height"] / 2 - 220, steps=40)
        lab.page.mouse.up()

    dragged: dict[str, Any] = {}

    def drag() -> None:
        node_id = lab.page.evaluate(CENTRE_NODE)
        grab = lab.page.evaluate(GRAB_POINT, node_id)
        assert grab is not None, f"no point of {node_id}'s card is clear of its handles"
        nx, ny = grab
        dragged["node"] = node_id
        dragged["before"] = kernel.json(f"huge.spec.node({node_id!r}).position.model_dump()")
        lab.page.mouse.move(nx, ny)
        lab.page.mouse.down()
        lab.page.mouse.move(nx + 150, ny + 80, steps=40)
        lab.page.mouse.up()

    frames_during("zoom", zoom)
    frames_during("pan", pan)
    frames_during("drag", drag)
    lab.page.wait_for_timeout(500)  # the drop's message reaches the kernel
    moved = kernel.json(f"huge.spec.node({dragged['node']!r}).position.model_dump()")
    return {
        "dragged_node_moved": moved != dragged["before"],
        "size": size,
        "python_side_s": kernel.json("_python_s"),
        "first_node_s": (present - started) / 1000,
        "click_latency_ms": latency,
        "interactive_s": (present - started) / 1000 + (latency or float("inf")) / 1000,
        "nodes_in_dom": rendered,
        "longest_frame_gap_ms": gaps,
    }


def bench_stream(lab: Any, kernel: Any) -> dict[str, Any]:
    lab.run_new_cell("streamer = Builder(stream_graph)\nstreamer")
    lab.page.wait_for_selector('.react-flow__node[data-id="firehose"]')
    lab.count_comm_messages()
    lab.page.evaluate(
        """() => {
            window.__graphnb_frames = [];
            window.__graphnb_stop_frames = false;  // set by the big graph's measures
            const tick = (t) => {
                window.__graphnb_frames.push(t);
                if (!window.__graphnb_stop_frames) requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
        }"""
    )
    lab.page.get_by_test_id("toolbar-run").click()
    lab.page.wait_for_function(
        """() => document.querySelector('[data-testid="node-firehose"]')
            ?.dataset.status === 'running'""",
        timeout=30_000,
    )
    latencies = []
    for index in range(5):
        latencies.append(click_latency(lab, ("prepare", "finish")[index % 2]))
        time.sleep(0.2)
    wait_run_status(lab, "done|error|stopped")
    frames = lab.page.evaluate(
        "() => { window.__graphnb_stop_frames = true; return window.__graphnb_frames; }"
    )
    counts = lab.comm_messages(reset=True)
    gaps = [later - earlier for earlier, later in itertools.pairwise(frames)]
    chunks = kernel.json("len(streamer.last_run['chunks'])")
    return {
        "status": lab.page.get_by_test_id("run-status").inner_text().strip(),
        "chunks": chunks,
        "seconds": kernel.json("streamer.last_run['elapsed']"),
        "comm_messages_to_page": counts["recv"],
        "chunks_per_message": chunks / max(counts["recv"], 1),
        "frames": len(frames),
        "longest_frame_gap_ms": max(gaps, default=None),
        "frame_gaps_over_100ms": sum(gap > 100 for gap in gaps),
        "click_latency_ms_during_stream": latencies,
    }


def bench_drag(lab: Any, kernel: Any) -> dict[str, Any]:
    kernel.run(
        "_spec_changes = []\nstreamer.observe(lambda change: _spec_changes.append(1), names='spec')"
    )
    box = lab.node("finish").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    lab.page.mouse.move(x, y)
    lab.page.mouse.down()
    lab.page.mouse.move(x + 120, y + 60, steps=30)
    lab.page.mouse.up()
    time.sleep(1.0)
    sent = lab.comm_messages()["send"]
    return {
        "drag_frames": 30,
        "comm_messages_sent": sent,
        "spec_updates_in_python": kernel.json("len(_spec_changes)"),
        "moved_in_python": kernel.json("streamer.spec.node('finish').position.model_dump()"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--big", type=int, default=1000, help="nodes of the pan/zoom graph")
    parser.add_argument("--only-big", action="store_true", help="skip all but the big graph")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    harness = load_harness()
    missing = harness.missing_requirement()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    results: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="graphnb-bench-") as base,
        harness.running_lab_server(Path(base)) as server,
        harness.launched_chromium() as browser,
        harness.lab_page(server, browser, "benchmark") as lab,
    ):
        kernel = lab.open_notebook("bench", [SETUP])
        try:
            results["big"] = bench_big(lab, kernel, args.big)
            clear_outputs(lab)
            if args.only_big:
                raise _Done
            results["render_200"] = bench_render(lab, kernel, args.nodes)
            clear_outputs(lab)
            results["render_200_again"] = bench_render(lab, kernel, args.nodes)
            clear_outputs(lab)
            results["stream_500_per_s"] = bench_stream(lab, kernel)
            results["drag"] = bench_drag(lab, kernel)
        except _Done:
            pass
        except Exception:
            shot = lab.screenshot("benchmark-failure")
            print(f"benchmark failed; screenshot: {shot}", file=sys.stderr)
            print("\n".join(map(str, lab.console[-20:])), file=sys.stderr)
            raise
        results["js_errors"] = lab.js_errors()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results, args.nodes)
    return 0


class _Done(Exception):
    """Raised to skip the remaining measurements (``--only-big``)."""


def report(results: dict[str, Any], size: int) -> None:
    big = results["big"]
    print(
        f"{big['size']}-node graph, {big['nodes_in_dom']} nodes on the page "
        "(target: interactive < 1 s, no frame gap over 33 ms)"
    )
    print(f"  Builder() in Python:                    {big['python_side_s']:.3f} s")
    print(f"  cell executed -> first node on the page: {big['first_node_s']:.3f} s")
    print(f"  click -> node selected:                 {big['click_latency_ms']:.0f} ms")
    print(f"  interactive:                            {big['interactive_s']:.3f} s")
    for gesture, gap in big["longest_frame_gap_ms"].items():
        print(f"  longest frame gap while {gesture + 'ing':<8}        {gap:.0f} ms")
    print(f"  the dragged node moved in Python:       {big['dragged_node_moved']}")
    if "stream_500_per_s" not in results:
        print(f"JavaScript errors: {results['js_errors'] or 'none'}")
        return
    stream, drag = results["stream_500_per_s"], results["drag"]
    for key, when in (("render_200", "first in the kernel"), ("render_200_again", "again")):
        render = results[key]
        print(f"{size}-node graph, {when} (target: interactive < 1 s)")
        print(f"  Builder() in Python:                    {render['python_side_s']:.3f} s")
        print(f"  cell executed -> graph shown (fitted):  {render['nodes_present_s']:.3f} s")
        print(f"  click -> node selected:                 {render['click_latency_ms']:.0f} ms")
        print(f"  interactive:                            {render['interactive_s']:.3f} s")
    print("streaming ~500 chunks/s")
    print(f"  run {stream['status']}: {stream['chunks']} chunks in {stream['seconds']:.2f} s")
    print(
        f"  comm messages to the page: {stream['comm_messages_to_page']} "
        f"({stream['chunks_per_message']:.1f} chunks per message)"
    )
    print(
        f"  frames: {stream['frames']}, longest gap {stream['longest_frame_gap_ms']:.0f} ms, "
        f"gaps > 100 ms: {stream['frame_gaps_over_100ms']}"
    )
    latencies = ", ".join(
        "timeout" if ms is None else f"{ms:.0f}" for ms in stream["click_latency_ms_during_stream"]
    )
    print(f"  click latency during the stream: {latencies} ms")
    print("one drag (30 mouse moves)")
    print(f"  comm messages sent by the page: {drag['comm_messages_sent']} (target: 1)")
    print(f"  spec updates seen in Python:    {drag['spec_updates_in_python']}")
    print(f"  new position in Python:         {drag['moved_in_python']}")
    print(f"JavaScript errors: {results['js_errors'] or 'none'}")


if __name__ == "__main__":
    sys.exit(main())
