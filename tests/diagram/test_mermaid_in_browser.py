"""Mermaid's own parser and renderer accept every Mermaid text graphnb writes.

Needs a headless Chromium and Mermaid's browser bundle: set ``GRAPHNB_MERMAID_JS`` to a
``mermaid.min.js`` (``npm install mermaid`` puts it in ``node_modules/mermaid/dist/``), or
have it in ``widgets/node_modules``. Skipped otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.diagram import to_mermaid

from .samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = [
    os.environ.get("GRAPHNB_MERMAID_JS", ""),
    str(ROOT / "widgets" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"),
]
MERMAID = next((Path(c) for c in CANDIDATES if c and Path(c).is_file()), None)
BROWSER = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(MERMAID is None, reason="no mermaid.min.js (set GRAPHNB_MERMAID_JS)"),
    pytest.mark.skipif(BROWSER is None, reason="no headless Chromium"),
]

PAGE = """<html><body><div id="out"></div><script src="%s"></script><script>
mermaid.initialize({startOnLoad: false});
const texts = %s;
(async () => {
  const results = {};
  let n = 0;
  for (const [name, text] of Object.entries(texts)) {
    try { await mermaid.render("d" + n++, text); results[name] = "ok"; }
    catch (error) { results[name] = String(error.message || error); }
  }
  document.getElementById("out").textContent = JSON.stringify(results);
})();
</script></body></html>"""


def awkward_graph() -> GraphSpec:
    return GraphSpec(
        name="'odd': #name {x}",
        nodes=[
            NodeSpec(id="end"),
            NodeSpec(id="has space"),
            NodeSpec(id="n0", label='say "hi" <b>'),
        ],
        edges=[
            EdgeSpec(source=START, target="end"),
            EdgeSpec(source="end", target="has space", label="a;b#c"),
            EdgeSpec(source="has space", target="n0", kind="join"),
            EdgeSpec(source="n0", target=END, kind="conditional", route="x", label="x"),
        ],
    )


def awkward_machine() -> GraphSpec:
    return GraphSpec(
        name="m",
        nodes=[NodeSpec(id="has space", label="Has: space"), NodeSpec(id="end")],
        edges=[
            EdgeSpec(source=START, target="has space"),
            EdgeSpec(source="has space", target="end", label="GO [x < 3; y]"),
            EdgeSpec(source="end", target=END),
        ],
        metadata={"kind": "machine", "initial": "has space", "final": ["end"]},
    )


def test_mermaid_renders_every_text_we_write(tmp_path: Path) -> None:
    assert MERMAID is not None
    assert BROWSER is not None
    texts = {name: to_mermaid(make()) for name, make in SAMPLES.items()}
    texts["awkward_graph"] = to_mermaid(awkward_graph())
    texts["awkward_machine"] = to_mermaid(awkward_machine())
    page = tmp_path / "check.html"
    page.write_text(PAGE % (MERMAID.as_uri(), json.dumps(texts)), encoding="utf-8")
    dom = subprocess.run(
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
            "--allow-file-access-from-files",
            "--virtual-time-budget=20000",
            "--dump-dom",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    found = re.search(r'<div id="out">([^<]*)</div>', dom)
    assert found is not None, "the page did not finish"
    assert json.loads(unescape(found.group(1))) == dict.fromkeys(texts, "ok")
