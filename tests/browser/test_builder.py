"""The visual builder in a real JupyterLab page: draw, bind, run, stop, undo, export.

Each test opens one notebook and checks several things on it, reading the Python side back
through a second client on the notebook's kernel (``kernel.json(...)``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

STORY = '''
import time
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.widget import Builder

class Story(GraphState):
    topic: str = "graphs"
    notes: Annotated[list[str], StateField(reducer=append)] = []
    text: Annotated[str, StateField(streaming=True)] = ""

DELAY = 0.15
WORDS = 12

def research(state: Story) -> dict:
    """Collect facts about the topic."""
    return {"notes": [f"facts about {state.topic}"]}

def outline(state: Story) -> dict:
    """Plan the story."""
    return {"notes": ["beginning, middle, end"]}

def draft(state: Story):
    """Write the story word by word, as a chat model streams."""
    for index in range(WORDS):
        time.sleep(DELAY)
        yield f"{state.topic}-{index} "

FAIL = False

def review(state: Story) -> dict:
    """Check the draft."""
    if FAIL:
        raise ValueError("review failed on purpose")
    return {"notes": [f"{len(state.text.split())} words"]}

def polish(state: Story) -> dict:
    """Tidy the wording."""
    return {"notes": ["polished"]}

def publish(state: Story) -> dict:
    """Ship it."""
    return {"notes": ["published"]}

graph = (
    StateGraph(Story, name="story")
    .add_node("research", research)
    .add_node("outline", outline)
    .add_node("draft", draft)
    .add_node("review", review)
    .add_node("polish", polish)
    .add_node("publish", publish)
    .add_edge(START, "research")
    .add_edge("research", "outline")
    .add_edge("outline", "draft")
    .add_edge("draft", "review")
    .add_edge("review", "polish")
    .add_edge("polish", "publish")
    .add_edge("publish", END)
)
'''

SHOW = "builder = Builder(graph)\nbuilder"

PERSISTED = """
from graphnb.widget import Builder
builder = Builder(path="drawing.json")
builder
"""

STORY_NODES = ["research", "outline", "draft", "review", "polish", "publish"]
STORY_EDGES = [
    ("__start__", "research"),
    ("research", "outline"),
    ("outline", "draft"),
    ("draft", "review"),
    ("review", "polish"),
    ("polish", "publish"),
    ("publish", "__end__"),
]


def spec_edges(spec: dict) -> set[tuple[str, str]]:
    return {(edge["source"], edge["target"]) for edge in spec["edges"]}


def spec_nodes(spec: dict) -> list[str]:
    return [node["id"] for node in spec["nodes"]]


def test_graph_built_in_code_renders_and_edits_on_the_canvas_reach_python(lab):
    kernel = lab.open_notebook("draw", [STORY, SHOW])
    root = lab.builder()
    assert root.get_attribute("data-lm-suppress-shortcuts") == "true"

    # Rendered: every node with its id, every edge of the code.
    for node_id in STORY_NODES:
        lab.page.get_by_test_id(f"node-{node_id}").wait_for()
        assert node_id in lab.node(node_id).inner_text()
    assert set(STORY_EDGES) <= set(lab.edge_pairs())
    assert lab.page.locator("[data-problem]").count() == 0, "a valid graph shows no problem"
    # A node bound to the function of its own name does not say it twice ("draft / draft").
    assert lab.page.get_by_test_id("node-binding-draft").inner_text().strip() == ""
    assert "runs draft" in (lab.page.get_by_test_id("node-draft").get_attribute("title") or "")

    # Add a node: it appears on the canvas and in the spec.
    before = set(lab.node_ids())
    lab.page.get_by_test_id("toolbar-add-node").click()
    lab.page.wait_for_function(
        "n => document.querySelectorAll('.react-flow__node').length > n", arg=len(before)
    )
    (added,) = set(lab.node_ids()) - before
    lab.wait_until(
        lambda: added in spec_nodes(kernel.json("builder.spec")),
        message=f"the added node {added!r} never reached builder.spec",
    )
    # Live validation: the new node is unbound, and the canvas says so on the node.
    problems = kernel.json("builder.problems")
    assert {"code": "unbound", "nodes": [added]} in [
        {"code": p["code"], "nodes": p["nodes"]} for p in problems
    ]
    new_node = lab.page.get_by_test_id(f"node-{added}")
    # The problems reach the page over the comm after the kernel has them: wait for them.
    lab.page.wait_for_selector(f'[data-testid="node-{added}"][data-problem]', timeout=10_000)
    assert new_node.get_attribute("data-problem")
    assert "not bound" in (new_node.get_attribute("title") or "")
    assert lab.page.get_by_test_id(f"node-binding-{added}").inner_text().strip() == "unbound"

    # Rename it: double-click its label, type, Enter.
    lab.page.get_by_test_id(f"node-label-{added}").dblclick()
    rename = lab.page.get_by_test_id("node-rename-input")
    rename.fill("summarize")
    rename.press("Enter")
    lab.wait_until(
        lambda: "summarize" in _labels_and_ids(kernel.json("builder.spec")),
        message="the rename never reached builder.spec",
    )
    renamed = _node_named(kernel.json("builder.spec"), "summarize")

    # Drag it aside: its position reaches Python once, when the drag ends.
    kernel.run("moves = []; builder.observe(lambda change: moves.append(1), names='spec')")
    before_drag = lab.node(renamed).bounding_box()
    lab.drag_node(renamed, 260, -120)
    after_drag = lab.node(renamed).bounding_box()
    assert after_drag["x"] > before_drag["x"] + 100
    lab.wait_until(lambda: kernel.json("len(moves)") >= 1, message="the drag never reached Python")
    lab.page.wait_for_timeout(300)
    assert kernel.json("len(moves)") == 1, "a drag must sync once, when it ends"
    position = kernel.json(f"builder.spec.node({renamed!r}).position")
    assert position is not None

    # Connect it: drag from review's output handle to its input handle.
    lab.connect("review", renamed)
    lab.edge("review", renamed).wait_for(state="attached")
    lab.wait_until(
        lambda: ("review", renamed) in spec_edges(kernel.json("builder.spec")),
        message="the drawn edge never reached builder.spec",
    )

    # Delete an edge: click it, press Delete.
    lab.click_edge("polish", "publish")
    # "attached", not "visible": a straight vertical edge has a zero-width box.
    lab.page.wait_for_selector(
        '.react-flow__edge.selected[aria-label="Edge from polish to publish"]', state="attached"
    )
    lab.page.keyboard.press("Delete")
    lab.edge("polish", "publish").wait_for(state="detached")
    lab.wait_until(
        lambda: ("polish", "publish") not in spec_edges(kernel.json("builder.spec")),
        message="the deleted edge is still in builder.spec",
    )
    # The key stayed in the widget: JupyterLab did not delete a cell.
    assert len(lab.prompts()) == 2
    lab.screenshot("draw-after-edits", element=root)
    lab.assert_no_js_errors()


def _labels_and_ids(spec: dict) -> set[str]:
    return {node["id"] for node in spec["nodes"]} | {
        node["label"] for node in spec["nodes"] if node["label"]
    }


def _node_named(spec: dict, name: str) -> str:
    (node_id,) = [n["id"] for n in spec["nodes"] if name in (n["id"], n["label"])]
    return node_id


NOTEBOOK_KEYS = ["b", "a", "x", "c", "v", "d", "d", "m", "y", "z", "Shift+Enter", "Enter"]
"""JupyterLab's command-mode shortcuts: insert, cut, copy, paste, delete, retype, run."""


