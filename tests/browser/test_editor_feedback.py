"""Honest feedback in the builder (issue 13, item 6): what the canvas and the run panel say.

- a route to END reads ``END`` on its edge, as START and END read on the canvas;
- streamed text wraps between words (only a token longer than the line breaks inside);
- a wrong-typed input is flagged on its form field, and Run is disabled with the reason;
- an invalid graph disables Run with its reason, the same way bad JSON does;
- a run error lists the graph's problems one per line, each selecting and centring its node;
- a problem's node deleted after the view centred on it gives the view back.

One JupyterLab server and one Chromium for the module; each test opens its own notebook.
Console errors fail every test (the ``lab`` fixture).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

ROOT = '[data-testid="graphnb-builder"]'
CHANGE_THEME = "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })"

# A long text with one unbreakable token (a URL) longer than the chunk box is wide.
LABELS = '''
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph
from graphnb.widget import Builder

class Talk(GraphState):
    topic: str = "graphs"
    rounds: int = 0
    text: Annotated[str, StateField(streaming=True)] = ""

SENTENCE = ("Streaming shows every answer while a model writes it, so nobody stares at "
            "a dark screen; wrapping keeps each word whole, whatever its length. ")
URL = "https://example.org/" + "averyveryverylongpath" * 8
TEXT = SENTENCE * 3 + URL + " and the end."

def talk(state: Talk):
    """Stream the answer word by word."""
    for word in TEXT.split(" "):
        yield word + " "

def count(state: Talk) -> dict:
    return {"rounds": state.rounds + 1}

def pick(state: Talk) -> str:
    """Talk again until two rounds were done."""
    return "talk" if state.rounds < 1 else END

graph = (
    StateGraph(Talk, name="labels")
    .add_node("talk", talk)
    .add_node("count", count)
    .add_edge(START, "talk")
    .add_edge("talk", "count")
    .add_conditional_edges("count", pick, ["talk", END])
)
builder = Builder(graph)
builder
'''

# Which words of an element's text are drawn across two lines; and whether its text runs
# past its right edge. A word is a run of non-space characters.
SPLIT_WORDS = """(element) => {
    const split = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.data.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const tops = new Set([...range.getClientRects()]
                .filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (tops.size > 1) split.push(match[0]);
        }
    }
    return { split, overflows: element.scrollWidth > element.clientWidth + 1 };
}"""


@contextlib.contextmanager
def dark_theme(lab: Any) -> Iterator[None]:
    """JupyterLab's dark theme for the block, the light one again after it."""
    page = lab.page
    try:
        page.evaluate(CHANGE_THEME, "JupyterLab Dark")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        page.wait_for_timeout(300)
        yield
    finally:
        page.evaluate(CHANGE_THEME, "JupyterLab Light")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")


def _wait_for_status(lab: Any, status: str, *, timeout: float = 30) -> None:
    lab.page.wait_for_function(
        f"""() => (document.querySelector('[data-testid="run-status"]') || {{}})
            .textContent === '{status}'""",
        timeout=timeout * 1000,
    )


def _settled(lab: Any) -> None:
    """Wait until the view stops moving, judged on fresh samples only.

    ``lab.wait_for_canvas_still`` keeps the samples of its last call, so right after a
    click whose animation has not begun it can answer at once with the old view.
    """
    lab.page.evaluate("() => { window.__graphnb_canvas_seen = []; }")
    lab.wait_for_canvas_still()


def _side_scrolled_to(lab: Any, testid: str) -> Any:
    """An element of the side panel, its tab open and scrolled into that tab's view (not
    the canvas)."""
    return lab.side(lab.page.get_by_test_id(testid))


