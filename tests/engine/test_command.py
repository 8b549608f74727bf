"""A node returning Command(goto=..., update=..., graph=...): LangGraph's handoffs."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, Literal, TypedDict

import pytest

from graphnb import (
    END,
    START,
    Command,
    GraphState,
    GraphValidationError,
    RouteError,
    Send,
    StateGraph,
)
from graphnb.checkpoint import MemorySaver
from graphnb.diagram import extract, to_mermaid
from graphnb.errors import GraphSetupError, InvalidUpdateError, NodeError


class Log(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    who: str


def _say(word: str) -> Any:
    def node(state: Log) -> dict[str, list[str]]:
        return {"log": [word]}

    return node


def _handoff(state: Log) -> Command[Literal["b", "c"]]:
    return Command(goto="b", update={"log": ["a"], "who": "b"})


def _graph(a: Any = _handoff, **options: Any) -> StateGraph[Log]:
    graph = StateGraph(Log).add_node("a", a, **options)
    graph.add_node("b", _say("b")).add_node("c", _say("c"))
    return graph.add_edge(START, "a").add_edge("b", END).add_edge("c", END)


def test_goto_runs_the_target_and_update_goes_through_reducers() -> None:
    app = _graph().compile()
    assert app.invoke({"log": ["in"]}) == {"log": ["in", "a", "b"], "who": "b"}


def test_goto_in_async_runs_is_the_same() -> None:
    async def a(state: Log) -> Command[Literal["b", "c"]]:
        return Command(goto="c", update={"log": ["a"]})

    app = _graph(a).compile()
    assert asyncio.run(app.ainvoke({})) == {"log": ["a", "c"]}


def test_static_edges_still_fire_beside_goto() -> None:
    # LangGraph: the node's edges are writers of its own, a Command adds to them
    app = _graph().add_edge("a", "c").compile()
    assert app.invoke({}) == {"log": ["a", "b", "c"], "who": "b"}


def test_goto_a_list_sends_and_end() -> None:
    def a(state: Log) -> Command[Literal["b", "c"]]:
        return Command(goto=["b", Send("c", {"log": ["sent"]}), END])

    app = _graph(a).compile()
    events = list(app.stream({}, mode="updates"))
    # as LangGraph: the Send's task starts first, the plain task's writes merge first
    assert sorted(map(str, events[1:])) == [str({"b": {"log": ["b"]}}), str({"c": {"log": ["c"]}})]
    assert app.invoke({}) == {"log": ["b", "c"]}


def test_goto_end_alone_finishes_the_run() -> None:
    def a(state: Log) -> Command[Literal["b", "c", "__end__"]]:
        return Command(goto=END, update={"log": ["a"]})

    assert _graph(a).compile().invoke({}) == {"log": ["a"]}


def test_goto_an_undeclared_node_still_runs() -> None:
    def a(state: Log) -> Command[Literal["b"]]:
        return Command(goto="c")  # c is no declared destination: it runs, as in LangGraph

    graph = _graph(a).add_edge(START, "c")
    assert graph.compile().invoke({}) == {"log": ["c", "c"]}


def test_goto_a_missing_node_fails_naming_it() -> None:
    def a(state: Log) -> Command[Literal["b", "c"]]:
        return Command(goto="nowhere")

    with pytest.raises(RouteError, match="no node 'nowhere'") as caught:
        _graph(a).compile().invoke({})
    assert caught.value.node == "a"


def test_a_bad_update_fails_naming_the_node_and_field() -> None:
    class Typed(GraphState):
        count: int = 0

    def a(state: Typed) -> Command[Literal["__end__"]]:
        return Command(goto=END, update={"count": "many"})

    app = StateGraph(Typed).add_node("a", a).add_edge(START, "a").compile()
    with pytest.raises(InvalidUpdateError) as caught:
        app.invoke({})
    assert (caught.value.node, caught.value.field) == ("a", "count")


def test_update_may_be_a_state_instance() -> None:
    class Typed(GraphState):
        count: int = 0
        tags: Annotated[list[str], operator.add] = []

    def a(state: Typed) -> Command[Literal["__end__"]]:
        state.count += 1
        state.tags.append("a")
        return Command(goto=END, update=state)

    app = StateGraph(Typed).add_node("a", a).add_edge(START, "a").compile()
    result = app.invoke({"tags": ["in"]})
    assert (result.count, result.tags) == (1, ["in", "a"])


def test_resume_from_a_node_is_refused() -> None:
    def a(state: Log) -> Command[Literal["b", "c"]]:
        return Command(resume="x")

    with pytest.raises(NodeError, match="resume answers an interrupt"):
        _graph(a).compile().invoke({})


def test_destinations_come_from_the_annotation_or_the_argument() -> None:
    assert _graph().spec.node("a").destinations == {"b": None, "c": None}

    def plain(state: Log) -> Command:
        return Command(goto="b")

    spec = _graph(plain, destinations={"b": "to b", "c": None}).spec
    assert spec.node("a").destinations == {"b": "to b", "c": None}
    assert _graph(plain, destinations=("b",)).spec.node("a").destinations == {"b": None}


def test_without_destinations_a_command_only_target_is_unreachable() -> None:
    def plain(state: Log) -> Command:
        return Command(goto="b")

    with pytest.raises(GraphValidationError, match="`b` cannot be reached"):
        _graph(plain).compile()


def test_a_destination_that_is_no_node_is_refused_at_compile() -> None:
    with pytest.raises(GraphValidationError, match="`ghost` is a destination of `a`"):
        _graph(destinations=("b", "ghost")).compile()


def test_bad_destinations_are_refused_where_given() -> None:
    with pytest.raises(GraphSetupError, match="destinations of `a`"):
        _graph(destinations="b")
    with pytest.raises(GraphSetupError, match="destinations of `a`"):
        _graph(destinations={"b": 3})


def test_destinations_round_trip_through_the_spec_json() -> None:
    spec = _graph(destinations={"b": "hand off", "c": None}).spec
    again = type(spec).from_json(spec.to_json())
    assert again.node("a").destinations == {"b": "hand off", "c": None}
    rebuilt = StateGraph.from_spec(again, namespace={"_handoff": _handoff}, state=Log)
    assert rebuilt.spec.node("a").destinations == {"b": "hand off", "c": None}


def test_spec_without_destinations_stays_as_before() -> None:
    assert "destinations" not in _graph(_say("a")).spec.to_json()


def test_diagrams_draw_destinations_as_dashed_edges() -> None:
    graph = _graph(destinations={"b": "hand off", "c": None})
    commands = [edge for edge in extract(graph).edges if edge.command]
    assert [(e.source, e.target, e.kind, e.label) for e in commands] == [
        ("a", "b", "conditional", "hand off"),
        ("a", "c", "conditional", None),
    ]
    text = to_mermaid(graph)
    assert 'a -.->|"hand off"| b' in text
    assert "a -.-> c" in text


class Team(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _child(goto: Any) -> StateGraph[Team]:
    def worker(state: Team) -> Command:
        return Command(goto=goto, update={"log": ["child"]}, graph=Command.PARENT)

    child = StateGraph(Team).add_node("worker", worker).add_node("after", _say("never"))
    return child.add_edge(START, "worker").add_edge("worker", "after").add_edge("after", END)


def _parent(child: StateGraph[Team], **options: Any) -> StateGraph[Team]:
    parent = StateGraph(Team).add_node("team", child, destinations=("other",))
    parent.add_node("other", _say("other")).add_node("next", _say("next"))
    parent.add_edge(START, "team").add_edge("team", "next")
    return parent.add_edge("next", END).add_edge("other", END)


def test_parent_command_goes_to_the_parent_and_stops_the_child() -> None:
    app = _parent(_child("other")).compile()
    # the child's later node does not run; the subgraph node's own edge fires too
    assert app.invoke({}) == {"log": ["child", "other", "next"]}


def test_parent_command_on_a_thread() -> None:
    app = _parent(_child("other")).compile(checkpointer=MemorySaver())
    assert app.invoke({}, thread_id="t") == {"log": ["child", "other", "next"]}
    assert app.get_state("t").next == ()


def test_parent_command_in_async_runs() -> None:
    app = _parent(_child(["other"])).compile()
    assert asyncio.run(app.ainvoke({})) == {"log": ["child", "other", "next"]}


def test_parent_command_outside_a_subgraph_is_refused() -> None:
    app = _child("other").compile()
    with pytest.raises(NodeError, match="no parent graph"):
        app.invoke({})


def test_goto_is_checkpointed_and_resumes() -> None:
    def a(state: Log) -> Command[Literal["b", "c"]]:
        return Command(goto="c", update={"log": ["a"]})

    app = _graph(a).compile(checkpointer=MemorySaver(), interrupt_after=["a"])
    app.invoke({}, thread_id="t")
    assert app.get_state("t").next == ("c",)
    assert app.invoke(None, thread_id="t") == {"log": ["a", "c"]}


def test_command_graph_takes_parent_only() -> None:
    with pytest.raises(ValueError, match=r"Command\.PARENT"):
        Command(goto="a", graph="elsewhere")


def handoff_node(state: Log) -> Command[Literal["b", "c"]]:
    return Command(goto=[Send("c", {"log": ["sent"]})], update={"log": ["a"]})


def b_node(state: Log) -> dict[str, list[str]]:
    return {"log": ["b"]}


def c_node(state: Log) -> dict[str, list[str]]:
    return {"log": ["c"]}


def _exportable(**options: Any) -> StateGraph[Log]:
    graph = StateGraph(Log, name="handoff").add_node("a", handoff_node, **options)
    graph.add_node("b", b_node).add_node("c", c_node).add_edge(START, "a")
    return graph.add_edge("b", END).add_edge("c", END)


def _load(text: str, path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    import importlib.util
    import sys

    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def test_the_module_export_writes_destinations_back(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphnb.export import to_module

    graph = _exportable(destinations={"b": "hand off", "c": None})
    text = to_module(graph, ruff=False)
    assert "destinations={'b': 'hand off', 'c': 'c'}" in text
    module = _load(text, tmp_path / "handoff_gnb.py", monkeypatch)
    assert module.build_graph().spec.node("a").destinations == {"b": "hand off", "c": "c"}
    assert module.build_graph().compile().invoke({}) == {"log": ["a", "c"]}
    plain = to_module(_exportable(), ruff=False)
    assert "destinations=('b', 'c')" in plain


def test_the_langgraph_module_runs_graphnb_commands_on_langgraph(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langgraph")
    from graphnb.interop import to_langgraph_module

    graph = _exportable(destinations=("b", "c"))
    text = to_langgraph_module(graph, ruff=False)
    assert "langgraph_node(handoff_node), destinations=('b', 'c')" in text
    module = _load(text, tmp_path / "handoff_lg.py", monkeypatch)
    assert set(module.build_graph().nodes["a"].ends) == {"b", "c"}
    assert module.graph.invoke({"log": []}) == graph.compile().invoke({"log": []})


def test_langgraph_commands_and_sends_run_on_graphnb() -> None:
    lg_types = pytest.importorskip("langgraph.types")

    def a(state: Log) -> Any:
        return lg_types.Command(
            goto=["b", lg_types.Send("c", {"log": ["x"]})], update={"log": ["a"]}
        )

    assert _graph(a, destinations=("b", "c")).compile().invoke({}) == {"log": ["a", "b", "c"]}


def test_a_goto_beside_an_interrupted_sibling_is_not_lost_on_resume() -> None:
    from graphnb import interrupt

    runs: list[str] = []

    def a(state: Log) -> Command[Literal["c"]]:
        runs.append("a")
        return Command(goto="c", update={"log": ["a"]})

    def b(state: Log) -> dict[str, list[str]]:
        return {"log": ["b:" + interrupt("?")]}

    graph = StateGraph(Log).add_node("a", a).add_node("b", b).add_node("c", _say("c"))
    graph.add_edge(START, "a").add_edge(START, "b").add_edge("b", END).add_edge("c", END)
    app = graph.compile(checkpointer=MemorySaver())
    app.invoke({}, thread_id="t")
    # the Command's node runs again with the resumed step (its goto is not stored)
    assert app.invoke(Command(resume="ok"), thread_id="t") == {"log": ["a", "b:ok", "c"]}
    assert runs == ["a", "a"]
