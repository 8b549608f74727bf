from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.diagram import extract, layered, layout
from graphnb.diagram.geometry import Box, Layout
from graphnb.diagram.layered import compute_layout
from graphnb.diagram.quality import polyline
from graphnb.diagram.svg import svg_sizes

from .samples import cyclic_graph, fan_out_join, react_machine, router_graph


def svg_layout(spec: GraphSpec) -> Layout:
    diagram = extract(spec)
    return compute_layout(diagram, svg_sizes(diagram))


def test_layout_runs_from_start_at_the_top_to_end_alone_at_the_bottom() -> None:
    positions = layout(router_graph())
    ys = {node: y for node, (_, y) in positions.items()}
    assert ys[START] == min(ys.values())
    assert ys[END] > max(y for node, y in ys.items() if node != END)
    assert ys["classify"] < ys["search"] < ys["answer"]


def test_layout_gives_every_node_a_distinct_canvas_box() -> None:
    positions = layout(fan_out_join(), node_size=(150, 40))
    boxes = [Box(x + 75, y + 20, 150, 40) for x, y in positions.values()]
    assert len(positions) == 8
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)


def test_layout_is_deterministic() -> None:
    assert layout(react_machine()) == layout(react_machine())
    assert svg_layout(react_machine()) == svg_layout(react_machine())


def test_cycle_is_broken_by_drawing_the_closing_edge_as_a_back_edge() -> None:
    result = svg_layout(cyclic_graph())
    back = [(r.edge.source, r.edge.target) for r in result.routes if r.back]
    assert back == [("check", "plan")]
    route = next(r for r in result.routes if r.back)
    # Drawn from check (below) up to plan.
    assert route.points[0][1] > route.points[-1][1]
    assert route.points[-1][1] == result.nodes["plan"].bottom


def test_forward_edges_run_downwards_from_source_bottom_to_target_top() -> None:
    result = svg_layout(fan_out_join())
    for route in result.routes:
        if route.edge.kind == "join":
            assert route.points[-1][1] == result.joins[route.edge.target].top
            continue
        assert route.points[0][1] == result.nodes[route.edge.source].bottom
        assert route.points[-1][1] == result.nodes[route.edge.target].top
        ys = [y for _, y in route.points]
        assert ys == sorted(ys)


def test_join_bar_sits_between_its_sources_and_its_target() -> None:
    result = svg_layout(fan_out_join())
    bar = result.joins["merge"]
    assert bar.top > result.nodes["fetch_flights"].bottom
    assert bar.bottom < result.nodes["merge"].top
    assert result.connectors["merge"][-1][1] == result.nodes["merge"].top


def test_fan_out_targets_share_one_row() -> None:
    result = svg_layout(fan_out_join())
    rows = {result.nodes[n].y for n in ("fetch_weather", "fetch_flights", "fetch_hotels")}
    assert len(rows) == 1


def test_empty_and_single_node_specs_lay_out() -> None:
    assert layout(GraphSpec()) == {}
    assert layout(GraphSpec(nodes=[NodeSpec(id="a")])) == {"a": (0.0, 0.0)}


def _drawn_boxes(result: Layout) -> tuple[list[tuple[str, Box]], list[tuple[str, Box]]]:
    nodes = [(f"node {n}", box) for n, box in result.nodes.items()]
    nodes += [(f"join into {t}", box) for t, box in result.joins.items()]
    labels = [(f"label of edge {r.edge.index}", r.label) for r in result.routes if r.label]
    return nodes, labels


