"""``graphnb lab``: which notebook it opens and how it starts JupyterLab (not started here)."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

from graphnb.cli import lab, parser


def test_lab_is_a_subcommand_with_an_optional_notebook():
    args = parser().parse_args(["lab"])
    assert args.handler is lab.run
    assert args.notebook is None
    assert parser().parse_args(["lab", "x.ipynb", "--no-browser"]).no_browser is True


def test_the_command_starts_jupyterlab_on_the_notebook(tmp_path):
    command = lab.lab_command(tmp_path / "a.ipynb", port=8899, browser=False)
    assert command[:4] == [sys.executable, "-m", "jupyterlab", str(tmp_path / "a.ipynb")]
    assert "--port=8899" in command
    assert "--no-browser" in command


def test_a_new_notebook_gets_a_builder_cell_and_a_python_kernel(tmp_path):
    path = tmp_path / "flows" / "mine.ipynb"
    lab.new_notebook(path)
    notebook = nbformat.read(path, as_version=4)
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    (cell,) = notebook.cells
    assert 'Builder(path="mine.graph.json")' in cell.source


def test_lab_opens_the_quickstart_by_default(monkeypatch, tmp_path):
    started: list[list[str]] = []
    monkeypatch.setattr(lab.subprocess, "call", lambda command: started.append(command) or 0)
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert lab.run(parser().parse_args(["lab", "--no-browser"])) == 0
    assert started[0][3].endswith("notebooks/01_quickstart.ipynb")


def test_lab_refuses_a_file_that_is_not_a_notebook(capsys, tmp_path):
    assert lab.run(parser().parse_args(["lab", str(tmp_path / "graph.py")])) == 2
    assert "is not a notebook" in capsys.readouterr().err


@pytest.mark.parametrize("exists", [False, True])
def test_lab_creates_a_missing_notebook_before_starting(monkeypatch, tmp_path, exists):
    path = tmp_path / "new.ipynb"
    if exists:
        path.write_text(nbformat.writes(nbformat.v4.new_notebook()))
    monkeypatch.setattr(lab.subprocess, "call", lambda command: 0)
    assert lab.run(parser().parse_args(["lab", str(path)])) == 0
    cells = nbformat.read(path, as_version=4).cells
    assert len(cells) == (0 if exists else 1)
