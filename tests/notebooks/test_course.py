"""The course: solutions pass their checks, student versions fail them with sentences."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from graphnb.teach.student import student_notebook

COURSE = Path(__file__).resolve().parents[2] / "notebooks" / "course"
SOLUTIONS = sorted((COURSE / "solutions").glob("*.ipynb"))
IDS = [path.name for path in SOLUTIONS]


def _executed(path: Path) -> Any:
    notebook = nbformat.read(str(path), as_version=4)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"
    client = NotebookClient(
        notebook, kernel_name="python3", timeout=240, resources={"metadata": {"path": str(COURSE)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    return notebook


def _check_outputs(notebook: Any) -> list[str]:
    texts = []
    for cell in notebook.cells:
        # a check cell is one line: `exercise.check(graph)`
        if cell.cell_type == "code" and re.fullmatch(r"\w+\.check\(.*\)", cell.source.strip()):
            (output,) = cell.outputs
            texts.append(output["data"]["text/plain"])
    assert texts, "the lesson has no check cell"
    return texts


def test_the_course_has_lessons_with_student_versions() -> None:
    assert len(SOLUTIONS) >= 4
    assert [p.name for p in sorted((COURSE / "student").glob("*.ipynb"))] == IDS


@pytest.mark.parametrize("path", SOLUTIONS, ids=IDS)
def test_student_version_is_generated_from_the_solution(path: Path) -> None:
    solution = nbformat.read(str(path), as_version=4)
    committed = nbformat.read(str(COURSE / "student" / path.name), as_version=4)
    expected = student_notebook(solution)
    assert [c.source for c in committed.cells] == [c.source for c in expected.cells], (
        "run: python -m graphnb.teach.student notebooks/course/solutions notebooks/course/student"
    )
    assert "BEGIN SOLUTION" not in "".join(c.source for c in committed.cells)


@pytest.mark.parametrize("path", [*SOLUTIONS, *sorted((COURSE / "student").glob("*.ipynb"))])
def test_course_notebooks_are_committed_without_outputs(path: Path) -> None:
    notebook = nbformat.read(str(path), as_version=4)
    assert not [c for c in notebook.cells if c.cell_type == "code" and c.get("outputs")]


@pytest.mark.slow
@pytest.mark.parametrize("path", SOLUTIONS, ids=IDS)
def test_solution_runs_and_passes_every_check(path: Path) -> None:
    for text in _check_outputs(_executed(path)):
        assert re.fullmatch(r".+: all \d+ checks passed\.", text), text


@pytest.mark.slow
@pytest.mark.parametrize("path", SOLUTIONS, ids=IDS)
def test_student_version_runs_and_fails_its_checks_with_sentences(path: Path) -> None:
    for text in _check_outputs(_executed(COURSE / "student" / path.name)):
        head, *points = text.splitlines()
        assert re.fullmatch(r".+: \d+ of \d+ checks passed\.", head), text
        assert points, text
        assert all(point.startswith("- ") for point in points), text
        assert "Traceback" not in text
