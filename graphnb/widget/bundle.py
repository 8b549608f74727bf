"""The builder's front end, sent by the kernel when a view asks, never kept in its state.

anywidget syncs ``_esm`` and ``_css`` as ordinary traits, so a widget whose ``_esm`` is
the built bundle carries all of it (about 440 KB of JavaScript and 25 KB of CSS) in its
state, and every notebook saved with widget state stores that copy: a notebook with one
builder weighed about 1 MB. Here ``_esm`` is :data:`LOADER`, a module of a few hundred
bytes: its ``render`` asks the kernel for the bundle through anywidget's command channel
(``experimental.invoke``), receives the JavaScript and CSS as binary buffers, and hands
over to the bundle's own ``render``. The page keeps one copy per bundle version, so many
builders load it once. Without a kernel (a notebook opened from a saved file) the view
says so; the output's SVG picture of the graph is there for viewers that show no widgets.

Example:
    >>> len(LOADER) < 2000 and VERSION in LOADER
    True
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

__all__ = ["COMMAND", "LOADER", "STATIC", "VERSION", "bundle_reply"]

STATIC = Path(__file__).resolve().parent.parent / "static"
"""Where the built front end lives (``widget.js``, ``widget.css``)."""

COMMAND = "_graphnb_bundle"
"""The name of the command the loader invokes (the builder's method of that name)."""


def _read(name: str) -> bytes:
    return (STATIC / name).read_bytes()


VERSION = hashlib.sha256(_read("widget.js") + _read("widget.css")).hexdigest()[:16]
"""Changes with the bundle, so a page holding an older bundle loads the new one."""

LOADER = f"""\
// graphnb's builder: the bundle comes from the kernel (see graphnb/widget/bundle.py).
const VERSION = "{VERSION}";
const loaded = (globalThis.__graphnb_bundles ??= {{}});
async function load(invoke) {{
  const signal = AbortSignal.timeout(60000);
  const [, buffers] = await invoke("{COMMAND}", {{ version: VERSION }}, {{ signal }});
  const id = `graphnb-css-${{VERSION}}`;
  if (!document.getElementById(id)) {{
    const style = Object.assign(document.createElement("style"), {{ id }});
    style.textContent = new TextDecoder().decode(buffers[1]);
    document.head.appendChild(style);
  }}
  const url = URL.createObjectURL(new Blob([buffers[0]], {{ type: "text/javascript" }}));
  try {{ return (await import(/* webpackIgnore: true */ url)).default; }}
  finally {{ URL.revokeObjectURL(url); }}
}}
export default {{
  async render({{ model, el, experimental }}) {{
    let widget;
    try {{ widget = await (loaded[VERSION] ??= load(experimental.invoke)); }}
    catch (error) {{
      delete loaded[VERSION];
      el.textContent = "graphnb builder: run the cell with a live kernel to load the editor.";
      console.warn("[graphnb] the builder could not load its front end from the kernel", error);
      return;
    }}
    return widget.render({{ model, el, experimental }});
  }},
}};
"""
"""The ``_esm`` every builder syncs: a loader, not the bundle."""


def bundle_reply(message: Any) -> tuple[dict[str, str], list[bytes]]:
    """Answer the loader: the bundle's version, with its JavaScript and CSS as buffers."""
    return {"version": VERSION}, [_read("widget.js"), _read("widget.css")]
