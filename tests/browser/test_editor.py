"""The builder as an editor (issue 13): honest feedback about what runs, a view that says
when it lost its kernel, a reload that always shows the graph, keys that reach JupyterLab,
and the small things (labels, wrapping, form errors, problems linked to their nodes).

One JupyterLab server and one Chromium for the module (``lab_server``, ``chromium``); each
test opens its own notebook. Console errors fail every test (the ``lab`` fixture).
"""

from __future__ import annotations

import time

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = '[data-testid="graphnb-builder"]'

SLOW = '''
import time
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph
from graphnb.widget import Builder

class Talk(GraphState):
    topic: str = "graphs"
    done: bool = False
    text: Annotated[str, StateField(streaming=True)] = ""

def slow(state: Talk) -> dict:
    """Block for 1.5 s, as a call to a slow service does."""
    time.sleep(1.5)
    return {"done": True}

def talk(state: Talk):
    """Wait 1.5 s for a model, then stream its answer."""
    time.sleep(1.5)
    yield "one "
    yield "two"

graph = (
    StateGraph(Talk, name="talk")
    .add_node("slow", slow)
    .add_node("talk", talk)
    .add_edge(START, "slow")
    .add_edge("slow", "talk")
    .add_edge("talk", END)
)
builder = Builder(graph)
builder
'''

# Records, in page time, when each node first shows "running", when its elapsed time
# first changes, and when the first streamed text appears.
WATCH_RUN = """() => {
    const seen = { running: {}, ticks: {}, chunk: null, clicked: null };
    window.__graphnb_seen = seen;
    const look = () => {
        const now = performance.now();
        for (const node of document.querySelectorAll('[data-testid^="node-"][data-status]')) {
            const id = node.dataset.testid.slice(5);
            if (node.dataset.status === 'running' && !(id in seen.running)) seen.running[id] = now;
            const elapsed = document.querySelector(`[data-testid="node-elapsed-${id}"]`);
            if (elapsed) (seen.ticks[id] ??= new Set()).add(elapsed.textContent);
        }
        const chunks = document.querySelector('[data-testid="run-chunks"]');
        if (seen.chunk === null && chunks && chunks.textContent.trim()) seen.chunk = now;
    };
    new MutationObserver(look).observe(document.body,
        { subtree: true, childList: true, characterData: true, attributes: true });
    const button = document.querySelector('[data-testid="toolbar-run"]');
    button.addEventListener('click', () => { seen.clicked = performance.now(); }, true);
}"""


def test_a_node_is_lit_with_ticking_time_from_the_moment_it_starts(lab):
    lab.open_notebook("lit", [SLOW])
    page = lab.page
    lab.builder()
    page.evaluate(WATCH_RUN)
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => /done/i.test(document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=30_000,
    )
    seen = page.evaluate(
        """() => { const s = window.__graphnb_seen;
            return { running: s.running, chunk: s.chunk, clicked: s.clicked,
                     ticks: Object.fromEntries(Object.entries(s.ticks)
                        .map(([k, v]) => [k, [...v].filter(Boolean)])) }; }"""
    )
    clicked = seen["clicked"]
    assert "slow" in seen["running"], "the blocking node was never shown running"
    lit_after = (seen["running"]["slow"] - clicked) / 1000
    print(f"\nslow node lit {lit_after * 1000:.0f} ms after Run")
    assert lit_after < 0.75, f"the blocking node was lit {lit_after:.2f} s after Run"
    assert len(seen["ticks"].get("slow", [])) >= 3, f"elapsed time did not tick: {seen['ticks']}"

    assert "talk" in seen["running"], "the streaming node was never shown running"
    assert seen["chunk"] is not None
    dark = (seen["chunk"] - seen["running"]["talk"]) / 1000
    print(f"streaming node lit {dark:.2f} s before its first chunk")
    assert dark > 1.0, f"the streaming node was lit only {dark:.2f} s before its first chunk"
    assert len(seen["ticks"].get("talk", [])) >= 3, f"elapsed time did not tick: {seen['ticks']}"
    # Once done, the node shows its duration, not a ticking clock.
    assert page.get_by_test_id("node-slow").get_attribute("data-status") == "done"
    assert page.get_by_test_id("node-elapsed-slow").count() == 0
    assert page.get_by_test_id("node-duration-slow").inner_text().endswith(" s")
    lab.assert_no_js_errors()