def _cells(lab) -> list[tuple[str, str]]:
    return lab.page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets
            .map((cell) => [cell.model.type, cell.model.sharedModel.getSource()])"""
    )


def test_keys_pressed_in_the_canvas_stay_in_the_widget_and_ctrl_z_undoes_a_delete(lab):
    kernel = lab.open_notebook("undo", [STORY, SHOW])
    lab.builder()
    cells = _cells(lab)

    # Notebook shortcuts typed while a node, an edge or a button has the focus do nothing.
    lab.node("draft").click()
    for key in NOTEBOOK_KEYS:
        lab.page.keyboard.press(key)
    assert _cells(lab) == cells, "a key pressed on a node reached JupyterLab"
    lab.click_edge("draft", "review")
    for key in NOTEBOOK_KEYS:
        lab.page.keyboard.press(key)
    assert _cells(lab) == cells, "a key pressed on an edge reached JupyterLab"
    lab.page.get_by_test_id("toolbar-fit").click()
    for key in NOTEBOOK_KEYS:
        lab.page.keyboard.press(key)
    assert _cells(lab) == cells, "a key pressed on a toolbar button reached JupyterLab"
    assert lab.prompts() == ["[1]:", "[2]:"]

    # Delete a node, then Ctrl+Z at once, as a user does, without clicking anywhere first.
    lab.node("outline").click()
    lab.page.keyboard.press("Delete")
    lab.node("outline").wait_for(state="detached")
    lab.wait_until(lambda: "outline" not in spec_nodes(kernel.json("builder.spec")))
    lab.page.keyboard.press("Control+z")
    lab.node("outline").wait_for(timeout=5_000)
    lab.wait_until(
        lambda: "outline" in spec_nodes(kernel.json("builder.spec")),
        message="undo did not bring the node back into builder.spec",
    )
    assert {("research", "outline"), ("outline", "draft")} <= spec_edges(
        kernel.json("builder.spec")
    )
    lab.edge("research", "outline").wait_for(state="attached")

    lab.page.keyboard.press("Control+Shift+z")
    lab.node("outline").wait_for(state="detached", timeout=5_000)
    lab.wait_until(lambda: "outline" not in spec_nodes(kernel.json("builder.spec")))
    lab.page.get_by_test_id("toolbar-undo").click()
    lab.node("outline").wait_for(timeout=5_000)

    # The keys stayed in the widget: JupyterLab neither undid nor deleted a cell.
    assert _cells(lab) == cells
    lab.assert_no_js_errors()


def test_binding_panel_binds_a_notebook_callable_and_a_module_function(lab):
    (lab.server.root_dir / "helpers.py").write_text(
        'def shout(state):\n    """Say it louder."""\n    return {"text": "HEY"}\n'
    )
    kernel = lab.open_notebook(
        "bind",
        [
            STORY,
            '''
            def summarize(state: Story) -> dict:
                """Sum the story up in one line."""
                return {"notes": [state.text[:20]]}
            ''',
            "builder = Builder(graph)\nbuilder",
        ],
    )
    lab.builder()
    lab.page.get_by_test_id("node-polish").click()
    panel = lab.page.get_by_test_id("panel-binding")
    panel.wait_for()

    # Pick a function defined in the notebook: its signature, docstring and source show.
    select = lab.page.get_by_test_id("binding-select")
    select.select_option("summarize")
    signature = lab.page.get_by_test_id("binding-signature")
    signature.get_by_text("state").wait_for()
    assert "Sum the story up" in lab.page.get_by_test_id("binding-docstring").inner_text()
    lab.page.get_by_test_id("panel-binding").get_by_role("button", name="show source").click()
    assert "def summarize" in lab.page.get_by_test_id("binding-source").inner_text()
    lab.side(lab.page.get_by_test_id("binding-apply")).click()
    lab.wait_until(
        lambda: kernel.json("builder.spec.node('polish').binding") == "summarize",
        message="binding summarize never reached builder.spec",
    )

    # Type module:function for another node.
    lab.page.get_by_test_id("node-publish").click()
    typed = lab.page.get_by_test_id("binding-input")
    typed.fill("helpers:shout")
    lab.side(lab.page.get_by_test_id("binding-apply")).click()
    lab.page.get_by_test_id("binding-docstring").get_by_text("Say it louder").wait_for()
    lab.wait_until(
        lambda: kernel.json("builder.spec.node('publish').binding") == "helpers:shout",
        message="binding helpers:shout never reached builder.spec",
    )
    # The cards name the bindings that differ from the node's name.
    assert lab.page.get_by_test_id("node-binding-polish").inner_text().strip() == "summarize"
    assert lab.page.get_by_test_id("node-binding-publish").inner_text().strip() == "helpers:shout"
    # The drawing still compiles and runs with the new bindings.
    result = kernel.json("builder.compile().invoke({'topic': 'x'})")
    assert result["text"] == "HEY"
    assert "x-0 x-1" in result["notes"][-1]
    lab.assert_no_js_errors()


def _status(lab) -> str:
    return lab.page.get_by_test_id("run-status").inner_text().strip().lower()


def test_a_run_streams_chunks_lights_the_running_node_and_stop_cancels_it(lab):
    kernel = lab.open_notebook("run", [STORY, SHOW])
    lab.builder()
    page = lab.page
    # Input that is not JSON: both Run buttons are disabled, and say why.
    lab.side(page.get_by_test_id("run-input-json")).fill('{"topic": ')
    toolbar_run = page.get_by_test_id("toolbar-run")
    assert toolbar_run.is_disabled()
    assert "fix the run input" in (toolbar_run.get_attribute("title") or "")
    assert page.get_by_test_id("run-start").is_disabled()
    page.get_by_test_id("run-input-error").wait_for()
    lab.side(page.get_by_test_id("run-input-json")).fill('{"topic": "otter"}')
    assert toolbar_run.is_enabled()
    # A selected node fills the binding panel above the run panel; the run still shows
    # its streamed text in view.
    lab.node("draft").click()
    page.get_by_test_id("binding-signature").wait_for()
    toolbar_run.click()

    # While draft streams: it is lit and running, and chunks are already on screen.
    page.wait_for_function(
        """() => {
            const node = document.querySelector('[data-testid="node-draft"]');
            const chunks = document.querySelector('[data-testid="run-chunks"]');
            const status = document.querySelector('[data-testid="run-status"]');
            return node && node.dataset.status === 'running'
                && node.closest('.graphnb-active, .react-flow__node.graphnb-active')
                && chunks && chunks.textContent.includes('otter-')
                && status && /running/i.test(status.textContent);
        }""",
        timeout=15_000,
    )
    assert page.get_by_test_id("node-research").get_attribute("data-status") == "done"
    assert _status(lab) == "running"
    lab.screenshot("story-run-streaming", element=lab.page.get_by_test_id("graphnb-builder"))
    # The streamed text is on screen in the side panel, following its end, while it runs.
    page.wait_for_function(
        """() => {
            const chunks = document.querySelector('[data-testid="run-chunks"]');
            const side = chunks.closest('.graphnb-side-scroll').getBoundingClientRect();
            const box = chunks.getBoundingClientRect();
            const atEnd = chunks.scrollHeight - chunks.scrollTop - chunks.clientHeight < 4;
            return box.top >= side.top && box.top + 30 <= side.bottom && atEnd;
        }""",
        timeout=5_000,
    )
    page.wait_for_function(
        """() => document.querySelector('[data-testid="run-chunks"]').textContent
            .includes('otter-6')""",
        timeout=15_000,
    )
    lab.screenshot("story-run-streaming-later", element=lab.page.get_by_test_id("graphnb-builder"))

    page.wait_for_function(
        """() => /done/i.test(document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=30_000,
    )
    expected = "".join(f"otter-{i} " for i in range(12))
    assert page.get_by_test_id("run-chunks").inner_text().strip() == expected.strip()
    for node_id in STORY_NODES:
        assert page.get_by_test_id(f"node-{node_id}").get_attribute("data-status") == "done"
    assert page.locator(".graphnb-active").count() == 0
    last = kernel.json("builder.last_run")
    assert last["status"] == "done"
    assert last["chunks"] == expected
    lab.screenshot("story-run-done")
    lab.screenshot("story-run-done-widget", element=lab.builder())

    # A long run, then Stop: the panel says stopped and the task was cancelled in Python.
    kernel.run("DELAY = 0.2; WORDS = 500")
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="node-draft"]').dataset.status
            === 'running'""",
        timeout=15_000,
    )
    page.get_by_test_id("toolbar-stop").click()
    page.wait_for_function(
        """() => /stopped/i.test(
            document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=10_000,
    )
    assert kernel.json("builder._runner.task.cancelled()") is True
    assert kernel.json("builder.last_run['status']") == "stopped"
    assert page.locator(".graphnb-active").count() == 0

    lab.assert_no_js_errors()


