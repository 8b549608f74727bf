"""The committed bundle is what users run: it must be built from the current sources."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import typing
from pathlib import Path

from graphnb.widget import protocol

ROOT = Path(__file__).resolve().parents[2]
WIDGETS = ROOT / "widgets"
STATIC = ROOT / "graphnb" / "static"


def source_hash() -> str:
    """The hash ``widgets/build.mjs`` writes into the bundle's first line (same recipe)."""
    files = ["build.mjs", "package-lock.json"]
    sources = (WIDGETS / "src").rglob("*")
    files += [p.relative_to(WIDGETS).as_posix() for p in sources if p.is_file()]
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update((WIDGETS / name).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def test_the_committed_bundle_was_built_from_the_current_sources():
    first_line = (STATIC / "widget.js").read_text(encoding="utf-8").split("\n", 1)[0]
    found = re.search(r"sources sha256: ([0-9a-f]{64})", first_line)
    assert found, f"widget.js has no source hash in its first line: {first_line[:120]!r}"
    assert found[1] == source_hash(), (
        "graphnb/static/widget.js is older than widgets/src: rebuild it with "
        "`cd widgets && npm ci && npm run build` and commit graphnb/static"
    )


def test_the_bundle_and_its_css_ship_inside_the_package():
    assert (STATIC / "widget.js").stat().st_size > 100_000
    css = (STATIC / "widget.css").read_text(encoding="utf-8")
    assert ".react-flow" in css
    assert "--jp-layout-color1" in css, "the widget follows the JupyterLab theme"


def test_every_request_type_has_one_reply_type_and_one_handler(comm, notebook):
    """The protocol's table of replies, its union of requests and the dispatcher agree."""
    from graphnb.widget import Builder

    kinds = set()
    for member in typing.get_args(protocol.Request):
        kinds.update(typing.get_args(typing.get_type_hints(member)["type"]))
    assert kinds == set(protocol.REQUEST_TYPES)
    builder = Builder(notebook["graph"], namespace=notebook)
    assert set(builder._handlers) == set(protocol.REQUEST_TYPES)
    command = typing.get_type_hints(protocol.Protocol)["command"]
    assert typing.get_args(command) == (protocol.REQUEST_COMMAND,)
    assert hasattr(Builder, protocol.REQUEST_COMMAND)


def test_importing_graphnb_loads_no_widget_library():
    code = (
        "import sys, graphnb\n"
        "heavy = {'anywidget', 'ipywidgets', 'IPython', 'traitlets'} & set(sys.modules)\n"
        "print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
