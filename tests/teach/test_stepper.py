from __future__ import annotations

from typing import Annotated, Any

import pytest

from graphnb import END, START, GraphState, StateField, StateGraph, append, interrupt
from graphnb.teach import Stepper


class Talk(GraphState):
    name: str = ""
    lines: Annotated[list[str], StateField(reducer=append)] = []


def fan_out() -> StateGraph[Talk]:
    return (
        StateGraph(Talk)
        .add_node("greet", lambda s: {"lines": [f"hello {s.name}"]})
        .add_node("left", lambda s: {"lines": ["left"]})
        .add_node("right", lambda s: {"lines": ["right"]})
        .add_edge(START, "greet")
        .add_edge("greet", "left")
        .add_edge("greet", "right")
        .add_edge("left", END)
        .add_edge("right", END)
    )


def test_frames_follow_super_steps_with_writes_and_the_change() -> None:
    stepper = Stepper(fan_out(), {"name": "Ada"})
    assert [frame.step for frame in stepper.frames] == [-1, 0, 1]
    both = stepper.frames[2]
    assert both.title == "Step 1: `left`, `right` ran"
    assert {w.node: w.writes for w in both.nodes} == {
        "left": {"lines": ["left"]},
        "right": {"lines": ["right"]},
    }
    assert both.before["lines"] == ["hello Ada"]
    assert both.after["lines"] == ["hello Ada", "left", "right"]
    assert both.changed == ("lines",)
    assert stepper.frames[1].next == ("left", "right")


def test_forward_and_back_stop_at_the_ends() -> None:
    stepper = Stepper(fan_out(), {"name": "Ada"})
    assert stepper.back().step == -1
    assert [stepper.forward().step for _ in range(3)] == [0, 1, 1]
    assert stepper.back().step == 0
    with pytest.raises(IndexError, match="there are 3 frames; 3 is not one"):
        stepper.go(3)


def test_each_frame_draws_the_run_so_far_on_the_diagram() -> None:
    stepper = Stepper(fan_out(), {"name": "Ada"})
    first, last = stepper.frames[1].svg, stepper.frames[2].svg
    assert first.startswith("<svg")
    # the taken-edge marker appears more often as the run goes on
    assert last.count("arrow-taken)") > first.count("arrow-taken)")


def test_a_failing_node_ends_with_a_frame_that_names_it() -> None:
    def boom(state: Talk) -> dict[str, Any]:
        raise ValueError("no voice")

    graph = StateGraph(Talk).add_node("greet", boom).add_edge(START, "greet")
    stepper = Stepper(graph.add_edge("greet", END), {"name": "Ada"})
    last = stepper.frames[-1]
    assert last.title == "The run failed: ValueError: no voice"
    assert last.nodes[0].node == "greet"
    assert last.nodes[0].error == "ValueError: no voice"


def test_an_interrupt_ends_with_a_frame_that_says_where_it_waits() -> None:
    graph = StateGraph(Talk).add_node("ask", lambda s: {"name": interrupt("who?")})
    stepper = Stepper(graph.add_edge(START, "ask").add_edge("ask", END), {})
    assert stepper.frames[-1].title == "Stopped at `ask` for a human"


def test_the_html_holds_every_frame_buttons_and_no_external_resource() -> None:
    html = Stepper(fan_out(), {"name": "Ada"}).to_html()
    assert html.count('class="graphnb-frame"') == 3
    assert html.count("<svg") == 3
    assert 'class="graphnb-next"' in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html
    assert 'class="graphnb-changed"' in html


def test_something_that_does_not_run_is_a_type_error_naming_why() -> None:
    with pytest.raises(TypeError, match="cannot step through this graph: a `int` is not a graph"):
        Stepper(3, {})
