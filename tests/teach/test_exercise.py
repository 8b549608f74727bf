from __future__ import annotations

from typing import Annotated, Any

import pytest

from graphnb import END, START, GraphState, StateField, StateGraph, append, interrupt
from graphnb.teach import Exercise


class Notes(GraphState):
    topic: str = ""
    notes: Annotated[list[str], StateField(reducer=append)] = []
    text: Annotated[str, StateField(streaming=True)] = ""


def research(state: Notes) -> dict[str, Any]:
    return {"notes": [f"about {state.topic}"]}


def write(state: Notes) -> Any:
    yield "Draft: "
    yield state.topic


def review(state: Notes) -> dict[str, Any]:
    return {"topic": interrupt("ok?")}


def solution() -> StateGraph[Notes]:
    return (
        StateGraph(Notes)
        .add_node("research", research)
        .add_node("write", write)
        .add_edge(START, "research")
        .add_edge("research", "write")
        .add_edge("write", END)
    )


EXERCISE = (
    Exercise("Notes")
    .has_nodes("research", "write")
    .has_edges(("research", "write"))
    .has_path("research", "write")
    .no_dead_ends()
    .has_field("notes", type="list[str]", reducer="append")
    .has_field("text", streaming=True)
    .final_state({"topic": "owls"}, {"notes": ["about owls"], "text": "Draft: owls"})
    .streams("text", {"topic": "owls"})
)


def test_a_correct_graph_passes_every_point_and_says_so() -> None:
    result = EXERCISE.check(solution())
    assert result.passed, str(result)
    assert bool(result)
    result.assert_passed()
    assert str(result) == f"Notes: all {len(EXERCISE.requirements)} checks passed."
    assert f"all {len(EXERCISE.requirements)} checks passed" in result._repr_html_()
    assert "&#10004;" in result._repr_html_()


def test_a_compiled_graph_is_checked_like_its_builder() -> None:
    assert EXERCISE.check(solution().compile()).passed


def test_missing_node_and_edge_are_named_with_where_they_are_missing() -> None:
    graph = StateGraph(Notes).add_node("research", research).add_edge(START, "research")
    result = EXERCISE.check(graph)
    messages = [point.message for point in result.failures]
    assert "Add a node named `write` (the graph has `research`)." in messages
    assert "Draw an edge from `research` to `write` (nothing leaves `research` yet)." in messages
    dead = [p for p in result.failures if p.message.startswith("`research` is a dead end")]
    assert dead
    assert dead[0].nodes == ("research",)
    # the graph does not compile: run checks say so instead of raising
    assert any("the graph does not compile: GraphValidationError" in m for m in messages)
    assert not result


def test_a_node_that_raises_is_named_in_a_sentence_not_a_traceback() -> None:
    def write(state: Notes) -> dict[str, Any]:
        raise ValueError("no paper")

    graph = solution()
    graph = (
        StateGraph(Notes)
        .add_node("research", research)
        .add_node("write", write)
        .add_edge(START, "research")
        .add_edge("research", "write")
        .add_edge("write", END)
    )
    result = EXERCISE.check(graph)
    failed = [p for p in result.failures if "failed in node" in p.message]
    assert failed
    assert failed[0].message == (
        "Run on {'topic': 'owls'}, the graph failed in node `write`: ValueError: no paper."
    )
    assert failed[0].nodes == ("write",)
    assert "Traceback" not in str(result)


def test_wrong_final_values_and_reducers_are_reported_field_by_field() -> None:
    class Plain(GraphState):
        topic: str = ""
        notes: list[str] = []

    graph = (
        StateGraph(Plain)
        .add_node("research", lambda s: {"notes": ["x"]})
        .add_node("write", lambda s: {})
        .add_edge(START, "research")
        .add_edge("research", "write")
        .add_edge("write", END)
    )
    messages = [p.message for p in EXERCISE.check(graph).failures]
    assert any("its reducer is `replace`, expected `append`" in m for m in messages)
    assert any("Add a field `text` to the state" in m for m in messages)
    assert any(
        "`notes` ended as ['x'], expected ['about owls']; there is no field `text`" in m
        for m in messages
    )
    assert any("no piece of `text` was streamed" in m for m in messages)


def test_interrupts_checks_the_run_stops_at_the_node() -> None:
    exercise = Exercise("Review").interrupts("review", {"topic": "owls"})
    asks = (
        StateGraph(Notes)
        .add_node("review", review)
        .add_edge(START, "review")
        .add_edge("review", END)
    )
    assert exercise.check(asks).passed
    silent = StateGraph(Notes).add_node("review", research)
    silent = silent.add_edge(START, "review").add_edge("review", END)
    (point,) = exercise.check(silent).failures
    assert "did not stop at `review`" in point.message
    assert point.nodes == ("review",)
    # a compiled graph's interrupt_before counts
    assert exercise.check(silent.compile(interrupt_before="review")).passed


