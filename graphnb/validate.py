"""Structural checks of a graph spec, every problem reported at once.

Used when a graph is compiled and, live, by the widget: each problem names the objects it
is about, so a front end can pin it on the node or edge concerned. :func:`check_spec`
checks a whole spec; the problem builders (one per kind of problem, and the checks of one
part: :func:`router_problems`, :func:`state_problems` ...) are public for the builder's
live check (:mod:`graphnb.widget.livecheck`), which checks again only what an edit touched
and must word every problem as :func:`check_spec` does.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .terminals import END, START

if TYPE_CHECKING:
    from .draft import Draft, DraftNode
    from .spec import GraphSpec, NodeSpec

__all__ = [
    "NO_ENTRY",
    "Problem",
    "ProblemCode",
    "binding_problems",
    "check_spec",
    "dead_end",
    "duplicate",
    "is_reserved",
    "lacks_callable",
    "no_way_out",
    "reserved",
    "router_problems",
    "state_problems",
    "unbound",
    "unknown_destination",
    "unknown_ends",
    "unknown_router",
    "unreachable",
]

ProblemCode = Literal[
    "duplicate-node",
    "reserved-name",
    "unknown-node",
    "no-entry",
    "unreachable",
    "dead-end",
    "no-way-out",
    "unbound",
    "router-unbound",
    "no-routes",
    "streaming-fields",
    "alias-clash",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a graph."""

    code: ProblemCode
    message: str
    nodes: tuple[str, ...] = ()


def check_spec(spec: GraphSpec | Draft, *, require_bindings: bool = False) -> list[Problem]:
    """Every structural problem of ``spec``, in a stable order.

    Args:
        spec: the graph.
        require_bindings: report nodes without a binding (the widget's live check); the code
            builder holds callables directly and leaves this off.
    """
    problems: list[Problem] = []
    names = [node.id for node in spec.nodes]
    for name, count in Counter(names).items():
        if count > 1:
            problems.append(duplicate(name, count))
    problems.extend(reserved(name) for name in names if is_reserved(name))
    known = set(names)
    for edge in spec.edges:
        problems.extend(unknown_ends(edge.source, edge.target, known))
    for node, target in _destinations(spec):
        if target != END and target not in known:
            problems.append(unknown_destination(node, target))
    problems.extend(
        unknown_router(source) for source in spec.routers if source != START and source not in known
    )
    conditional_sources = {e.source for e in spec.edges if e.kind in ("conditional", "send")}
    problems.extend(router_problems(spec.routers, conditional_sources))
    if require_bindings:
        problems.extend(unbound(node.id) for node in spec.nodes if lacks_callable(node))
        problems.extend(binding_problems(spec.routers))
    problems.extend(_flow_problems(spec, known))
    problems.extend(state_problems(spec))
    return problems


# -- each problem's text, shared with the widget's incremental check (widget/livecheck.py) --


def is_reserved(name: str) -> bool:
    """Whether ``name`` may not name a node (START, END, or blank)."""
    return name in (START, END) or not name.strip()


def duplicate(name: str, count: int) -> Problem:
    """``name`` names ``count`` nodes."""
    return Problem("duplicate-node", f"`{name}` is defined {count} times.", (name,))


def reserved(name: str) -> Problem:
    """A node named with a reserved name."""
    return Problem("reserved-name", f"{name!r} is reserved and cannot name a node.", (name,))


def unknown_ends(source: str, target: str, known: set[str]) -> list[Problem]:
    """An edge whose source or target is no node of ``known``."""
    found = []
    if source != START and source not in known:
        found.append(
            Problem(
                "unknown-node",
                f"`{source}` is the source of an edge to `{target}` but is not a node.",
                (source,),
            )
        )
    if target != END and target not in known:
        found.append(
            Problem(
                "unknown-node",
                f"`{target}` is the target of an edge from `{source}` but is not a node.",
                (target,),
            )
        )
    return found


def _destinations(spec: GraphSpec | Draft) -> list[tuple[str, str]]:
    """``(node, destination)`` for every destination a node declares for its Commands."""
    return [
        (node.id, target)
        for node in spec.nodes
        for target in (getattr(node, "destinations", None) or ())
    ]


def unknown_destination(node: str, target: str) -> Problem:
    """A ``Command(goto=...)`` destination that is no node."""
    return Problem(
        "unknown-node",
        f"`{target}` is a destination of `{node}` but is not a node.",
        (target,),
    )


