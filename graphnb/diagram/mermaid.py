"""The Mermaid renderer: ``flowchart`` for graphs, ``stateDiagram-v2`` for machines."""

from __future__ import annotations

import json
import re

from .model import Diagram, DiagramEdge, DiagramNode
from .text import encodable

__all__ = ["render_mermaid"]

_SAFE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A title YAML reads as a plain string; anything else is written double-quoted.
_PLAIN_TITLE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_ .-]*")
# Words Mermaid's grammars read as keywords, never usable as bare ids.
_KEYWORDS = frozenset(
    {
        "end", "graph", "flowchart", "subgraph", "style", "class", "classdef", "click",
        "linkstyle", "direction", "call", "href", "default", "state", "note", "as",
        "statediagram", "statediagram-v2", "left", "right", "of", "td", "tb", "bt", "lr", "rl",
    }
)  # fmt: skip


_CODES = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", ";": "#59;"}


def render_mermaid(diagram: Diagram) -> str:
    """Write ``diagram`` as Mermaid text.

    Example:
        >>> from graphnb.diagram.model import Diagram, DiagramEdge, DiagramNode
        >>> d = Diagram("g", "graph", (DiagramNode("a", "A"), DiagramNode("b", "b")),
        ...             (DiagramEdge(0, "a", "b", "conditional", "yes"),))
        >>> print(render_mermaid(d), end="")
        ---
        title: g
        ---
        flowchart TD
            a["A"]
            b["b"]
            a -.->|"yes"| b
    """
    taken: set[str] = set()
    ids = _ids(diagram.nodes, taken)
    lines = ["---", f"title: {_title(diagram.name)}", "---"]
    if diagram.kind == "machine":
        lines.append("stateDiagram-v2")
        lines.extend(_machine(diagram, ids, taken))
    else:
        lines.append("flowchart TD")
        lines.extend(_flowchart(diagram, ids, taken))
    return "\n".join(lines) + "\n"


def _flowchart(
    diagram: Diagram, ids: dict[str, str], taken: set[str], indent: str = "    "
) -> list[str]:
    lines = []
    for node in diagram.nodes:
        text = _text(node.label)
        if node.child is not None:  # a subgraph node: a cluster holding the child graph
            inner = _ids(node.child.nodes, taken, f"{ids[node.id]}__")
            lines.append(f'{indent}subgraph {ids[node.id]}["{text}"]')
            lines.extend(_flowchart(node.child, inner, taken, indent + "    "))
            lines.append(f"{indent}end")
            continue
        shape = f'(["{text}"])' if node.kind in ("start", "end") else f'["{text}"]'
        lines.append(f"{indent}{ids[node.id]}{shape}")
    for edge in diagram.edges:
        arrow = {"direct": "-->", "conditional": "-.->", "join": "==>", "send": "-.->"}[edge.kind]
        label = f'|"{_text(edge.label)}"|' if edge.label else ""
        lines.append(f"{indent}{ids[edge.source]} {arrow}{label} {ids[edge.target]}")
    if any(node.kind == "missing" for node in diagram.nodes):
        lines.append("    classDef missing stroke-dasharray: 4 4")
        missing = ",".join(ids[n.id] for n in diagram.nodes if n.kind == "missing")
        lines.append(f"    class {missing} missing")
    return lines


def _machine(
    diagram: Diagram, ids: dict[str, str], taken: set[str], indent: str = "    "
) -> list[str]:
    lines = []
    for node in diagram.nodes:
        if node.kind in ("start", "end"):
            continue
        if ids[node.id] != node.label:
            lines.append(f'{indent}state "{_text(node.label)}" as {ids[node.id]}')
        if node.child is not None:
            # A composite state (a nested machine): its states inside a `state X { }`
            # block, their ids prefixed with its own, as Mermaid's ids are global.
            inner = _ids(node.child.nodes, taken, f"{ids[node.id]}__")
            lines.append(f"{indent}state {ids[node.id]} {{")
            lines.extend(_machine(node.child, inner, taken, indent + "    "))
            lines.append(f"{indent}}}")
    for edge in diagram.edges:
        lines.append(
            f"{indent}{_state(edge.source, diagram, ids)} --> "
            f"{_state(edge.target, diagram, ids)}" + _transition_label(edge)
        )
    return lines


def _state(node_id: str, diagram: Diagram, ids: dict[str, str]) -> str:
    kind = diagram.node(node_id).kind
    return "[*]" if kind in ("start", "end") else ids[node_id]


def _transition_label(edge: DiagramEdge) -> str:
    if not edge.label:
        return ""
    return f" : {_text(edge.label)}"


def _ids(nodes: tuple[DiagramNode, ...], taken: set[str], prefix: str = "") -> dict[str, str]:
    """A Mermaid id per node: ``prefix`` + its own id if Mermaid accepts it, else ``n<i>``.

    Mermaid's ids are global, so every id of the drawing is kept in ``taken`` and none is
    given twice: a cluster's inner ``sub__a`` must not be an outer node named ``sub__a``.
    """
    ids: dict[str, str] = {}
    for node in nodes:
        wanted = prefix + node.id
        if _safe(node.id) and wanted not in taken:
            ids[node.id] = wanted
            taken.add(wanted)
    counter = 0
    for node in nodes:
        if node.id in ids:
            continue
        while f"{prefix}n{counter}" in taken:
            counter += 1
        ids[node.id] = f"{prefix}n{counter}"
        taken.add(ids[node.id])
    return ids


def _safe(node_id: str) -> bool:
    return bool(_SAFE_ID.fullmatch(node_id)) and node_id.lower() not in _KEYWORDS


def _text(text: str | None) -> str:
    """Text Mermaid shows literally: entity codes for its special characters."""
    flat = encodable(" ".join((text or "").split()))
    return "".join(_CODES.get(char, char) for char in flat)


def _title(name: str) -> str:
    """The name as the YAML front matter's ``title`` value.

    Mermaid reads the front matter as YAML, where ``#`` starts a comment and a leading
    quote, ``[``, ``{`` or ``&`` change the meaning, so other names are double-quoted
    (a JSON string is a YAML double-quoted scalar).
    """
    flat = encodable(" ".join(name.split()) or "graph")
    return flat if _PLAIN_TITLE.fullmatch(flat) else json.dumps(flat, ensure_ascii=False)
