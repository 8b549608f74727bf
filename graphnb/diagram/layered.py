"""Layered layout of a diagram (Sugiyama style).

The steps are the classic ones:

1. **Cycles.** A depth-first search from START, following edges in spec order, marks the
   edges that close a cycle (edges back to a node still on the search stack). They are
   reversed for the layout and drawn as back edges.
2. **Layers.** Topological generations (:class:`graphlib.TopologicalSorter`) give every
   node its longest-path layer from the sources; a node with more edges out than in then
   moves down next above its highest successor (shorter edges). END goes alone to the
   bottom. Join edges go through a join bar placed in a layer of its own above the joined
   node.
3. **Ranks.** Each layer is a rank; where edge labels sit below a layer, a label rank is
   inserted after it, so a label is laid out like a node and can never overlap one. A
   label sits next to its edge's source, or next to its target when the edge spans
   several layers and that label rank exists anyway (side by side above the node its
   edges go into, off the crowded ranks near their sources). Every
   edge spanning more than one rank gets a dummy item on each rank it crosses. A node
   whose top or bottom side holds many ends is widened so they sit ``_PORT_STEP`` apart.
4. **Order.** Items start in depth-first order, then barycenter sweeps (down and up) with
   adjacent swaps reorder each rank; the order with the fewest crossings is kept. Small
   drawings also start from reversed and shuffled (seeded) child orders and keep the best.
5. **Coordinates.** Repeated passes pull each item towards the mean position of its
   neighbours, solving each rank exactly (weighted isotonic regression, "pool adjacent
   violators") under minimum separations, so nothing ever overlaps. A gap between ranks
   crossed by an edge running far sideways grows taller (up to three times), so such
   edges do not run flat along each other.
6. **Routes.** An edge runs through its dummies; on small drawings the bends it can skip
   (staying inside its half of the room to the next edge, clear of boxes) are left out,
   so an edge crossing several ranks sideways is one smooth curve, not a staircase. An
   edge crosses its label anywhere along the label's middle half, where it runs
   straightest, not only at the label's centre.

Steps 4 and 5 cost time in proportion to the items (nodes and dummies) times the sweeps or
passes. Past ``_BIG`` items (a few hundred long edges) the sweeps and passes are limited
to a fixed budget of item visits, neighbours are no longer swapped one pair at a time, a
lone sweep is kept without counting crossings, and gaps keep their height: later sweeps
gain little on such drawings (a few percent fewer crossings) and would cost seconds.

A layout of boxes only (``routes=False``, the widget's canvas, which draws its own edges
straight) gives labels no rank, computes no routes and, past ``_CANVAS_DUMMIES`` dummies,
joins long edges' ends directly without dummies.

Everything iterates in insertion order (never over sets), so the same diagram always
gives the same layout, to the last bit.
"""

from __future__ import annotations

import itertools
import math
import random
from graphlib import TopologicalSorter

from ..spec import END, START
from .geometry import Box, Layout, Point, Route, Sizes
from .model import Diagram, DiagramEdge
from .ordering import by_barycenter, crossings, transpose
from .placement import spaced_isotonic

__all__ = ["compute_layout", "loop_label_offset"]

_SWEEPS = 8
_PASSES = 4
_SMALL = 2_000  # items below which more crossing-reduction starts are tried
_RESTARTS = 8  # shuffled starts tried on small drawings, at most
_RESTART_BUDGET = 2_000  # items times shuffled starts, at most
_SEED = 16
_BIG = 10_000  # items (nodes and dummies) above which the budgets below apply
_SWEEP_BUDGET = 40_000  # item visits of the crossing-reduction sweeps, past _BIG items
_CANVAS_DUMMIES = 20_000  # dummies past which a boxes-only layout uses none
_PASS_BUDGET = 40_000  # item visits of the coordinate passes, past _BIG items
_DUMMY_WEIGHT = 4.0
_LOOP_STEP = 12.0
_PORT_STEP = 14.0  # least distance between two ends on one side of a node (an arrowhead is 9)
_PORT_MAX = 20.0  # most distance between two ends on one side of a node
_SLANT = 0.1  # least height of a gap per px an edge runs sideways across it
_LABEL_GAP = 0.5  # height of a gap next to a rank of labels, per rank gap (grows by slant)
_PORT_SPAN = 0.8  # share of a side's width the ends spread over
_LOOP_BASE = 26.0
_LABEL_PASS = 0.5  # share of a label's width, about its centre, its edge may cross it in
_CLEAR = 4.0  # least room between a straightened edge and a box beside it, px