def test_the_route_to_end_reads_END_and_streamed_text_wraps_between_words(lab):
    kernel = lab.open_notebook("labels", [LABELS])
    page = lab.page
    root = lab.builder()
    label = page.get_by_test_id("edge-label-count-__end__")
    label.wait_for()
    assert label.inner_text().strip() == "END", "the route to END shows the internal name"
    assert page.get_by_test_id("edge-label-count-talk").inner_text().strip() == "talk"

    # The route field says END too, and leaving it unchanged changes nothing.
    lab.click_edge("count", "__end__")
    route = page.get_by_test_id("edge-route-input")
    assert route.input_value() == "END"
    route.press("Enter")
    route.evaluate("(e) => e.blur()")
    # Double-clicking the label edits it as it reads; Enter with no change keeps the route.
    label.dblclick()
    edit = page.get_by_test_id("edge-label-input-count-__end__")
    assert edit.input_value() == "END"
    edit.press("Enter")
    page.wait_for_timeout(300)
    routes = {e["target"]: e["route"] for e in kernel.json("builder.spec")["edges"]}
    assert routes["__end__"] == "__end__", routes

    page.get_by_test_id("toolbar-run").click()
    _wait_for_status(lab, "done")
    chunks = page.get_by_test_id("run-chunks")
    streamed = kernel.json("builder.last_run['chunks']")
    assert "averyveryverylongpath" in chunks.inner_text()
    field = _side_scrolled_to(lab, "state-field-text")

    def check_wrapping(theme: str) -> None:
        for name, element in (("streamed text", chunks), ("state field", field)):
            seen = lab.side(element).evaluate(SPLIT_WORDS)  # its tab (Run, State) open
            # The URL is wider than the box: it alone may (and must) break inside.
            broken = [w for w in seen["split"] if "averyveryverylongpath" not in w]
            assert not broken, f"{theme}: the {name} wraps inside words: {broken}"
            assert any("averyvery" in w for w in seen["split"]), (
                f"{theme}: the long token of the {name} was not wrapped"
            )
            assert not seen["overflows"], f"{theme}: the {name} runs past its box"
        style = chunks.evaluate(
            "(e) => { const c = getComputedStyle(e);"
            " return [c.whiteSpace, c.wordBreak, c.overflowWrap]; }"
        )
        assert style == ["pre-wrap", "normal", "anywhere"], style
        ratio = lab.contrast(label)["ratio"]
        assert ratio > 4.5, f"{theme}: the END label has a contrast of {ratio:.1f}"

    assert len(streamed) > 300
    check_wrapping("light")
    lab.screenshot("feedback-route-end-light", element=root)
    _side_scrolled_to(lab, "run-chunks")
    lab.screenshot("feedback-wrapping-light", element=chunks)
    with dark_theme(lab):
        check_wrapping("dark")
        assert label.inner_text().strip() == "END"
        lab.screenshot("feedback-route-end-dark", element=root)
        lab.screenshot("feedback-wrapping-dark", element=lab.side(chunks))
    lab.assert_no_js_errors()


ORDER = """
from graphnb import END, START, GraphState, StateGraph
from graphnb.widget import Builder

class Order(GraphState):
    item: str = "tea"
    count: int = 1
    price: float = 0.5
    total: float = 0.0

def add_up(state: Order) -> dict:
    return {"total": state.count * state.price}

graph = StateGraph(Order, name="order").add_node("add_up", add_up)
builder = Builder(graph.add_edge(START, "add_up").add_edge("add_up", END))
builder
"""


def _run_buttons(page: Any) -> dict[str, Any]:
    """Whether each Run button is disabled, and what its tooltip says."""
    return {
        testid: (
            page.get_by_test_id(testid).is_disabled(),
            page.get_by_test_id(testid).get_attribute("title") or "",
        )
        for testid in ("toolbar-run", "run-start")
    }