def test_something_that_is_not_a_graph_gets_one_sentence() -> None:
    result = Exercise("X").has_nodes("a").final_state({}, {"a": 1}).check(42)
    why = (
        "Nothing to check yet: a `int` is not a graph: pass the StateGraph you built, its "
        "compiled graph, or the builder."
    )
    assert [p.message for p in result.failures] == [why, why]
    assert str(result) == f"X: 0 of 2 checks passed.\n- {why}"
    assert result._repr_html_().count("Nothing to check yet") == 1


def test_what_attempt_could_not_build_is_named_not_raised() -> None:
    from graphnb.teach import Broken, attempt

    broken = attempt(lambda: int("seven"))
    assert isinstance(broken, Broken)
    assert attempt(lambda: broken.to_graph()).why == (
        "AttributeError: it was not built (ValueError: invalid literal for int() with base 10: "
        "'seven')"
    )
    (message,) = {p.message for p in Exercise("Y").has_nodes("a").check(broken).points}
    assert message == (
        "Nothing to check yet: it could not be built: ValueError: invalid literal for int() "
        "with base 10: 'seven'."
    )


def test_a_failing_check_is_an_assertion_error_with_the_friendly_message() -> None:
    result = Exercise("Lesson").has_nodes("a").check(StateGraph(dict))
    with pytest.raises(AssertionError, match=r"Add a node named `a` \(the graph has none\)"):
        result.assert_passed()
    with pytest.raises(AssertionError):
        assert result


def test_a_path_that_circles_is_a_dead_end_with_its_node() -> None:
    graph = (
        StateGraph(dict)
        .add_node("a", lambda s: {})
        .add_node("b", lambda s: {})
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "a")
    )
    result = Exercise("Loop").has_path("a").no_dead_ends().check(graph)
    assert [p.nodes for p in result.failures] == [("a",), ("a",), ("b",)]
    assert "can never reach END" in result.failures[1].message
    assert "goes round in circles" in result.failures[1].message


def test_a_node_whose_only_way_on_stops_at_a_dead_end_names_it_not_a_circle() -> None:
    graph = (
        StateGraph(dict)
        .add_node("greet", lambda s: {})
        .add_node("shout", lambda s: {})
        .add_edge(START, "greet")
        .add_edge("greet", "shout")
    )
    result = Exercise("Lesson 1").no_dead_ends().check(graph)
    messages = [p.message for p in result.failures]
    assert messages == [
        "From `greet` a run can never reach END: every way on stops at `shout`, a dead end. "
        "Add a way out (an edge or a route to END).",
        "`shout` is a dead end: nothing leaves it. Add an edge from `shout` to the next node, "
        "or to END.",
    ]


def test_the_summary_counts_requirements_not_the_points_they_miss() -> None:
    exercise = Exercise("Lesson 1").has_nodes("greet", "shout").no_dead_ends()
    graph = (
        StateGraph(dict)
        .add_node("greet", lambda s: {})
        .add_node("shout", lambda s: {})
        .add_edge(START, "greet")
        .add_edge("greet", "shout")
    )
    missed = exercise.check(graph)
    assert len(missed.failures) == 2  # greet cannot reach END, shout is a dead end
    assert str(missed).splitlines()[0] == "Lesson 1: 1 of 2 checks passed."
    assert "Lesson 1: 1 of 2 checks passed." in missed._repr_html_()
    passed = exercise.check(graph.add_edge("shout", END))
    assert str(passed) == "Lesson 1: all 2 checks passed."


def test_an_error_of_several_lines_reads_as_one_sentence() -> None:
    from graphnb.teach.subject import describe_error

    error = ValueError("'graph' has 2 problems:\n- no path leads on.\n- `b` is stuck.")
    assert describe_error(error) == (
        "ValueError: 'graph' has 2 problems: no path leads on; `b` is stuck."
    )


def test_final_state_finds_a_field_by_its_name_when_it_has_an_alias() -> None:
    # The final state was read as a map keyed by aliases: an expected value named by the
    # field (as has_field names it) was reported as "there is no field `current_step`".
    class Steps(GraphState):
        current_step: Annotated[str, StateField(alias="currentStep")] = ""

    graph = StateGraph(Steps).add_node("work", lambda s: {"current_step": "done"})
    graph.add_edge(START, "work").add_edge("work", END)
    exercise = Exercise("Steps").has_field("current_step")
    exercise.final_state({}, {"current_step": "done"})
    assert exercise.check(graph).passed, str(exercise.check(graph))
    assert Exercise("Steps").final_state({}, {"currentStep": "done"}).check(graph).passed
    wrong = Exercise("Steps").final_state({}, {"current_step": "ready"}).check(graph)
    assert "`current_step` ended as 'done', expected 'ready'" in str(wrong)
