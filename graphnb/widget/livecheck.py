"""The builder's check of the drawing after each edit, redoing only what the edit touched.

:func:`graphnb.validate.check_spec` walks the whole graph: at 10,000 nodes that is tens of
milliseconds for every drag of a node. :class:`LiveCheck` keeps what the last check learnt
(the edges out of and into each node, which nodes START reaches and which reach END) and
takes in only the difference from the spec it saw last:

- the nodes and edges are reduced to small tuples (id and whether it lacks a callable;
  source, target and kind): a move or a relabelling changes none, and the last problems stand;
- an added edge extends the reachable sets from its end (a search over what becomes
  reachable only); a removed edge matters only when a node was first found through it,
  and then only the nodes found through it are looked for again;
- the problems are then listed from set differences, in the order ``check_spec`` gives.

It is a second implementation of ``check_spec``'s flow rules (the problem texts are
shared): ``tests/widget/test_livecheck.py`` checks both give the same problems on
fuzzed edit sequences. Hand-written because no library keeps reachability up to date
under edge edits at this size in Python.
"""

from __future__ import annotations

import operator
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import TypeVar

from .. import validate as checks
from ..spec import END, START, GraphSpec
from ..validate import Problem

__all__ = ["LiveCheck"]

T = TypeVar("T")
NodeKey = tuple[str, bool]  # id, lacks a callable
EdgeKey = tuple[str, str, str]  # source, target, kind
_BLOCK = 256
_EDGE_KEY = operator.attrgetter("source", "target", "kind")


