"""The front end's own unit tests (``widgets/test``), run when Node and its modules are here.

They need ``cd widgets && npm ci``; a machine without Node (users, most of CI) relies on the
committed bundle, which ``test_bundle.py`` checks is current.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

WIDGETS = Path(__file__).resolve().parents[2] / "widgets"


def test_front_end_unit_tests_pass():
    node = shutil.which("node")
    if node is None or not (WIDGETS / "node_modules" / "esbuild").is_dir():
        pytest.skip("needs Node and `npm ci` in widgets/")
    ran = subprocess.run(
        [node, "test.mjs"], cwd=WIDGETS, capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
