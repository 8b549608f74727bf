"""The SVG renderer: pure Python, no Graphviz, no browser.

The palette is CSS custom properties that pick up JupyterLab's theme variables
(``--jp-...``) with a neutral fallback, so diagrams read well in light and dark themes,
inline or as files. Every node and edge is a ``<g>`` carrying ``data-`` attributes and a
``<title>`` tooltip with its full text.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from html import escape
from typing import Any

from .geometry import Box, Layout, Point, Route, Sizes
from .layered import compute_layout
from .model import Diagram, DiagramNode
from .text import encodable, shorten, text_width
from .trace import Trace

__all__ = ["LABEL_CHARS", "LABEL_FONT", "NODE_CHARS", "NODE_FONT", "render_svg", "svg_sizes"]

NODE_FONT = 13.0
"""Font size of node labels, px."""
LABEL_FONT = 11.0
"""Font size of edge labels and step badges, px."""
NODE_CHARS = 28
"""Longest node label drawn in full; longer ones are shortened (full text in the tooltip)."""
LABEL_CHARS = 24
"""Longest edge label drawn in full."""

_SEND_STYLE = ".gnb-send path{stroke-dasharray:2 3;stroke-width:2.2}"
_CLUSTER_STYLE = (
    ".gnb-cluster>rect{fill:var(--gnb-bg);stroke:var(--gnb-line);stroke-width:1.2;"
    "stroke-dasharray:6 3}"
    ".gnb-cluster>text{font-size:12px;font-weight:600}"
)
_POLICY_STYLE = ".gnb-policy{font-size:10px;opacity:.75}"
_CLUSTER_PAD = 12.0
"""Space between a cluster's outline and the child graph drawn inside it, px."""
_CLUSTER_HEADER = 26.0
"""Height of a cluster's title band, px."""
_STYLE = (
    ".gnb{--gnb-fg:var(--jp-content-font-color1,#1f2328);"
    "--gnb-line:var(--jp-content-font-color2,#6e7781);"
    "--gnb-fill:var(--jp-layout-color2,#eef1f4);"
    "--gnb-bg:var(--jp-layout-color0,#ffffff);"
    "--gnb-accent:var(--jp-brand-color1,#1f6feb);"
    "--gnb-current:var(--jp-warn-color1,#d97706);"
    "--gnb-error:var(--jp-error-color1,#d1242f);"
    'font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}'
    "@media (prefers-color-scheme:dark){.gnb{"
    "--gnb-fg:var(--jp-content-font-color1,#e6edf3);"
    "--gnb-line:var(--jp-content-font-color2,#8d96a0);"
    "--gnb-fill:var(--jp-layout-color2,#2d333b);"
    "--gnb-bg:var(--jp-layout-color0,#1c2128)}}"
    ".gnb text{fill:var(--gnb-fg);text-anchor:middle}"
    ".gnb-node>rect,.gnb-node>circle{fill:var(--gnb-fill);stroke:var(--gnb-line);stroke-width:1.2}"
    ".gnb-start>rect,.gnb-end>rect{fill:var(--gnb-bg)}"
    ".gnb-start text,.gnb-end text{font-size:11px;opacity:.8}"
    ".gnb-machine .gnb-start>circle,.gnb-end>circle.gnb-dot{fill:var(--gnb-fg);stroke:none}"
    ".gnb-end>circle{fill:none}"
    ".gnb-missing>rect{stroke:var(--gnb-error);stroke-dasharray:3 3}"
    ".gnb-edge path{fill:none;stroke:var(--gnb-line);stroke-width:1.3}"
    ".gnb-conditional path{stroke-dasharray:5 4}"
    ".gnb-head{fill:var(--gnb-line)}"
    ".gnb-label rect{fill:var(--gnb-bg);opacity:.92}"
    ".gnb-label text{font-size:11px}"
    ".gnb-joinbar rect{fill:var(--gnb-fg)}"
    ".gnb-traced .gnb-edge:not(.gnb-taken),.gnb-traced .gnb-node:not(.gnb-visited){opacity:.45}"
    ".gnb-taken path{stroke:var(--gnb-accent);stroke-width:2.2}"
    ".gnb-head-taken{fill:var(--gnb-accent)}"
    ".gnb-visited>rect,.gnb-visited>circle{stroke:var(--gnb-accent);stroke-width:2}"
    ".gnb-current>rect,.gnb-current>circle{stroke:var(--gnb-current);stroke-width:3}"
    ".gnb-failed>rect,.gnb-failed>circle{stroke:var(--gnb-error);stroke-width:3}"
    ".gnb-badge rect{fill:var(--gnb-accent)}"
    ".gnb-failed .gnb-badge rect{fill:var(--gnb-error)}"
    ".gnb-current .gnb-badge rect{fill:var(--gnb-current)}"
    ".gnb .gnb-badge text{fill:#fff;font-size:10px;font-weight:600}"
)

