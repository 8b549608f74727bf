"""Layered layout of a diagram (Sugiyama style), computed with networkx.

The steps are the classic ones:

1. **Cycles.** A depth-first search from START, following edges in spec order, marks the
   edges that close a cycle (edges back to a node still on the search stack). They are
   reversed for the layout and drawn as back edges.
2. **Layers.** ``networkx.topological_generations`` gives every node its longest-path
   layer from the sources; END goes alone to the bottom. Join edges go through a join bar
   placed in a layer of its own above the joined node.
3. **Ranks.** Each layer is a rank; where edge labels sit below a layer, a label rank is
   inserted after it, so a label is laid out like a node and can never overlap one. Every
   edge spanning more than one rank gets a dummy item on each rank it crosses.
4. **Order.** Items start in depth-first order, then barycenter sweeps (down and up) reorder
   each rank; the order with the fewest crossings is kept.
5. **Coordinates.** Repeated passes pull each item towards the mean position of its
   neighbours, solving each rank exactly (weighted isotonic regression, "pool adjacent
   violators") under minimum separations, so nothing ever overlaps.

Steps 4 and 5 cost time in proportion to the items (nodes and dummies) times the sweeps or
passes. Past ``_BIG`` items (a few hundred long edges) the sweeps and passes are limited
to a fixed budget of item visits, and neighbours are no longer swapped one pair at a time:
later sweeps gain little on such drawings (a few percent fewer crossings) and would cost
seconds.

Everything iterates in insertion order (never over sets), so the same diagram always
gives the same layout, to the last bit.
"""

from __future__ import annotations

import itertools

from ..spec import END, START
from .geometry import Box, Layout, Point, Route, Sizes
from .model import Diagram, DiagramEdge
from .ordering import by_barycenter, crossings, transpose
from .placement import spaced_isotonic

__all__ = ["compute_layout", "loop_label_offset"]

_SWEEPS = 8
_PASSES = 4
_SMALL = 2_000  # items below which a second crossing-reduction start is tried
_BIG = 20_000  # items (nodes and dummies) above which the budgets below apply
_SWEEP_BUDGET = 80_000  # item visits of the crossing-reduction sweeps, past _BIG items
_PASS_BUDGET = 40_000  # item visits of the coordinate passes, past _BIG items
_DUMMY_WEIGHT = 4.0
_LOOP_STEP = 12.0
_LOOP_BASE = 26.0


def loop_label_offset(count: int) -> float:
    """How far right of a node's box the labels of its ``count`` self-loops start."""
    return _LOOP_BASE * 0.75 + _LOOP_STEP * 0.75 * (count - 1) + 6.0


def compute_layout(diagram: Diagram, sizes: Sizes) -> Layout:
    """Lay ``diagram`` out, top (START) to bottom (END).

    Args:
        diagram: what to lay out.
        sizes: the size of each box and the gaps between them.
    """
    return _Builder(diagram, sizes).run()


