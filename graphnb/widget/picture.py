"""The picture a builder's output carries for viewers that show no widgets (GitHub).

Up to :data:`DIAGRAM_UP_TO` nodes it is the graph's diagram (:func:`graphnb.diagram.to_svg`).
Past that, laying the diagram out took longer than everything else the builder does before
it is shown (about 0.3 s at 1,000 nodes, and 0.6 MB in the output), so the picture is the
canvas's own drawing instead: boxes where the builder placed the nodes, straight lines
between them, as the loader draws a saved spec when no kernel answers (bundle.py).

Example:
    >>> from graphnb.spec import GraphSpec
    >>> spec = GraphSpec.model_validate(
    ...     {"nodes": [{"id": "a", "position": {"x": 0, "y": 0}}], "edges": []}
    ... )
    >>> svg = drawing(spec)
    >>> svg.startswith("<svg") and ">a</text>" in svg
    True
"""

from __future__ import annotations

from html import escape

from ..spec import END, START, GraphSpec
from .layout import POSITIONS_KEY

__all__ = ["DIAGRAM_UP_TO", "drawing", "picture"]

DIAGRAM_UP_TO = 150
"""Graphs up to this many nodes are pictured by their diagram (the canvas culls past it too)."""

_W, _H = 150.0, 36.0  # a box, as the loader draws it


def picture(spec: GraphSpec) -> str:
    """The SVG picture of ``spec`` for the builder's output (see the module's docstring)."""
    if len(spec.nodes) <= DIAGRAM_UP_TO:
        from ..diagram import to_svg  # the diagram package: imported when a builder is shown

        return to_svg(spec)
    return drawing(spec)


def drawing(spec: GraphSpec) -> str:
    """``spec`` as the canvas places it: boxes and straight lines, START and END included."""
    at: dict[str, tuple[float, float]] = {}
    stored = spec.metadata.get(POSITIONS_KEY)
    for name in (START, END):
        place = stored.get(name) if isinstance(stored, dict) else None
        if isinstance(place, dict):
            x, y = place.get("x"), place.get("y")
            if isinstance(x, (int, float)) and isinstance(y, (int, float)):
                at[name] = (float(x), float(y))
    labels = {START: "start", END: "end"}
    for node in spec.nodes:
        if node.position is not None:
            at[node.id] = (node.position.x, node.position.y)
            labels[node.id] = node.label or node.id
    if not at:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>\n'
    x0 = min(x for x, _ in at.values()) - 8
    y0 = min(y for _, y in at.values()) - 8
    width = max(x for x, _ in at.values()) - x0 + _W + 8
    height = max(y for _, y in at.values()) - y0 + _H + 8
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:g} {y0:g} {width:g} {height:g}" '
        f'width="{width:g}" style="max-width:100%;font:13px sans-serif" role="img" '
        f'aria-label="graph {escape(spec.name)}"><title>{escape(spec.name)}</title>',
        '<g stroke="#888">',
    ]
    for edge in spec.edges:
        if edge.source in at and edge.target in at:
            (sx, sy), (tx, ty) = at[edge.source], at[edge.target]
            out.append(
                f'<line x1="{sx + _W / 2:g}" y1="{sy + _H / 2:g}" '
                f'x2="{tx + _W / 2:g}" y2="{ty + _H / 2:g}"/>'
            )
    out.append('</g><g fill="#fff" stroke="#555">')
    for x, y in at.values():
        out.append(f'<rect x="{x:g}" y="{y:g}" width="{_W:g}" height="{_H:g}" rx="6"/>')
    out.append('</g><g text-anchor="middle">')
    for node_id, (x, y) in at.items():
        text = escape(labels[node_id])
        out.append(f'<text x="{x + _W / 2:g}" y="{y + _H / 2 + 4:g}">{text}</text>')
    out.append("</g></svg>\n")
    return "".join(out)
