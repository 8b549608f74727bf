"""The builder's front end, sent by the kernel when a view asks, never kept in its state.

anywidget syncs ``_esm`` and ``_css`` as ordinary traits, so a widget whose ``_esm`` is
the built bundle carries all of it (about 440 KB of JavaScript and 25 KB of CSS) in its
state, and every notebook saved with widget state stores that copy: a notebook with one
builder weighed about 1 MB. Here ``_esm`` is :data:`LOADER`, a module of a few hundred
bytes: its ``render`` asks the kernel for the bundle through anywidget's command channel
(``experimental.invoke``), receives the JavaScript and CSS as binary buffers, and hands
over to the bundle's own ``render``. The page keeps one copy per bundle version, so many
builders load it once. Without a kernel (a saved notebook in nbviewer, or reopened in
JupyterLab before its kernel runs) the loader draws the saved spec as plain boxes and
lines and says a kernel is needed to edit; viewers that show no widgets (GitHub) show the
SVG picture the builder's output carries beside the widget view.

Example:
    >>> len(LOADER) < 4000 and VERSION in LOADER
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
function add(parent, tag, attributes, text) {{
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return parent.appendChild(node);
}}
function picture(spec) {{  // the saved drawing, boxes and lines, for a page without a kernel
  const at = {{ ...(spec.metadata?.["graphnb.widget.positions"] ?? {{}}) }};
  for (const node of spec.nodes) if (node.position) at[node.id] = node.position;
  const ids = Object.keys(at), W = 150, H = 36;
  const xs = ids.map((id) => at[id].x), ys = ids.map((id) => at[id].y);
  const x0 = Math.min(...xs) - 8, y0 = Math.min(...ys) - 8;
  const width = Math.max(...xs) - x0 + W + 8, height = Math.max(...ys) - y0 + H + 8;
  const svg = add(document.createElement("div"), "svg", {{
    viewBox: `${{x0}} ${{y0}} ${{width}} ${{height}}`, width,
    style: "max-width:100%;font:13px sans-serif" }});
  for (const edge of spec.edges) if (at[edge.source] && at[edge.target]) add(svg, "line", {{
    x1: at[edge.source].x + W / 2, y1: at[edge.source].y + H / 2, stroke: "#888",
    x2: at[edge.target].x + W / 2, y2: at[edge.target].y + H / 2 }});
  for (const id of ids) {{
    add(svg, "rect", {{ x: at[id].x, y: at[id].y, width: W, height: H, rx: 6,
      fill: "#fff", stroke: "#555" }});
    add(svg, "text", {{ x: at[id].x + W / 2, y: at[id].y + H / 2 + 4, "text-anchor": "middle" }},
      {{ __start__: "start", __end__: "end" }}[id] ?? id);
  }}
  return ids.length ? svg : null;
}}
export default {{
  async render({{ model, el, experimental }}) {{
    let widget;
    try {{ widget = await (loaded[VERSION] ??= load(experimental.invoke)); }}
    catch (error) {{
      delete loaded[VERSION];
      const drawing = picture(model.get("spec") ?? {{ nodes: [], edges: [] }});
      if (drawing) el.appendChild(drawing);
      el.appendChild(document.createElement("p")).textContent =
        "graphnb builder: run the cell with a live kernel to edit this graph.";
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