class LiveCheck:
    """``check_spec(spec, require_bindings=...)``, kept up to date edit by edit."""

    def __init__(self, *, require_bindings: bool = False) -> None:
        self.require_bindings = require_bindings
        self._nodes: list[NodeKey] = []
        self._edges: list[EdgeKey] = []
        self._routers: dict[str, str | None] = {}
        self._state: object = None
        self._names: Counter[str] = Counter()
        self._forward: dict[str, Counter[str]] = {}
        self._backward: dict[str, Counter[str]] = {}
        self._conditional: Counter[str] = Counter()
        self._unknown: Counter[tuple[str, str]] = Counter()  # edges naming a non-node
        self._reserved: set[str] = set()  # node ids that may not name a node
        # What START reaches and what reaches END, each node with the node it was found
        # from: a spanning tree, so deleting an edge outside it cannot cut a path.
        self._reachable: dict[str, str] = {START: START}
        self._finishing: dict[str, str] = {END: END}
        self._node_problems: list[Problem] = []
        self._flow: list[Problem] = [checks.NO_ENTRY]
        self._state_found: list[Problem] = []
        self._last: list[Problem] | None = None

    def check(self, spec: GraphSpec) -> list[Problem]:
        """Every structural problem of ``spec``, as ``check_spec`` lists them."""
        # attrgetter runs in C: at 10,000 nodes these two lists are most of a check's time.
        nodes: list[NodeKey] = [(node.id, checks.lacks_callable(node)) for node in spec.nodes]
        edges: list[EdgeKey] = list(map(_EDGE_KEY, spec.edges))
        # A node's Command destinations are paths too (as check_spec counts them), last.
        edges += [
            (node.id, target, "command")
            for node in spec.nodes
            if node.destinations
            for target in node.destinations
        ]
        routers = dict(spec.routers)
        state = spec.state.model_dump()
        nodes_changed, edges_changed = nodes != self._nodes, edges != self._edges
        unchanged = not nodes_changed and not edges_changed and routers == self._routers
        if self._last is not None and unchanged and state == self._state:
            return self._last
        if nodes_changed:
            self._take_nodes(nodes)
        if edges_changed:
            self._take_edges(edges)
        if nodes_changed or edges_changed:
            self._flow = self._flow_problems()
        if state != self._state or self._last is None:
            self._state, self._state_found = state, checks.state_problems(spec)
        self._routers = routers
        self._last = self._assemble()
        return self._last

    # -- nodes -------------------------------------------------------------------------

    def _take_nodes(self, nodes: list[NodeKey]) -> None:
        removed, added = _difference(self._nodes, nodes)
        names = self._names
        touched = set()
        for name, _ in removed:
            names[name] -= 1
            if not names[name]:
                del names[name]
                touched.add(name)
        for name, _ in added:
            if name not in names:
                touched.add(name)
            names[name] += 1
        self._nodes = nodes
        # An edge names a non-node exactly when one of its ends came or went: look again
        # at the edges of the names that did.
        for name in touched:
            pairs = [(name, target) for target in self._forward.get(name, ())]
            pairs += [(source, name) for source in self._backward.get(name, ())]
            for source, target in pairs:
                count = self._forward[source][target]
                if self._names_unknown(source, target):
                    self._unknown[(source, target)] = count
                else:
                    self._unknown.pop((source, target), None)
        for name in touched:
            if name in names and checks.is_reserved(name):
                self._reserved.add(name)
            else:
                self._reserved.discard(name)
        found = []
        if len(names) < len(nodes):  # some id is used twice
            counted = Counter(name for name, _ in nodes)
            found += [checks.duplicate(name, count) for name, count in counted.items() if count > 1]
        if self._reserved:
            found += [checks.reserved(name) for name, _ in nodes if name in self._reserved]
        self._node_problems = found

    def _names_unknown(self, source: str, target: str) -> bool:
        return (source != START and source not in self._names) or (
            target != END and target not in self._names
        )

    # -- edges -------------------------------------------------------------------------

    def _take_edges(self, edges: list[EdgeKey]) -> None:
        removed, added = _difference(self._edges, edges)
        cut_forward: list[str] = []  # the ends of removed edges of each spanning tree
        cut_backward: list[str] = []
        for source, target, kind in removed:
            out = self._forward[source]
            out[target] -= 1
            if not out[target]:
                del out[target]
                self._backward[target].pop(source, None)
                if not self._backward[target]:
                    del self._backward[target]
                # A loop is never a tree edge: START and END are recorded as found from
                # themselves.
                if source != target and self._reachable.get(target) == source:
                    cut_forward.append(target)
                if source != target and self._finishing.get(source) == target:
                    cut_backward.append(source)
            else:
                self._backward[target][source] -= 1
            if not out:
                del self._forward[source]
            if kind in ("conditional", "send"):
                self._conditional[source] -= 1
                if not self._conditional[source]:
                    del self._conditional[source]
            if (source, target) in self._unknown:
                self._unknown[(source, target)] -= 1
                if not self._unknown[(source, target)]:
                    del self._unknown[(source, target)]
        # The trees are mended before any edge is added: an added edge extends them only
        # from nodes that are still reached once the removed ones are gone.
        if cut_forward:
            _regrow(START, cut_forward, self._forward, self._backward, self._reachable)
        if cut_backward:
            _regrow(END, cut_backward, self._backward, self._forward, self._finishing)
        grown_forward: list[tuple[str, str]] = []
        grown_backward: list[tuple[str, str]] = []
        for source, target, kind in added:
            self._forward.setdefault(source, Counter())[target] += 1
            self._backward.setdefault(target, Counter())[source] += 1
            if kind in ("conditional", "send"):
                self._conditional[source] += 1
            if self._names_unknown(source, target):
                self._unknown[(source, target)] += 1
            if source in self._reachable and target not in self._reachable:
                grown_forward.append((target, source))
            if target in self._finishing and source not in self._finishing:
                grown_backward.append((source, target))
        self._edges = edges
        if grown_forward:
            _closure(grown_forward, self._forward, self._reachable)
        if grown_backward:
            _closure(grown_backward, self._backward, self._finishing)

    def _flow_problems(self) -> list[Problem]:
        if START not in self._forward:
            return [checks.NO_ENTRY]
        # Differences only: each is one pass over the names that keeps the few at fault
        # (intersections would copy all 10,000 of them, twice).
        known, reachable, leaving = self._names.keys(), self._reachable, self._forward
        unreachable = known - reachable.keys()
        bad: dict[str, Callable[[str], Problem]] = dict.fromkeys(unreachable, checks.unreachable)
        bad.update(dict.fromkeys(known - leaving.keys() - unreachable, checks.dead_end))
        stuck = known - self._finishing.keys()
        bad.update((n, checks.no_way_out) for n in stuck if n in reachable and n in leaving)
        if not bad:
            return []
        return [bad[name](name) for name, _ in self._nodes if name in bad]

    # -- the list ----------------------------------------------------------------------

    def _assemble(self) -> list[Problem]:
        found = list(self._node_problems)
        if self._unknown:
            known = set(self._names)
            for source, target, kind in self._edges:
                if (source, target) in self._unknown:
                    if kind == "command":
                        if target != END and target not in known:
                            found.append(checks.unknown_destination(source, target))
                    else:
                        found += checks.unknown_ends(source, target, known)
        found += [
            checks.unknown_router(s) for s in self._routers if s != START and s not in self._names
        ]
        found += checks.router_problems(self._routers, self._conditional.keys())
        if self.require_bindings:
            found += [checks.unbound(name) for name, unbound in self._nodes if unbound]
            found += checks.binding_problems(self._routers)
        found += self._flow
        found += self._state_found
        return found


