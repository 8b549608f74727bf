"""A stepped run, exported with ``jupyter nbconvert --to html``, replays with no kernel."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]

CELL = """\
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.teach import Stepper

class Talk(GraphState):
    name: str = ""
    lines: Annotated[list[str], StateField(reducer=append)] = []

graph = (
    StateGraph(Talk)
    .add_node("greet", lambda s: {"lines": [f"hello {s.name}"]})
    .add_node("left", lambda s: {"lines": ["left"]})
    .add_node("right", lambda s: {"lines": ["right"]})
    .add_edge(START, "greet")
    .add_edge("greet", "left")
    .add_edge("greet", "right")
    .add_edge("left", END)
    .add_edge("right", END)
)
Stepper(graph, {"name": "Ada"})
"""


def _exported(tmp_path: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    notebook.cells = [nbformat.v4.new_code_cell(CELL)]
    source = tmp_path / "stepper.ipynb"
    nbformat.write(notebook, str(source))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute", str(source)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return tmp_path / "stepper.html"


def test_nbconvert_html_of_a_stepped_run_steps_back_and_forth_without_a_kernel(
    tmp_path: Path, chromium: Any
) -> None:
    page_file = _exported(tmp_path)
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # no server at all: the page is opened from disk
    page.goto(page_file.as_uri(), wait_until="load")
    stepper = page.locator(".graphnb-stepper")
    where = stepper.locator(".graphnb-where")
    visible = stepper.locator(".graphnb-frame:visible")
    assert where.inner_text() == "Frame 1 of 3"
    assert visible.count() == 1
    assert visible.locator(".graphnb-frame-title").inner_text().startswith("Input")
    assert stepper.locator(".graphnb-back").is_disabled()

    stepper.locator(".graphnb-next").click()
    stepper.locator(".graphnb-next").click()
    assert where.inner_text() == "Frame 3 of 3"
    assert visible.locator(".graphnb-frame-title").inner_text() == "Step 1: `left`, `right` ran"
    assert visible.locator("svg").count() == 1
    changed = visible.locator("tr.graphnb-changed").inner_text()
    assert "'hello Ada', 'left', 'right'" in changed
    assert stepper.locator(".graphnb-next").is_disabled()

    stepper.locator(".graphnb-back").click()
    assert where.inner_text() == "Frame 2 of 3"
    assert visible.locator(".graphnb-frame-title").inner_text() == "Step 0: `greet` ran"
    page.screenshot(path=str(tmp_path / "stepper.png"), full_page=True)
    assert errors == []


def test_two_copies_of_one_stepper_output_on_a_page_each_step_on_their_own(
    chromium: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A front end may show one output twice (a second view, or a re-render that mounts the
    new copy before the old one is gone): both copies carry the same id, and each works."""
    cell = types.ModuleType("stepper_cell")  # a module, so the state model's hints resolve
    monkeypatch.setitem(sys.modules, cell.__name__, cell)
    exec(CELL.replace("Stepper(graph", "stepper = Stepper(graph"), cell.__dict__)
    fragment = cell.stepper.to_html()
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(f"<!doctype html><body>{fragment}{fragment}</body>")
    first, second = page.locator(".graphnb-stepper").all()
    assert first.get_attribute("id") == second.get_attribute("id")
    assert first.locator(".graphnb-where").inner_text() == "Frame 1 of 3"
    assert second.locator(".graphnb-where").inner_text() == "Frame 1 of 3"
    second.locator(".graphnb-next").click()
    assert second.locator(".graphnb-where").inner_text() == "Frame 2 of 3"
    assert first.locator(".graphnb-where").inner_text() == "Frame 1 of 3"
    assert second.locator(".graphnb-frame:visible").count() == 1
    assert errors == []
    page.close()


def test_in_jupyterlab_the_stepper_steps_and_a_check_shows_its_summary(lab: Any) -> None:
    lab.open_notebook(
        "stepper",
        [
            CELL,
            "from graphnb.teach import Exercise\n"
            'Exercise("Fan out").has_path("greet", "left").no_dead_ends().check(graph)',
            'Exercise("Three").has_nodes("greet", "middle").check(graph)',
        ],
    )
    page = lab.page
    stepper = page.locator(".graphnb-stepper")
    where = stepper.locator(".graphnb-where")
    where.wait_for()
    assert where.inner_text() == "Frame 1 of 3"
    stepper.locator(".graphnb-next").click()
    assert where.inner_text() == "Frame 2 of 3"
    visible = stepper.locator(".graphnb-frame:visible")
    assert visible.locator(".graphnb-frame-title").inner_text() == "Step 0: `greet` ran"
    assert "'hello Ada'" in visible.locator("tr.graphnb-changed").inner_text()
    stepper.locator(".graphnb-back").click()
    assert where.inner_text() == "Frame 1 of 3"

    passed, missed = page.locator(".graphnb-check-result").all()
    assert passed.inner_text().startswith("✔ Fan out: all 2 checks passed.")
    assert passed.evaluate("(e) => getComputedStyle(e).borderLeftColor") == "rgb(26, 127, 55)"
    assert "Add a node named middle" in missed.inner_text()
    assert missed.locator("code", has_text="middle").count() == 1  # `middle`, shown as code
    assert "Traceback" not in missed.inner_text()
    lab.assert_no_js_errors()