def test_a_failing_node_shows_its_error_at_the_node_and_the_traceback_one_click_away(lab):
    lab.open_notebook("fail", [STORY, "DELAY = 0; WORDS = 3; FAIL = True", SHOW])
    lab.builder()
    page = lab.page
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => /error/i.test(
            document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=15_000,
    )
    review = page.get_by_test_id("node-review")
    assert review.get_attribute("data-status") == "error"
    assert "review failed on purpose" in (review.get_attribute("title") or "")
    assert "review failed on purpose" in page.get_by_test_id("run-error").inner_text()
    lab.side(page.get_by_test_id("run-traceback-toggle")).click()
    traceback = page.get_by_test_id("run-traceback")
    traceback.wait_for()
    assert "ValueError" in traceback.inner_text()
    # The frame of the user's own function, where it raised, is what a traceback is for.
    assert "in review" in traceback.inner_text()
    lab.assert_no_js_errors()


def test_the_drawing_survives_a_page_reload_and_a_kernel_restart(lab):
    lab.open_notebook("persist", [PERSISTED])
    lab.builder()
    # Fit never blows a small drawing up: not at first, not by the ⛶ control.
    assert lab.zoom() <= 1.0
    lab.page.locator(".react-flow__controls-fitview").click()
    lab.wait_for_canvas_still()
    assert lab.zoom() <= 1.0
    lab.page.get_by_test_id("toolbar-add-node").click()
    lab.page.locator(".react-flow__node-step").first.wait_for()
    (added,) = [n for n in lab.node_ids() if not n.startswith("__")]
    lab.page.get_by_test_id("toolbar-fit").click()
    lab.wait_for_canvas_still()
    assert lab.zoom() <= 1.0
    # START and END sit on the column of the only node.
    centre = {
        name: box["x"] + box["width"] / 2
        for name in ("__start__", added, "__end__")
        if (box := lab.node(name).bounding_box())
    }
    assert abs(centre["__start__"] - centre[added]) < 8, centre
    assert abs(centre["__end__"] - centre[added]) < 8, centre
    rename = lab.start_rename(added)
    rename.fill("keeper")
    rename.press("Enter")
    lab.node("keeper").wait_for()
    lab.wait_until(lambda: "keeper" in (lab.server.root_dir / "drawing.json").read_text())

    # Reload the page: the live kernel's widget is drawn again, with the edit.
    lab.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    lab.page.reload()
    lab.builder(timeout=60)
    lab.node("keeper").wait_for()

    # Restart the kernel and run the notebook again: the drawing comes back from its file.
    lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    lab.wait_for_kernel_idle()
    lab.page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    lab.run_all_cells()
    lab.builder()
    lab.node("keeper").wait_for()
    kernel = lab.kernel()
    assert "keeper" in spec_nodes(kernel.json("builder.spec"))
    lab.assert_no_js_errors()


