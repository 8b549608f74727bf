"""Snapshots of every sample in every format, stored in ``snapshots/``.

After an intended change to the drawings, rewrite them with::

    GRAPHNB_UPDATE_SNAPSHOTS=1 pytest tests/diagram/test_snapshots.py

and review the diff (``git diff tests/diagram/snapshots``) before committing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphnb import GraphSpec
from graphnb.diagram import to_dot, to_mermaid, to_svg

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("GRAPHNB_UPDATE_SNAPSHOTS") == "1"
FORMATS: dict[str, Callable[[Any], str]] = {"mmd": to_mermaid, "svg": to_svg, "dot": to_dot}


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_drawing_matches_its_snapshot(sample: tuple[str, GraphSpec], suffix: str) -> None:
    name, spec = sample
    path = SNAPSHOTS / f"{name}.{suffix}"
    text = FORMATS[suffix](spec)
    if UPDATE:
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.exists(), f"no snapshot {path.name}; create it with GRAPHNB_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} changed; if intended, rerun with GRAPHNB_UPDATE_SNAPSHOTS=1 and review"
    )
