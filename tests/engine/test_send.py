"""Map-reduce: a router's Send items run the target once each, in one super-step."""

from __future__ import annotations

import asyncio
import operator
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphnb import (
    END,
    START,
    Command,
    ConflictingUpdateError,
    GraphSpec,
    GraphState,
    NodeFinished,
    NodeStarted,
    RouteError,
    RunContext,
    Send,
    StateGraph,
)
from graphnb.checkpoint import MemorySaver
from graphnb.diagram import to_dot, to_mermaid, to_svg


class Docs(TypedDict, total=False):
    docs: list[str]
    doc: str
    summaries: Annotated[list[str], operator.add]
    title: str


CALLS: list[str] = []


def split(state: Docs) -> dict[str, Any]:
    return {"title": "report"}


def fan(state: Docs) -> list[Send]:
    return [Send("summarise", {"doc": doc}) for doc in state["docs"]]


def summarise(state: Docs) -> dict[str, Any]:
    CALLS.append(state["doc"])
    # the instance sees its payload, not the graph's state
    assert "docs" not in state
    return {"summaries": [state["doc"].upper()]}


def graph(router: Any = fan, sends: tuple[str, ...] = ("summarise",)) -> StateGraph[Docs]:
    built = StateGraph(Docs, name="mapreduce")
    built.add_node("split", split).add_node("summarise", summarise).add_node("done", split)
    built.add_edge(START, "split")
    built.add_conditional_edges("split", router, ["done"], sends=list(sends))
    built.add_edge("summarise", "done").add_edge("done", END)
    return built


def test_each_item_runs_once_and_results_merge_in_item_order() -> None:
    CALLS.clear()
    result = graph().compile().invoke({"docs": ["a", "b", "c", "d"]})
    assert result["summaries"] == ["A", "B", "C", "D"]
    assert sorted(CALLS) == ["a", "b", "c", "d"]


def test_results_keep_item_order_when_instances_finish_out_of_order() -> None:
    gate = threading.Event()

    def slow_first(state: Docs) -> dict[str, Any]:
        if state["doc"] == "a":
            gate.wait(2)  # finishes after "b"
        else:
            gate.set()
        return {"summaries": [state["doc"]]}

    built = StateGraph(Docs).add_node("split", split).add_node("summarise", slow_first)
    built.add_edge(START, "split").add_conditional_edges("split", fan, sends=["summarise"])
    built.add_edge("summarise", END)
    assert built.compile().invoke({"docs": ["a", "b"]})["summaries"] == ["a", "b"]


def test_events_name_each_instance() -> None:
    events = list(graph().compile().stream({"docs": ["x", "y"]}))
    started = [(e.node, e.instance) for e in events if isinstance(e, NodeStarted)]
    assert started == [("split", None), ("summarise", 0), ("summarise", 1), ("done", None)]
    finished = {e.instance: e.update for e in events if isinstance(e, NodeFinished)}
    assert finished[0] == {"summaries": ["X"]}
    assert finished[1] == {"summaries": ["Y"]}


def test_the_context_names_the_instance() -> None:
    seen: list[tuple[str, int | None]] = []

    def who(state: Docs, context: RunContext) -> None:
        seen.append((context.node, context.instance))
        context.write(state["doc"])

    built = StateGraph(Docs).add_node("split", split).add_node("summarise", who)
    built.add_edge(START, "split").add_conditional_edges("split", fan, sends=["summarise"])
    built.add_edge("summarise", END)
    chunks = list(built.compile().stream({"docs": ["p", "q"]}, mode="chunks"))
    assert sorted(seen) == [("summarise", 0), ("summarise", 1)]
    assert sorted((c.instance, c.value) for c in chunks) == [(0, "p"), (1, "q")]


def test_sends_mix_with_plain_routes_and_a_single_send() -> None:
    def mixed(state: Docs) -> list[Any]:
        return ["done", Send("summarise", {"doc": "m"})]

    CALLS.clear()
    result = graph(mixed).compile().invoke({"docs": []})
    assert result["summaries"] == ["M"]
    assert CALLS == ["m"]
    single = graph(lambda state: Send("summarise", {"doc": "s"})).compile()
    assert single.invoke({"docs": []})["summaries"] == ["S"]


def test_a_plain_tasks_writes_merge_before_the_send_instances_of_its_step() -> None:
    # LangGraph's order (test_pregel.py::test_send_react_interrupt): a step's plain
    # tasks merge first, then its Send packets, whatever the node order; the instances
    # start first, as LangGraph prepares them.
    def tally(state: Docs) -> dict[str, Any]:
        return {"summaries": ["tally"]}

    def both(state: Docs) -> list[Any]:
        return ["tally", *fan(state)]

    built = StateGraph(Docs).add_node("split", split).add_node("summarise", summarise)
    built.add_node("tally", tally).add_edge(START, "split")
    built.add_conditional_edges("split", both, ["tally"], sends=["summarise"])
    built.add_edge("summarise", END).add_edge("tally", END)
    app = built.compile()
    assert app.invoke({"docs": ["a", "b"]})["summaries"] == ["tally", "A", "B"]
    started = [
        (e.node, e.instance) for e in app.stream({"docs": ["a", "b"]}) if isinstance(e, NodeStarted)
    ]
    assert started == [("split", None), ("summarise", 0), ("summarise", 1), ("tally", None)]


def test_no_sends_skips_the_target() -> None:
    CALLS.clear()
    result = graph(lambda state: []).compile().invoke({"docs": []})
    assert "summaries" not in result
    assert CALLS == []


def test_a_send_to_an_undeclared_target_is_a_route_error() -> None:
    app = graph(lambda state: [Send("done", {})]).compile()
    with pytest.raises(RouteError, match="Send\\('done'") as caught:
        app.invoke({"docs": []})
    assert caught.value.node == "split"


