from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.diagram import to_dot, to_mermaid

from .samples import fan_out_join, react_machine, router_graph

# pydot still calls pyparsing's camelCase names, which recent pyparsing deprecates.
PYDOT_WARNINGS = pytest.mark.filterwarnings("ignore:.*deprecated - use:DeprecationWarning")


def test_machine_mermaid_is_a_state_diagram_with_start_and_final_markers() -> None:
    text = to_mermaid(react_machine())
    lines = text.splitlines()
    assert "stateDiagram-v2" in lines
    assert "    [*] --> IDLE" in lines
    assert "    COMPLETED --> [*]" in lines
    assert "    FAILED --> THINKING : RETRY [retries #lt#59; 3]" not in lines
    assert "    FAILED --> THINKING : RETRY [retries #lt; 3]" in lines
    assert "    THINKING --> THINKING : TOKEN" in lines


def test_graph_mermaid_is_a_flowchart_with_dashed_routes_and_thick_joins() -> None:
    lines = to_mermaid(router_graph()).splitlines()
    assert "flowchart TD" in lines
    assert '    classify -.->|"needs_lookup"| search' in lines
    assert '    classify -.->|"give_up"| __end__' in lines
    assert "    fetch_weather ==> merge" in to_mermaid(fan_out_join()).splitlines()


def test_mermaid_renames_ids_it_cannot_use_and_escapes_labels() -> None:
    spec = GraphSpec(
        name="odd",
        nodes=[NodeSpec(id="end"), NodeSpec(id="has space"), NodeSpec(id="n0", label='say "hi"')],
        edges=[
            EdgeSpec(source=START, target="end"),
            EdgeSpec(source="end", target="has space", label="a;b#c"),
            EdgeSpec(source="has space", target="n0"),
        ],
    )
    lines = to_mermaid(spec).splitlines()
    assert '    n1["end"]' in lines
    assert '    n2["has space"]' in lines
    assert '    n0["say #quot;hi#quot;"]' in lines
    assert '    n1 -->|"a#59;b#35;c"| n2' in lines


@pytest.mark.parametrize(
    "name", ["router", "odd: name", "'quoted' #hash", "{x} [y]", "\u00e9t\u00e9"]
)
def test_mermaid_title_reads_back_as_the_graph_name(name: str) -> None:
    yaml = pytest.importorskip("yaml")
    front = to_mermaid(GraphSpec(name=name)).split("---")[1]
    assert yaml.safe_load(front) == {"title": name}


def test_machine_mermaid_declares_states_whose_names_it_cannot_use() -> None:
    spec = react_machine()
    spec.nodes[0].label = "Idle (waiting)"
    lines = to_mermaid(spec).splitlines()
    assert '    state "Idle (waiting)" as IDLE' in lines


def test_dot_draws_joins_through_a_bar_and_dashes_conditional_edges() -> None:
    text = to_dot(fan_out_join())
    assert text.startswith('digraph "fan_out_join" {')
    assert '"fetch_weather" -> "__join__merge" [arrowhead=none];' in text
    assert '"__join__merge" -> "merge";' in text
    assert '"classify" -> "search" [style=dashed, label="needs_lookup"];' in to_dot(router_graph())


def test_dot_escapes_quotes_and_backslashes() -> None:
    spec = GraphSpec(nodes=[NodeSpec(id='a"b\\c')], edges=[EdgeSpec(source=START, target='a"b\\c')])
    assert '"a\\"b\\\\c" [label="a\\"b\\\\c"];' in to_dot(spec)


def test_dot_machine_uses_uml_pseudo_states() -> None:
    text = to_dot(react_machine())
    assert '"__start__" [shape=circle, style=filled, fillcolor=black, label="", width=0.2];' in text
    assert '"THINKING" -> "FAILED" [label="ERROR"];' in text


def test_text_formats_are_deterministic() -> None:
    assert to_mermaid(react_machine()) == to_mermaid(react_machine())
    assert to_dot(react_machine()) == to_dot(react_machine())
    assert END in to_dot(router_graph())


@PYDOT_WARNINGS
def test_dot_output_parses_with_every_node_and_edge(sample: tuple[str, GraphSpec]) -> None:
    pydot = pytest.importorskip("pydot")
    _, spec = sample
    (graph,) = pydot.graph_from_dot_data(to_dot(spec))
    names = {node.get_name().strip('"') for node in graph.get_nodes()} - {"graph", "node", "edge"}
    ids = {node.id for node in spec.nodes} | {e.source for e in spec.edges}
    assert ids | {e.target for e in spec.edges} <= names
    edges = [(e.get_source().strip('"'), e.get_destination().strip('"')) for e in graph.get_edges()]
    expected = [
        (e.source, f"__join__{e.target}" if e.kind == "join" else e.target) for e in spec.edges
    ]
    expected += [
        (f"__join__{t}", t) for t in dict.fromkeys(e.target for e in spec.edges if e.kind == "join")
    ]
    assert edges == expected


@PYDOT_WARNINGS
def test_dot_with_awkward_names_parses_back_to_the_same_names() -> None:
    pydot = pytest.importorskip("pydot")
    name = 'say "hi" \\ there'
    spec = GraphSpec(nodes=[NodeSpec(id=name)], edges=[EdgeSpec(source=START, target=name)])
    (graph,) = pydot.graph_from_dot_data(to_dot(spec))
    (edge,) = graph.get_edges()
    assert edge.get_destination() == '"say \\"hi\\" \\\\ there"'


def test_dot_writes_a_nul_in_a_name_as_its_escape() -> None:
    # Graphviz ends a quoted string at a NUL: the file failed with "syntax error".
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("Graphviz's dot is not installed")
    spec = GraphSpec(
        nodes=[NodeSpec(id="a\x00"), NodeSpec(id="a")],
        edges=[EdgeSpec(source=START, target="a\x00"), EdgeSpec(source="a\x00", target="a")],
    )
    done = subprocess.run([dot, "-Tjson0"], input=to_dot(spec).encode(), capture_output=True)
    assert (done.returncode, done.stderr) == (0, b"")
    names = [item["name"] for item in json.loads(done.stdout)["objects"]]
    assert len(set(names)) == 3
    assert r'"a\\x00" -> "a";' in to_dot(spec)  # drawn as a\x00