def _difference(old: Sequence[T], new: Sequence[T]) -> tuple[Sequence[T], Sequence[T]]:
    """What ``new`` drops from ``old`` and what it adds, outside their common ends.

    An edit touches one place (or a few close ones): the common prefix and suffix are
    compared in blocks (in C), and only what lies between is returned.
    """
    shorter = min(len(old), len(new))
    head = 0
    while head + _BLOCK <= shorter and old[head : head + _BLOCK] == new[head : head + _BLOCK]:
        head += _BLOCK
    while head < shorter and old[head] == new[head]:
        head += 1
    tail = 0
    room = shorter - head
    while tail + _BLOCK <= room and (
        old[len(old) - tail - _BLOCK : len(old) - tail]
        == new[len(new) - tail - _BLOCK : len(new) - tail]
    ):
        tail += _BLOCK
    while tail < room and old[len(old) - tail - 1] == new[len(new) - tail - 1]:
        tail += 1
    return old[head : len(old) - tail], new[head : len(new) - tail]


def _closure(
    starts: list[tuple[str, str]], links: dict[str, Counter[str]], seen: dict[str, str]
) -> dict[str, str]:
    """``seen`` grown (in place) by what ``links`` lead to from ``starts``.

    ``starts`` pairs each node with the node it is reached from; every node found is
    recorded with the node it was found from.
    """
    todo: deque[str] = deque()  # breadth first: a shallow tree, so a cut loses few nodes
    for node, origin in starts:
        if node not in seen:
            seen[node] = origin
            todo.append(node)
    while todo:
        node = todo.popleft()
        for nxt in links.get(node, ()):
            if nxt not in seen:
                seen[nxt] = node
                todo.append(nxt)
    return seen


def _regrow(
    root: str,
    ends: list[str],
    links: dict[str, Counter[str]],
    back: dict[str, Counter[str]],
    seen: dict[str, str],
) -> None:
    """Mend the spanning tree ``seen``, grown from ``root``, after its edges into ``ends`` went.

    Only the nodes found through a removed edge (its end and what the tree hangs below it)
    may have lost their way; they are taken out, then found again from the nodes that
    kept theirs: those still linked to one of them, and whatever these lead to.
    """
    lost: set[str] = set()
    todo = [end for end in ends if end in seen]
    while todo:
        node = todo.pop()
        if node in lost:
            continue
        lost.add(node)
        todo.extend(nxt for nxt in links.get(node, ()) if seen.get(nxt) == node)
    if 2 * len(lost) > len(seen):  # most of the tree: searching anew is cheaper
        seen.clear()
        _closure([(root, root)], links, seen)
        return
    for node in lost:
        del seen[node]
    starts = [(node, origin) for node in lost for origin in back.get(node, ()) if origin in seen]
    _closure(starts, links, seen)
