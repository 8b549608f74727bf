"""A sample submission graded end to end by otter-grader, offline and without Docker."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("otter")

TESTS = """
OK_FORMAT = False

from otter.test_files import test_case

name = "q1"


@test_case(points=2, hidden=False)
def test_shape(graph):
    from graphnb.teach import Exercise

    exercise = Exercise("Lesson 1").has_nodes("greet", "shout").has_path("greet", "shout")
    exercise.check(graph).assert_passed()


@test_case(points=1, hidden=True)
def test_final_state(graph):
    from graphnb.teach import Exercise

    exercise = Exercise("Lesson 1").final_state({"name": "Ada"}, {"greeting": "HELLO, ADA!"})
    exercise.check(graph).assert_passed()
"""

SUBMISSION = """\
from graphnb import END, START, StateGraph

graph = (
    StateGraph(dict)
    .add_node("greet", lambda s: {"greeting": "Hello, " + s["name"]})
    .add_node("shout", lambda s: {"greeting": s["greeting"].upper()})
    .add_edge(START, "greet")
    .add_edge("greet", "shout")
    .add_edge("shout", END)
)
"""


@pytest.mark.slow
def test_otter_grades_a_submission_with_the_checks_friendly_messages(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "q1.py").write_text(textwrap.dedent(TESTS))
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    notebook.cells = [nbformat.v4.new_code_cell(SUBMISSION)]
    nbformat.write(notebook, str(tmp_path / "submission.ipynb"))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def otter(*args: str) -> None:
        done = subprocess.run(
            ["otter", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, done.stdout + done.stderr

    otter("generate")
    otter("run", "--no-logo", "-a", "autograder.zip", "submission.ipynb")
    results = json.loads((tmp_path / "results.json").read_text())
    (graded,) = [test for test in results["tests"] if test["name"] == "q1"]
    # the shape passes (2 points); the hidden run check fails (the greeting lacks "!")
    assert (graded["score"], graded["max_score"]) == (2, 3)
    assert (
        "AssertionError: Lesson 1: 0 of 1 checks passed.\n"
        "        - Run on {'name': 'Ada'}, `greeting` ended as 'HELLO, ADA', expected 'HELLO, ADA!"
    ) in graded["output"]
    assert "Traceback" not in graded["output"]