ROUTED = """
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.widget import Builder

class Note(GraphState):
    text: str = ""
    path: Annotated[list[str], StateField(reducer=append)] = []

def check(state: Note) -> dict:
    return {"path": ["check"]}

def short(state: Note) -> dict:
    return {"path": ["short"]}

def long(state: Note) -> dict:
    return {"path": ["long"]}

def pick(state: Note) -> str:
    \"\"\"Route short texts one way, long texts the other.\"\"\"
    return "short" if len(state.text) < 5 else "long"

graph = (
    StateGraph(Note, name="routed")
    .add_node("check", check).add_node("short", short).add_node("long", long)
    .add_edge(START, "check")
    .add_edge("check", "short").add_edge("check", "long")
    .add_edge("short", END).add_edge("long", END)
)
builder = Builder(graph)
builder
"""


def test_a_conditional_edge_drawn_in_the_widget_routes_the_run(lab):
    kernel = lab.open_notebook("routed", [ROUTED])
    lab.builder()
    page = lab.page
    for route in ("short", "long"):
        lab.click_edge("check", route)
        lab.side(page.get_by_test_id("edge-kind-select")).select_option("conditional")
        field = page.get_by_test_id("edge-route-input")
        field.fill(route)
        field.press("Enter")
        page.get_by_test_id(f"edge-label-check-{route}").get_by_text(route).wait_for()
    lab.side(page.get_by_test_id("router-select")).select_option("pick")

    def routed() -> bool:
        spec = kernel.json("builder.spec")
        kinds = {(e["target"], e["kind"], e["route"]) for e in spec["edges"]}
        return {("short", "conditional", "short"), ("long", "conditional", "long")} <= kinds and (
            spec["routers"].get("check") == "pick"
        )

    lab.wait_until(routed, message="the conditional edges or the router never reached Python")

    lab.side(page.get_by_test_id("run-input-json")).fill('{"text": "hi"}')
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => /done/i.test(document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=15_000,
    )
    assert page.get_by_test_id("node-short").get_attribute("data-status") == "done"
    assert page.get_by_test_id("node-long").get_attribute("data-status") == "idle"
    assert kernel.json("builder.last_run['steps'][-1]['state']['path']") == ["check", "short"]
    lab.assert_no_js_errors()