def test_a_wrong_typed_input_is_flagged_at_its_field_and_disables_run_saying_why(lab):
    kernel = lab.open_notebook("order", [ORDER])
    page = lab.page
    root = lab.builder()
    count = _side_scrolled_to(lab, "run-field-count")
    assert _run_buttons(page) == {
        "toolbar-run": (False, "run with the input of the run panel"),
        "run-start": (False, "run with this input"),
    }

    # Text typed in an integer field stays on screen, flagged there, and Run says why not.
    count.fill("")
    count.press_sequentially("abc")
    assert count.input_value() == "abc", "the field dropped what was typed"
    error = page.get_by_test_id("run-field-error-count")
    error.wait_for()
    assert "expected an integer" in error.inner_text()
    assert count.get_attribute("aria-invalid") == "true"
    assert "graphnb-invalid" in (count.get_attribute("class") or "")
    # The message sits at its field: right under it, in the same form row.
    field_box, error_box = count.bounding_box(), error.bounding_box()
    assert 0 <= error_box["y"] - (field_box["y"] + field_box["height"]) < 20
    for testid, (disabled, title) in _run_buttons(page).items():
        assert disabled, f"{testid} is enabled with a wrong-typed input"
        assert "count: expected an integer" in title, (testid, title)
    blocked = page.get_by_test_id("run-blocked")
    assert blocked.is_visible()
    assert "count" in blocked.inner_text()
    why = page.get_by_test_id("toolbar-run-why")
    assert why.is_visible()
    assert "bad input" in why.inner_text()
    assert '"count": "abc"' in page.get_by_test_id("run-input-json").input_value()

    def check_visible(theme: str) -> None:
        for element in (error, blocked, why):
            ratio = lab.contrast(element)["ratio"]
            assert ratio > 3, f"{theme}: an error says why with a contrast of {ratio:.1f}"
        lab.screenshot(f"feedback-field-error-{theme}", element=root)

    check_visible("light")
    with dark_theme(lab):
        check_visible("dark")

    # A wrong type in the raw JSON is flagged on its form field the same way.
    lab.side(page.get_by_test_id("run-input-json")).fill('{"item": 5, "count": 2}')
    page.get_by_test_id("run-field-error-item").wait_for()
    assert page.get_by_test_id("run-field-error-count").count() == 0
    assert "item: expected a string, got 5" in page.get_by_test_id("run-blocked").inner_text()

    # Fixed, typed as a user types ("2." on the way to "2.5"): Run runs with the values.
    lab.side(page.get_by_test_id("run-input-json")).fill("{}")
    _side_scrolled_to(lab, "run-field-item").press_sequentially("pen")
    count.press_sequentially("3")
    price = page.get_by_test_id("run-field-price")
    price.fill("")
    price.press_sequentially("2.5")
    assert price.input_value() == "2.5"
    assert page.get_by_test_id("run-blocked").count() == 0
    assert page.get_by_test_id("toolbar-run-why").count() == 0
    page.get_by_test_id("toolbar-run").click()
    _wait_for_status(lab, "done")
    final = kernel.json("builder.last_run['steps'][-1]['state']")
    assert final == {"item": "pen", "count": 3, "price": 2.5, "total": 7.5}, final
    lab.assert_no_js_errors()


def test_an_invalid_graph_disables_run_with_its_reason_as_bad_json_does(lab):
    kernel = lab.open_notebook("invalid", [ORDER])
    page = lab.page
    lab.builder()
    page.get_by_test_id("toolbar-add-node").click()
    lab.wait_until(lambda: kernel.json("len(builder.problems)") == 2, message="no problems")
    page.get_by_test_id("toolbar-run-why").wait_for()
    for testid, (disabled, title) in _run_buttons(page).items():
        assert disabled, f"{testid} is enabled on a graph with problems"
        assert title.startswith("the graph cannot run: 2 problems"), (testid, title)
    assert page.get_by_test_id("toolbar-run-why").inner_text() == "can't run: 2 problems"
    blocked = _side_scrolled_to(lab, "run-blocked")
    assert "the graph cannot run: 2 problems (see Problems)" in blocked.inner_text()
    assert "is not bound to a callable" in blocked.inner_text()
    page.get_by_test_id("toolbar-run").click(force=True)  # a disabled button does nothing
    page.wait_for_timeout(300)
    assert kernel.json("builder.last_run['status']") == "idle"

    # Bad JSON as well: both reasons, said the same way in the same places.
    lab.side(page.get_by_test_id("run-input-json")).fill("{oops")
    page.get_by_test_id("run-input-error").wait_for()
    assert page.get_by_test_id("toolbar-run-why").inner_text() == "can't run: 2 problems, bad input"
    assert "fix the run input first" in blocked.inner_text()
    assert "fix the run input first" in _run_buttons(page)["toolbar-run"][1]

    # The graph fixed (the new node deleted), only the JSON is left; then nothing.
    page.get_by_test_id("toolbar-undo").click()
    lab.wait_until(lambda: kernel.json("builder.problems") == [], message="problems stay")
    page.wait_for_function(
        """() => document.querySelector('[data-testid="toolbar-run-why"]')
            .textContent === "can't run: bad input" """
    )
    for testid, (disabled, title) in _run_buttons(page).items():
        assert disabled, testid
        assert title.startswith("fix the run input first"), (testid, title)
    lab.side(page.get_by_test_id("run-input-json")).fill("{}")
    page.get_by_test_id("run-blocked").wait_for(state="detached")
    assert not any(disabled for disabled, _ in _run_buttons(page).values())

    # An exercise's missed points are no reason to refuse a run.
    kernel.run(
        "builder.pin_problems([{'code': 'exercise', 'message': 'add a review', 'nodes': []}])"
    )
    page.get_by_test_id("problem-exercise").wait_for()
    assert not any(disabled for disabled, _ in _run_buttons(page).values())
    lab.assert_no_js_errors()


