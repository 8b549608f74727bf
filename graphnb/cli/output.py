"""Messages about the files the commands write.

What the commands print about users' data (escaped control characters) is in
:mod:`graphnb.console`: :func:`~graphnb.console.shown` and
:func:`~graphnb.console.json_text`.
"""

from __future__ import annotations

import os
import sys

from ..console import ExitCode, shown

__all__ = ["cannot_write", "same_file", "wrote"]


def cannot_write(path: str | os.PathLike[str] | None, error: OSError) -> str:
    """The message for an output file that could not be written.

    >>> cannot_write("out/flow.svg", FileNotFoundError(2, "No such file or directory"))
    "cannot write 'out/flow.svg': its folder 'out' does not exist"
    """
    where = os.fspath(path) if path is not None else "-"
    folder = os.path.dirname(where) or "."
    if isinstance(error, FileNotFoundError) and not os.path.isdir(folder):
        return f"cannot write {where!r}: its folder {folder!r} does not exist"
    return f"cannot write {where!r}: {error.strerror or error}"


def same_file(path: str | os.PathLike[str], other: str | os.PathLike[str]) -> bool:
    """Whether both paths name one existing file, however spelled (``./a.py``, a link).

    >>> same_file("no/such.py", "no/such.py")
    False
    """
    try:
        return os.path.samefile(path, other)
    except (OSError, ValueError):  # either is missing (or not a path): no file is both
        return False


def wrote(path: str | os.PathLike[str]) -> int:
    """Tell stderr that ``path`` was written; returns the command's exit code, 0."""
    print(f"wrote {shown(path)}", file=sys.stderr)
    return ExitCode.OK
