from __future__ import annotations

import pytest

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec, StateGraph
from graphnb.diagram import Diagram, NotDrawableError, extract

from .samples import noop, react_machine, router_graph


def test_extract_reads_builder_compiled_graph_and_spec_alike() -> None:
    graph = StateGraph(dict, name="g")
    graph.add_node("a", noop).add_edge(START, "a").add_edge("a", END)
    diagrams = [extract(graph), extract(graph.compile()), extract(graph.spec)]
    assert diagrams[0] == diagrams[1] == diagrams[2]
    assert [n.id for n in diagrams[0].nodes] == [START, "a", END]


def test_extract_returns_a_diagram_unchanged() -> None:
    diagram = extract(router_graph())
    assert extract(diagram) is diagram


def test_extract_rejects_objects_without_a_spec_naming_the_type() -> None:
    with pytest.raises(NotDrawableError, match="cannot draw a int") as info:
        extract(42)
    assert info.value.obj == 42
    assert isinstance(info.value, TypeError)


def test_conditional_edges_carry_their_route_as_label_unless_it_names_the_target() -> None:
    edges = {(e.source, e.target): e for e in extract(router_graph()).edges}
    assert edges["classify", "search"].label == "needs_lookup"
    assert edges["classify", "search"].kind == "conditional"
    assert edges["classify", "answer"].label is None


def test_machine_spec_becomes_a_machine_diagram_with_initial_and_final_states() -> None:
    diagram = extract(react_machine())
    assert diagram.kind == "machine"
    assert diagram.node("IDLE").initial
    assert diagram.node("COMPLETED").final
    assert not diagram.node("FAILED").final
    loop = next(e for e in diagram.edges if e.is_loop)
    assert loop.internal
    assert loop.label == "TOKEN"


def test_edges_to_undefined_nodes_draw_them_as_missing() -> None:
    spec = GraphSpec(
        nodes=[NodeSpec(id="a")],
        edges=[EdgeSpec(source=START, target="a"), EdgeSpec(source="a", target="ghost")],
    )
    diagram = extract(spec)
    assert diagram.node("ghost").kind == "missing"
    assert [n.id for n in diagram.nodes] == [START, "a", "ghost"]


def test_node_tooltip_holds_label_id_and_binding() -> None:
    spec = GraphSpec(nodes=[NodeSpec(id="a", label="Alpha", binding="pkg.mod:alpha")])
    assert extract(spec).node("a").tooltip == "Alpha (a)\npkg.mod:alpha"


def test_joins_group_join_edges_by_target() -> None:
    graph = StateGraph(dict)
    for name in "abc":
        graph.add_node(name, noop)
    graph.add_edge(["a", "b"], "c")
    joins = extract(graph).joins()
    assert list(joins) == ["c"]
    assert [e.source for e in joins["c"]] == ["a", "b"]


def test_diagram_node_lookup_names_the_missing_id() -> None:
    diagram = Diagram("g", "graph", (), ())
    with pytest.raises(KeyError, match="'nope'"):
        diagram.node("nope")


def test_a_real_machine_is_drawn_as_a_state_diagram_with_solid_transitions() -> None:
    from enum import Enum, auto

    from graphnb.diagram import to_mermaid, to_svg
    from graphnb.machine import Machine, external, internal

    class Door(Enum):
        OPEN = auto()
        CLOSED = auto()
        GONE = auto()

    class Push(Enum):
        OPEN = auto()
        CLOSE = auto()
        KNOCK = auto()
        BREAK = auto()

    door = Machine(
        "door",
        states=Door,
        events=Push,
        initial=Door.CLOSED,
        final=[Door.GONE],
        transitions=[
            external(Door.CLOSED, Door.OPEN, on=Push.OPEN, when=lambda ctx: True, guard_name="key"),
            external(Door.OPEN, Door.CLOSED, on=Push.CLOSE),
            external(Door.OPEN, Door.GONE, on=Push.BREAK),
            internal(Door.CLOSED, on=Push.KNOCK),
        ],
    )
    diagram = extract(door)
    assert diagram.kind == "machine"
    assert {e.kind for e in diagram.edges} == {"direct"}
    lines = to_mermaid(door).splitlines()
    assert "    [*] --> CLOSED" in lines
    assert "    CLOSED --> OPEN : OPEN [key]" in lines
    assert "    GONE --> [*]" in lines
    assert 'class="gnb-edge gnb-conditional' not in to_svg(door)
    assert "gnb-internal" in to_svg(door)
