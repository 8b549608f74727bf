"""No keyboard while a check runs: a learner's ``input()`` fails at once instead of waiting.

A grader runs the checks with nobody at the keyboard. A node that calls ``input()`` would
wait for ever on an open stdin (a script, a terminal) or on the notebook's prompt, and
the grading run would hang. While the checks run, ``input()`` raises
:class:`InputDuringCheckError` and ``sys.stdin`` reads as empty, so the check reports the
node by name and goes on.
"""

from __future__ import annotations

import builtins
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["InputDuringCheckError", "no_keyboard"]


class InputDuringCheckError(EOFError):
    """A node asked for keyboard input while an exercise was being checked."""


def _refuse(prompt: Any = "") -> str:
    asked = f" (it asked {str(prompt).strip()!r:.60})" if str(prompt).strip() else ""
    raise InputDuringCheckError(
        f"input() was called while the graph was checked{asked}, and a check has nobody "
        "to type an answer: take the value from the state instead (put it in the run's input)"
    )


@contextmanager
def no_keyboard() -> Iterator[None]:
    """Within the block, ``input()`` raises and ``sys.stdin`` is empty; both are restored."""
    saved_input, saved_stdin = builtins.input, sys.stdin
    builtins.input = _refuse
    sys.stdin = io.StringIO("")
    try:
        yield
    finally:
        builtins.input, sys.stdin = saved_input, saved_stdin
