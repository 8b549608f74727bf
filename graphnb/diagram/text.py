"""Text helpers shared by the layout and the renderers: shortening and width estimates.

Widths are estimated from character classes rather than measured with a font library:
the SVG is drawn in the viewer's own sans-serif font, so no measurement made here could
be exact, and estimating slightly wide only adds padding.
"""

from __future__ import annotations

import unicodedata

__all__ = ["ELLIPSIS", "shorten", "text_width"]

ELLIPSIS = "\u2026"

_NARROW = frozenset("ijlI.,:;|!'`()[]{} ")
_WIDE = frozenset("mwMW@%")


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
