"""Diagrams of graphs and state machines: SVG, Mermaid and DOT, with no system binary.

Every function takes a ``GraphSpec`` or anything with a ``.spec`` (``StateGraph``,
``CompiledGraph``, the widget's builder, a state machine), or a networkx graph of your
own (:func:`from_networkx`). The layout is plain Python; networkx is imported only by
:func:`to_networkx` and by :func:`layout` with one of networkx's engines.

Example:
    >>> from graphnb import StateGraph, START, END
    >>> from graphnb.diagram import to_mermaid
    >>> graph = StateGraph(dict, name="hello")
    >>> _ = graph.add_node("greet", lambda s: {}).add_edge(START, "greet").add_edge("greet", END)
    >>> print(to_mermaid(graph), end="")
    ---
    title: hello
    ---
    flowchart TD
        __start__(["start"])
        greet["greet"]
        __end__(["end"])
        __start__ --> greet
        greet --> __end__
"""

from __future__ import annotations

from .convert import to_networkx
from .errors import DiagramError, NotDrawableError, UnknownFormatError
from .extract import extract
from .files import save
from .fromnx import NetworkxGraphError, from_networkx, is_networkx
from .model import Diagram, DiagramEdge, DiagramNode
from .positions import NETWORKX_LAYOUTS, UnknownLayoutError, layout
from .render import mimebundle, to_dot, to_mermaid, to_svg
from .trace import StepEnd, Trace

__all__ = [
    "Diagram",
    "DiagramEdge",
    "DiagramError",
    "DiagramNode",
    "NETWORKX_LAYOUTS",
    "NetworkxGraphError",
    "NotDrawableError",
    "StepEnd",
    "Trace",
    "UnknownFormatError",
    "UnknownLayoutError",
    "extract",
    "from_networkx",
    "is_networkx",
    "layout",
    "mimebundle",
    "save",
    "to_dot",
    "to_mermaid",
    "to_networkx",
    "to_svg",
]
