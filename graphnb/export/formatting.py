"""Formatting an export with ruff, when ruff is installed."""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from pathlib import Path

__all__ = ["format_source"]


def _ruff_binary() -> str | None:
    found = shutil.which("ruff")
    if found:
        return found
    candidate = Path(sysconfig.get_path("scripts")) / "ruff"
    return str(candidate) if candidate.exists() else None


def format_source(text: str, *, sort_imports: bool = True) -> str:
    """Sort imports and format ``text`` with ruff when it is installed; else return it as is.

    Ruff runs isolated from any project configuration, so the result does not depend on
    the directory the export is made in.
    """
    ruff = _ruff_binary()
    if ruff is None:
        return text
    commands = [["format", "--isolated", "--quiet"]]
    if sort_imports:
        commands.insert(
            0, ["check", "--isolated", "--select", "I", "--fix", "--exit-zero", "--quiet"]
        )
    for command in commands:
        done = subprocess.run(
            [ruff, *command, "--stdin-filename", "graph.py", "-"],
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        if done.returncode != 0 or not done.stdout:
            return text
        text = done.stdout
    return text