BROKEN = """
from graphnb import END, START, StateGraph
from graphnb.widget import Builder

def step(state: dict) -> dict:
    return {}

graph = StateGraph(dict, name="broken")
for name in ["fetch", "parse", "store", "stray", "orphan"]:
    graph.add_node(name, step)
graph.add_edge(START, "fetch").add_edge("fetch", "parse").add_edge("parse", "store")
builder = Builder(graph.add_edge("store", END))
builder
"""

# Where a node's centre is, relative to the canvas's centre, in pixels.
OFF_CENTRE = """(id) => {
    const canvas = document.querySelector('.graphnb-canvas').getBoundingClientRect();
    const node = document.querySelector(`.react-flow__node[data-id="${id}"]`)
        .getBoundingClientRect();
    return Math.hypot(node.left + node.width / 2 - (canvas.left + canvas.width / 2),
                      node.top + node.height / 2 - (canvas.top + canvas.height / 2));
}"""
TRANSFORM = "() => document.querySelector('.react-flow__viewport').style.transform"


def test_problems_are_listed_one_a_line_each_showing_its_node_and_the_view_comes_back(lab):
    kernel = lab.open_notebook("broken", [BROKEN])
    page = lab.page
    lab.builder()
    # A run started from code on a graph that cannot run: the error lists its problems.
    kernel.run("task = builder.run()")
    _wait_for_status(lab, "error")
    error = _side_scrolled_to(lab, "run-error")
    assert "GraphValidationError" in error.inner_text()
    items = page.get_by_test_id("run-error-problems").locator("li")
    assert items.count() == 2, error.inner_text()
    boxes = [items.nth(i).bounding_box() for i in range(items.count())]
    assert boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"] - 1, "two problems share a line"
    links = page.get_by_test_id("run-error-problems").locator("button")
    assert [links.nth(i).get_attribute("data-node") for i in range(2)] == ["stray", "orphan"]
    assert "`orphan` cannot be reached from START." in links.nth(1).inner_text()

    def check_readable(theme: str) -> None:
        for i in range(2):
            ratio = lab.contrast(links.nth(i))["ratio"]
            assert ratio > 3, f"{theme}: a problem's link has a contrast of {ratio:.1f}"
        lab.screenshot(f"feedback-run-error-problems-{theme}", element=error)

    check_readable("light")
    with dark_theme(lab):
        check_readable("dark")

    links.nth(1).click()
    page.wait_for_function(
        "() => document.querySelector("
        "'.react-flow__node[data-id=\"orphan\"]').classList.contains('selected')"
    )
    _settled(lab)
    assert page.evaluate(OFF_CENTRE, "orphan") < 5, "the problem's node is not centred"

    # Clicking a problem pans onto its node; deleting the node gives the view back.
    page.get_by_test_id("toolbar-fit").click()
    _settled(lab)
    before = page.evaluate(TRANSFORM)

    _side_scrolled_to(lab, "panel-problems")
    lab.side(page.get_by_test_id("problems-list")).locator('button[data-node="stray"]').click()
    _settled(lab)
    assert page.evaluate(OFF_CENTRE, "stray") < 5
    assert page.evaluate(TRANSFORM) != before, "the view did not move to the node"
    page.get_by_test_id("toolbar-delete").click()
    lab.wait_until(
        lambda: "stray" not in [n["id"] for n in kernel.json("builder.spec")["nodes"]],
        message="the node was not deleted",
    )
    _settled(lab)
    assert page.evaluate(TRANSFORM) == before, "the view stayed panned onto the deleted node"
    lab.screenshot("feedback-problems-after-delete", element=lab.builder())
    lab.assert_no_js_errors()
