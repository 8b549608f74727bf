from __future__ import annotations

import nbformat
import pytest

from graphnb.teach.student import MarkerError, strip_solutions, student_notebook

SOLUTION = """\
def greet(state):
    ### BEGIN SOLUTION
    name = state.name
    return {"greeting": name}
    ### END SOLUTION

graph = 1
### BEGIN SOLUTION
graph = 2
### END SOLUTION"""


def test_marked_blocks_become_blanks_at_their_indentation() -> None:
    assert strip_solutions(SOLUTION) == (
        "def greet(state):\n    ...  # YOUR CODE HERE\n\ngraph = 1\n...  # YOUR CODE HERE"
    )
    namespace: dict[str, object] = {}
    exec(strip_solutions(SOLUTION), namespace)  # still valid Python
    assert namespace["graph"] == 1


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("### BEGIN SOLUTION\nx = 1", "line 1: ### BEGIN SOLUTION is never closed"),
        ("x = 1\n### END SOLUTION", "line 2: ### END SOLUTION without a ### BEGIN SOLUTION"),
        (
            "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION",
            "line 2: ### BEGIN SOLUTION inside the block of line 1",
        ),
    ],
)
def test_unpaired_markers_are_named_by_line(source: str, message: str) -> None:
    with pytest.raises(MarkerError, match=message):
        strip_solutions(source)


def test_a_student_notebook_has_no_outputs_and_names_the_bad_cell() -> None:
    cell = nbformat.v4.new_code_cell(SOLUTION, execution_count=3)
    cell.outputs = [nbformat.v4.new_output("stream", text="hi")]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("x"), cell])
    student = student_notebook(notebook)
    assert student.cells[1].outputs == []
    assert student.cells[1].execution_count is None
    assert notebook.cells[1].outputs  # the solution is left as it was
    notebook.cells.append(nbformat.v4.new_code_cell("### END SOLUTION"))
    with pytest.raises(MarkerError, match="cell 2, line 1"):
        student_notebook(notebook)
