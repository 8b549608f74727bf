from __future__ import annotations

import keyword
import tempfile
from pathlib import Path
from typing import Annotated, Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphnb import END, START, GraphSpec, GraphState, RunContext, StateField, StateGraph, append
from graphnb.export import load_module, to_module, write_module


class Trail(GraphState):
    visited: Annotated[list[str], StateField(reducer=append)] = []
    note: str = ""


def visit(state: Trail, context: RunContext) -> dict[str, Any]:
    return {"visited": [context.node]}


def route(state: Trail, context: RunContext) -> str:
    return str(context.data["routes"][context.node])


def comparable(spec: GraphSpec) -> dict[str, Any]:
    """The spec without what an export is free to change: where the callables live."""
    data = spec.to_dict()
    for node in data["nodes"]:
        node["binding"] = None
    data["routers"] = dict.fromkeys(data["routers"])
    data["state"]["binding"] = (data["state"]["binding"] or "").rpartition(":")[2]
    return data


def round_trip(graph: StateGraph[Any], directory: Path, stem: str) -> Any:
    return load_module(write_module(graph, directory / f"{stem}.py", ruff=False))


def test_round_trip_keeps_joins_fan_out_routes_labels_and_positions(tmp_path: Path) -> None:
    graph = StateGraph(Trail, name="shapes")
    for index, name in enumerate(["plan", "left", "right", "merge", "finish"]):
        graph.add_node(name, visit, label=name.title(), position=(index * 100, index * -50.25))
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "left").add_edge("plan", "right")
    graph.add_edge(["left", "right"], "merge")
    graph.add_conditional_edges("merge", route, {"again": "plan", "stop": "finish", "end": END})
    graph.add_edge("finish", END)
    module = round_trip(graph, tmp_path, "shapes")
    assert comparable(module.graph.spec) == comparable(graph.spec)
    context = {"routes": {"merge": "stop"}}
    exported = module.graph.invoke({}, context=context)
    assert exported.model_dump() == graph.compile().invoke({}, context=context).model_dump()
    assert exported.visited == [
        "plan",
        "left",
        "right",
        "merge",
        "finish",
    ]


def test_round_trip_of_a_dict_state_keeps_reducers_and_streaming_key(tmp_path: Path) -> None:
    def shout(state: dict[str, Any]):
        yield from ("a", "b")

    graph = StateGraph(dict, reducers={"log": append}, streaming="text", name="plain")
    graph.add_node("shout", shout).add_edge(START, "shout").add_edge("shout", END)
    module = round_trip(graph, tmp_path, "plain")
    assert comparable(module.graph.spec) == comparable(graph.spec)
    assert module.graph.invoke({"log": ["x"]}) == {"log": ["x"], "text": "ab"}


names = st.text(
    st.characters(blacklist_categories=("Cs",), min_codepoint=1), min_size=1, max_size=12
).filter(lambda s: s.strip() and s not in (START, END))
name_lists = st.lists(
    st.one_of(names, st.sampled_from(keyword.kwlist)), min_size=1, max_size=5, unique=True
)
coordinates = st.floats(allow_nan=False, allow_infinity=False, width=32)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[StateGraph[Trail], dict[str, str]]:
    """A random graph: a chain through every node, extra forward edges, routers, a join."""
    nodes = draw(name_lists)
    graph = StateGraph(Trail, name=draw(names))
    for node in nodes:
        label = draw(st.none() | names)
        position = draw(st.none() | st.tuples(coordinates, coordinates))
        graph.add_node(node, visit, label=label, position=position)
    graph.add_edge(START, nodes[0])
    chosen = {}
    for index, node in enumerate(nodes):
        following = [*nodes[index + 1 :], END]
        extra = draw(st.lists(st.sampled_from(following), max_size=2, unique=True))
        targets = list(dict.fromkeys([following[0], *extra]))
        if draw(st.booleans()):
            routes = draw(
                st.lists(names, min_size=len(targets), max_size=len(targets), unique=True)
            )
            graph.add_conditional_edges(node, route, dict(zip(routes, targets, strict=True)))
            chosen[node] = routes[0]
        else:
            for target in targets:
                graph.add_edge(node, target)
    if len(nodes) >= 3 and draw(st.booleans()):
        first, second, target = sorted(draw(st.permutations(range(len(nodes))))[:3])
        graph.add_edge([nodes[first], nodes[second]], nodes[target])
    return graph, chosen


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_random_graphs_round_trip_through_an_exported_module(
    drawn: tuple[StateGraph[Trail], dict[str, str]],
) -> None:
    graph, chosen = drawn
    text = to_module(graph, ruff=False)
    assert text == to_module(graph, ruff=False)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "random_graph.py"
        path.write_text(text, encoding="utf-8")
        module = load_module(path)
    assert comparable(module.graph.spec) == comparable(graph.spec)
    context = {"routes": chosen}
    original = graph.compile().invoke({"note": "n"}, context=context)
    exported = module.graph.invoke({"note": "n"}, context=context)
    assert exported.model_dump() == original.model_dump()
    assert type(exported).__name__ == "Trail"
    assert type(exported) is not Trail
