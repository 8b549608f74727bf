"""The README's main job: follow the quickstart notebook by hand in a real JupyterLab.

The quickstart asks the user to draw ``START -> plan -> answer -> END`` on an empty
canvas, bind both nodes and the state model in the panels, and press Run. This test does
exactly that with the mouse and keyboard, then runs the notebook's remaining cells, which
must accept the hand-drawn graph.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "01_quickstart.ipynb"


def _code_cells(path: Path) -> list[int]:
    notebook = nbformat.read(path, as_version=4)
    return [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]


def _add_node_named(lab, name: str) -> None:
    before = set(lab.node_ids())
    lab.page.get_by_test_id("toolbar-add-node").click()
    lab.page.wait_for_function(
        "n => document.querySelectorAll('.react-flow__node').length > n", arg=len(before)
    )
    (added,) = set(lab.node_ids()) - before
    lab.page.get_by_test_id(f"node-label-{added}").dblclick()
    rename = lab.page.get_by_test_id("node-rename-input")
    rename.fill(name)
    rename.press("Enter")
    lab.node(name).wait_for()


def _bind(lab, node: str, function: str) -> None:
    lab.node(node).click()
    lab.side(lab.page.get_by_test_id("binding-select")).select_option(function)
    lab.page.get_by_test_id("binding-signature").wait_for()


def test_the_quickstart_can_be_followed_by_hand_in_the_browser(lab):
    shutil.copyfile(QUICKSTART, lab.server.root_dir / "quickstart.ipynb")
    code = _code_cells(QUICKSTART)
    kernel = lab.open("quickstart", run=False)
    setup, functions, show, *rest = code
    lab.run_cells([setup, functions, show])
    lab.builder()

    _add_node_named(lab, "plan")
    _add_node_named(lab, "answer")
    lab.connect("__start__", "plan")
    lab.connect("plan", "answer")
    lab.connect("answer", "__end__")
    _bind(lab, "plan", "plan")
    _bind(lab, "answer", "answer")
    lab.side(lab.page.get_by_test_id("state-model-select")).select_option("Chat")
    lab.page.get_by_test_id("state-model-fields").get_by_text("answer").wait_for()

    lab.wait_until(
        lambda: kernel.json("builder.problems") == [],
        message=lambda: f"problems left: {kernel.json('builder.problems')}",
    )
    spec = kernel.json("builder.spec")
    assert {(e["source"], e["target"]) for e in spec["edges"]} == {
        ("__start__", "plan"),
        ("plan", "answer"),
        ("answer", "__end__"),
    }
    assert {n["id"]: n["binding"] for n in spec["nodes"]} == {"plan": "plan", "answer": "answer"}
    assert spec["state"]["binding"] == "Chat"

    lab.side(lab.page.get_by_test_id("run-input-json")).fill('{"question": "What is graphnb?"}')
    lab.page.get_by_test_id("toolbar-run").click()
    lab.page.wait_for_function(
        """() => /done/i.test(document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=30_000,
    )
    assert "A graph whose nodes" in lab.page.get_by_test_id("run-chunks").inner_text()
    lab.screenshot("quickstart-drawn-by-hand", element=lab.builder())

    # The rest of the notebook works on the drawing: check, run from code, compile, export.
    lab.run_cells(rest)
    assert lab.notebook_errors() == []
    assert kernel.json("[n.id for n in builder.spec.nodes]") == ["plan", "answer"]
    lab.assert_no_js_errors()
