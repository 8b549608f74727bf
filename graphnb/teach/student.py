"""Student versions of solution notebooks: the code between markers becomes a blank to fill.

A solution notebook marks the learner's part of a code cell as nbgrader and otter-grader
do::

    def greet(state):
        ### BEGIN SOLUTION
        return {"greeting": f"Hello, {state.name}!"}
        ### END SOLUTION

The student version keeps the cell and replaces each marked block with
``...  # YOUR CODE HERE`` at the block's indentation, which is still valid Python, so the
student notebook runs top to bottom and its checks answer with what is missing instead of
an error. Outputs are cleared. Run it as ``python -m graphnb.teach.student SOLUTIONS OUT``.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

__all__ = ["BEGIN", "END", "MarkerError", "strip_solutions", "student_notebook", "write_students"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
BLANK = "...  # YOUR CODE HERE"


class MarkerError(ValueError):
    """Solution markers that do not pair up; ``line`` is 1-based within the cell."""

    def __init__(self, message: str, *, line: int) -> None:
        self.line = line
        super().__init__(message)


def strip_solutions(source: str) -> str:
    """``source`` with every ``BEGIN``/``END SOLUTION`` block replaced by a blank.

    Raises:
        MarkerError: a block is opened twice, closed without opening, or never closed.
    """
    out: list[str] = []
    opened: int | None = None
    for number, line in enumerate(source.splitlines(), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if opened is not None:
                raise MarkerError(
                    f"line {number}: {BEGIN} inside the block of line {opened}", line=number
                )
            opened = number
            out.append(line[: len(line) - len(line.lstrip())] + BLANK)
        elif marker == END:
            if opened is None:
                raise MarkerError(f"line {number}: {END} without a {BEGIN} before it", line=number)
            opened = None
        elif opened is None:
            out.append(line)
    if opened is not None:
        raise MarkerError(f"line {opened}: {BEGIN} is never closed by {END}", line=opened)
    return "\n".join(out)


def student_notebook(solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``solution`` with the marked code blanked and every output cleared.

    Raises:
        MarkerError: naming the cell (0-based) whose markers do not pair up.
    """
    notebook = copy.deepcopy(solution)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        try:
            cell.source = strip_solutions(cell.source)
        except MarkerError as error:
            raise MarkerError(f"cell {index}, {error}", line=error.line) from None
        cell.outputs = []
        cell.execution_count = None
    return notebook


def write_students(solutions: Path, students: Path) -> list[Path]:
    """Write the student version of every ``*.ipynb`` in ``solutions`` into ``students``."""
    reader: Any = nbformat.read  # nbformat is untyped
    writer: Any = nbformat.write
    students.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(solutions.glob("*.ipynb")):
        try:
            notebook = student_notebook(reader(str(path), as_version=4))
        except MarkerError as error:
            raise MarkerError(f"{path.name}: {error}", line=error.line) from None
        target = students / path.name
        writer(notebook, str(target))
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m graphnb.teach.student SOLUTIONS OUT``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("solutions", type=Path, help="folder of solution notebooks")
    parser.add_argument("out", type=Path, help="folder to write the student notebooks to")
    args = parser.parse_args(argv)
    for path in write_students(args.solutions, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