# Marker ids get a suffix hashed from the drawing, so two diagrams inlined in one page
# (a notebook) never use each other's arrowheads, and the same drawing stays byte-identical.
_MARKERS = (
    '<defs><marker id="\x01arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
    'markerHeight="7" orient="auto"><path class="gnb-head" d="M0,0L10,5L0,10z"/></marker>'
    '<marker id="\x01arrow-taken" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
    'markerHeight="6" orient="auto"><path class="gnb-head-taken" d="M0,0L10,5L0,10z"/>'
    "</marker></defs>"
)

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


Nested = dict[str, tuple[Layout, "Nested"]]


def svg_sizes(diagram: Diagram, inner: Nested | None = None) -> Sizes:
    """The box sizes the SVG renderer lays ``diagram`` out with.

    A subgraph node is a cluster sized to hold its child's whole drawing; the child's
    layout is kept in ``inner`` (by node id) for the renderer.
    """
    machine = diagram.kind == "machine"
    layouts = inner if inner is not None else {}

    def node(item: DiagramNode) -> tuple[float, float]:
        if item.child is not None:
            if item.id not in layouts:
                layouts[item.id] = _layouts(item.child)
            child = layouts[item.id][0]
            title = text_width(shorten(_title(item), NODE_CHARS), 12.0) + 24.0
            width = max(child.width, title) + 2 * _CLUSTER_PAD
            return width, child.height + _CLUSTER_HEADER + _CLUSTER_PAD
        if machine and item.kind == "start":
            return 16.0, 16.0
        if machine and item.kind == "end":
            return 20.0, 20.0
        if item.kind in ("start", "end"):
            return text_width(item.label, 11.0) + 28.0, 26.0
        name, _, marks = item.label.partition("\n")
        width = max(72.0, text_width(shorten(name, NODE_CHARS), NODE_FONT) + 32.0)
        if marks:  # the node's policies, a smaller second line
            return max(width, text_width(shorten(marks, LABEL_CHARS + 8), 10.0) + 20.0), 48.0
        return width, 36.0

    def label(text: str) -> tuple[float, float]:
        return text_width(shorten(text, LABEL_CHARS), LABEL_FONT) + 10.0, 16.0

    return Sizes(node, label)


def render_svg(diagram: Diagram, *, trace: Trace | None = None) -> str:
    """Draw ``diagram`` (and ``trace`` on it) as an SVG document.

    Subgraph nodes are drawn as clusters: a dashed outline titled with the node, holding
    the child graph's drawing (nested to any depth), with the trace's inner part drawn
    inside.
    """
    layout, inner = _layouts(diagram)
    return _Svg(diagram, layout, trace, inner).render()


def _layouts(diagram: Diagram) -> tuple[Layout, Nested]:
    inner: Nested = {}
    return compute_layout(diagram, svg_sizes(diagram, inner)), inner


def _title(node: DiagramNode) -> str:
    return node.label.replace("\n", "  ")


def _has_sends(diagram: Diagram) -> bool:
    return any(edge.kind == "send" for edge in diagram.edges) or any(
        node.child is not None and _has_sends(node.child) for node in diagram.nodes
    )


def _has_marks(diagram: Diagram) -> bool:
    return any(
        "\n" in node.label or (node.child is not None and _has_marks(node.child))
        for node in diagram.nodes
    )


