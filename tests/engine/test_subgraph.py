"""Subgraphs: a graph as a node; fields in and out; nested events; the spec."""

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
    GraphSetupError,
    GraphSpec,
    GraphValidationError,
    NodeError,
    NodeFinished,
    NodeStarted,
    RetryPolicy,
    Send,
    StateGraph,
    interrupt,
)
from graphnb.checkpoint import MemorySaver
from graphnb.engine.workers import DEFAULT_WORKERS

DATA = Path(__file__).parent / "data"


class Outer(TypedDict, total=False):
    topic: str
    notes: Annotated[list[str], operator.add]
    report: str


class Inner(TypedDict, total=False):
    topic: str
    notes: Annotated[list[str], operator.add]


class Other(TypedDict, total=False):
    query: str
    found: list[str]


def begin(state: Outer) -> dict[str, Any]:
    return {"notes": ["begin"]}


def search(state: Inner) -> dict[str, Any]:
    return {"notes": [f"found {state['topic']}"]}


def check(state: Inner) -> dict[str, Any]:
    return {"notes": ["checked"]}


def write(state: Outer) -> dict[str, Any]:
    return {"report": "; ".join(state["notes"])}


def lookup(state: Other) -> dict[str, Any]:
    return {"found": [state["query"].upper()]}


def research() -> StateGraph[Inner]:
    graph = StateGraph(Inner, name="research").add_node("search", search).add_node("check", check)
    return graph.add_edge(START, "search").add_edge("search", "check").add_edge("check", END)


def outer(child: Any = None, **mapping: Any) -> StateGraph[Outer]:
    graph = StateGraph(Outer, name="outer").add_node("begin", begin)
    graph.add_node("research", child if child is not None else research(), **mapping)
    graph.add_node("write", write).add_edge(START, "begin").add_edge("begin", "research")
    return graph.add_edge("research", "write").add_edge("write", END)


def test_shared_fields_pass_in_and_out_and_reducers_apply_once() -> None:
    result = outer().compile().invoke({"topic": "bees"})
    # the child started from ["begin"]; only its own notes were added back
    assert result["notes"] == ["begin", "found bees", "checked"]
    assert result["report"] == "begin; found bees; checked"


def test_writes_state_writes_the_childs_final_values_through_the_reducers(
    tmp_path: Path,
) -> None:
    # LangGraph's way: the child's whole output, so operator.add gets "begin" again
    graph = outer(writes="state")
    assert graph.compile().invoke({"topic": "bees"})["notes"] == [
        "begin",
        "begin",
        "found bees",
        "checked",
    ]
    spec = GraphSpec.from_json(graph.spec.to_json())
    assert spec.node("research").writes == "state"
    assert "writes" not in outer().spec.to_json()  # the default is left out of the JSON
    rebuilt = StateGraph.from_spec(spec).compile().invoke({"topic": "x"})
    assert rebuilt["notes"][:2] == ["begin", "begin"]
    from graphnb.export import load_module, write_module

    module = load_module(write_module(graph, tmp_path / "whole.py", ruff=False))
    assert module.graph.invoke({"topic": "x"})["notes"][:2] == ["begin", "begin"]


def test_writes_is_checked_and_only_for_a_subgraph_node() -> None:
    with pytest.raises(GraphSetupError, match="'changes' or 'state', got 'all'"):
        outer(writes="all")
    with pytest.raises(GraphSetupError, match="writes= of `a` needs a graph"):
        StateGraph(Outer).add_node("a", begin, writes="state")


def test_a_shared_field_the_parent_lacks_comes_back_as_written() -> None:
    # the parent has no notes yet: the child's notes are all new, not a change to diff
    graph = StateGraph(Outer, name="outer").add_node("research", research())
    app = graph.add_edge(START, "research").add_edge("research", END).compile()
    assert app.invoke({"topic": "t"})["notes"] == ["found t", "checked"]


def test_a_compiled_child_works_too() -> None:
    assert outer(research().compile()).compile().invoke({"topic": "x"})["notes"][1] == "found x"


def test_a_different_state_is_mapped_both_ways() -> None:
    child = StateGraph(Other, name="lookup").add_node("lookup", lookup)
    child.add_edge(START, "lookup").add_edge("lookup", END)
    app = outer(child, inputs={"topic": "query"}, outputs={"found": "notes"}).compile()
    assert app.invoke({"topic": "owl"})["notes"] == ["begin", "OWL"]


def test_a_mapped_field_that_does_not_exist_is_a_compile_problem_naming_both_graphs() -> None:
    child = StateGraph(Other, name="lookup").add_node("lookup", lookup)
    child.add_edge(START, "lookup").add_edge("lookup", END)
    with pytest.raises(GraphValidationError) as caught:
        outer(child, inputs={"topicz": "query"}, outputs={"found": "nots"}).compile()
    text = str(caught.value)
    assert "'outer' has no field 'topicz'" in text
    assert "'outer' has no field 'nots'" in text
    assert "child 'lookup'" in text


