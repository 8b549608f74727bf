"""How a graph shows itself in Jupyter, handed in from the layer that draws.

The engine does not import :mod:`graphnb.diagram` (a face above it). The package façade
(``graphnb/__init__.py``) installs the drawing with :func:`install_renderer` when
``graphnb`` is imported; diagrams still load their own dependencies only when first shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..spec import GraphSpec

__all__ = ["Renderer", "install_renderer", "mimebundle"]

Renderer = Callable[["GraphSpec"], dict[str, str]]
"""Draws a spec as a Jupyter MIME bundle (``image/svg+xml``, ``text/plain`` ...)."""

_renderer: Renderer | None = None


def install_renderer(renderer: Renderer) -> None:
    """Make ``renderer`` draw every graph shown from now on."""
    global _renderer
    _renderer = renderer


def mimebundle(spec: GraphSpec) -> dict[str, str]:
    """``spec`` drawn for Jupyter; plain text only when no renderer is installed."""
    if _renderer is None:
        return {"text/plain": f"<graph {spec.name!r}>"}
    return _renderer(spec)
