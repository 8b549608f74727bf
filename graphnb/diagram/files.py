"""Writing diagrams to files, the format chosen by the file's suffix."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import UnknownFormatError
from .render import to_dot, to_mermaid, to_svg

__all__ = ["FORMATS", "save"]

FORMATS = {
    ".svg": to_svg,
    ".mmd": to_mermaid,
    ".mermaid": to_mermaid,
    ".dot": to_dot,
    ".gv": to_dot,
}
"""Each supported suffix and the function writing its text."""


def save(obj: Any, path: str | os.PathLike[str]) -> Path:
    """Write the diagram of ``obj`` to ``path``: SVG, Mermaid or DOT, by suffix.

    Args:
        obj: a ``GraphSpec`` or anything with a ``.spec``.
        path: ends in ``.svg``, ``.mmd`` (or ``.mermaid``), or ``.dot`` (or ``.gv``).

    Returns:
        The path written.

    Raises:
        UnknownFormatError: for any other suffix (nothing is written).
    """
    target = Path(path)
    render = FORMATS.get(target.suffix.lower())
    if render is None:
        raise UnknownFormatError(target, tuple(FORMATS))
    # Drawn and encoded in full before the file is opened: a failure leaves an existing
    # diagram as it was instead of emptied.
    data = render(obj).encode("utf-8")
    target.write_bytes(data)
    return target
