"""The thread APIs type-check as users will write them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_thread_apis_keep_the_state_type_under_mypy_strict() -> None:
    checks = Path(__file__).with_name("typed_threads.py")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(checks)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
