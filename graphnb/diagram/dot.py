"""The DOT renderer: Graphviz text, for users who have Graphviz or an online viewer."""

from __future__ import annotations

from .model import Diagram, DiagramNode
from .text import encodable

__all__ = ["render_dot"]


def render_dot(diagram: Diagram) -> str:
    """Write ``diagram`` as a Graphviz ``digraph``.

    Example:
        >>> from graphnb.diagram.model import Diagram, DiagramEdge, DiagramNode
        >>> d = Diagram("g", "graph", (DiagramNode("a", "A"), DiagramNode("b", "b")),
        ...             (DiagramEdge(0, "a", "b"),))
        >>> print(render_dot(d), end="")  # doctest: +NORMALIZE_WHITESPACE
        digraph "g" {
            graph [rankdir=TB];
            node [shape=box, style=rounded, fontname="Helvetica", fontsize=12];
            edge [fontname="Helvetica", fontsize=10];
            "a" [label="A"];
            "b" [label="b"];
            "a" -> "b";
        }
    """
    machine = diagram.kind == "machine"
    lines = [
        f"digraph {_q(diagram.name)} {{",
        "    graph [rankdir=TB];",
        '    node [shape=box, style=rounded, fontname="Helvetica", fontsize=12];',
        '    edge [fontname="Helvetica", fontsize=10];',
    ]
    names = {node.id for node in diagram.nodes}  # every DOT node id, as ids are global
    for node in diagram.nodes:
        if node.child is not None:
            lines.extend(_cluster(node, node.id, "    ", names))
            continue
        lines.append(f"    {_q(node.id)} [{_node_attrs(node, machine)}];")
    bars: dict[str, str] = {}
    for target in diagram.joins():
        bar = f"__join__{target}"
        while bar in names:
            bar += "_"
        names.add(bar)
        bars[target] = bar
        lines.append(
            f'    {_q(bar)} [shape=box, style=filled, fillcolor=black, label="", '
            "height=0.06, width=0.8, fixedsize=true];"
        )
    for edge in diagram.edges:
        attrs = []
        if edge.kind == "conditional":
            attrs.append("style=dashed")
        elif edge.kind == "send":  # one run per Send item: dashed, with a doubled head
            attrs.append("style=dashed, arrowhead=normalnormal")
        if edge.label:
            attrs.append(f"label={_q(edge.label)}")
        target = edge.target
        if edge.kind == "join" and not edge.is_loop:
            target = bars[edge.target]
            attrs.append("arrowhead=none")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"    {_q(edge.source)} -> {_q(target)}{suffix};")
    for target, bar in bars.items():
        lines.append(f"    {_q(bar)} -> {_q(target)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _cluster(node: DiagramNode, path: str, indent: str, taken: set[str]) -> list[str]:
    """A subgraph node as ``cluster_<path>``: the node itself, then its child graph.

    Inner ids are the path joined with ``/`` (``research/search``), followed by ``_`` as
    often as needed to differ from every id in ``taken`` (an outer node may be named
    ``research/search``); joins inside are drawn as plain edges, and the node points at
    its child's start with a dotted arrow.
    """
    assert node.child is not None
    child, inner = node.child, indent + "    "
    machine = child.kind == "machine"  # a nested machine: pseudo-states, labelled events
    lines = [
        f"{indent}subgraph {_q('cluster_' + path)} {{",
        f"{inner}label={_q(node.id)}; style=rounded;",
        f"{inner}{_q(path)} [{_node_attrs(node, False)}];",
    ]
    names: dict[str, str] = {}
    for item in child.nodes:
        name = f"{path}/{item.id}"
        while name in taken:
            name += "_"
        taken.add(name)
        names[item.id] = name
    for item in child.nodes:
        if item.child is not None:
            lines.extend(_cluster(item, names[item.id], inner, taken))
        else:
            lines.append(f"{inner}{_q(names[item.id])} [{_node_attrs(item, machine)}];")
    for edge in child.edges:
        style = " [style=dashed]" if edge.kind in ("conditional", "send") else ""
        if machine and edge.label:
            style = f" [label={_q(edge.label)}]"
        lines.append(f"{inner}{_q(names[edge.source])} -> {_q(names[edge.target])}{style};")
    starts = [item.id for item in child.nodes if item.kind == "start"]
    if starts:
        lines.append(f"{inner}{_q(path)} -> {_q(names[starts[0]])} [style=dotted];")
    lines.append(f"{indent}}}")
    return lines


def _node_attrs(node: DiagramNode, machine: bool) -> str:
    if machine and node.kind == "start":
        return 'shape=circle, style=filled, fillcolor=black, label="", width=0.2'
    if machine and node.kind == "end":
        return 'shape=doublecircle, style=filled, fillcolor=black, label="", width=0.15'
    attrs = [f"label={_q(node.label)}"]
    if node.kind in ("start", "end"):
        attrs.append("shape=oval")
    elif node.kind == "missing":
        attrs.append('style="rounded,dashed"')
    if node.tooltip and node.tooltip != node.label:
        attrs.append(f"tooltip={_q(node.tooltip)}")
    return ", ".join(attrs)


def _q(text: str) -> str:
    r"""A DOT quoted string; a NUL, which would end it for Graphviz, written ``\x00``."""
    escaped = (
        encodable(text)
        .replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\x00", "\\\\x00")
    )
    return f'"{escaped}"'
