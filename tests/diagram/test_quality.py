"""How legible the drawings are, measured on the drawn curves (graphnb.diagram.quality)."""

from __future__ import annotations

from graphnb.agent.react import REACT_MACHINE
from graphnb.diagram import extract
from graphnb.diagram.geometry import Layout
from graphnb.diagram.layered import compute_layout
from graphnb.diagram.quality import arrowhead_crowding, crossings, measure
from graphnb.diagram.svg import svg_sizes

from .samples import SAMPLES


def drawn(obj: object) -> Layout:
    diagram = extract(obj)
    return compute_layout(diagram, svg_sizes(diagram))


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