SMALL = """
from graphnb import END, START, StateGraph
from graphnb.widget import Builder

def step(state: dict) -> dict:
    return {"seen": True}

graph = StateGraph(dict, name="small").add_node("step", step)
builder = Builder(graph.add_edge(START, "step").add_edge("step", END))
builder
"""


def _nodes_in_python(kernel) -> list[str]:
    return [node["id"] for node in kernel.json("builder.spec")["nodes"]]


def test_a_view_that_lost_its_kernel_says_so_and_stops_editing(lab):
    kernel = lab.open_notebook("lost", [SMALL])
    page = lab.page
    lab.builder()
    banner = page.get_by_test_id("disconnected")
    assert banner.count() == 0, "a live view shows no disconnection"

    # A dropped connection to a live kernel pauses editing, then gives it back.
    page.evaluate(
        """() => {
            window.__graphnb_banner = [];
            new MutationObserver(() => {
                const b = document.querySelector('[data-testid="disconnected"]');
                if (b) window.__graphnb_banner.push(b.textContent);
            }).observe(document.body, { subtree: true, childList: true });
            window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.reconnect();
        }"""
    )
    lab.wait_for_kernel_idle()
    page.wait_for_function("() => !document.querySelector('[data-testid=\"disconnected\"]')")
    assert any("Reconnecting" in text for text in page.evaluate("() => window.__graphnb_banner"))
    page.get_by_test_id("toolbar-add-node").click()
    lab.wait_until(lambda: len(_nodes_in_python(kernel)) == 2, message="an edit after reconnecting")

    # A restarted kernel has no widget behind this view: it says so and is read-only.
    page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    banner.wait_for()
    assert "Disconnected" in banner.inner_text()
    assert "kernel restarted" in banner.inner_text()
    assert lab.page.locator(ROOT).get_attribute("data-connection") == "lost"
    for control in ("toolbar-add-node", "toolbar-run", "toolbar-layout", "run-start"):
        assert page.get_by_test_id(control).is_disabled(), f"{control} is still enabled"
    before = sorted(lab.node_ids())
    lab.node("step").click()
    page.keyboard.press("Delete")
    page.keyboard.press("Control+z")
    lab.page.locator(".react-flow__pane").dblclick(position={"x": 40, "y": 40})
    lab.drag_node("step", 80, 0)
    assert sorted(lab.node_ids()) == before, "the read-only view changed its drawing"
    lab.screenshot("editor-disconnected", element=lab.builder())
    lab.assert_no_js_errors()


CHAIN = """
from graphnb import END, START, StateGraph
from graphnb.widget import Builder

def step(state: dict) -> dict:
    return {}

names = ["fetch", "parse", "check", "store", "report", "notify"]
graph = StateGraph(dict, name="chain")
for name in names:
    graph.add_node(name, step)
for a, b in zip([START, *names], [*names, END]):
    graph.add_edge(a, b)
builder = Builder(graph)
builder
"""

# Where the graph is drawn, relative to the canvas: every node inside it, and how much of
# the canvas the graph spans.
GRAPH_IN_VIEW = """() => {
    const canvas = document.querySelector('.graphnb-canvas').getBoundingClientRect();
    const boxes = [...document.querySelectorAll('.react-flow__node')]
        .map(n => n.getBoundingClientRect());
    const inside = boxes.every(b => b.left >= canvas.left - 1 && b.right <= canvas.right + 1
        && b.top >= canvas.top - 1 && b.bottom <= canvas.bottom + 1);
    const top = Math.min(...boxes.map(b => b.top)), bottom = Math.max(...boxes.map(b => b.bottom));
    return { nodes: boxes.length, inside, spans: (bottom - top) / canvas.height };
}"""


ACTIVATE = """(label) => {
    const app = window.jupyterapp;
    const widget = [...app.shell.widgets('main')].find(w => w.title.label === label);
    if (widget) app.shell.activateById(widget.id);
    return Boolean(widget);
}"""


