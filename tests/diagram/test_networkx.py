from __future__ import annotations

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec, Position
from graphnb.diagram import to_networkx

from .samples import fan_out_join, react_machine


def test_networkx_graph_keeps_node_attributes() -> None:
    spec = GraphSpec(
        name="g",
        nodes=[
            NodeSpec(
                id="a", label="A", binding="m:a", position=Position(x=1, y=2), metadata={"k": 1}
            )
        ],
        edges=[EdgeSpec(source=START, target="a"), EdgeSpec(source="a", target=END)],
    )
    graph = to_networkx(spec)
    assert graph.graph["name"] == "g"
    assert graph.nodes["a"] == {
        "kind": "node",
        "label": "A",
        "binding": "m:a",
        "position": (1.0, 2.0),
        "metadata": {"k": 1},
    }
    assert graph.nodes[START]["kind"] == "start"
    assert graph.nodes[END]["kind"] == "end"


def test_networkx_graph_keeps_edge_attributes_and_join_kind() -> None:
    graph = to_networkx(fan_out_join())
    assert graph.edges["fetch_weather", "merge"]["kind"] == "join"
    assert graph.number_of_edges() == len(fan_out_join().edges)


def test_parallel_transitions_are_all_kept_on_the_one_digraph_edge() -> None:
    spec = react_machine()
    spec.edges.append(EdgeSpec(source="THINKING", target="FAILED", label="TIMEOUT"))
    graph = to_networkx(spec)
    labels = [data["label"] for data in graph.edges["THINKING", "FAILED"]["edges"]]
    assert labels == ["ERROR", "TIMEOUT"]
    assert graph.edges["THINKING", "FAILED"]["label"] == "ERROR"
    assert graph.graph["metadata"]["kind"] == "machine"


def test_networkx_graph_topological_analysis_works_on_acyclic_specs() -> None:
    import networkx as nx

    graph = to_networkx(fan_out_join())
    order = list(nx.topological_sort(graph))
    assert order[0] == START
    assert order[-1] == END


# -- a user's own networkx graph, drawn (issue 29, item 26) ---------------------------------

import itertools  # noqa: E402
from pathlib import Path  # noqa: E402

import networkx as nx  # noqa: E402
import pytest  # noqa: E402

from graphnb.diagram import (  # noqa: E402
    NETWORKX_LAYOUTS,
    NetworkxGraphError,
    UnknownLayoutError,
    from_networkx,
    layout,
    save,
    to_dot,
    to_mermaid,
    to_svg,
)


def door() -> nx.DiGraph:
    """A state machine kept as a DiGraph: states as nodes, events as edge labels."""
    graph = nx.DiGraph(name="door")
    graph.add_node("closed", label="Closed")
    graph.add_edge("closed", "open", label="push")
    graph.add_edge("open", "closed", label="pull")
    graph.add_edge("open", "locked", label="lock")
    graph.add_edge("locked", "closed", label="unlock")
    return graph


def test_a_users_digraph_draws_with_its_labels(tmp_path: Path) -> None:
    # to_svg, to_mermaid and save raised NotDrawableError for a networkx graph.
    svg = to_svg(door())
    for text in ("Closed", "open", "locked", "push", "pull", "lock", "unlock"):
        assert f">{text}<" in svg, text
    mermaid = to_mermaid(door())
    assert 'closed["Closed"]' in mermaid
    assert 'closed -->|"push"| open' in mermaid
    assert "title: door" in mermaid
    assert '"closed" -> "open"' in to_dot(door()) or "closed -> open" in to_dot(door())
    assert save(door(), tmp_path / "door.svg").read_text(encoding="utf-8") == svg
    assert save(door(), tmp_path / "door.mmd").read_text(encoding="utf-8") == mermaid


def test_initial_and_final_make_it_a_state_machine_diagram() -> None:
    graph = door()
    graph.graph.update(initial="closed", final=["locked"])
    mermaid = to_mermaid(graph)
    assert mermaid.splitlines()[3] == "stateDiagram-v2"
    assert "[*] --> closed" in mermaid
    assert "locked --> [*]" in mermaid


def test_nodes_of_any_hashable_and_multigraphs_draw() -> None:
    graph = nx.MultiDiGraph()
    graph.add_edge(1, 2, label="a")
    graph.add_edge(1, 2, label="b")
    spec = from_networkx(graph)
    assert [n.id for n in spec.nodes] == ["1", "2"]
    assert [e.label for e in spec.edges] == ["a", "b"]
    clash = nx.DiGraph()
    clash.add_edge(1, "1")
    with pytest.raises(NetworkxGraphError, match="nodes 1 and '1' are both named '1'"):
        to_svg(clash)


@pytest.mark.parametrize("make", [fan_out_join, react_machine])
def test_what_to_networkx_writes_draws_the_same(make: object) -> None:
    spec = make()  # type: ignore[operator]
    back = from_networkx(to_networkx(spec))
    # the same lines; a DiGraph lists edges by source node, the spec in drawing order
    assert sorted(to_mermaid(back).splitlines()) == sorted(to_mermaid(spec).splitlines())
    assert to_mermaid(back).splitlines()[:4] == to_mermaid(spec).splitlines()[:4]
    assert {(e.source, e.target, e.kind, e.route, e.label) for e in back.edges} == {
        (e.source, e.target, e.kind, e.route, e.label) for e in spec.edges
    }


@pytest.mark.parametrize("engine", ["layered", *NETWORKX_LAYOUTS])
def test_layout_takes_networkxs_layouts_by_name(engine: str) -> None:
    graph = door()
    if engine == "planar":
        assert nx.is_planar(graph)
    positions = layout(graph, engine=engine)
    assert sorted(positions) == ["closed", "locked", "open"]
    assert positions == layout(graph, engine=engine)  # seeded: the same every time
    assert min(x for x, _ in positions.values()) == 0
    assert min(y for _, y in positions.values()) == 0
    width, height = 150.0, 40.0
    for (a, (ax, ay)), (b, (bx, by)) in itertools.combinations(positions.items(), 2):
        apart = abs(ax - bx) >= width or abs(ay - by) >= height
        assert apart, f"{engine}: {a} and {b} overlap"


def test_layout_takes_a_function_and_names_the_engines_it_knows() -> None:
    positions = layout(door(), engine=lambda g: {n: (i, 0) for i, n in enumerate(g)})
    assert [y for _, y in positions.values()] == [0, 0, 0]
    assert sorted(x for x, _ in positions.values()) == [0.0, 190.0, 380.0]
    with pytest.raises(UnknownLayoutError, match="'kamada_kawai'"):
        layout(door(), engine="kamada")


def test_the_builder_opens_a_networkx_graph() -> None:
    pytest.importorskip("anywidget")
    from graphnb.widget import Builder

    builder = Builder(door(), namespace={})
    assert [node.id for node in builder.spec.nodes] == ["closed", "open", "locked"]
    assert builder.spec.nodes[0].label == "Closed"
    assert [edge.label for edge in builder.spec.edges] == ["push", "pull", "lock", "unlock"]
    assert all(node.position is not None for node in builder.spec.nodes)
