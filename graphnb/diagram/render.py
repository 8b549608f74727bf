"""The text renderers, each taking any drawable object."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .dot import render_dot
from .extract import extract
from .mermaid import render_mermaid
from .svg import render_svg
from .trace import Trace

__all__ = ["mimebundle", "to_dot", "to_mermaid", "to_svg"]


def to_svg(obj: Any, *, trace: Trace | Iterable[Any] | None = None) -> str:
    """An SVG document of ``obj``'s diagram, with a run's ``trace`` drawn on it.

    Args:
        obj: a ``GraphSpec`` or anything with a ``.spec``.
        trace: a :class:`Trace`, or the events of a run (``stream(..., mode="events")``).

    Example:
        >>> from graphnb import StateGraph, START, END
        >>> graph = StateGraph(dict)
        >>> _ = graph.add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
        >>> to_svg(graph).startswith('<svg xmlns="http://www.w3.org/2000/svg"')
        True
    """
    if trace is not None and not isinstance(trace, Trace):
        trace = Trace.from_events(trace)
    return render_svg(extract(obj), trace=trace)


def to_mermaid(obj: Any) -> str:
    """Mermaid text of ``obj``'s diagram: ``flowchart``, or ``stateDiagram-v2`` for a machine."""
    return render_mermaid(extract(obj))


def to_dot(obj: Any) -> str:
    """Graphviz DOT text of ``obj``'s diagram."""
    return render_dot(extract(obj))


def mimebundle(obj: Any, *, trace: Trace | Iterable[Any] | None = None) -> dict[str, str]:
    """Jupyter's rich display of ``obj``: its SVG diagram, and a line of plain text.

    Example:
        >>> from graphnb import StateGraph, START, END
        >>> graph = StateGraph(dict, name="hello")
        >>> _ = graph.add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
        >>> mimebundle(graph)["text/plain"]
        "<graph 'hello': 1 node, 2 edges>"
    """
    diagram = extract(obj)
    nodes = sum(1 for node in diagram.nodes if node.kind in ("node", "missing"))
    edges = len(diagram.edges)
    machine = diagram.kind == "machine"
    noun = ("state" if machine else "node") + ("" if nodes == 1 else "s")
    arrows = ("transition" if machine else "edge") + ("" if edges == 1 else "s")
    text = f"<{diagram.kind} {diagram.name!r}: {nodes} {noun}, {edges} {arrows}>"
    return {"image/svg+xml": to_svg(diagram, trace=trace), "text/plain": text}
