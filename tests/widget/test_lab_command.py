"""``graphnb lab``: which notebook it opens and how it starts JupyterLab (not started here)."""

from __future__ import annotations

import ast
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


def test_the_command_starts_jupyterlab_on_the_notebook_page(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = lab.lab_command(tmp_path / "my flows" / "a.ipynb", port=8899, browser=False)
    assert command[:3] == [sys.executable, "-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in command
    assert "--LabApp.default_url=/lab/tree/my%20flows/a.ipynb" in command
    assert "--port=8899" in command
    assert "--no-browser" in command


def test_a_new_notebook_gets_a_builder_cell_and_a_python_kernel(tmp_path):
    path = tmp_path / "flows" / "mine.ipynb"
    lab.new_notebook(path)
    notebook = nbformat.read(path, as_version=4)
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    (cell,) = notebook.cells
    assert "Builder(path='mine.graph.json')" in cell.source


def test_lab_opens_a_working_copy_of_the_quickstart_by_default(monkeypatch, tmp_path):
    root = Path(__file__).resolve().parents[2]
    started: list[list[str]] = []
    monkeypatch.setattr(lab, "run_tree", lambda command, **how: started.append(command) or 0)
    monkeypatch.setenv(lab.WORKDIR_ENV, str(tmp_path / "mine"))
    monkeypatch.chdir(root)
    before = {path.name: path.read_bytes() for path in (root / "notebooks").glob("*.ipynb")}
    assert lab.run(parser().parse_args(["lab", "--no-browser"])) == 0
    copies = sorted(path.name for path in (tmp_path / "mine").glob("*.ipynb"))
    assert copies == sorted(before)
    assert f"--ServerApp.root_dir={tmp_path / 'mine'}" in started[0]
    assert "--LabApp.default_url=/lab/tree/01_quickstart.ipynb" in started[0]
    # The learner's work in an existing copy is kept.
    (tmp_path / "mine" / "01_quickstart.ipynb").write_text("{}")
    assert lab.run(parser().parse_args(["lab", "--no-browser"])) == 0
    assert (tmp_path / "mine" / "01_quickstart.ipynb").read_text() == "{}"
    after = {path.name: path.read_bytes() for path in (root / "notebooks").glob("*.ipynb")}
    assert after == before


@pytest.mark.parametrize(("display", "opens"), [(":0", True), ("", False)])
def test_lab_opens_a_browser_only_with_a_display(monkeypatch, tmp_path, capsys, display, opens):
    monkeypatch.setattr(lab.sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    started: list[list[str]] = []
    monkeypatch.setattr(lab, "run_tree", lambda command, **how: started.append(command) or 0)
    assert lab.run(parser().parse_args(["lab", str(tmp_path / "a.ipynb")])) == 0
    assert ("--no-browser" not in started[0]) is opens
    assert ("open the URL JupyterLab prints" in capsys.readouterr().out) is not opens


def test_the_install_hint_names_the_checkout_when_run_from_one(monkeypatch):
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    assert lab._install_hint() == 'pip install -e ".[widget]"'
    monkeypatch.chdir(root / "docs")
    assert lab._install_hint() == f'pip install -e "{root}[widget]"'


def test_lab_refuses_a_file_that_is_not_a_notebook(capsys, tmp_path):
    assert lab.run(parser().parse_args(["lab", str(tmp_path / "graph.py")])) == 2
    assert "is not a notebook" in capsys.readouterr().err


@pytest.mark.parametrize("exists", [False, True])
def test_lab_creates_a_missing_notebook_before_starting(monkeypatch, tmp_path, exists):
    path = tmp_path / "new.ipynb"
    if exists:
        path.write_text(nbformat.writes(nbformat.v4.new_notebook()))
    monkeypatch.setattr(lab, "run_tree", lambda command, **how: 0)
    assert lab.run(parser().parse_args(["lab", str(path)])) == 0
    cells = nbformat.read(path, as_version=4).cells
    assert len(cells) == (0 if exists else 1)


@pytest.mark.parametrize("name", ['q"x', "it's", "back\\slash", "both\"'", "ab\udc80"])
def test_a_new_notebooks_cell_names_any_file_as_a_string_literal(tmp_path, name):
    path = tmp_path / f"{name}.ipynb"
    lab.new_notebook(path)
    (cell,) = nbformat.read(path, as_version=4).cells
    (_, assignment, _) = ast.parse(cell.source).body
    assert isinstance(assignment, ast.Assign)
    (keyword,) = assignment.value.keywords
    assert ast.literal_eval(keyword.value) == f"{name}.graph.json"
