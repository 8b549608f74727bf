r"""What the command line prints: user data made safe for a terminal, and file errors.

Thread ids, node names, state values and streamed text come from users, files and
databases. Printed raw, a newline in a thread id forges a line of ``graphnb threads`` and
an escape sequence (``\x1b[2J``) drives the terminal. Every human-readable line goes
through :func:`shown`, and JSON goes through :func:`json_text`, which escapes what JSON
itself leaves raw.
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["cannot_write", "json_text", "shown"]


def shown(text: object, *, keep: str = "") -> str:
    r"""``text`` with every character that is not printable written as its escape.

    Args:
        text: what to print; not a string is turned into one with ``str``.
        keep: control characters to let through (``"\n\t"`` for streamed text, whose
            lines are meant to show).

    >>> print(shown("alice\n\x1b[31mbob\u202e"))
    alice\n\x1b[31mbob\u202e
    >>> print(shown("line one\nline two", keep="\n"))
    line one
    line two
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() or c in keep else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def json_text(value: Any, *, indent: int | None = None) -> str:
    r"""``value`` as JSON, non-ASCII text kept, characters that are not printable escaped.

    ``json.dumps`` escapes only the C0 controls; DEL, the C1 controls (``\x9b`` starts
    an escape sequence on some terminals), bidi overrides and lone surrogates (which
    UTF-8 output cannot even encode) are written as ``\uXXXX`` too. Outside strings JSON
    holds only printable characters and newlines, so the result is the same JSON value.

    >>> print(json_text({"id": "caf\u00e9\x9b\ud800"}))
    {"id": "café\u009b\ud800"}
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text)


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