def test_every_reload_shows_the_whole_graph_at_a_readable_size(lab):
    (lab.server.root_dir / "notes.txt").write_text("notes\n")
    lab.open_notebook("reload", [CHAIN])
    lab.builder()
    first = lab.page.evaluate(GRAPH_IN_VIEW)
    assert first["inside"], first
    page = lab.page
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.evaluate(
        "() => window.jupyterapp.commands.execute('docmanager:open', {path: 'notes.txt'})"
    )
    bad = []
    for attempt in range(20):
        # Half the reloads come back with the notebook behind another tab: its builder is
        # drawn while hidden, and shown when the user picks the notebook's tab.
        behind = attempt % 2 == 0
        page.evaluate(ACTIVATE, "notes.txt" if behind else "reload.ipynb")
        page.reload()
        page.locator(ROOT).first.wait_for(state="attached", timeout=60_000)
        # Only once JupyterLab has restored its layout: a restore still under way brings
        # the tab that was current before the reload back to the front (the layout is
        # saved a moment after a tab change, so an "in front" reload may come back
        # behind too). Pick the notebook's tab until its builder shows, as a user would.
        page.evaluate("() => window.jupyterapp.restored")
        # The restore can also bring the other tab back just after the builder showed:
        # the builder must still be in view a second later.
        shown = page.locator(f"{ROOT}:visible").first
        deadline = time.monotonic() + 60
        while True:
            page.evaluate(ACTIVATE, "reload.ipynb")
            try:
                shown.wait_for(timeout=2_000)
                page.wait_for_timeout(1_000)
                shown.wait_for(timeout=100)
                break
            except PlaywrightTimeoutError:
                assert time.monotonic() < deadline, f"reload {attempt}: the builder never showed"
        lab.builder(timeout=60)
        lab.node("notify").wait_for(state="attached")
        lab.wait_for_canvas_still()
        seen = page.evaluate(GRAPH_IN_VIEW)
        zoom = lab.zoom()
        if not seen["inside"] or seen["spans"] < 0.5 or zoom < 0.3:
            bad.append((attempt, "behind" if behind else "in front", zoom, seen))
            lab.screenshot(f"editor-reload-{attempt}")
    assert not bad, f"reloads that did not show the graph: {bad}"

    # A view the user zoomed stays as they left it when its tab is hidden and shown again.
    box = page.locator(".graphnb-canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -300)
    lab.wait_for_canvas_still()
    zoomed = lab.zoom()
    page.evaluate(ACTIVATE, "notes.txt")
    page.wait_for_timeout(300)
    page.evaluate(ACTIVATE, "reload.ipynb")
    lab.wait_for_canvas_still()
    assert abs(lab.zoom() - zoomed) < 1e-3, "the user's zoom was replaced by a fit"
    lab.assert_no_js_errors()


DIRTY = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"


def test_keys_the_canvas_does_not_use_reach_jupyterlab(lab):
    lab.open_notebook("keys", [SMALL])
    page = lab.page
    lab.builder()
    cells = "() => window.jupyterapp.shell.currentWidget.content.widgets.length"
    count = page.evaluate(cells)
    # An unsaved change, then Ctrl+S with a node selected (focus in the canvas).
    page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets[0]
            .model.sharedModel.setSource('# changed\\n' + window.jupyterapp.shell
            .currentWidget.content.widgets[0].model.sharedModel.getSource())"""
    )
    assert page.evaluate(DIRTY)
    lab.node("step").click()
    assert page.evaluate("() => document.activeElement.closest('.react-flow__node') !== null")
    page.keyboard.press("Control+s")
    page.wait_for_function(f"() => !({DIRTY[6:]})", timeout=10_000)
    assert "# changed" in (lab.server.root_dir / "keys.ipynb").read_text()

    # Keys the canvas uses stay in it: notebook command keys do nothing to the cells.
    lab.node("step").click()
    prompts = lab.prompts()
    for key in ("d", "d", "a", "b", "x", "Enter"):
        page.keyboard.press(key)
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(300)
    assert page.evaluate(cells) == count, "a notebook shortcut acted on the cells"
    assert lab.prompts() == prompts, "Ctrl+Enter ran the builder's cell again"
    assert lab.page.locator(ROOT).get_attribute("data-lm-suppress-shortcuts") == "true"
    lab.assert_no_js_errors()
