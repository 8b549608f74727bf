"""Which way the canvas lays a graph out: top-down (the default) or left-right.

The direction is kept in the spec's metadata under :data:`DIRECTION_KEY`, so the canvas
draws handles on the matching sides (top/bottom, or left/right) and a later Layout keeps
it. Left to right, layers are columns, as far apart as the widest label between them.
"""

from __future__ import annotations

from typing import Literal

from ..spec import END, START, GraphSpec
from .layout import POSITIONS_KEY

__all__ = ["DIRECTION_KEY", "Direction", "direction_of", "settle_terminals"]

DIRECTION_KEY = "graphnb.widget.direction"
"""Spec metadata key: ``"TB"`` (top-down) or ``"LR"`` (left-right)."""

Direction = Literal["TB", "LR"]


def direction_of(spec: GraphSpec) -> Direction:
    """The direction ``spec`` is drawn in (``"TB"`` unless its metadata says ``"LR"``)."""
    return "LR" if spec.metadata.get(DIRECTION_KEY) == "LR" else "TB"


def settle_terminals(spec: GraphSpec, offset_x: float, offset_y: float) -> None:
    """Move START and END (kept in metadata by apply_layout) by an offset, in place."""
    stored = spec.metadata.get(POSITIONS_KEY)
    if not isinstance(stored, dict):
        return
    for name in (START, END):
        place = stored.get(name)
        if not isinstance(place, dict):
            continue
        x, y = place.get("x"), place.get("y")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            place["x"], place["y"] = float(x) + offset_x, float(y) + offset_y