def test_a_broken_child_is_reported_by_the_parent() -> None:
    child = StateGraph(Inner, name="broken").add_node("search", search)
    with pytest.raises(GraphValidationError, match="subgraph `research` \\('broken'\\)"):
        outer(child).compile()


def test_nesting_to_three_levels() -> None:
    level3 = research()
    level2 = StateGraph(Inner, name="middle").add_node("deep", level3)
    level2.add_edge(START, "deep").add_edge("deep", END)
    app = outer(level2).compile()
    assert app.invoke({"topic": "t"})["notes"] == ["begin", "found t", "checked"]
    events = app.stream({"topic": "t"}, subgraphs=True)
    paths = [e.path for e in events if isinstance(e, NodeFinished)]
    assert ("research", "deep", "search") in paths
    assert ("research", "deep") in paths


def test_inner_events_carry_their_path_and_only_when_asked() -> None:
    app = outer().compile()
    started = [
        e.path for e in app.stream({"topic": "x"}, subgraphs=True) if e.kind == "node_started"
    ]
    assert started == [
        ("begin",),
        ("research",),
        ("research", "search"),
        ("research", "check"),
        ("write",),
    ]
    plain = [e.path for e in app.stream({"topic": "x"}) if isinstance(e, NodeStarted)]
    assert plain == [("begin",), ("research",), ("write",)]
    updates = list(app.stream({"topic": "x"}, mode="updates", subgraphs=True))
    assert {"research/search": {"notes": ["found x"]}} in updates


def test_inner_chunks_stream_live_with_their_path() -> None:
    produced: list[str] = []

    def speak(state: dict[str, Any]) -> Any:
        for word in ["a", "b"]:
            produced.append(word)
            yield word

    child = StateGraph(dict, name="talker", streaming="text").add_node("speak", speak)
    child.add_edge(START, "speak").add_edge("speak", END)
    parent = StateGraph(dict, name="host").add_node("talk", child)
    parent.add_edge(START, "talk").add_edge("talk", END)
    received = [
        (chunk.path, chunk.value, list(produced))
        for chunk in parent.compile().stream({}, mode="chunks", subgraphs=True)
    ]
    # each chunk arrives before the next one is produced: live, not after the subgraph
    assert received == [(("talk", "speak"), "a", ["a"]), (("talk", "speak"), "b", ["a", "b"])]
    assert parent.compile().invoke({})["text"] == "ab"


def test_an_inner_failure_names_the_subgraph_node() -> None:
    def fail(state: Inner) -> None:
        raise RuntimeError("inner boom")

    child = StateGraph(Inner, name="research").add_node("search", fail)
    child.add_edge(START, "search").add_edge("search", END)
    with pytest.raises(NodeError, match="node `search` failed") as caught:
        outer(child).compile().invoke({"topic": "x"})
    assert caught.value.node == "search"


def test_async_runs_match() -> None:
    app = outer().compile()
    assert asyncio.run(app.ainvoke({"topic": "q"})) == app.invoke({"topic": "q"})


def test_an_interrupt_inside_a_subgraph_resumes_it() -> None:
    def ask(state: Inner) -> dict[str, Any]:
        return {"notes": [f"answer {interrupt('which?')}"]}

    child = StateGraph(Inner, name="research").add_node("ask", ask)
    child.add_edge(START, "ask").add_edge("ask", END)
    app = outer(child).compile(checkpointer=MemorySaver())
    app.invoke({"topic": "x"}, thread_id="t")
    (pending,) = app.get_state("t").interrupts
    assert (pending.node, pending.value) == ("research", "which?")
    result = app.invoke(Command(resume="42"), thread_id="t")
    assert result["notes"] == ["begin", "answer 42"]


def test_the_spec_holds_the_child_spec_and_loads_back() -> None:
    graph = outer()
    spec = graph.spec
    assert spec.version == 2
    node = spec.node("research")
    assert node.subgraph is not None
    assert [n.id for n in node.subgraph.nodes] == ["search", "check"]
    again = GraphSpec.from_json(spec.to_json())
    assert again == spec
    rebuilt = StateGraph.from_spec(again)
    assert rebuilt.spec == spec
    assert rebuilt.compile().invoke({"topic": "z"})["notes"] == ["begin", "found z", "checked"]
    assert StateGraph(Outer).add_node("a", begin).spec.version == 1


def test_a_committed_version_1_spec_still_loads() -> None:
    text = (DATA / "spec_v1.json").read_text()
    spec = GraphSpec.from_json(text)
    assert spec.version == 1
    assert spec.to_json() + "\n" == text
    assert [n.id for n in spec.nodes] == ["plan", "work"]


def test_inputs_without_a_graph_are_refused() -> None:
    from graphnb import GraphSetupError

    with pytest.raises(GraphSetupError, match="need a graph"):
        StateGraph(Outer).add_node("a", begin, inputs={"topic": "topic"})


