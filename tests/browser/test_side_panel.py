"""The side panel people can use (issue 31): a fixed head over four tabs.

Before, the side panel was one long stack of collapsible sections: at the default width
the run's status, an interrupt's answer form, the state and the history were below the
fold, one scroll apart. Now:

- the head keeps Run, Stop and the run's status and, while the run waits or is paused,
  the answer or pause form, whatever tab is open;
- the tabs (Node, Run, State, Threads) switch by mouse and by keyboard (the WAI-ARIA tabs
  pattern: arrows, Home, End), each tab's content scrolling on its own;
- the run status, the answer form, the state and the history are each on screen inside
  the side panel's box with nothing scrolled, at the default notebook width and at
  800 px, in the light and the dark theme, and with the builder maximised;
- a question that arrives while another tab is open shows in the head with its answer
  field focused, the open tab left as it was.

One JupyterLab server and one Chromium for the module; each test opens its own notebook.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

DOC_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
CHANGE_THEME = "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })"
RUN_STATUS = "() => document.querySelector('[data-testid=\"run-status\"]')?.dataset.status"

ASKS = """
from graphnb import END, START, GraphState, StateGraph, interrupt
from graphnb.widget import Builder

class Plan(GraphState):
    topic: str = "otters"
    plan: str = ""
    answer: str = ""

def plan(state: Plan) -> dict:
    return {"plan": f"write about {state.topic}"}

def ask(state: Plan) -> dict:
    return {"answer": interrupt("ok to go on?")}

