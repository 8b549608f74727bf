"""Read a :class:`~graphnb.diagram.model.Diagram` out of a spec (or anything holding one)."""

from __future__ import annotations

from typing import Any

from ..spec import END, START, EdgeSpec, GraphSpec, NodeSpec
from .errors import NotDrawableError
from .fromnx import from_networkx, is_networkx
from .model import Diagram, DiagramEdge, DiagramNode

__all__ = ["extract", "spec_of"]


def spec_of(obj: Any) -> GraphSpec:
    """The :class:`GraphSpec` of ``obj``: the spec itself, its ``.spec``, or a networkx graph's.

    Raises:
        NotDrawableError: when ``obj`` is none of these.
    """
    if isinstance(obj, GraphSpec):
        return obj
    if is_networkx(obj):
        return from_networkx(obj)
    spec = getattr(obj, "spec", None)
    if isinstance(spec, GraphSpec):
        return spec
    raise NotDrawableError(obj)


def extract(obj: Any) -> Diagram:
    """The diagram of ``obj`` (a :class:`Diagram` is returned as is).

    Example:
        >>> from graphnb import GraphSpec, NodeSpec, EdgeSpec, START, END
        >>> spec = GraphSpec(
        ...     nodes=[NodeSpec(id="a")],
        ...     edges=[EdgeSpec(source=START, target="a"), EdgeSpec(source="a", target=END)],
        ... )
        >>> [(node.id, node.kind) for node in extract(spec).nodes]
        [('__start__', 'start'), ('a', 'node'), ('__end__', 'end')]
    """
    if isinstance(obj, Diagram):
        return obj
    spec = spec_of(obj)
    machine = spec.metadata.get("kind") == "machine"
    initial = spec.metadata.get("initial") if machine else None
    final_value = spec.metadata.get("final") if machine else None
    finals = {str(f) for f in final_value} if isinstance(final_value, list) else set()

    defined: dict[str, NodeSpec] = {}
    for node in spec.nodes:
        defined.setdefault(node.id, node)
    used = [end for edge in spec.edges for end in (edge.source, edge.target)]
    commands = [
        (node.id, target, label)
        for node in spec.nodes
        for target, label in (node.destinations or {}).items()
    ]
    used.extend(end for source, target, _ in commands for end in (source, target))

    nodes: list[DiagramNode] = []
    if START in used:
        nodes.append(DiagramNode(START, "start", "start", "start"))
    for node in defined.values():
        if node.id in (START, END):
            continue
        marks = _policy_marks(node)
        nodes.append(
            DiagramNode(
                node.id,
                (node.label or node.id) + (f"\n[{marks}]" if marks else ""),
                "node",
                _tooltip(node) + (f"\n{marks}" if marks else ""),
                initial=node.id == initial,
                final=node.id in finals,
                child=extract(node.subgraph) if node.subgraph is not None else None,
            )
        )
    missing = [n for n in dict.fromkeys(used) if n not in defined and n not in (START, END)]
    nodes.extend(DiagramNode(n, n, "missing", f"{n} (not defined)") for n in missing)
    if END in used:
        nodes.append(DiagramNode(END, "end", "end", "end"))

    edges = tuple(_edge(index, edge, machine) for index, edge in enumerate(spec.edges))
    # A Command's destinations: dashed like a router's routes, as LangGraph draws them.
    edges += tuple(
        DiagramEdge(len(spec.edges) + i, source, target, "conditional", label, command=True)
        for i, (source, target, label) in enumerate(commands)
    )
    return Diagram(spec.name, "machine" if machine else "graph", tuple(nodes), edges)


def _policy_marks(node: NodeSpec) -> str:
    """A node's policies in a few words, e.g. ``retry 3, timeout 5s, cache``."""
    marks = []
    if node.retry is not None:
        marks.append(f"retry {node.retry.max_attempts}")
    if node.timeout is not None:
        marks.append(f"timeout {node.timeout:g}s")
    if node.cache is not None:
        marks.append("cache" if node.cache.ttl is None else f"cache {node.cache.ttl:g}s")
    return ", ".join(marks)


def _tooltip(node: NodeSpec) -> str:
    text = node.label or node.id
    if node.label and node.label != node.id:
        text = f"{text} ({node.id})"
    if node.binding:
        text = f"{text}\n{node.binding}"
    return text


def _edge(index: int, edge: EdgeSpec, machine: bool) -> DiagramEdge:
    label = edge.label
    if label is None and edge.kind == "conditional" and edge.route not in (None, edge.target):
        label = edge.route
    if label is None and edge.kind == "send":
        label = "Send"
    # A machine's transitions are all picked by events: drawn solid, as in UML, not as the
    # dashed router edges of a graph.
    kind = "direct" if machine and edge.kind == "conditional" else edge.kind
    return DiagramEdge(
        index,
        edge.source,
        edge.target,
        kind,
        label or None,
        internal=edge.metadata.get("internal") is True,
    )