def test_a_composed_graph_exports_to_one_module_that_builds_the_child_first(
    tmp_path: Path,
) -> None:
    from graphnb.export import load_module, write_module

    child = StateGraph(Other, name="lookup").add_node("lookup", lookup)
    child.add_edge(START, "lookup").add_edge("lookup", END)
    graph = outer(child, inputs={"topic": "query"}, outputs={"found": "notes"})
    path = write_module(graph, tmp_path / "composed.py", ruff=False)
    text = path.read_text()
    assert text.index("def build_research_graph") < text.index("def build_graph")
    module = load_module(path)
    assert unbound(module.graph.spec.to_dict()) == unbound(graph.spec.to_dict())
    assert module.graph.invoke({"topic": "owl"})["notes"] == ["begin", "OWL"]


def unbound(data: Any) -> Any:
    """A spec's data without bindings, which an export is free to change."""
    if isinstance(data, dict):
        return {k: None if k == "binding" else unbound(v) for k, v in data.items()}
    if isinstance(data, list):
        return [unbound(item) for item in data]
    return data


def test_policies_on_a_subgraph_node_are_refused_in_code_and_in_a_spec() -> None:
    child = StateGraph(dict).add_node("work", lambda s: {}).add_edge(START, "work")
    child.add_edge("work", END)
    parent = StateGraph(dict)
    with pytest.raises(GraphSetupError, match=r"`research` is a subgraph node: retry, timeout"):
        parent.add_node("research", child, retry=RetryPolicy(max_attempts=2), timeout=1.0)
    parent.add_node("research", child).add_edge(START, "research").add_edge("research", END)
    data = parent.spec.model_dump(mode="json")
    data["nodes"][0]["timeout"] = 2.0
    with pytest.raises(GraphSetupError, match=r"`research` is a subgraph node: timeout apply"):
        StateGraph.from_spec(GraphSpec.model_validate(data))


class Items(TypedDict, total=False):
    items: list[int]
    item: int
    out: Annotated[list[int], operator.add]


def _doubles_and_squares() -> StateGraph[Any]:
    child = StateGraph(Items, name="child")
    child.add_node("double", lambda s: {"out": [s["item"] * 2]})
    child.add_node("square", lambda s: {"out": [s["item"] ** 2]})
    child.add_edge(START, "double").add_edge(START, "square")
    return child.add_edge("double", END).add_edge("square", END)


def _finishes(run: Any) -> Any:
    """``run()`` on a thread; a hang fails the test instead of the whole suite."""
    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(run()), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the run hangs"
    return box[0]


@pytest.mark.parametrize("nested", ["subgraph", "invoke inside a node"])
def test_parallel_steps_inside_more_parallel_nodes_than_pool_threads_finish(nested: str) -> None:
    """Each of 2x the pool's threads runs a graph whose own step runs two nodes at once."""
    child = _doubles_and_squares()
    parent = StateGraph(Items, name="parent")
    if nested == "subgraph":
        parent.add_node("work", child)
    else:
        inner = child.compile()
        parent.add_node("work", lambda s: {"out": inner.invoke({"item": s["item"]})["out"]})
    fan_out = [Send("work", {"item": i}) for i in range(2 * DEFAULT_WORKERS)]
    parent.add_conditional_edges(START, lambda s: fan_out, sends=["work"])
    app = parent.add_edge("work", END).compile()
    result = _finishes(lambda: app.invoke({}))
    expected = [n for i in range(2 * DEFAULT_WORKERS) for n in (2 * i, i * i)]
    assert sorted(result["out"]) == sorted(expected)


class Depth(TypedDict, total=False):
    n: int


def _count(state: Depth) -> dict[str, Any]:
    return {"n": state.get("n", 0) + 1}


def test_deeply_nested_subgraphs_compile_each_child_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 29, item 8: each level validated, then compiled, its child (which did the
    # same below it): thirteen levels took over 20 s.
    compiled: list[str] = []
    real = StateGraph._compile

    def counted(self: StateGraph[Any], **options: Any) -> Any:
        compiled.append(self._spec.name)
        return real(self, **options)

    monkeypatch.setattr(StateGraph, "_compile", counted)
    levels = 16
    graph = StateGraph(Depth, name="level0").add_node("count", _count)
    graph.add_edge(START, "count").add_edge("count", END)
    for level in range(1, levels):
        outer = StateGraph(Depth, name=f"level{level}").add_node("inner", graph)
        outer.add_node("count", _count).add_edge(START, "inner")
        graph = outer.add_edge("inner", "count").add_edge("count", END)
    assert graph.validate() == []
    assert compiled == []  # validating compiles nothing
    app = graph.compile()
    assert sorted(compiled) == sorted(f"level{i}" for i in range(levels))  # once each
    assert app.invoke({}) == {"n": levels}
    # a problem deep down is still named with the path to it
    bottom = StateGraph(Depth, name="broken").add_node("count", _count)
    broken = StateGraph(Depth, name="top").add_node("inner", bottom).add_edge(START, "inner")
    broken.add_edge("inner", END)
    with pytest.raises(GraphValidationError, match=r"subgraph `inner` \('broken'\)") as caught:
        broken.compile()
    assert broken.validate() == caught.value.problems
