"""The front end's own unit tests (``widgets/test``), run when Node and its modules are here.

They need ``cd widgets && npm ci`` (``scripts/test`` does it); a machine without Node (users)
relies on the committed bundle, which ``test_bundle.py`` checks is current. Under ``CI`` a
missing Node or ``node_modules`` is a failure, not a skip: CI must run these tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

WIDGETS = Path(__file__).resolve().parents[2] / "widgets"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def _node(module: str) -> str:
    """Node, with ``module`` installed in widgets/; skips (fails under CI) without them."""
    node = shutil.which("node")
    if node is None or not (WIDGETS / "node_modules" / module).is_dir():
        missing = "Node" if node is None else "widgets/node_modules"
        if _in_ci():
            pytest.fail(f"CI is set but {missing} is missing: run `cd widgets && npm ci`")
        pytest.skip("needs Node and `npm ci` in widgets/")
    return node


def test_front_end_unit_tests_pass():
    ran = subprocess.run(
        [_node("esbuild"), "test.mjs"],
        cwd=WIDGETS,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]


def test_the_front_ends_protocol_and_spec_types_are_generated_from_the_python_modules():
    """``widgets/src/protocol.generated.ts`` and ``spec.generated.ts`` are what
    graphnb/widget/protocol.py and graphnb/spec.py say today."""
    ran = subprocess.run(
        [_node("json-schema-to-typescript"), "protocol.mjs", "--check"],
        cwd=WIDGETS,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHON": sys.executable},
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
