"""How legible the drawings are, measured on the drawn curves (graphnb.diagram.quality)."""

from __future__ import annotations

import itertools
import runpy
from pathlib import Path

import pytest

from graphnb import END
from graphnb.agent.react import REACT_MACHINE
from graphnb.diagram import extract
from graphnb.diagram.geometry import Layout
from graphnb.diagram.layered import compute_layout
from graphnb.diagram.quality import arrowhead_crowding, crossings, measure
from graphnb.diagram.svg import svg_sizes

from .samples import SAMPLES

HABIT_PLAN = Path(__file__).resolve().parents[2] / "examples" / "habit_plan.py"


def drawn(obj: object) -> Layout:
    diagram = extract(obj)
    return compute_layout(diagram, svg_sizes(diagram))


def habit_plan() -> object:
    """The habit-plan machine of ``examples/habit_plan.py`` (the benchmark's second case)."""
    return runpy.run_path(str(HABIT_PLAN), run_name="habit_plan_example")["FLOW"]


MACHINES = {"react": lambda: REACT_MACHINE, "habit_plan": habit_plan}


def test_the_react_machine_is_drawn_with_at_most_one_crossing() -> None:
    assert measure(drawn(REACT_MACHINE)).crossings <= 1


def test_no_more_than_two_arrowheads_meet_at_one_point_of_a_node() -> None:
    # FAILED takes eight arrows from above (and sends three back up): they are spread
    # along its top side, widened to hold them.
    layout = drawn(REACT_MACHINE)
    into_failed = [r.points[-1] for r in layout.routes if r.edge.target == "FAILED"]
    assert len(into_failed) == 8
    assert arrowhead_crowding(into_failed) <= 2
    for spec in (REACT_MACHINE, *(make() for make in SAMPLES.values())):
        assert measure(drawn(spec)).arrowheads <= 2


def test_crossings_are_counted_where_curves_cross_not_where_they_touch() -> None:
    cross = [[(0.0, 0.0), (10.0, 10.0)], [(0.0, 10.0), (10.0, 0.0)]]
    assert crossings(cross) == 1
    touching = [[(0.0, 0.0), (10.0, 10.0)], [(10.0, 10.0), (20.0, 0.0)]]  # share an end
    assert crossings(touching) == 0
    parallel = [[(0.0, 0.0), (10.0, 0.0)], [(0.0, 5.0), (10.0, 5.0)]]
    assert crossings(parallel) == 0


def test_arrow_tips_closer_than_an_arrowhead_count_as_meeting() -> None:
    assert arrowhead_crowding([(0.0, 0.0), (4.0, 0.0), (8.0, 0.0), (30.0, 0.0)]) == 3
    assert arrowhead_crowding([(0.0, 0.0), (14.0, 0.0), (28.0, 0.0)]) == 1
    assert arrowhead_crowding([]) == 0


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_no_two_edge_labels_of_the_machines_overlap(name: str) -> None:
    labels = [route.label for route in drawn(MACHINES[name]()).routes if route.label]
    assert len(labels) >= 9
    for a, b in itertools.combinations(labels, 2):
        assert not a.overlaps(b), (a, b)


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_edge_runs_through_the_middle_of_its_own_label(name: str) -> None:
    # The edge may cross its label off-centre (a straighter edge), but always within the
    # middle half of the label's width, from its top to its bottom: the label sits on it.
    for route in drawn(MACHINES[name]()).routes:
        box = route.label
        if box is None or route.edge.is_loop:
            continue
        assert any(
            a[0] == b[0]
            and box.x - box.width / 4 <= a[0] <= box.x + box.width / 4
            and sorted((a[1], b[1])) == [box.top, box.bottom]
            for a, b in itertools.pairwise(route.points)
        ), route


def test_labels_of_long_edges_into_a_node_sit_side_by_side_above_it() -> None:
    # ERROR and TIMEOUT come into FAILED from three layers: their labels all sit in the
    # rank of labels right above FAILED, next to the arrowheads, not next to the sources.
    layout = drawn(REACT_MACHINE)
    failed = layout.nodes["FAILED"]
    into = [r.label for r in layout.routes if r.edge.target == "FAILED" and r.label]
    assert len(into) == 8
    assert {label.bottom for label in into} == {max(label.bottom for label in into)}
    above = [box for node, box in layout.nodes.items() if node not in ("FAILED", END)]
    for label in into:
        assert max(box.bottom for box in above) < label.top < label.bottom < failed.top