graph = StateGraph(Plan, name="asks").add_node("plan", plan).add_node("ask", ask)
graph.add_edge(START, "plan").add_edge("plan", "ask").add_edge("ask", END)
builder = Builder(graph, checkpointer="sqlite:///side-{name}.db")
app = builder.compile()
builder
"""

# Whether an element is wholly inside the side panel's box and the window, and how far
# every scrolling part of the side panel is scrolled (0: nothing scrolled).
IN_SIDE = """(e) => {
    const box = e.getBoundingClientRect();
    const side = e.closest('[data-testid="side-panel"]');
    const s = side.getBoundingClientRect();
    const scrolled = [...side.querySelectorAll('.graphnb-side-scroll, .graphnb-side-head')]
        .reduce((sum, el) => sum + el.scrollTop, 0);
    return { inside: box.width > 0 && box.height > 0 && box.top >= s.top - 1
        && box.bottom <= s.bottom + 1 && box.left >= s.left - 1 && box.right <= s.right + 1
        && box.top >= 0 && box.bottom <= window.innerHeight, scrolled };
}"""
FOCUSED_TESTID = "() => document.activeElement?.dataset?.testid ?? ''"


def _reachable(element: Any, what: str) -> None:
    """``element`` is on screen inside the side panel, nothing in the panel scrolled."""
    seen = element.evaluate(IN_SIDE)
    assert seen == {"inside": True, "scrolled": 0}, f"{what}: {seen}"


def _tab(lab: Any, name: str) -> Any:
    lab.page.get_by_test_id(f"side-tab-{name}").click()
    return _open_tab(lab, name)


def _open_tab(lab: Any, name: str) -> Any:
    tab = lab.page.get_by_test_id(f"side-tab-{name}")
    assert tab.get_attribute("aria-selected") == "true", f"{name} is not the open tab"
    panel = lab.page.get_by_test_id(f"side-tabpanel-{name}")
    assert panel.is_visible()
    assert panel.get_attribute("aria-labelledby") == tab.get_attribute("id")
    assert tab.get_attribute("aria-controls") == panel.get_attribute("id")
    return panel


@contextmanager
def _theme(lab: Any, theme: str) -> Iterator[None]:
    page = lab.page
    if theme == "dark":
        page.evaluate(CHANGE_THEME, "JupyterLab Dark")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
    try:
        yield
    finally:
        if theme == "dark":
            page.evaluate(CHANGE_THEME, "JupyterLab Light")
            page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")


def _waiting(lab: Any) -> None:
    lab.page.get_by_test_id("toolbar-run").click()
    lab.page.wait_for_function(f"() => ({RUN_STATUS})() === 'waiting'", timeout=30_000)


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_status_answer_state_and_history_are_each_in_view_without_scrolling(lab, width, theme):
    kernel = lab.open_notebook(f"side-{width}-{theme}", [ASKS.replace("{name}", f"{width}{theme}")])
    page = lab.page
    page.set_viewport_size({"width": width, "height": 800})
    with _theme(lab, theme):
        lab.builder()
        _open_tab(lab, "run")  # the tab a builder opens on
        _waiting(lab)
        # The run's status and the question, in the head: in view with nothing scrolled,
        # the answer field focused.
        _reachable(page.get_by_test_id("run-status"), "the run status")
        assert page.get_by_test_id("run-status").inner_text().lower() == "waiting for an answer"
        page.wait_for_function(f"() => ({FOCUSED_TESTID})() === 'interrupt-answer-ask'")
        _reachable(page.get_by_test_id("interrupt-ask"), "the answer form")
        assert "Waiting for an answer" in page.get_by_test_id("side-head").inner_text()
        shot = lab.screenshot(f"side-panel-{width}-{theme}", element=lab.builder())
        shutil.copyfile(shot, DOC_IMAGES / f"side-panel-{width}-{theme}.png")

        # The state, one click away: the State tab, by mouse. (JupyterLab scrolls a cell
        # into view when a press makes it the active cell: it is active after one click.)
        cell_top = "() => document.querySelector('.jp-Cell').getBoundingClientRect().top"
        notebook_top = page.evaluate(cell_top)
        state = _tab(lab, "state")
        assert state.get_by_test_id("state-field-plan").inner_text() == 'plan\t"write about otters"'
        _reachable(page.get_by_test_id("state-field-plan"), "the state")
        # The head stays whatever tab is open.
        _reachable(page.get_by_test_id("interrupt-ask"), "the answer form, State open")
        _reachable(page.get_by_test_id("run-status"), "the run status, State open")

        # The history: the Threads tab, then the thread.
        _tab(lab, "threads")
        thread = kernel.json("builder.last_run['thread_id']")
        page.get_by_test_id(f"thread-{thread}").click()
        page.get_by_test_id("history-item-0").wait_for(timeout=30_000)
        _reachable(page.get_by_test_id("history-item-0"), "the history")
        _reachable(page.get_by_test_id("history-slider"), "the history's slider")
        _reachable(page.get_by_test_id("interrupt-ask"), "the answer form, Threads open")
        # A checkpoint picked in the history is on the canvas; the toolbar still tells the
        # live run, which waits.
        page.get_by_test_id("run-view").wait_for(timeout=10_000)
        toolbar = page.get_by_test_id("toolbar-run-status").inner_text()
        assert toolbar == "waiting for an answer from ask", toolbar
        assert page.evaluate(cell_top) == notebook_top, "the notebook scrolled"

        # By keyboard: the open tab takes the focus with Tab; the arrows move between
        # tabs and open them, Home and End go to the ends, wrapping around.
        page.get_by_test_id("side-tab-threads").focus()
        for key, name in [
            ("ArrowLeft", "state"),
            ("ArrowLeft", "run"),
            ("Home", "node"),
            ("ArrowLeft", "threads"),
            ("ArrowRight", "node"),
            ("End", "threads"),
            ("ArrowRight", "node"),
            ("ArrowRight", "run"),
        ]:
            page.keyboard.press(key)
            _open_tab(lab, name)
            assert page.evaluate(FOCUSED_TESTID) == f"side-tab-{name}", key
        # Only the open tab is in the Tab order among the tabs; Tab goes into its content.
        assert page.get_by_test_id("side-tabs").locator("[tabindex='0']").count() == 1
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED_TESTID) == "side-tabpanel-run"
        # The keys stayed in the widget: the notebook's cell was not changed by them.
        assert lab.node("ask").is_visible()

        # The answer, typed in the head's field, resumes the run.
        page.get_by_test_id("interrupt-answer-ask").click()
        page.keyboard.type("yes")
        page.keyboard.press("Enter")
        page.get_by_test_id("paused").wait_for(state="detached", timeout=30_000)
        lab.wait_until(
            lambda: kernel.json(f"app.get_state({thread!r}).values.answer") == "yes",
            timeout=30,
            message="the answer did not reach the thread",
        )
    lab.assert_no_js_errors()


def test_a_question_arriving_on_another_tab_comes_to_the_head_focused(lab):
    kernel = lab.open_notebook("side-arrives", [ASKS.replace("{name}", "arrives")])
    page = lab.page
    page.set_viewport_size({"width": 1000, "height": 700})
    lab.builder()
    # The user watches the State tab, typing nowhere: the question comes to them there.
    _tab(lab, "state")
    _waiting(lab)
    page.wait_for_function(f"() => ({FOCUSED_TESTID})() === 'interrupt-answer-ask'")
    _reachable(page.get_by_test_id("interrupt-ask"), "the question")
    _open_tab(lab, "state")  # the tab the user opened stays open

    # A breakpoint's pause too: Continue is in the head and focused, on the Threads tab.
    kernel.run("builder.breakpoints = {'ask': ['before']}")
    _tab(lab, "threads")
    page.get_by_test_id("interrupt-answer-ask").fill("later")
    page.get_by_test_id("interrupt-submit-ask").click()
    page.wait_for_function(f"() => ({RUN_STATUS})() === 'done'", timeout=30_000)
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(f"() => ({RUN_STATUS})() === 'paused'", timeout=30_000)
    page.wait_for_function(f"() => ({FOCUSED_TESTID})() === 'pause-continue'")
    _reachable(page.get_by_test_id("pause-continue"), "Continue")
    _open_tab(lab, "threads")
    lab.assert_no_js_errors()


def test_selecting_a_node_opens_the_node_tab_and_a_run_brings_the_run_tab(lab):
    lab.open_notebook("side-select", [ASKS.replace("{name}", "select")])
    page = lab.page
    lab.builder()
    lab.node("plan").click()
    node = _open_tab(lab, "node")
    assert "Node plan runs" in node.inner_text()
    # The breakpoints are the selected node's, in its tab.
    assert node.get_by_test_id("breakpoint-toggles").is_visible()
    _reachable(node.get_by_test_id("breakpoint-before"), "the breakpoint toggles")
    # Run from the toolbar: the Run tab comes with the streamed text.
    _waiting(lab)
    _open_tab(lab, "run")
    assert page.get_by_test_id("run-chunks").is_visible()
    lab.assert_no_js_errors()


def test_the_tabs_work_maximised_at_800_px(lab):
    lab.open_notebook("side-full", [ASKS.replace("{name}", "full")])
    page = lab.page
    page.set_viewport_size({"width": 800, "height": 600})
    root = lab.builder()
    page.get_by_test_id("corner-maximise").click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="graphnb-builder"]')
            .getBoundingClientRect().height === window.innerHeight"""
    )
    _waiting(lab)
    page.wait_for_function(f"() => ({FOCUSED_TESTID})() === 'interrupt-answer-ask'")
    _reachable(page.get_by_test_id("interrupt-ask"), "the answer form, maximised")
    state = _tab(lab, "state")
    _reachable(state.get_by_test_id("state-field-plan"), "the state, maximised")
    page.get_by_test_id("side-tab-state").focus()
    page.keyboard.press("ArrowRight")
    _open_tab(lab, "threads")
    # Escape (from the tabs, not a text field) still gives the builder back.
    page.keyboard.press("Escape")
    page.wait_for_function(
        """() => document.querySelector('[data-testid="graphnb-builder"]')
            .getBoundingClientRect().height < window.innerHeight"""
    )
    assert root.is_visible()
    lab.assert_no_js_errors()