class _Builder:
    """One layout computation; items are ints: nodes, then join bars, then dummies."""

    def __init__(self, diagram: Diagram, sizes: Sizes) -> None:
        self.diagram = diagram
        self.sizes = sizes
        self.index = {node.id: i for i, node in enumerate(diagram.nodes)}
        self.count_real = len(diagram.nodes)
        # Per item: its extent left and right of its center line, its height, and whether
        # it is a dummy (an edge passing through a rank, or an edge label).
        self.left: list[float] = []
        self.right: list[float] = []
        self.height: list[float] = []
        self.dummy: list[bool] = []
        self.loops: dict[int, list[DiagramEdge]] = {}
        for edge in diagram.edges:
            if edge.is_loop:
                self.loops.setdefault(self.index[edge.source], []).append(edge)
        self.loop_labels: dict[int, list[tuple[DiagramEdge, float, float]]] = {}
        for i, node in enumerate(diagram.nodes):
            width, height = sizes.node(node)
            right = width / 2
            loops = self.loops.get(i, [])
            if loops:
                labels = [
                    (edge, *sizes.label(edge.label)) if edge.label else (edge, 0.0, 0.0)
                    for edge in loops
                ]
                self.loop_labels[i] = labels
                widest = max(w for _, w, _ in labels)
                right += loop_label_offset(len(loops)) + widest
                height = max(height, sum(h for _, _, h in labels))
            self._add(width / 2, right, height, dummy=False)
        self.joins = diagram.joins()
        self.bar_of: dict[str, int] = {}
        for target, edges in self.joins.items():
            self.bar_of[target] = len(self.left)
            width = max(40.0, 16.0 * len(edges))
            self._add(width / 2, width / 2, 6.0, dummy=False)
        self.count_fixed = len(self.left)
        # Links: the layout's edges between fixed items; None edge = a bar's connector.
        self.links: list[tuple[int, int, DiagramEdge | None]] = []
        for edge in diagram.edges:
            if edge.is_loop:
                continue
            end = self.bar_of[edge.target] if edge.kind == "join" else self.index[edge.target]
            self.links.append((self.index[edge.source], end, edge))
        for target, bar in self.bar_of.items():
            self.links.append((bar, self.index[target], None))

    def _add(self, left: float, right: float, height: float, *, dummy: bool) -> int:
        self.left.append(left)
        self.right.append(right)
        self.height.append(height)
        self.dummy.append(dummy)
        return len(self.left) - 1

    # -- 1. cycles ---------------------------------------------------------------------

    def _back_links(self) -> list[bool]:
        successors: list[list[tuple[int, int]]] = [[] for _ in range(self.count_fixed)]
        for k, (u, v, _) in enumerate(self.links):
            successors[u].append((v, k))
        state = [0] * self.count_fixed  # 0 new, 1 on the stack, 2 done
        back = [False] * len(self.links)
        roots = list(range(self.count_fixed))
        start = self.index.get(START)
        if start is not None:
            roots.remove(start)
            roots.insert(0, start)
        for root in roots:
            if state[root]:
                continue
            state[root] = 1
            stack = [(root, 0)]
            while stack:
                node, at = stack[-1]
                if at == len(successors[node]):
                    state[node] = 2
                    stack.pop()
                    continue
                stack[-1] = (node, at + 1)
                nxt, k = successors[node][at]
                if state[nxt] == 1:
                    back[k] = True
                elif state[nxt] == 0:
                    state[nxt] = 1
                    stack.append((nxt, 0))
        return back

    # -- 2. layers ---------------------------------------------------------------------

    def _layers(self, oriented: list[tuple[int, int]]) -> list[int]:
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(range(self.count_fixed))
        graph.add_edges_from(oriented)
        layer = [0] * self.count_fixed
        for depth, generation in enumerate(nx.topological_generations(graph)):
            for item in generation:
                layer[item] = depth
        end = self.index.get(END)
        if end is not None and graph.out_degree(end) == 0 and self.count_fixed > 1:
            others = [layer[i] for i in range(self.count_fixed) if i != end]
            layer[end] = max(others) + 1
        return layer

    # -- the whole computation ---------------------------------------------------------

    def run(self) -> Layout:
        back = self._back_links()
        oriented = [(v, u) if back[k] else (u, v) for k, (u, v, _) in enumerate(self.links)]
        layer = self._layers(oriented)
        # A label rank follows a layer only where some edge label sits: below its source,
        # or (for a back edge) above it.
        label_after: set[int] = set()
        for k, (top, bottom) in enumerate(oriented):
            edge = self.links[k][2]
            if edge is not None and edge.label:
                label_after.add(layer[bottom] - 1 if back[k] else layer[top])
        rank_of_layer: list[int] = []
        r = 0
        for depth in range(max(layer, default=0) + 1):
            rank_of_layer.append(r)
            r += 2 if depth in label_after else 1
        rank = [rank_of_layer[layer[i]] for i in range(self.count_fixed)]

        # 3. chains of dummies, one per link, top to bottom.
        chains: list[list[int]] = []
        label_item: dict[int, int] = {}
        for k, (top, bottom) in enumerate(oriented):
            edge = self.links[k][2]
            label = self.sizes.label(edge.label) if edge is not None and edge.label else None
            label_rank = rank_of_layer[layer[bottom] - 1] + 1 if back[k] else rank[top] + 1
            chain = [top]
            for r in range(rank[top] + 1, rank[bottom]):
                if label is not None and r == label_rank:
                    item = self._add(label[0] / 2, label[0] / 2, label[1], dummy=True)
                    label_item[k] = item
                else:
                    item = self._add(0.0, 0.0, 0.0, dummy=True)
                rank.append(r)
                chain.append(item)
            chain.append(bottom)
            chains.append(chain)
        total = len(self.left)
        up: list[list[int]] = [[] for _ in range(total)]
        down: list[list[int]] = [[] for _ in range(total)]
        for chain in chains:
            for a, b in itertools.pairwise(chain):
                down[a].append(b)
                up[b].append(a)

        # Small drawings also try a second start (children in reverse order); the first
        # start wins ties, so the result stays deterministic.
        ranks, fewest = self._reducecrossings(self._initial_order(rank, down), up, down, total)
        if total < _SMALL and fewest:
            flipped = [list(reversed(d)) for d in down]
            other, count = self._reducecrossings(
                self._initial_order(rank, flipped), up, down, total
            )
            if count < fewest:
                ranks = other
        xs = self._coordinates(ranks, up, down, total)
        ys, row_top, row_bottom = self._rows(ranks, total)
        return self._result(ranks, rank, chains, back, label_item, xs, ys, row_top, row_bottom)

    # -- 4. order ----------------------------------------------------------------------

    def _initial_order(self, rank: list[int], down: list[list[int]]) -> list[list[int]]:
        total = len(rank)
        seen = [False] * total
        order: list[int] = []
        for root in sorted(range(total), key=rank.__getitem__):  # stable: ties by index
            if seen[root]:
                continue
            seen[root] = True
            stack = [root]
            while stack:
                item = stack.pop()
                order.append(item)
                for nxt in reversed(down[item]):
                    if not seen[nxt]:
                        seen[nxt] = True
                        stack.append(nxt)
        ranks: list[list[int]] = [[] for _ in range(max(rank, default=-1) + 1)]
        for item in order:
            ranks[rank[item]].append(item)
        return ranks

    def _reducecrossings(
        self,
        ranks: list[list[int]],
        up: list[list[int]],
        down: list[list[int]],
        total: int,
    ) -> tuple[list[list[int]], int]:
        pos = [0] * total

        def number(row: list[int]) -> None:
            for p, item in enumerate(row):
                pos[item] = p

        for row in ranks:
            number(row)
        best = [list(row) for row in ranks]
        fewest = crossings(ranks, down, pos)
        stale = 0
        big = total >= _BIG
        for _ in range(max(1, _SWEEP_BUDGET // total) if big else _SWEEPS):
            if fewest == 0 or stale >= 2:
                break
            for r in range(1, len(ranks)):
                ranks[r] = by_barycenter(ranks[r], up, pos)
                number(ranks[r])
            for r in range(len(ranks) - 2, -1, -1):
                ranks[r] = by_barycenter(ranks[r], down, pos)
                number(ranks[r])
            if not big:
                for row in ranks:
                    transpose(row, up, down, pos)
            count = crossings(ranks, down, pos)
            if count < fewest:
                fewest, best, stale = count, [list(row) for row in ranks], 0
            else:
                stale += 1
        return best, fewest

    # -- 5. coordinates ----------------------------------------------------------------

    def _coordinates(
        self,
        ranks: list[list[int]],
        up: list[list[int]],
        down: list[list[int]],
        total: int,
    ) -> list[float]:
        xs = [0.0] * total
        weights = [[_DUMMY_WEIGHT if self.dummy[i] else 1.0 for i in row] for row in ranks]
        gaps = [[self._gap(a, b) for a, b in itertools.pairwise(row)] for row in ranks]
        for row, row_gaps in zip(ranks, gaps, strict=True):
            for item, x in zip(row, itertools.accumulate(row_gaps, initial=0.0), strict=True):
                xs[item] = x

        def place(r: int, neighbours: list[list[int]]) -> None:
            row = ranks[r]
            # Each item's wish: its lone neighbour's x, else the mean of its neighbours',
            # else where it is. (A comprehension: this runs for every item of every pass.)
            desired = [
                xs[around[0]]
                if len(around := neighbours[item]) == 1
                else sum([xs[n] for n in around]) / len(around)
                if around
                else xs[item]
                for item in row
            ]
            for item, x in zip(row, spaced_isotonic(desired, weights[r], gaps[r]), strict=True):
                xs[item] = x

        for _ in range(max(1, _PASS_BUDGET // total) if total >= _BIG else _PASSES):
            for r in range(1, len(ranks)):
                place(r, up)
            for r in range(len(ranks) - 2, -1, -1):
                place(r, down)
        both = [above + below for above, below in zip(up, down, strict=True)]
        for r in range(len(ranks)):
            place(r, both)
        return xs

    def _gap(self, a: int, b: int) -> float:
        space = self.sizes.dummy_gap if self.dummy[a] or self.dummy[b] else self.sizes.node_gap
        return self.right[a] + space + self.left[b]

    def _rows(
        self, ranks: list[list[int]], total: int
    ) -> tuple[list[float], list[float], list[float]]:
        ys = [0.0] * total
        row_top: list[float] = []
        row_bottom: list[float] = []
        y = self.sizes.margin
        labels_above = False
        for r, row in enumerate(ranks):
            height = max((self.height[i] for i in row), default=0.0)
            # Label ranks hold only dummies; the gaps around them are half as tall.
            labels = all(self.dummy[i] for i in row)
            if r:
                y += self.sizes.rank_gap / 2 if labels or labels_above else self.sizes.rank_gap
            labels_above = labels
            row_top.append(y)
            row_bottom.append(y + height)
            for item in row:
                ys[item] = y + height / 2
            y += height
        return ys, row_top, row_bottom

    # -- output ------------------------------------------------------------------------

    def _result(
        self,
        ranks: list[list[int]],
        rank: list[int],
        chains: list[list[int]],
        back: list[bool],
        label_item: dict[int, int],
        xs: list[float],
        ys: list[float],
        row_top: list[float],
        row_bottom: list[float],
    ) -> Layout:
        margin = self.sizes.margin
        items = [i for row in ranks for i in row]
        shift = margin - min((xs[i] - self.left[i] for i in items), default=0.0)
        xs = [x + shift for x in xs]
        width = max((xs[i] + self.right[i] for i in items), default=0.0) + margin
        height = (row_bottom[-1] if row_bottom else 0.0) + margin

        node_sizes = [self.sizes.node(node) for node in self.diagram.nodes]
        boxes: dict[str, Box] = {}
        for i, node in enumerate(self.diagram.nodes):
            boxes[node.id] = Box(xs[i], ys[i], node_sizes[i][0], node_sizes[i][1])
        bars = {
            target: Box(xs[bar], ys[bar], self.left[bar] * 2, self.height[bar])
            for target, bar in self.bar_of.items()
        }

        def box_of(item: int) -> Box:
            if item < self.count_real:
                return boxes[self.diagram.nodes[item].id]
            return Box(xs[item], ys[item], self.left[item] * 2, self.height[item])

        # Ports: spread the ends meeting one side of a box, ordered by where they go.
        ends: dict[tuple[int, str], list[tuple[float, int]]] = {}
        for k, chain in enumerate(chains):
            ends.setdefault((chain[0], "bottom"), []).append((xs[chain[1]], k))
            ends.setdefault((chain[-1], "top"), []).append((xs[chain[-2]], k))
        port: dict[tuple[int, str, int], float] = {}
        for (item, side), attached in ends.items():
            attached.sort()
            box = box_of(item)
            count = len(attached)
            step = min(12.0, box.width * 0.8 / (count - 1)) if count > 1 else 0.0
            for j, (_, k) in enumerate(attached):
                port[(item, side, k)] = box.x + (j - (count - 1) / 2) * step

        routes: dict[int, Route] = {}
        connectors: dict[str, tuple[Point, ...]] = {}
        for k, chain in enumerate(chains):
            top, bottom = chain[0], chain[-1]
            points: list[Point] = [(port[(top, "bottom", k)], box_of(top).bottom)]
            for item in chain[1:-1]:
                r = rank[item]
                if row_bottom[r] > row_top[r]:
                    points.append((xs[item], row_top[r]))
                    points.append((xs[item], row_bottom[r]))
                else:
                    points.append((xs[item], ys[item]))
            points.append((port[(bottom, "top", k)], box_of(bottom).top))
            edge = self.links[k][2]
            if edge is None:
                joined = self.diagram.nodes[self.links[k][1]].id
                connectors[joined] = tuple(reversed(points)) if back[k] else tuple(points)
                continue
            label = label_item.get(k)
            routes[edge.index] = Route(
                edge,
                tuple(reversed(points)) if back[k] else tuple(points),
                box_of(label) if label is not None else None,
                back[k],
            )
        for i, loops in self.loop_labels.items():
            box = boxes[self.diagram.nodes[i].id]
            offset = loop_label_offset(len(loops))
            label_top = box.y - sum(h for _, _, h in loops) / 2
            for j, (edge, w, h) in enumerate(loops):
                reach = _LOOP_BASE + _LOOP_STEP * j
                spread = 6.0 + 2.0 * j
                loop_points = (
                    (box.right, box.y - spread),
                    (box.right + reach, box.y - spread - reach * 0.6),
                    (box.right + reach, box.y + spread + reach * 0.6),
                    (box.right, box.y + spread),
                )
                label_box = Box(box.right + offset + w / 2, label_top + h / 2, w, h) if w else None
                label_top += h
                routes[edge.index] = Route(edge, loop_points, label_box)
        return Layout(
            boxes,
            bars,
            tuple(routes[edge.index] for edge in self.diagram.edges),
            connectors,
            width,
            height,
        )
