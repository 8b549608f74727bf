"""Every teaching notebook runs, top to bottom, in a real kernel, offline."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS, ids=[path.name for path in PATHS])
def test_notebook_runs_every_cell_without_error(path: Path) -> None:
    notebook = nbformat.read(str(path), as_version=4)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=240,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    executed = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert executed, f"{path.name} has no code cells"
    assert all(cell.get("execution_count") for cell in executed)


@pytest.mark.parametrize("path", PATHS, ids=[path.name for path in PATHS])
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    notebook = nbformat.read(str(path), as_version=4)
    with_outputs = [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert with_outputs == [], f"{path.name}: cells {with_outputs} have outputs"
