"""Every teaching notebook runs, top to bottom, in a real kernel, offline.

The notebooks are committed without outputs. Running one in JupyterLab writes outputs and
widget state into the file, and git strips them again on commit through nbstripout
(``.gitattributes``; ``graphnb lab`` and ``scripts/test`` define the filter). So the
checks here read what git would commit: the file passed through the checkout's clean
filter, when there is one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from graphnb.cli.lab import configure_output_filter

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=False)


def committed_text(path: Path) -> str:
    """The notebook as git would commit it: through its clean filter, if one is set."""
    text = path.read_text(encoding="utf-8")
    if shutil.which("git") is None:
        return text
    attribute = _git(path.parent, "check-attr", "filter", "--", path.name).stdout.strip()
    name = attribute.rpartition(": ")[2]
    if name in ("", "unspecified", "unset", "set"):
        return text
    clean = _git(path.parent, "config", "--get", f"filter.{name}.clean").stdout.strip()
    if not clean:
        return text
    top = _git(path.parent, "rev-parse", "--show-toplevel").stdout.strip()
    cleaned = subprocess.run(
        clean, shell=True, input=text, cwd=top, capture_output=True, text=True, check=True
    )
    return cleaned.stdout


def execute(path: Path, folder: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(str(path), as_version=4)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=240,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    return notebook


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS, ids=[path.name for path in PATHS])
def test_notebook_runs_every_cell_without_error(path: Path) -> None:
    notebook = execute(path, NOTEBOOKS)
    executed = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert executed, f"{path.name} has no code cells"
    assert all(cell.get("execution_count") for cell in executed)


def _outputs(path: Path) -> list[int]:
    notebook = nbformat.reads(committed_text(path), as_version=4)
    return [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]


@pytest.mark.parametrize("path", PATHS, ids=[path.name for path in PATHS])
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    notebook = nbformat.reads(committed_text(path), as_version=4)
    assert _outputs(path) == [], f"{path.name}: cells {_outputs(path)} have outputs"
    assert "widgets" not in notebook.metadata, f"{path.name} carries saved widget state"


@pytest.mark.slow
@pytest.mark.timeout(1200)  # every notebook in its own kernel: minutes idle, more under load
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_running_the_notebooks_in_place_leaves_the_checkout_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "graphnb"
    done = _git(tmp_path, "clone", "--quiet", str(ROOT), str(clone))
    assert done.returncode == 0, done.stderr
    assert configure_output_filter(clone / "notebooks" / "01_quickstart.ipynb")
    monkeypatch.setenv("PYTHONPATH", str(clone))  # the kernels import the clone's graphnb
    for path in sorted((clone / "notebooks").glob("*.ipynb")):
        notebook = execute(path, path.parent)
        assert "widgets" in notebook.metadata or path.name != "01_quickstart.ipynb"
        nbformat.write(notebook, str(path))  # saved as JupyterLab saves: outputs, widget state
        assert _outputs(path) == [], f"{path.name}: the clean filter left outputs"
    # What git would commit is unchanged: no diff, nothing new, and staging everything
    # stages nothing. (`git status` alone may list a notebook whose size changed until it
    # is added: git trusts a size change without running the clean filter.)
    diff = _git(clone, "diff", "--stat").stdout
    assert diff == "", f"running the notebooks changed what git would commit:\n{diff}"
    assert _git(clone, "add", "--all").returncode == 0
    status = _git(clone, "status", "--porcelain").stdout
    assert status == "", f"running the notebooks dirtied the checkout:\n{status}"
    checks = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not slow",
            "tests/notebooks/test_notebooks.py",
        ],
        cwd=clone,
        env={**os.environ, "PYTHONPATH": str(clone)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert checks.returncode == 0, checks.stdout[-3000:] + checks.stderr[-3000:]


@pytest.mark.slow
def test_a_saved_quickstart_is_small_and_shows_the_graph_without_a_kernel(tmp_path: Path) -> None:
    path = tmp_path / "quickstart.ipynb"
    shutil.copyfile(NOTEBOOKS / "01_quickstart.ipynb", path)
    notebook = execute(path, tmp_path)  # nbclient keeps the widget state, as JupyterLab saves
    nbformat.write(notebook, str(path))
    size = path.stat().st_size
    assert size < 150_000, f"the executed quickstart weighs {size:,} bytes"
    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    builders = [
        model["state"]
        for model in state.values()
        if model["state"].get("_anywidget_id") == "graphnb.widget.builder.Builder"
    ]
    assert builders, "the builder's state was not saved"
    assert all(len(model["_esm"]) < 4_000 and "_css" not in model for model in builders)
    pictures = [
        output["data"]["image/svg+xml"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    assert pictures, "the builder's output has no SVG picture beside the widget view"
    assert all(picture.lstrip().startswith("<svg") for picture in pictures)
