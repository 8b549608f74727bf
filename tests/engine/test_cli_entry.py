"""The command line's entry points and how it ends."""

from __future__ import annotations

import subprocess
import sys


def test_python_dash_m_runs_the_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "graphnb", "--help"], capture_output=True, text=True, check=True
    )
    assert "Build, run, draw and export typed-state graphs." in result.stdout


def test_a_closed_pipe_ends_quietly():
    reader = subprocess.Popen(
        [sys.executable, "-m", "graphnb", "demo"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None
    reader.stdout.read(10)  # take a little, then hang up
    reader.stdout.close()
    _, err = reader.communicate(timeout=60)
    assert reader.returncode == 141
    assert b"Traceback" not in err
