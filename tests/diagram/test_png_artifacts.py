"""Render the sample diagrams to ``test-artifacts/diagram/diagrams.png`` for a look by eye.

The PNG shows each diagram twice: inline in a page with JupyterLab's light theme
variables, then with its dark theme variables; the SVGs are written next to it. Needs a
headless Chromium; skipped when none is installed (the SVG tests do not depend on it).
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from graphnb import END, START, GraphnbError, StateGraph
from graphnb.diagram import Trace, to_svg

from .samples import SAMPLES, noop

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "diagram"
BROWSER = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
LIGHT = (
    "--jp-layout-color0:#fff;--jp-layout-color1:#fff;--jp-layout-color2:#eee;"
    "--jp-content-font-color1:rgba(0,0,0,.87);"
    "--jp-content-font-color2:rgba(0,0,0,.54);--jp-brand-color1:#1976d2;"
    "--jp-warn-color1:#f57c00;--jp-error-color1:#d32f2f;background:#fff"
)
DARK = (
    "--jp-layout-color0:#111;--jp-layout-color1:#212121;--jp-layout-color2:#424242;"
    "--jp-content-font-color1:#fff;"
    "--jp-content-font-color2:rgba(255,255,255,.7);--jp-brand-color1:#42a5f5;"
    "--jp-warn-color1:#f57c00;--jp-error-color1:#e57373;background:#111"
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BROWSER is None, reason="no headless Chromium to render PNGs"),
]


def explode(state: dict[str, object]) -> dict[str, object]:
    raise ValueError("tool down")


def traced_svg() -> str:
    graph = StateGraph(dict, name="traced")
    for name in ("plan", "search", "call_tool", "answer"):
        graph.add_node(name, explode if name == "call_tool" else noop)
    graph.add_edge(START, "plan").add_edge("plan", "search").add_edge("plan", "call_tool")
    graph.add_edge(["search", "call_tool"], "answer").add_edge("answer", END)
    events: list[object] = []
    with pytest.raises(GraphnbError):
        events.extend(graph.compile().stream({}, mode="events"))
    return to_svg(graph, trace=Trace.from_events(events))


def size_of(svg: str) -> tuple[float, float]:
    found = re.search(r'width="([\d.]+)" height="([\d.]+)"', svg)
    assert found is not None
    return float(found.group(1)), float(found.group(2))


def contact_sheet(drawings: dict[str, str]) -> Path:
    """One PNG of every drawing, light theme left, dark theme right (one browser launch)."""
    rows = []
    width = height = 0.0
    for name, svg in drawings.items():
        w, h = size_of(svg)
        width, height = max(width, 2 * w + 48), height + h + 48
        # The dark copy gets its own marker ids, as a second drawing in a page would.
        dark = re.sub(r"gnb-([0-9a-f]{8})-", r"gnb-\1d-", svg)
        rows.append(
            f'<h3 style="margin:4px 8px;font:13px sans-serif">{name}</h3>'
            f'<div style="display:flex"><div style="{LIGHT};padding:8px">{svg}</div>'
            f'<div style="{DARK};padding:8px">{dark}</div></div>'
        )
    page = ARTIFACTS / "diagrams.html"
    page.write_text(f'<html><body style="margin:0">{"".join(rows)}</body></html>', "utf-8")
    png = ARTIFACTS / "diagrams.png"
    png.unlink(missing_ok=True)
    assert BROWSER is not None
    subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
            "--hide-scrollbars",
            f"--screenshot={png}",
            f"--window-size={int(width)},{int(height)}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return png


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_samples_render_to_png_for_review() -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    drawings = {name: to_svg(make()) for name, make in SAMPLES.items()}
    drawings["traced_failed_run"] = traced_svg()
    for name, svg in drawings.items():
        (ARTIFACTS / f"{name}.svg").write_text(svg, encoding="utf-8")
    width, height = png_size(contact_sheet(drawings))
    assert width >= max(2 * size_of(svg)[0] for svg in drawings.values())
    assert height >= sum(size_of(svg)[1] for svg in drawings.values())