def unknown_router(source: str) -> Problem:
    """A router on something that is not a node."""
    return Problem("unknown-node", f"`{source}` has a router but is not a node.", (source,))


def router_problems(
    routers: Mapping[str, str | None], conditional_sources: Collection[str]
) -> list[Problem]:
    """Routers without conditional edges, and conditional edges without a router."""
    problems = [
        Problem(
            "no-routes",
            f"the router of `{source}` declares no targets; list them "
            "(routes=[...]) or annotate its return type with Literal[...].",
            (source,),
        )
        for source in routers
        if source not in conditional_sources
    ]
    problems.extend(
        Problem(
            "router-unbound",
            f"`{source}` has conditional edges but no router to choose between them.",
            (source,),
        )
        for source in sorted(set(conditional_sources) - set(routers))
    )
    return problems


def lacks_callable(node: NodeSpec | DraftNode) -> bool:
    """Whether ``node`` has nothing to run: no binding and no child graph.

    A subgraph node runs its child graph, so it needs no callable of its own.
    """
    return node.binding is None and node.subgraph is None


def unbound(node: str) -> Problem:
    """A node with no callable."""
    return Problem("unbound", f"`{node}` is not bound to a callable.", (node,))


def binding_problems(routers: Mapping[str, str | None]) -> list[Problem]:
    """Routers whose conditional edges have no callable to pick between them."""
    return [
        Problem(
            "router-unbound", f"the router of `{source}` is not bound to a callable.", (source,)
        )
        for source, router in routers.items()
        if router is None
    ]


NO_ENTRY = Problem("no-entry", "no edge leaves START; the graph has nowhere to begin.")


def unreachable(name: str) -> Problem:
    """A node no path from START reaches."""
    return Problem("unreachable", f"`{name}` cannot be reached from START.", (name,))


def dead_end(name: str) -> Problem:
    """A node with no outgoing edge."""
    return Problem(
        "dead-end",
        f"`{name}` has no outgoing edge; add one (to END if the run should stop there).",
        (name,),
    )


def no_way_out(name: str) -> Problem:
    """A node from which no path reaches END."""
    return Problem("no-way-out", f"no path leads from `{name}` to END.", (name,))


def state_problems(spec: GraphSpec | Draft) -> list[Problem]:
    """What is wrong with the state: several streaming fields, clashing aliases."""
    problems = []
    streaming = [field.name for field in spec.state.fields if field.streaming]
    if len(streaming) > 1:
        listed = ", ".join(f"`{name}`" for name in streaming)
        problems.append(
            Problem(
                "streaming-fields",
                f"the state declares {len(streaming)} streaming fields ({listed}); "
                "at most one is allowed.",
            )
        )
    problems.extend(_alias_problems(spec))
    return problems


def _alias_problems(spec: GraphSpec | Draft) -> list[Problem]:
    # A key must name one field: an alias equal to another field's name, or shared by two
    # fields, would silently send that field's writes elsewhere.
    owners: dict[str, list[str]] = defaultdict(list)
    for field in spec.state.fields:
        owners[field.name].append(field.name)
        if field.alias is not None and field.alias != field.name:
            owners[field.alias].append(field.name)
    return [
        Problem(
            "alias-clash",
            f"the state key {key!r} names {len(fields)} fields "
            f"({', '.join(f'`{name}`' for name in fields)}); each alias must differ from "
            "every other field's name and alias.",
        )
        for key, fields in owners.items()
        if len(fields) > 1
    ]


def _flow_problems(spec: GraphSpec | Draft, known: set[str]) -> list[Problem]:
    forward: dict[str, set[str]] = defaultdict(set)
    backward: dict[str, set[str]] = defaultdict(set)
    for edge in spec.edges:
        forward[edge.source].add(edge.target)
        backward[edge.target].add(edge.source)
    for source, target in _destinations(spec):  # a Command may go there: a path as well
        forward[source].add(target)
        backward[target].add(source)
    if not forward[START]:
        return [NO_ENTRY]
    problems = []
    reachable = _closure(START, forward)
    finishing = _closure(END, backward)
    for node in spec.nodes:
        name = node.id
        if name not in known:
            continue
        if name not in reachable:
            problems.append(unreachable(name))
        elif not forward[name]:
            problems.append(dead_end(name))
        elif name not in finishing:
            problems.append(no_way_out(name))
    return problems


def _closure(start: str, links: dict[str, set[str]]) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in links[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