def test_the_canvas_follows_jupyterlabs_dark_theme(lab):
    lab.open_notebook("theme", [STORY, SHOW])
    root = lab.builder()

    def background() -> float:
        # Luminance of the canvas's painted background, 0 (black) to 1 (white).
        return root.evaluate(
            """(root) => {
                let el = root.querySelector('.react-flow');
                let color = 'rgba(0, 0, 0, 0)';
                while (el && /rgba\\(0, 0, 0, 0\\)|transparent/.test(color)) {
                    color = getComputedStyle(el).backgroundColor;
                    el = el.parentElement;
                }
                const [r, g, b] = color.match(/[\\d.]+/g).map(Number);
                return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
            }"""
        )

    assert background() > 0.7
    change = "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })"
    try:
        lab.page.evaluate(change, "JupyterLab Dark")
        lab.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        lab.page.wait_for_timeout(500)
        assert background() < 0.3
        lab.screenshot("story-dark-theme", element=root)
    finally:
        lab.page.evaluate(change, "JupyterLab Light")
        lab.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
    lab.assert_no_js_errors()


def test_export_writes_a_module_that_runs_with_python(lab, tmp_path):
    kernel = lab.open_notebook("export", [STORY, SHOW])
    lab.builder()
    kernel.run("DELAY = 0")
    lab.page.get_by_test_id("toolbar-export").click()
    status = lab.page.get_by_test_id("export-status")
    status.get_by_text(".py").wait_for()
    path = Path(kernel.json("builder.export_status"))
    assert str(path) in status.inner_text()
    assert path.is_file()
    assert path.parent == lab.server.root_dir

    copy = tmp_path / path.name
    copy.write_text(path.read_text())
    ran = subprocess.run(
        [sys.executable, str(copy)], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    lab.assert_no_js_errors()


def test_serve_exports_the_module_and_shows_the_command_that_serves_it(lab):
    kernel = lab.open_notebook("export-serve", [STORY, SHOW])
    lab.builder()
    kernel.run("builder.export(overwrite=True)")  # there already: the toolbar asks first
    lab.page.get_by_test_id("toolbar-export-serve").click()
    lab.page.get_by_test_id("export-overwrite").click()  # still an export for serving
    status = lab.page.get_by_test_id("export-status")
    status.get_by_text("graphnb serve").wait_for()
    shown = kernel.json("builder.export_status")
    module = Path(shown.split()[2].rpartition(":")[0])
    assert module.is_file()
    assert f"graphnb serve {module}:graph --db sqlite:///" in status.inner_text()
    lab.screenshot("export-serve", element=lab.page.locator(".graphnb-toolbar"))
    lab.assert_no_js_errors()
