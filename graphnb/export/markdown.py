r"""Putting names a user chose (graphs, nodes) into the Markdown cells of an export.

A name is data, not Markdown: ``*``, ``_``, ``<b>`` or a backtick in it must show as
typed, and a newline or a terminal escape must not reshape the cell. Characters that are
not printable are written as their Python escape (``\n``, ``\x1b``, ``\ud800``), which
also keeps a lone surrogate out of the UTF-8 file.
"""

from __future__ import annotations

import re

from .codegen import printable

__all__ = ["inline_code", "markdown_text"]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def markdown_text(text: str) -> str:
    r"""``text`` as Markdown that renders exactly as ``text`` reads.

    CommonMark lets a backslash escape any ASCII punctuation, so every one is escaped.

    >>> print(markdown_text("**bold** <b>"))
    \*\*bold\*\* \<b\>
    """
    return _PUNCTUATION.sub(r"\\\1", printable(text))


def inline_code(text: str) -> str:
    """``text`` as a Markdown code span, fenced by more backticks than it holds in a row.

    >>> print(inline_code("a`b"), inline_code("plain"))
    ``a`b`` `plain`
    """
    text = printable(text)
    runs = [len(run) for run in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    # A code span strips one space at each end when both are there; pad to keep them, and
    # so a backtick at an edge does not join the fence.
    if text.strip(" ") and (text.startswith(("`", " ")) or text.endswith(("`", " "))):
        text = f" {text} "
    return f"{fence}{text}{fence}"
