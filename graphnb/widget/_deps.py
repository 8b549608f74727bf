"""The widget's optional dependencies, imported with an install hint when missing."""

from __future__ import annotations

try:
    import anywidget
    import traitlets
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "graphnb's builder widget needs anywidget and ipywidgets: "
        "install them with `pip install 'graphnb[widget]'`"
    ) from error

__all__ = ["anywidget", "traitlets"]
