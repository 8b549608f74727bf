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


class _AgreesWithAll(int):
    """A learner's int that says it equals anything (and differs from nothing)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = int.__hash__


class _AgreeingList(list):  # type: ignore[type-arg]
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False


class _AgreeingStr(str):
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


def test_final_state_does_not_take_a_subclass_that_agrees_with_everything() -> None:
    # 0 stood in for 42 and the check said "all 1 checks passed": the subclass's __eq__
    # is asked first. Values are compared as exact built-in types.
    def cheat(state: dict[str, Any]) -> dict[str, Any]:
        return {
            "answer": _AgreesWithAll(0),
            "items": _AgreeingList(),
            "nested": {"deep": [_AgreeingStr("no")]},
        }

    graph = StateGraph(dict).add_node("cheat", cheat).add_edge(START, "cheat")
    graph.add_edge("cheat", END)
    result = (
        Exercise("Answer")
        .final_state({}, {"answer": 42, "items": [1], "nested": {"deep": ["yes"]}})
        .check(graph)
    )
    assert not result.passed
    (point,) = result.failures
    assert "`answer` ended as a `_AgreesWithAll` value, not plain data" in point.message
    assert "`items` ended as a `_AgreeingList` value" in point.message
    assert "`nested` ended as a `_AgreeingStr` value" in point.message
    honest = StateGraph(dict).add_node("n", lambda s: {"answer": 42}).add_edge(START, "n")
    assert Exercise("Answer").final_state({}, {"answer": 42}).check(honest.add_edge("n", END))


def test_final_state_does_not_take_a_bool_for_a_number() -> None:
    # Python says True == 1 and [True] == [1]: a node returning a comparison passed for
    # a count. Other numbers still compare by value (a float field holds 3 as 3.0).
    def ends_with(value: Any) -> StateGraph[Any]:
        graph = StateGraph(dict).add_node("n", lambda s: {"x": value}).add_edge(START, "n")
        return graph.add_edge("n", END)

    for expected, actual in [
        (1, True),
        (0, False),
        (True, 1),
        ([1, 2], [True, 2]),
        ({"k": 0}, {"k": False}),
        ({1: "a"}, {True: "a"}),
        ({1, 2}, {True, 2}),
    ]:
        result = Exercise("X").final_state({}, {"x": expected}).check(ends_with(actual))
        assert not result.passed, (expected, actual)
        (point,) = result.failures
        assert f"`x` ended as {actual!r}, expected {expected!r}." in point.message
    for expected, actual in [(3, 3.0), ({"a": [1, {2}]}, {"a": [1, {2}]}), ({1: 2}, {1: 2})]:
        assert Exercise("X").final_state({}, {"x": expected}).check(ends_with(actual)).passed


def test_final_state_compares_a_teachers_object_by_its_exact_type() -> None:
    from dataclasses import dataclass

    @dataclass
    class Spot:
        x: int

    class Sly(Spot):
        def __eq__(self, other: object) -> bool:
            return True

    def run(value: Any) -> StateGraph[Any]:
        graph = StateGraph(dict).add_node("n", lambda s: {"c": value}).add_edge(START, "n")
        return graph.add_edge("n", END)

    assert Exercise("C").final_state({}, {"c": Spot(1)}).check(run(Spot(1))).passed
    assert not Exercise("C").final_state({}, {"c": Spot(1)}).check(run(Spot(2))).passed
    assert not Exercise("C").final_state({}, {"c": Spot(1)}).check(run(Sly(2))).passed
    assert not Exercise("C").final_state({}, {"c": 1}).check(run(Spot(1))).passed


def test_a_graph_that_loops_for_ever_is_told_which_loop_and_where_it_should_end() -> None:
    # It was told to "raise it with recursion_limit=...", which only makes it loop longer.
    graph = (
        StateGraph(dict)
        .add_node("ask", lambda s: {"n": s.get("n", 0) + 1})
        .add_node("judge", lambda s: {})
        .add_edge(START, "ask")
        .add_edge("ask", "judge")
        .add_conditional_edges(
            "judge", lambda s: "again" if s["n"] > -1 else "done", {"again": "ask", "done": END}
        )
    )
    exercise = Exercise("Loop").final_state({"n": 0}, {"n": 3}).streams("n", {"n": 0})
    result = exercise.check(graph)
    for point in result.failures:
        assert "recursion_limit=" not in point.message
        assert "the loop `ask` → `judge` → `ask` never ends" in point.message, point.message
        assert "the condition after `judge` never chose the way out" in point.message
        assert point.nodes == ("judge",)
        assert point.message.endswith(".")


def test_every_missed_point_is_a_sentence_with_its_full_stop() -> None:
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
    failures = EXERCISE.check(graph).failures
    assert len(failures) >= 4
    for point in failures:
        assert point.message.endswith("."), point.message


def test_the_html_view_ticks_only_requirements_met_and_shows_names_as_code() -> None:
    # "0 of 2 checks passed" came with a green tick on `greet` (one point of a requirement
    # missed), and `greet` showed its backticks.
    exercise = Exercise("Lesson").has_nodes("greet", "shout").has_field("log")
    graph = StateGraph(dict).add_node("greet", lambda s: {}).add_edge(START, "greet")
    html = exercise.check(graph.add_edge("greet", END))._repr_html_()
    assert "0 of 2 checks passed." in html
    assert "&#10004;" not in html
    assert "`" not in html
    assert "Add a node named <code>shout</code>" in html
    half = Exercise("Lesson").has_nodes("greet").has_nodes("shout").check(graph)
    html = half._repr_html_()
    assert "1 of 2 checks passed." in html
    assert html.count("&#10004;") == 1
    assert "has the nodes <code>greet</code>" in html


def test_input_in_a_learners_node_does_not_block_the_grader(tmp_path: Any) -> None:
    # A node calling input() waited for ever on the grader's open stdin.
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "grade.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            from graphnb import END, START, StateGraph
            from graphnb.teach import Exercise

            def ask(state):
                return {"name": input("Your name? ")}

            graph = StateGraph(dict).add_node("ask", ask).add_edge(START, "ask")
            result = Exercise("Ask").final_state({}, {"name": "Ada"}).check(
                graph.add_edge("ask", END)
            )
            print(result)
            print(sys.stdin is sys.__stdin__, input.__module__)
            """
        )
    )
    # stdin is a pipe kept open and never written: input() there waits for ever.
    grader = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        grader.wait(timeout=30)
    except subprocess.TimeoutExpired:
        grader.kill()
        grader.communicate()
        pytest.fail("the check waited for keyboard input")
    out, err = grader.communicate()
    done = subprocess.CompletedProcess(grader.args, grader.returncode, out, err)
    assert done.returncode == 0, done.stderr
    assert "the graph failed in node `ask`: InputDuringCheckError: input() was called" in (
        done.stdout
    )
    assert "(it asked 'Your name?')" in done.stdout
    assert done.stdout.splitlines()[-1] == "True builtins"  # both restored after the check
