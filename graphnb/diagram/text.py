"""Text helpers shared by the layout and the renderers: escapes, shortening, widths.

Widths are estimated from character classes rather than measured with a font library:
the SVG is drawn in the viewer's own sans-serif font, so no measurement made here could
be exact, and estimating slightly wide only adds padding.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["ELLIPSIS", "encodable", "shorten", "text_width"]

ELLIPSIS = "\u2026"

_SURROGATE = re.compile("[\ud800-\udfff]")

_NARROW = frozenset("ijlI.,:;|!'`()[]{} ")
_WIDE = frozenset("mwMW@%")


def encodable(text: str) -> str:
    r"""``text`` with each lone surrogate written as its escape, ``\ud800``.

    A name read from a file name that is not UTF-8 can hold one; UTF-8 (a saved diagram,
    a notebook's output) cannot encode it, so it is shown as the exports show it.

    Example:
        >>> print(encodable("n\ud800"))
        n\ud800
    """
    if text.isascii():  # most names: no surrogate possible, nothing to search
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to at most ``limit`` characters with an ellipsis.

    Example:
        >>> shorten("a rather long node label", 12)
        'a rather lo…'
        >>> shorten("short", 12)
        'short'
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + ELLIPSIS


def text_width(text: str, size: float) -> float:
    """An estimate (slightly generous) of ``text``'s width in px at font size ``size``.

    Example:
        >>> text_width("ab", 10) < text_width("MW", 10)
        True
    """
    em = 0.0
    for char in text:
        if char in _NARROW:
            em += 0.34
        elif char in _WIDE:
            em += 0.9
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            em += 1.0
        elif char.isupper() or char.isdigit():
            em += 0.68
        else:
            em += 0.6
    return em * size
