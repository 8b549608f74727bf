from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from graphnb import END, START, GraphnbError, StateGraph
from graphnb.diagram import Trace, extract, to_svg

from .samples import noop, pick

SVG = "{http://www.w3.org/2000/svg}"


def count_up(state: dict[str, Any]) -> dict[str, Any]:
    return {"n": state.get("n", 0) + 1}


def retry_twice(state: dict[str, Any]) -> str:
    return "retry" if state["n"] < 2 else "done"


def explode(state: dict[str, Any]) -> dict[str, Any]:
    raise ValueError("tool down")


def classes(svg: str) -> dict[str, set[str]]:
    """CSS classes of each node (by id) and edge (by index) group."""
    found: dict[str, set[str]] = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        key = g.get("data-id") or g.get("data-index")
        if key is not None:
            found[key] = set(g.get("class", "").split())
    return found


def taken_pairs(graph: StateGraph[Any], trace: Trace) -> list[tuple[str, str]]:
    diagram = extract(graph)
    taken = trace.taken_edges(diagram)
    return [(e.source, e.target) for e in diagram.edges if e.index in taken]


def test_trace_of_a_router_run_follows_only_the_chosen_route() -> None:
    graph = StateGraph(dict)
    graph.add_node("classify", noop).add_node("search", noop).add_node("answer", noop)
    graph.add_edge(START, "classify")
    graph.add_conditional_edges(
        "classify", pick, {"search": "search", "answer": "answer", "x": END}
    )
    graph.add_edge("search", "answer").add_edge("answer", END)
    trace = Trace.from_events(graph.compile().stream({}, mode="events"))
    assert taken_pairs(graph, trace) == [
        (START, "classify"),
        ("classify", "answer"),
        ("answer", END),
    ]
    assert trace.visited(extract(graph)) == (START, "classify", "answer", END)
    drawn = classes(to_svg(graph, trace=trace))
    assert "gnb-visited" in drawn["answer"]
    assert "gnb-visited" not in drawn["search"]
    # Edges in spec order: 1 is classify -> search, 2 is classify -> answer.
    assert "gnb-taken" in drawn["2"]
    assert "gnb-taken" not in drawn["1"]
    assert "gnb-conditional" in drawn["1"]


def test_trace_of_a_loop_numbers_each_visit_and_takes_the_back_edge() -> None:
    graph = StateGraph(dict)
    graph.add_node("plan", count_up).add_node("act", noop)
    graph.add_edge(START, "plan").add_edge("plan", "act")
    graph.add_conditional_edges("act", retry_twice, {"retry": "plan", "done": END})
    trace = Trace.from_events(graph.compile().stream({}, mode="events"))
    assert trace.steps["plan"] == (0, 2)
    assert trace.steps["act"] == (1, 3)
    assert ("act", "plan") in taken_pairs(graph, trace)
    svg = to_svg(graph, trace=trace)
    root = ET.fromstring(svg)
    plan = next(g for g in root.iter(f"{SVG}g") if g.get("data-id") == "plan")
    badge = next(g for g in plan.iter(f"{SVG}g") if g.get("class") == "gnb-badge")
    title, text = badge.find(f"{SVG}title"), badge.find(f"{SVG}text")
    assert title is not None
    assert text is not None
    assert (title.text, text.text) == ("steps 0, 2", "0, 2")


def test_trace_of_a_fan_out_and_join_takes_every_join_edge() -> None:
    graph = StateGraph(dict)
    for name in ("split", "a", "b", "merge"):
        graph.add_node(name, noop)
    graph.add_edge(START, "split").add_edge("split", "a").add_edge("split", "b")
    graph.add_edge(["a", "b"], "merge").add_edge("merge", END)
    trace = Trace.from_events(graph.compile().stream({}, mode="events"))
    assert len(taken_pairs(graph, trace)) == len(graph.spec.edges)
    drawn = to_svg(graph, trace=trace)
    (bar,) = [
        g for g in ET.fromstring(drawn).iter(f"{SVG}g") if "gnb-joinbar" in g.get("class", "")
    ]
    assert bar.get("data-target") == "merge"
    assert "gnb-taken" in bar.get("class", "")


def test_trace_of_a_failed_run_marks_the_failed_node() -> None:
    graph = StateGraph(dict)
    graph.add_node("plan", noop).add_node("call_tool", explode).add_node("answer", noop)
    graph.add_edge(START, "plan").add_edge("plan", "call_tool")
    graph.add_edge("call_tool", "answer").add_edge("answer", END)
    events: list[Any] = []
    with pytest.raises(GraphnbError, match="tool down"):
        events.extend(graph.compile().stream({}, mode="events"))
    trace = Trace.from_events(events)
    assert trace.failed == "call_tool"
    assert trace.current == ()
    drawn = classes(to_svg(graph, trace=events))
    assert "gnb-failed" in drawn["call_tool"]
    assert "gnb-visited" not in drawn["answer"]
    assert ("call_tool", "answer") not in taken_pairs(graph, trace)


def test_trace_built_by_hand_marks_current_state_and_given_edges() -> None:
    graph = StateGraph(dict)
    graph.add_node("a", noop).add_node("b", noop)
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    trace = Trace(steps={"a": (1,)}, edges=((START, "a"), ("a", "b")), current=("b",))
    drawn = classes(to_svg(graph, trace=trace))
    assert {"gnb-current", "gnb-visited"} <= drawn["b"]
    assert "gnb-taken" in drawn["1"]
    assert "gnb-taken" not in drawn["2"]


def test_svg_without_trace_has_no_trace_styling() -> None:
    graph = StateGraph(dict)
    graph.add_node("a", noop).add_edge(START, "a").add_edge("a", END)
    svg = to_svg(graph)
    assert "gnb-traced" not in ET.fromstring(svg).get("class", "")
    assert not any("gnb-visited" in c for c in classes(svg).values())
