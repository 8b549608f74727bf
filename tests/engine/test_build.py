"""Building and validating graphs; the spec the builder produces."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest

from graphnb import (
    END,
    START,
    GraphSetupError,
    GraphSpec,
    GraphState,
    GraphValidationError,
    StateField,
    StateGraph,
)


class Empty(GraphState):
    pass


def noop(state: Empty) -> None:
    return None


def test_every_compile_problem_is_reported_at_once():
    graph = StateGraph(Empty, name="broken")
    graph.add_node("plan", noop).add_node("plan", noop)  # duplicate
    graph.add_node(START, noop)  # reserved
    graph.add_node("orphan", noop)  # unreachable
    graph.add_node("stuck", noop)  # no outgoing edge
    graph.add_node("spin", noop)  # a cycle with no exit
    graph.add_edge(START, "plan").add_edge("plan", "chat")  # unknown target
    graph.add_edge("plan", "stuck").add_edge("plan", "spin").add_edge("spin", "spin")
    graph.add_edge("plan", END)
    with pytest.raises(GraphValidationError) as caught:
        graph.compile()
    problems = caught.value.problems
    assert "`plan` is added more than once." in problems
    assert "`chat` is the target of an edge from `plan` but is not a node." in problems
    assert any("'__start__' is reserved" in p for p in problems)
    assert "`orphan` cannot be reached from START." in problems
    assert any(p.startswith("`stuck` has no outgoing edge") for p in problems)
    assert "no path leads from `spin` to END." in problems
    assert len(problems) == 6
    assert str(caught.value).startswith("'broken' has 6 problems:")


def test_a_graph_without_entry_is_reported():
    graph = StateGraph(Empty).add_node("a", noop).add_edge("a", END)
    with pytest.raises(GraphValidationError, match="no edge leaves START"):
        graph.compile()


def test_router_without_declared_targets_is_reported():
    graph = StateGraph(Empty).add_node("a", noop).add_edge(START, "a")
    graph.add_conditional_edges("a", lambda s: END)
    with pytest.raises(GraphValidationError, match="router of `a` declares no targets"):
        graph.compile()


def test_router_targets_come_from_a_literal_return_annotation():
    def route(state: Empty) -> Literal["a", "__end__"]:
        return END

    graph = StateGraph(Empty).add_node("a", noop).add_edge(START, "a")
    graph.add_conditional_edges("a", route)
    conditional = [(e.target, e.route) for e in graph.spec.edges if e.kind == "conditional"]
    assert conditional == [("a", "a"), (END, END)]
    graph.compile().invoke()


def test_a_second_join_into_a_node_is_reported_not_merged_into_the_first() -> None:
    """Two joins into `d` would be one barrier waiting for all four nodes: `d` never ran."""
    graph = StateGraph(Empty)
    for name in "abced":
        graph.add_node(name, noop)
    graph.add_conditional_edges(START, lambda s: ["a", "b"], ["a", "b", "c", "e"])
    graph.add_edge(["a", "b"], "d").add_edge(["c", "e"], "d").add_edge("d", END)
    with pytest.raises(GraphValidationError, match="`d` has two joins, from `a`, `b` and from"):
        graph.compile()


def test_the_same_join_given_again_is_no_problem() -> None:
    graph = StateGraph(Empty).add_node("a", noop).add_node("b", noop).add_node("d", noop)
    graph.add_edge(START, "a").add_edge(START, "b").add_edge("d", END)
    graph.add_edge(["a", "b"], "d").add_edge(["b", "a"], "d")
    assert graph.validate() == []


def test_routes_keyed_by_something_else_than_strings_are_refused_naming_the_router() -> None:
    graph = StateGraph(Empty).add_node("a", noop).add_edge(START, "a")
    with pytest.raises(GraphSetupError, match=r"the routes of `a` map True \(bool\)"):
        graph.add_conditional_edges("a", lambda s: True, {True: "a", False: END})


def test_non_callable_node_is_reported():
    graph = StateGraph(Empty).add_node("a", 42).add_edge(START, "a").add_edge("a", END)
    with pytest.raises(GraphValidationError, match="`a` is bound to 42, which is not callable"):
        graph.compile()


def test_the_spec_is_plain_json_and_round_trips():
    graph = StateGraph(Empty, name="trip")
    graph.add_node("a", noop, label="Alpha", position=(10, 20)).add_node("b", noop)
    graph.add_node("c", noop)
    graph.add_edge(START, "a")
    graph.add_conditional_edges("a", lambda s: "b", {"go": "b", "stay": "a"})
    graph.add_edge(START, "c")
    graph.add_edge(["b", "c"], END)
    spec = graph.spec
    again = GraphSpec.from_json(spec.to_json())
    assert again == spec
    assert spec.node("a").label == "Alpha"
    assert spec.node("a").position.x == 10
    assert spec.node("a").binding == f"{noop.__module__}:noop"
    assert spec.entry == ["a", "c"]
    assert sorted(spec.finish) == ["b", "c"]
    assert {e.kind for e in spec.edges} == {"direct", "conditional", "join"}
    assert spec.state.kind == "model"
    assert spec.routers["a"] is None  # a lambda cannot be named


def test_spec_from_bad_json_names_the_problem():
    with pytest.raises(ValueError, match="nodes"):
        GraphSpec.from_json('{"nodes": 3}')


def test_graph_rebuilds_from_its_spec_through_bindings():
    namespace = {"noop": noop}
    graph = StateGraph(Empty).add_node("a", noop).add_edge(START, "a").add_edge("a", END)
    spec = graph.spec
    spec.node("a").binding = "noop"
    rebuilt = StateGraph.from_spec(spec.to_json(), namespace=namespace, state=Empty)
    assert rebuilt.callables == {"a": noop}
    assert rebuilt.spec.edges == spec.edges
    rebuilt.compile().invoke()


def test_node_and_edge_metadata_and_labels_are_kept_in_the_spec():
    graph = StateGraph(Empty).add_node("a", noop, metadata={"owner": "ada"})
    graph.add_edge(START, "a", label="go", metadata={"weight": 2}).add_edge("a", END)
    spec = graph.spec
    assert spec.node("a").metadata == {"owner": "ada"}
    first = spec.edges[0]
    assert (first.label, first.metadata) == ("go", {"weight": 2})


def test_dict_state_reducers_survive_a_trip_through_the_spec():
    from graphnb import append

    graph = StateGraph(dict, reducers={"log": append}, streaming="text")
    graph.add_node("a", noop).add_edge(START, "a").add_edge("a", END)
    spec = graph.spec
    spec.node("a").binding = "noop"
    rebuilt = StateGraph.from_spec(spec, namespace={"noop": lambda s: {"log": "x"}})
    assert rebuilt.spec.state == spec.state
    assert rebuilt.compile().invoke({"log": ["a"]}) == {"log": ["a", "x"]}


def test_dict_state_with_an_unknown_reducer_name_is_refused():
    spec = StateGraph(dict, reducers={"log": lambda a, b: a}).spec
    with pytest.raises(GraphSetupError, match="field 'log' of 'graph' uses the reducer '<lambda>'"):
        StateGraph.from_spec(spec)


def test_an_alias_that_names_another_field_is_reported():
    class Clash(GraphState):
        topic: Annotated[str, StateField(alias="subject")] = ""
        subject: str = ""
        title: Annotated[str, StateField(alias="heading")] = ""
        caption: Annotated[str, StateField(alias="heading")] = ""

    graph = StateGraph(Clash).add_node("write", lambda s: {"subject": "x"})
    graph.add_edge(START, "write").add_edge("write", END)
    with pytest.raises(GraphValidationError) as caught:
        graph.compile()
    assert caught.value.problems == [
        "the state key 'subject' names 2 fields (`topic`, `subject`); each alias must "
        "differ from every other field's name and alias.",
        "the state key 'heading' names 2 fields (`title`, `caption`); each alias must "
        "differ from every other field's name and alias.",
    ]


@pytest.mark.parametrize("source", [None, 3])
def test_an_edge_source_that_is_neither_a_name_nor_a_list_is_refused_naming_it(
    source: object,
) -> None:
    # It was iterated as a join's sources: "TypeError: 'NoneType' object is not iterable".
    graph = StateGraph(Empty).add_node("a", noop)
    with pytest.raises(GraphSetupError, match=rf"the source of an edge to `a` .* got {source}"):
        graph.add_edge(source, "a")  # type: ignore[arg-type]


@pytest.mark.parametrize("position", [(1,), (1, 2, 3), ("left", 2), 5])
def test_a_position_that_is_not_two_numbers_is_refused_naming_the_node(position: object) -> None:
    # (1,) failed with a bare "IndexError: tuple index out of range".
    graph = StateGraph(Empty)
    with pytest.raises(GraphSetupError, match=r"the position of `a` must be \(x, y\)"):
        graph.add_node("a", noop, position=position)  # type: ignore[arg-type]