class _Svg:
    def __init__(
        self,
        diagram: Diagram,
        layout: Layout,
        trace: Trace | None,
        inner: Nested | None = None,
        *,
        out: list[str] | None = None,
        prefix: str = "",
    ) -> None:
        self.diagram = diagram
        self.layout = layout
        self.trace = trace
        self.inner = inner or {}
        self.taken = set(trace.taken_edges(diagram)) if trace else set()
        self.visited = set(trace.visited(diagram)) if trace else set()
        self.out: list[str] = [] if out is None else out
        self.prefix = prefix  # a cluster's node ids are paths: "research/search"

    def render(self) -> str:
        width, height = _n(self.layout.width), _n(self.layout.height)
        classes = ["gnb", f"gnb-{self.diagram.kind}"]
        if self.trace is not None:
            classes.append("gnb-traced")
        out = self.out
        out.append(
            f'<svg xmlns="http://www.w3.org/2000/svg" class="{" ".join(classes)}" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{_esc(self.diagram.kind + " " + self.diagram.name)}">'
        )
        out.append(f"<title>{_esc(self.diagram.name)}</title>")
        style = _STYLE
        if _has_sends(self.diagram):
            style += _SEND_STYLE  # only then: drawings without Sends stay byte for byte
        if any(node.child is not None for node in self.diagram.nodes):
            style += _CLUSTER_STYLE
        if _has_marks(self.diagram):
            style += _POLICY_STYLE
        out.append(f"<style>{style}</style>")
        out.append(_MARKERS)
        self._body()
        out.append("</svg>")
        text = "".join(out) + "\n"
        suffix = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:8]
        # User text cannot hold \x01 (see _esc), so this only touches the marker ids.
        return text.replace("\x01", f"gnb-{suffix}-")

    def _body(self) -> None:
        """The edges, join bars and nodes, in this order (nodes drawn over edges)."""
        out = self.out
        out.append('<g class="gnb-edges">')
        for route in self.layout.routes:
            self._edge(route)
        out.append("</g>")
        if self.layout.joins:
            out.append('<g class="gnb-joins">')
            for target, bar in self.layout.joins.items():
                self._join(target, bar)
            out.append("</g>")
        out.append('<g class="gnb-nodes">')
        for node in self.diagram.nodes:
            self._node(node, self.layout.nodes[node.id])
        out.append("</g>")

    def _edge(self, route: Route) -> None:
        edge = route.edge
        classes = ["gnb-edge", f"gnb-{edge.kind}"]
        if route.back:
            classes.append("gnb-back")
        if edge.is_loop:
            classes.append("gnb-loop")
        if edge.internal:
            classes.append("gnb-internal")
        taken = edge.index in self.taken
        if taken:
            classes.append("gnb-taken")
        tip = f"{edge.source} \u2192 {edge.target}"
        if edge.kind != "direct":
            tip += f" ({edge.kind})"
        if edge.label:
            tip += f": {edge.label}"
        if edge.kind == "join" and not edge.is_loop:
            d = _path(route.points)
            marker = ""
        else:
            d = _loop(route.points) if edge.is_loop else _path(route.points)
            marker = f' marker-end="url(#\x01arrow{"-taken" if taken else ""})"'
        self.out.append(
            f'<g class="{" ".join(classes)}" data-index="{edge.index}" '
            f'data-source="{_esc(self.prefix + edge.source)}" '
            f'data-target="{_esc(self.prefix + edge.target)}">'
            f'<title>{_esc(tip)}</title><path d="{d}"{marker}/>'
        )
        if edge.label and route.label is not None:
            self._label(route.label, edge.label)
        self.out.append("</g>")

    def _label(self, box: Box, text: str) -> None:
        self.out.append(
            f'<g class="gnb-label"><rect x="{_n(box.left)}" y="{_n(box.top)}" '
            f'width="{_n(box.width)}" height="{_n(box.height)}" rx="3"/>'
            f'<text x="{_n(box.x)}" y="{_n(box.y + LABEL_FONT * 0.35)}">'
            f"{_esc(shorten(text, LABEL_CHARS))}</text></g>"
        )

    def _join(self, target: str, bar: Box) -> None:
        sources = ", ".join(e.source for e in self.diagram.joins()[target])
        connector = self.layout.connectors[target]
        taken = any(e.index in self.taken for e in self.diagram.joins()[target])
        cls = "gnb-joinbar gnb-edge gnb-taken" if taken else "gnb-joinbar gnb-edge"
        marker = "\x01arrow-taken" if taken else "\x01arrow"
        self.out.append(
            f'<g class="{cls}" data-target="{_esc(self.prefix + target)}">'
            f"<title>{_esc(f'{target} waits for all of: {sources}')}</title>"
            f'<rect x="{_n(bar.left)}" y="{_n(bar.top)}" width="{_n(bar.width)}" '
            f'height="{_n(bar.height)}" rx="2"/>'
            f'<path d="{_path(connector)}" marker-end="url(#{marker})"/>'
            "</g>"
        )

    def _node(self, node: DiagramNode, box: Box) -> None:
        classes = ["gnb-node", f"gnb-{node.kind}"]
        if node.initial:
            classes.append("gnb-initial")
        if node.final:
            classes.append("gnb-final")
        trace = self.trace
        if trace is not None:
            if node.id in self.visited:
                classes.append("gnb-visited")
            if node.id in trace.current:
                classes.append("gnb-current")
            if node.id == trace.failed:
                classes.append("gnb-failed")
        tip = node.tooltip or node.label
        out = self.out
        if node.child is not None:
            classes.append("gnb-cluster")
        out.append(
            f'<g class="{" ".join(classes)}" data-id="{_esc(self.prefix + node.id)}">'
            f"<title>{_esc(tip)}</title>"
        )
        machine = self.diagram.kind == "machine"
        if node.child is not None:
            self._cluster(node, box)
        elif machine and node.kind == "start":
            out.append(f'<circle cx="{_n(box.x)}" cy="{_n(box.y)}" r="{_n(box.width / 2)}"/>')
        elif machine and node.kind == "end":
            out.append(
                f'<circle cx="{_n(box.x)}" cy="{_n(box.y)}" r="{_n(box.width / 2)}"/>'
                f'<circle class="gnb-dot" cx="{_n(box.x)}" cy="{_n(box.y)}" '
                f'r="{_n(box.width / 2 - 4)}"/>'
            )
        else:
            radius = box.height / 2 if node.kind in ("start", "end") else 10 if machine else 5
            size = 11.0 if node.kind in ("start", "end") else NODE_FONT
            name, _, marks = node.label.partition("\n")
            y = box.y - 6 if marks else box.y
            out.append(
                f'<rect x="{_n(box.left)}" y="{_n(box.top)}" width="{_n(box.width)}" '
                f'height="{_n(box.height)}" rx="{_n(radius)}"/>'
                f'<text x="{_n(box.x)}" y="{_n(y + size * 0.35)}">'
                f"{_esc(shorten(name if marks else node.label, NODE_CHARS))}</text>"
            )
            if marks:
                out.append(
                    f'<text class="gnb-policy" x="{_n(box.x)}" y="{_n(box.y + 14)}">'
                    f"{_esc(shorten(marks, LABEL_CHARS + 8))}</text>"
                )
        if trace is not None and node.kind == "node" and trace.steps.get(node.id):
            self._badge(box, trace.steps[node.id])
        out.append("</g>")

    def _cluster(self, node: DiagramNode, box: Box) -> None:
        """A subgraph node: its outline and title, then its child's drawing inside."""
        assert node.child is not None
        out = self.out
        out.append(
            f'<rect x="{_n(box.left)}" y="{_n(box.top)}" width="{_n(box.width)}" '
            f'height="{_n(box.height)}" rx="8"/>'
            f'<text x="{_n(box.x)}" y="{_n(box.top + _CLUSTER_HEADER / 2 + 4)}">'
            f"{_esc(shorten(_title(node), NODE_CHARS))}</text>"
        )
        child, layouts = self.inner[node.id]
        dx = box.x - child.width / 2
        dy = box.top + _CLUSTER_HEADER
        trace = self.trace.inner.get(node.id, Trace()) if self.trace is not None else None
        out.append(f'<g class="gnb-inner" transform="translate({_n(dx)},{_n(dy)})">')
        _Svg(node.child, child, trace, layouts, out=out, prefix=f"{self.prefix}{node.id}/")._body()
        out.append("</g>")

    def _badge(self, box: Box, steps: Iterable[int]) -> None:
        numbers = [str(step) for step in steps]
        text = ", ".join(numbers) if len(numbers) <= 4 else ", ".join(numbers[:3]) + ", \u2026"
        width = text_width(text, 10.0) + 8.0
        x, y = box.right - width / 2 - 2, box.top
        title = f"step{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}"
        self.out.append(
            f'<g class="gnb-badge"><title>{_esc(title)}</title>'
            f'<rect x="{_n(x - width / 2)}" y="{_n(y - 7)}" width="{_n(width)}" height="14" '
            f'rx="7"/><text x="{_n(x)}" y="{_n(y + 3.5)}">{_esc(text)}</text></g>'
        )