def loop_label_offset(count: int) -> float:
    """How far right of a node's box the labels of its ``count`` self-loops start."""
    return _LOOP_BASE * 0.75 + _LOOP_STEP * 0.75 * (count - 1) + 6.0


def compute_layout(
    diagram: Diagram, sizes: Sizes, *, labels: bool = True, routes: bool = True
) -> Layout:
    """Lay ``diagram`` out, top (START) to bottom (END).

    Args:
        diagram: what to lay out.
        sizes: the size of each box and the gaps between them.
        labels: give edge labels a place of their own (a rank of labels between two
            layers); off for a canvas that draws labels on its edges itself.
        routes: compute the edges' routes; off when only the boxes are wanted (the
            layout then has no routes and no connectors).
    """
    return _Builder(diagram, sizes, labels=labels, routes=routes).run()


class _Builder:
    """One layout computation; items are ints: nodes, then join bars, then dummies."""

    def __init__(
        self, diagram: Diagram, sizes: Sizes, *, labels: bool = True, routes: bool = True
    ) -> None:
        self.diagram = diagram
        self.with_labels = labels
        self.with_routes = routes
        self.sizes = sizes
        self.index = {node.id: i for i, node in enumerate(diagram.nodes)}
        self.count_real = len(diagram.nodes)
        # Per item: its extent left and right of its center line, its height, and whether
        # it is a dummy (an edge passing through a rank, or an edge label).
        self.left: list[float] = []
        self.right: list[float] = []
        self.height: list[float] = []
        self.dummy: list[bool] = []
        self.width: list[float] = []  # per node: its box's width (widened for many ports)
        self.loops: dict[int, list[DiagramEdge]] = {}
        for edge in diagram.edges:
            if edge.is_loop:
                self.loops.setdefault(self.index[edge.source], []).append(edge)
        self.loop_labels: dict[int, list[tuple[DiagramEdge, float, float]]] = {}
        for i, node in enumerate(diagram.nodes):
            width, height = sizes.node(node)
            self.width.append(width)
            right = width / 2
            loops = self.loops.get(i, [])
            if loops:
                loop_sizes = [
                    (edge, *sizes.label(edge.label)) if edge.label else (edge, 0.0, 0.0)
                    for edge in loops
                ]
                self.loop_labels[i] = loop_sizes
                widest = max(w for _, w, _ in loop_sizes)
                right += loop_label_offset(len(loops)) + widest
                height = max(height, sum(h for _, _, h in loop_sizes))
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

    def _widen_for_ports(self, oriented: list[tuple[int, int]]) -> None:
        """Widen nodes whose top or bottom side holds too many ends to space them apart.

        Arrowheads (and edges leaving) are spread along a side at least ``_PORT_STEP``
        apart, so no two arrow tips touch: a node with many edges gets a wider box.
        """
        ends = [0] * (2 * self.count_real)
        for top, bottom in oriented:
            if top < self.count_real:
                ends[2 * top] += 1
            if bottom < self.count_real:
                ends[2 * bottom + 1] += 1
        for i in range(self.count_real):
            most = max(ends[2 * i], ends[2 * i + 1])
            needed = (most - 1) * _PORT_STEP / _PORT_SPAN + 2 * _PORT_STEP
            if most > 1 and needed > self.width[i]:
                extra = (needed - self.width[i]) / 2
                self.width[i] = needed
                self.left[i] += extra
                self.right[i] += extra

    # -- 2. layers ---------------------------------------------------------------------

    def _layers(self, oriented: list[tuple[int, int]]) -> list[int]:
        # Each item's successors once, in the order the edges name them.
        successors: list[dict[int, None]] = [{} for _ in range(self.count_fixed)]
        for source, target in oriented:
            successors[source][target] = None
        incoming = [0] * self.count_fixed
        for targets in successors:
            for target in targets:
                incoming[target] += 1
        # Topological generations: what the sorter has ready at once is one layer.
        sorter = TopologicalSorter({item: () for item in range(self.count_fixed)})
        for item, targets in enumerate(successors):
            for target in targets:
                sorter.add(target, item)
        sorter.prepare()
        layer = [0] * self.count_fixed
        order: list[int] = []
        depth = 0
        while sorter.is_active():
            generation = sorter.get_ready()
            for item in generation:
                layer[item] = depth
            order += generation
            sorter.done(*generation)
            depth += 1
        # Longest-path layers put every node as high as it can go: a node with more edges
        # out than in moves down, next above its highest successor, which shortens its
        # edges in total (and saves a dummy item per layer gained).
        for item in reversed(order):
            below = [layer[n] for n in successors[item]]
            if below and len(below) > incoming[item]:
                layer[item] = max(layer[item], min(below) - 1)
        end = self.index.get(END)
        if end is not None and not successors[end] and self.count_fixed > 1:
            others = [layer[i] for i in range(self.count_fixed) if i != end]
            layer[end] = max(others) + 1
        return layer

    def _label_layers(
        self, oriented: list[tuple[int, int]], back: list[bool], layer: list[int]
    ) -> dict[int, int]:
        """Per labelled link, the layer its label sits below (its label rank follows it).

        A label sits next to its edge's source: below it, or above it for a back edge. An
        edge spanning several layers puts its label next to its target instead (the rank
        above its arrowhead, or below it for a back edge) when some edge spanning one layer
        has its label there anyway: the label then joins a rank that exists already, the
        edge runs unlabelled past the busy ranks near its source, and edges into one node
        show their labels side by side above it (all the ERROR edges of a machine above
        FAILED). Otherwise the label stays next to its source, so no rank is added.
        """
        if not self.with_labels:
            return {}
        chosen: dict[int, int] = {}
        near_target: dict[int, int] = {}
        for k, (top, bottom) in enumerate(oriented):
            edge = self.links[k][2]
            if edge is None or not edge.label:
                continue
            chosen[k] = layer[bottom] - 1 if back[k] else layer[top]
            near_target[k] = layer[top] if back[k] else layer[bottom] - 1
        held = {
            chosen[k]
            for k, (top, bottom) in enumerate(oriented)
            if k in chosen and layer[bottom] - layer[top] == 1
        }
        for k, target_side in near_target.items():
            if target_side in held:
                chosen[k] = target_side
        return chosen

    # -- the whole computation ---------------------------------------------------------

    def run(self) -> Layout:
        back = self._back_links()
        oriented = [(v, u) if back[k] else (u, v) for k, (u, v, _) in enumerate(self.links)]
        layer = self._layers(oriented)
        self._widen_for_ports(oriented)
        # A label rank follows a layer only where some edge label sits.
        label_layer = self._label_layers(oriented, back, layer)
        label_after = set(label_layer.values())
        rank_of_layer: list[int] = []
        r = 0
        for depth in range(max(layer, default=0) + 1):
            rank_of_layer.append(r)
            r += 2 if depth in label_after else 1
        rank = [rank_of_layer[layer[i]] for i in range(self.count_fixed)]

        # 3. chains of dummies, one per link, top to bottom.
        chains: list[list[int]] = []
        label_item: dict[int, int] = {}
        # Neighbours above and below each item; a dummy has one each way, so its lists
        # are made as its chain is (in bulk: a long edge crosses hundreds of ranks).
        up: list[list[int]] = [[] for _ in range(self.count_fixed)]
        down: list[list[int]] = [[] for _ in range(self.count_fixed)]
        # Boxes only (a canvas, which draws its edges straight from end to end): past
        # _CANVAS_DUMMIES dummies, edges get none and join their ends directly, so a huge
        # canvas lays out in a fraction of the time (no route needs them).
        direct = not self.with_routes and (
            sum(rank[b] - rank[t] - 1 for t, b in oriented) > _CANVAS_DUMMIES
        )
        for k, (top, bottom) in enumerate(oriented):
            edge = self.links[k][2]
            label = (
                self.sizes.label(edge.label)
                if edge is not None and edge.label and k in label_layer
                else None
            )
            first, count = len(self.left), 0 if direct else max(0, rank[bottom] - rank[top] - 1)
            last = first + count
            self.left += [0.0] * count
            self.right += [0.0] * count
            self.height += [0.0] * count
            self.dummy += [True] * count
            rank += range(rank[top] + 1, rank[top] + 1 + count)
            if label is not None:  # its rank is one of those the edge crosses
                item = first + rank_of_layer[label_layer[k]] - rank[top]
                self.left[item] = self.right[item] = label[0] / 2
                self.height[item] = label[1]
                label_item[k] = item
            if count:
                up.append([top])
                up += [[i] for i in range(first, last - 1)]
                down += [[i] for i in range(first + 1, last)]
                down.append([bottom])
            down[top].append(first if count else bottom)
            up[bottom].append(last - 1 if count else top)
            chains.append([top, *range(first, last), bottom])
        total = len(self.left)

        # Small drawings also try other starts: children in reverse order, then shuffled
        # children (from a fixed seed); the first start wins ties, so the result stays
        # deterministic.
        ranks, fewest = self._reducecrossings(self._initial_order(rank, down), up, down, total)
        if total < _SMALL and fewest:
            starts = [[list(reversed(d)) for d in down]]
            rng = random.Random(_SEED)
            for _ in range(min(_RESTARTS, _RESTART_BUDGET // total)):
                starts.append([rng.sample(d, len(d)) for d in down])
            for children in starts:
                other, count = self._reducecrossings(
                    self._initial_order(rank, children), up, down, total
                )
                if count < fewest:
                    ranks, fewest = other, count
                if not fewest:
                    break
        xs = self._coordinates(ranks, up, down, total)
        ys, row_top, row_bottom = self._rows(ranks, total, self._slants(ranks, down, xs))
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
        for row in ranks:
            for p, item in enumerate(row):
                pos[item] = p
        big = total >= _BIG
        sweeps = max(1, _SWEEP_BUDGET // total) if big else _SWEEPS
        if sweeps == 1:
            # One sweep only (a huge drawing): keep it without counting crossings, which
            # costs as much as the sweep; a barycenter sweep is rarely worse than the
            # depth-first order it starts from.
            self._sweep(ranks, up, down, pos, transposing=False)
            return ranks, -1
        best = [list(row) for row in ranks]
        fewest = crossings(ranks, down, pos)
        stale = 0
        for _ in range(sweeps):
            if fewest == 0 or stale >= 2:
                break
            self._sweep(ranks, up, down, pos, transposing=not big)
            count = crossings(ranks, down, pos)
            if count < fewest:
                fewest, best, stale = count, [list(row) for row in ranks], 0
            else:
                stale += 1
        return best, fewest

    @staticmethod
    def _sweep(
        ranks: list[list[int]],
        up: list[list[int]],
        down: list[list[int]],
        pos: list[int],
        *,
        transposing: bool,
    ) -> None:
        """One barycenter sweep down then up (in place), then transpositions if asked."""
        downwards = [(r, up) for r in range(1, len(ranks))]
        upwards = [(r, down) for r in range(len(ranks) - 2, -1, -1)]
        for r, neighbours in downwards + upwards:
            row = ranks[r] = by_barycenter(ranks[r], neighbours, pos)
            for p, item in enumerate(row):
                pos[item] = p
        if transposing:
            for row in ranks:
                transpose(row, up, down, pos)

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
        if total < _BIG:  # a last pass balancing both sides; on huge drawings it moves little
            both = [above + below for above, below in zip(up, down, strict=True)]
            for r in range(len(ranks)):
                place(r, both)
        return xs

    def _gap(self, a: int, b: int) -> float:
        space = self.sizes.dummy_gap if self.dummy[a] or self.dummy[b] else self.sizes.node_gap
        return self.right[a] + space + self.left[b]

    def _slants(
        self, ranks: list[list[int]], down: list[list[int]], xs: list[float]
    ) -> list[float]:
        """Per rank, the widest sideways run of an edge from it to the next rank, px.

        Huge drawings (past ``_BIG`` items) keep their plain gaps: no one reads their edges
        one by one, and the scan would cost a tenth of the layout.
        """
        if len(xs) >= _BIG:
            return [0.0] * len(ranks)
        return [
            max((abs(xs[b] - xs[a]) for a in row for b in down[a]), default=0.0) for row in ranks
        ]

    def _rows(
        self, ranks: list[list[int]], total: int, slants: list[float]
    ) -> tuple[list[float], list[float], list[float]]:
        ys = [0.0] * total
        row_top: list[float] = []
        row_bottom: list[float] = []
        y = self.sizes.margin
        labels_above = False
        for r, row in enumerate(ranks):
            height = max((self.height[i] for i in row), default=0.0)
            # Label ranks hold only dummies; the gaps around them are shorter.
            labels = all(self.dummy[i] for i in row)
            if r:
                # A label sits close below its edge's source (or above a back edge's);
                # an edge running far sideways between close ranks is drawn almost flat,
                # along its neighbours: such a gap gets more height, up to 3 (next to
                # labels 1.5) rank gaps.
                gap = self.sizes.rank_gap
                most = 1.5 * gap if labels or labels_above else 3 * gap
                if labels or labels_above:
                    gap *= _LABEL_GAP
                y += min(max(gap, slants[r - 1] * _SLANT), most)
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

        boxes: dict[str, Box] = {}
        for i, node in enumerate(self.diagram.nodes):
            boxes[node.id] = Box(xs[i], ys[i], self.width[i], self.sizes.node(node)[1])
        bars = {
            target: Box(xs[bar], ys[bar], self.left[bar] * 2, self.height[bar])
            for target, bar in self.bar_of.items()
        }

        if not self.with_routes:
            return Layout(boxes, bars, (), {}, width, height)

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
            step = min(_PORT_MAX, box.width * _PORT_SPAN / (count - 1)) if count > 1 else 0.0
            for j, (_, k) in enumerate(attached):
                port[(item, side, k)] = box.x + (j - (count - 1) / 2) * step

        # An edge crosses its label anywhere along the label's middle (``_LABEL_PASS`` of
        # its width), not only at its centre: where the straight line between its
        # neighbours (a node's port, or a dummy) meets the label's row, or the nearest
        # point of that middle. The edge runs straighter; its label still sits on it.
        run_x = list(xs)
        for k, item in label_item.items():
            chain = chains[k]
            at = item - chain[1] + 1
            a, b = chain[at - 1], chain[at + 1]
            xa, ya = (port[(a, "bottom", k)], box_of(a).bottom) if at == 1 else (xs[a], ys[a])
            last = at + 2 == len(chain)
            xb, yb = (port[(b, "top", k)], box_of(b).top) if last else (xs[b], ys[b])
            reach = self.left[item] * _LABEL_PASS
            want = xa + (xb - xa) * (ys[item] - ya) / (yb - ya) if yb > ya else xs[item]
            run_x[item] = min(max(want, xs[item] - reach), xs[item] + reach)

        # Where an edge passing through a rank may run: its half of the space to the next
        # edge passing by, clear of the boxes beside it (small drawings only).
        smooth = len(xs) < _SMALL
        labels = set(label_item.values())
        slot = [0] * len(xs)
        for row in ranks:
            for p, item in enumerate(row):
                slot[item] = p

        def corridor(item: int, r: int) -> tuple[float, float]:
            row, p, x = ranks[r], slot[item], xs[item]
            low, high = -math.inf, math.inf
            if p:
                a = row[p - 1]
                plain = self.dummy[a] and a not in labels
                low = (xs[a] + x) / 2 if plain else xs[a] + self.right[a] + _CLEAR
            if p + 1 < len(row):
                b = row[p + 1]
                plain = self.dummy[b] and b not in labels
                high = (xs[b] + x) / 2 if plain else xs[b] - self.left[b] - _CLEAR
            return low, high

        routes: dict[int, Route] = {}
        connectors: dict[str, tuple[Point, ...]] = {}
        for k, chain in enumerate(chains):
            top, bottom = chain[0], chain[-1]
            points: list[Point] = [(port[(top, "bottom", k)], box_of(top).bottom)]
            for item in chain[1:-1]:
                r = rank[item]
                if row_bottom[r] > row_top[r]:
                    points.append((run_x[item], row_top[r]))
                    points.append((run_x[item], row_bottom[r]))
                else:
                    points.append((run_x[item], ys[item]))
            points.append((port[(bottom, "top", k)], box_of(bottom).top))
            if smooth and len(chain) > 3:
                lanes: list[tuple[float, float] | None] = [None]
                for item in chain[1:-1]:
                    r = rank[item]
                    lane = None if item in labels else corridor(item, r)
                    lanes += [lane, lane] if row_bottom[r] > row_top[r] else [lane]
                lanes.append(None)
                # The last bend before each end stays: there, all the edges meeting at a
                # node side come in over one gap, drawn alike, so they cannot cross.
                lanes[1] = lanes[-2] = None
                points = _straighten(points, lanes)
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


def _straighten(points: list[Point], lanes: list[tuple[float, float] | None]) -> list[Point]:
    """``points`` with the bends an edge can skip left out: shorter, smoother routes.

    The route is drawn as one vertical S curve between two kept points; a point is left
    out when that curve crosses its row inside the point's ``lane`` (``None``: the point
    must stay: an end, or an edge label). Both curves are monotone, so checking the rows'
    edges is enough.
    """
    out = [points[0]]
    i = 0
    while i < len(points) - 1:
        j = i + 1
        while j + 1 < len(points) and lanes[j] is not None and _fits(points, lanes, i, j + 1):
            j += 1
        out.append(points[j])
        i = j
    return out


def _fits(points: list[Point], lanes: list[tuple[float, float] | None], i: int, j: int) -> bool:
    (x0, y0), (x1, y1) = points[i], points[j]
    for k in range(i + 1, j):
        lane = lanes[k]
        if lane is None:
            return False
        y = points[k][1]
        # The curve's height runs 1.5t - 1.5t^2 + t^3 of the way, its x 3t^2 - 2t^3:
        # find t at this height by bisection.
        share = (y - y0) / (y1 - y0) if y1 != y0 else 0.0
        lo, hi = 0.0, 1.0
        for _ in range(30):
            t = (lo + hi) / 2
            if 1.5 * t - 1.5 * t * t + t**3 < share:
                lo = t
            else:
                hi = t
        t = (lo + hi) / 2
        x = x0 + (x1 - x0) * (3 * t * t - 2 * t**3)
        if not lane[0] <= x <= lane[1]:
            return False
    return True