def test_a_bad_payload_is_a_route_error_naming_router_and_target() -> None:
    app = graph(lambda state: [Send("summarise", 42)]).compile()
    with pytest.raises(RouteError, match="`split` sent 42 to `summarise`"):
        app.invoke({"docs": []})
    typed = graph(lambda state: [Send("summarise", {"nope": 1})]).compile()
    with pytest.raises(RouteError, match="invalid payload to `summarise`"):
        typed.invoke({"docs": []})

    class Elsewhere(GraphState):
        doc: str = "a"

    other = graph(lambda state: [Send("summarise", Elsewhere())]).compile()
    with pytest.raises(RouteError, match="got a Elsewhere, expected a mapping or a Docs"):
        other.invoke({"docs": []})


def test_two_instances_writing_a_plain_field_conflict_naming_both() -> None:
    def titled(state: Docs) -> dict[str, Any]:
        return {"title": state["doc"]}

    built = StateGraph(Docs).add_node("split", split).add_node("summarise", titled)
    built.add_edge(START, "split").add_conditional_edges("split", fan, sends=["summarise"])
    built.add_edge("summarise", END)
    with pytest.raises(ConflictingUpdateError) as caught:
        built.compile().invoke({"docs": ["a", "b"]})
    assert caught.value.nodes == ("summarise[0]", "summarise[1]")


def test_async_runs_give_the_same_result() -> None:
    async def asummarise(state: Docs) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"summaries": [state["doc"] * 2]}

    built = StateGraph(Docs).add_node("split", split).add_node("summarise", asummarise)
    built.add_edge(START, "split").add_conditional_edges("split", fan, sends=["summarise"])
    built.add_edge("summarise", END)
    app = built.compile()
    assert asyncio.run(app.ainvoke({"docs": ["a", "b"]}))["summaries"] == ["aa", "bb"]
    assert graph().compile().invoke({"docs": ["a", "b"]}) == asyncio.run(
        graph().compile().ainvoke({"docs": ["a", "b"]})
    )


@pytest.mark.parametrize("driven", ["invoke", "ainvoke"])
def test_each_instance_routes_on_its_own_result_in_a_two_stage_map_reduce(driven: str) -> None:
    """Each ``summarise`` instance sends its own summary on: three follow-ups, not one."""
    built = StateGraph(Docs).add_node("summarise", summarise)
    built.add_node("title", lambda s: {"summaries": [f"title of {s['doc']}"]})
    built.add_conditional_edges(START, fan, sends=["summarise"])
    then = lambda s: [Send("title", {"doc": s["summaries"][-1]})]  # noqa: E731
    built.add_conditional_edges("summarise", then, sends=["title"])
    app = built.add_edge("title", END).compile()
    given = {"docs": ["a", "b", "c"]}
    result = app.invoke(given) if driven == "invoke" else asyncio.run(app.ainvoke(given))
    assert result["summaries"] == ["A", "B", "C", "title of A", "title of B", "title of C"]


def test_a_thread_resumes_a_pending_map_reduce_step() -> None:
    app = graph().compile(checkpointer=MemorySaver(), interrupt_after=["split"])
    app.invoke({"docs": ["a", "b", "c"]}, thread_id="t")
    state = app.get_state("t")
    assert state.next == ("summarise",) * 3  # one per packet, as LangGraph
    CALLS.clear()
    result = app.invoke(None, thread_id="t")
    assert result["summaries"] == ["A", "B", "C"]
    assert sorted(CALLS) == ["a", "b", "c"]


def test_an_interrupted_instance_resumes_alone() -> None:
    from graphnb import interrupt

    def ask(state: Docs) -> dict[str, Any]:
        CALLS.append(state["doc"])
        answer = interrupt(f"ok {state['doc']}?") if state["doc"] == "b" else "-"
        return {"summaries": [state["doc"] + answer]}

    built = StateGraph(Docs).add_node("split", split).add_node("summarise", ask)
    built.add_edge(START, "split").add_conditional_edges("split", fan, sends=["summarise"])
    built.add_edge("summarise", END)
    app = built.compile(checkpointer=MemorySaver())
    CALLS.clear()
    app.invoke({"docs": ["a", "b", "c"]}, thread_id="t")
    (pending,) = app.get_state("t").interrupts
    assert pending.node == "summarise[1]"
    assert pending.value == "ok b?"
    CALLS.clear()
    result = app.invoke(Command(resume="!"), thread_id="t")
    assert CALLS == ["b"]  # the finished instances are not run again
    assert result["summaries"] == ["a-", "b!", "c-"]


def test_the_spec_marks_send_edges_and_diagrams_draw_them(tmp_path: Path) -> None:
    spec = graph().spec
    sends = [(e.source, e.target) for e in spec.edges if e.kind == "send"]
    assert sends == [("split", "summarise")]
    assert GraphSpec.from_json(spec.to_json()) == spec
    assert '-.->|"Send"| summarise' in to_mermaid(spec)
    assert "arrowhead=normalnormal" in to_dot(spec)
    assert "gnb-send" in to_svg(spec)
    assert "gnb-send" not in to_svg(StateGraph(Docs).add_node("a", split).spec)


def test_an_exported_module_keeps_the_send_edges(tmp_path: Path) -> None:
    from graphnb.export import load_module, write_module

    module = load_module(write_module(graph(), tmp_path / "mapreduce.py", ruff=False))
    assert [e for e in module.graph.spec.edges if e.kind == "send"] == [
        e for e in graph().spec.edges if e.kind == "send"
    ]
    assert module.graph.invoke({"docs": ["q"]})["summaries"] == ["Q"]