# Rows share their y coordinates (and ranks their curves' midpoints) across all edges, so a
# big drawing formats the same numbers thousands of times: remembered, they cost a lookup.
@functools.lru_cache(maxsize=4096)
def _n(value: float) -> str:
    """A coordinate as short, stable text: one decimal, no trailing ``.0``."""
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


def _path(points: tuple[Point, ...]) -> str:
    """A path through ``points``: straight when vertical, else a vertical S curve."""
    # Points inside a vertical run add nothing to the drawing, only bytes.
    kept = [points[0]]
    for i in range(1, len(points) - 1):
        x = points[i][0]
        if abs(kept[-1][0] - x) < 0.05 and abs(points[i + 1][0] - x) < 0.05:
            continue
        kept.append(points[i])
    if len(points) > 1:
        kept.append(points[-1])
    (x0, y0), rest = kept[0], kept[1:]
    parts = [f"M{_n(x0)},{_n(y0)}"]
    px, py, pxs = x0, y0, _n(x0)  # each coordinate's text is made once
    for x, y in rest:
        xs, ys = _n(x), _n(y)
        if abs(x - px) < 0.05:
            parts.append(f"L{xs},{ys}")
        else:
            mid = _n((py + y) / 2)
            parts.append(f"C{pxs},{mid} {xs},{mid} {xs},{ys}")
        px, py, pxs = x, y, xs
    return "".join(parts)


def _loop(points: tuple[Point, ...]) -> str:
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    return f"M{_n(x0)},{_n(y0)}C{_n(x1)},{_n(y1)} {_n(x2)},{_n(y2)} {_n(x3)},{_n(y3)}"


def _esc(text: Any) -> str:
    return escape(_NOT_XML.sub("", encodable(str(text))), quote=True)