@st.composite
def graphs(draw: st.DrawFn) -> GraphSpec:
    count = draw(st.integers(1, 9))
    names = [f"n{i}" for i in range(count)]
    ends = st.sampled_from([*names, END])
    edges = [EdgeSpec(source=START, target=names[0])]
    for _ in range(draw(st.integers(0, 16))):
        source = draw(st.sampled_from(names))
        kind = draw(st.sampled_from(["direct", "direct", "conditional", "join"]))
        target = draw(st.sampled_from(names)) if kind == "join" else draw(ends)
        label = draw(st.none() | st.text("abcdefgh XYZ", min_size=1, max_size=30))
        edges.append(EdgeSpec(source=source, target=target, kind=kind, label=label))
    machine = draw(st.booleans())
    return GraphSpec(
        nodes=[
            NodeSpec(id=n, label=draw(st.none() | st.text(min_size=1, max_size=40))) for n in names
        ],
        edges=edges,
        metadata={"kind": "machine", "initial": names[0], "final": []} if machine else {},
    )


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_labels_never_overlap_nodes_or_each_other(spec: GraphSpec) -> None:
    result = svg_layout(spec)
    nodes, labels = _drawn_boxes(result)
    for (name_a, a), (name_b, b) in itertools.combinations(nodes + labels, 2):
        assert not a.overlaps(b), f"{name_a} overlaps {name_b}"
    for _, box in nodes + labels:
        assert box.left >= 0
        assert box.right <= result.width
        assert box.bottom <= result.height


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_every_edge_gets_a_route_ending_on_its_nodes(spec: GraphSpec) -> None:
    result = svg_layout(spec)
    diagram = extract(spec)
    assert [r.edge for r in result.routes] == list(diagram.edges)
    for route in result.routes:
        source = result.nodes[route.edge.source]
        assert source.left <= route.points[0][0] <= source.right
        joined = route.edge.kind == "join" and not route.edge.is_loop
        end = result.joins if joined else result.nodes
        target = end[route.edge.target]
        assert target.left <= route.points[-1][0] <= target.right


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_edges_pass_beside_the_boxes_and_labels_they_do_not_join(spec: GraphSpec) -> None:
    # Routes leave out bends where one curve stays in the edge's lane: it must still never
    # run through a node, a join bar or another edge's label.
    result = svg_layout(spec)
    nodes, labels = _drawn_boxes(result)
    for route in result.routes:
        if route.edge.is_loop:
            continue
        own = {f"node {route.edge.source}", f"node {route.edge.target}"}
        own |= {f"join into {route.edge.target}", f"label of edge {route.edge.index}"}
        line = polyline(route.points)
        for name, box in nodes + labels:
            if name in own:
                continue
            inside = [
                p
                for p in line
                if box.left + 1 < p[0] < box.right - 1 and box.top + 1 < p[1] < box.bottom - 1
            ]
            assert not inside, f"edge {route.edge.index} runs through {name}"


def test_layout_uses_the_sizes_given_per_node_for_top_left_corners() -> None:
    small = {START: (40.0, 20.0), END: (40.0, 20.0)}
    positions = layout(fan_out_join(), sizes=small)
    # START's small box is centred over split's 150 px box.
    assert positions[START][0] + 20 == positions["split"][0] + 75
    assert positions[END][0] + 20 == positions["report"][0] + 75


def test_a_drawing_past_the_work_budget_still_keeps_boxes_apart_and_routes_whole() -> None:
    # 400 nodes with 800 random edges make over 20,000 items (nodes and dummies): past
    # _BIG, where sweeps and passes are limited to a budget (one of each here).
    rng = random.Random(3)
    names = [f"n{i}" for i in range(400)]
    edges = [EdgeSpec(source=START, target=names[0]), EdgeSpec(source=names[-1], target=END)]
    edges += [EdgeSpec(source=names[rng.randrange(i)], target=names[i]) for i in range(1, 400)]
    while len(edges) < 800:
        label = "maybe" if rng.random() < 0.2 else None
        edges.append(EdgeSpec(source=rng.choice(names), target=rng.choice(names), label=label))
    spec = GraphSpec(nodes=[NodeSpec(id=n) for n in names], edges=edges)
    diagram = extract(spec)
    builder = layered._Builder(diagram, svg_sizes(diagram))

    result = builder.run()

    assert len(builder.left) > layered._BIG
    nodes, labels = _drawn_boxes(result)
    by_row: dict[float, list[tuple[str, Box]]] = {}
    for name, box in nodes + labels:
        by_row.setdefault(box.y, []).append((name, box))
    for row in by_row.values():  # boxes of one rank are sorted and spaced, never overlap
        row.sort(key=lambda item: item[1].x)
        for (name_a, a), (name_b, b) in itertools.pairwise(row):
            assert not a.overlaps(b), f"{name_a} overlaps {name_b}"
    assert [r.edge for r in result.routes] == list(diagram.edges)
    for route in result.routes:
        source, target = result.nodes[route.edge.source], result.nodes[route.edge.target]
        assert source.left <= route.points[0][0] <= source.right
        assert target.left <= route.points[-1][0] <= target.right
