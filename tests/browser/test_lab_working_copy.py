"""``graphnb lab``'s working copy of the quickstart opens unmodified (issue 29, item 21).

JupyterLab writes the running kernel's name and language into a notebook it opens; the
committed notebooks say "Python 3" where the installed kernel says "Python 3
(ipykernel)", so the quickstart showed as modified (●) before the learner did anything.
The working copy names the installed kernel as JupyterLab would write it.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from graphnb.cli.lab import QUICKSTART, working_copy

REPO = Path(__file__).resolve().parents[2]

DIRTY = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"


def _dirty_after_opening(lab, name: str, *, settle: float = 4.0) -> bool:
    lab.open(name, run=False)
    deadline = time.monotonic() + settle  # the kernel's info lands after it is idle
    while time.monotonic() < deadline:
        if lab.page.evaluate(DIRTY):
            return True
        time.sleep(0.2)
    return bool(lab.page.evaluate(DIRTY))


def test_the_working_copy_of_the_quickstart_opens_unmodified(
    lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = lab.server.root_dir
    # the committed notebook, as it is: JupyterLab rewrites its kernel, so it is dirty
    shutil.copyfile(REPO / QUICKSTART, root / "committed.ipynb")
    assert _dirty_after_opening(lab, "committed"), "the check sees a rewritten kernel"
    lab.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    monkeypatch.setenv("GRAPHNB_NOTEBOOKS", str(root))
    copy = working_copy(REPO / QUICKSTART)
    assert copy == root / QUICKSTART.name
    assert not _dirty_after_opening(lab, copy.stem), "the copy opened as modified"
