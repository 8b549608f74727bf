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
