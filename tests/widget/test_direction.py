"""Left-right layout: levels become columns, the direction is kept in the spec."""

from __future__ import annotations

import pytest

from graphnb import END, START, StateGraph
from graphnb.widget import Builder
from graphnb.widget.direction import DIRECTION_KEY, direction_of
from graphnb.widget.layout import POSITIONS_KEY
from graphnb.widget.protocol import read_request


def _step(state: dict[str, object]) -> dict[str, object]:
    return {}


def _fan() -> StateGraph[dict[str, object]]:
    graph = StateGraph(dict, name="fan")
    for name in ("a", "b", "c"):
        graph.add_node(name, _step)
    return graph.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("b", END)


def _places(builder: Builder) -> dict[str, tuple[float, float]]:
    return {n.id: (n.position.x, n.position.y) for n in builder.spec.nodes if n.position}


def test_left_right_layout_puts_levels_in_columns_and_is_kept_by_a_later_layout():
    builder = Builder(_fan(), namespace={})
    assert direction_of(builder.spec) == "TB"
    builder.layout("LR")
    place = _places(builder)
    assert place["a"][0] < place["b"][0] == place["c"][0]  # b and c: one column after a
    assert place["b"][1] != place["c"][1]
    terminals = builder.spec.metadata[POSITIONS_KEY]
    assert isinstance(terminals, dict)
    assert terminals[START]["x"] < place["a"][0] < terminals[END]["x"]
    assert builder.spec.metadata[DIRECTION_KEY] == "LR"
    builder.layout()  # the current direction
    assert builder.spec.metadata[DIRECTION_KEY] == "LR"
    builder.layout("TB")
    place = _places(builder)
    assert place["a"][1] < place["b"][1] == place["c"][1]


def test_a_layout_direction_other_than_tb_or_lr_is_refused_naming_it():
    builder = Builder(_fan(), namespace={})
    with pytest.raises(ValueError, match="'TB' or 'LR', got 'up'"):
        builder.layout("up")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="direction"):
        read_request({"type": "layout", "direction": "up"})
