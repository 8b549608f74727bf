"""``graphnb lab``'s working copy holds what the notebooks need and opens unmodified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphnb.cli.lab import installed_kernel, new_notebook, working_copy

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GRAPHNB_NOTEBOOKS", str(tmp_path / "copies"))
    return tmp_path / "copies"


def test_the_working_copy_brings_the_helper_modules_and_the_course(
    copies: Path, tmp_path: Path
) -> None:
    # Only *.ipynb were copied: 08 failed with "No module named 'batch_flow'" and the
    # course was missing.
    quickstart = working_copy(NOTEBOOKS / "01_quickstart.ipynb")
    assert quickstart == copies / "01_quickstart.ipynb"
    assert (copies / "batch_flow.py").is_file()
    for folder in ("solutions", "student"):
        names = sorted(p.name for p in (NOTEBOOKS / "course" / folder).glob("*.ipynb"))
        assert names, folder
        assert sorted(p.name for p in (copies / "course" / folder).glob("*.ipynb")) == names
    assert (copies / "course" / "README.md").is_file()
    done = subprocess.run(
        [sys.executable, "-c", "import batch_flow; print(batch_flow.build().spec.name)"],
        cwd=copies,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_working_copy_keeps_the_learners_files_and_leaves_caches_behind(
    copies: Path, tmp_path: Path
) -> None:
    source = tmp_path / "source"
    (source / "course" / "__pycache__").mkdir(parents=True)
    (source / "01_quickstart.ipynb").write_text('{"cells": [], "metadata": {}}\n')
    (source / "helper.py").write_text("VALUE = 1\n")
    (source / "course" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (source / "threads.db").write_bytes(b"SQLite")
    (source / ".hidden").write_text("no")
    copies.mkdir()
    (copies / "helper.py").write_text("VALUE = 2  # the learner's edit\n")
    working_copy(source / "01_quickstart.ipynb")
    assert (copies / "helper.py").read_text() == "VALUE = 2  # the learner's edit\n"
    assert (copies / "01_quickstart.ipynb").is_file()
    assert not (copies / "threads.db").exists()
    assert not (copies / ".hidden").exists()
    assert not (copies / "course" / "__pycache__").exists()


def test_copied_and_new_notebooks_name_the_installed_kernel_as_jupyterlab_writes_it(
    copies: Path, tmp_path: Path
) -> None:
    # The quickstart said "Python 3" where the installed kernel says "Python 3 (ipykernel)":
    # JupyterLab rewrote it on opening and the notebook showed as modified at once.
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    expected = {"display_name": spec.display_name, "language": spec.language, "name": "python3"}
    assert installed_kernel()["kernelspec"] == expected
    for copy in [working_copy(NOTEBOOKS / "01_quickstart.ipynb"), copies / "08_batches.ipynb"]:
        metadata = json.loads(copy.read_text(encoding="utf-8"))["metadata"]
        assert metadata["kernelspec"] == expected
        assert metadata["language_info"]["version"] == sys.version.split()[0]
    student = copies / "course" / "student" / "01_state_and_reducers.ipynb"
    assert json.loads(student.read_text(encoding="utf-8"))["metadata"]["kernelspec"] == expected
    new_notebook(tmp_path / "mine.ipynb")
    made = json.loads((tmp_path / "mine.ipynb").read_text(encoding="utf-8"))
    assert made["metadata"]["kernelspec"] == expected


def test_notebook_08_says_how_to_install_dask() -> None:
    # dask is not in the widget extra the README installs: 08 failed with "No module named
    # 'distributed'" and did not say what to install.
    notebook = json.loads((NOTEBOOKS / "08_batches.ipynb").read_text(encoding="utf-8"))
    intro = "".join(notebook["cells"][0]["source"])
    assert 'pip install "graphnb[dask]"' in intro
    (cell,) = [
        "".join(c["source"])
        for c in notebook["cells"]
        if "from distributed import" in "".join(c["source"])
    ]
    blocked = (
        "import importlib.abc, sys\n"
        "class B(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] in ('distributed', 'dask'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, B())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocked + cell.split("\n\ncluster")[0]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert 'ImportError: this notebook needs Dask: pip install "graphnb[dask]"' in done.stderr
