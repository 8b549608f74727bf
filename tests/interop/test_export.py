"""Writing graphnb graphs as LangGraph modules."""

from __future__ import annotations

import importlib.util
import operator
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START
from langgraph.graph import StateGraph as LGStateGraph

import graphnb
from graphnb import GraphState, StateField
from graphnb.checkpoint import MemorySaver
from graphnb.export import ExportError
from graphnb.interop import from_langgraph, to_langgraph_module


class Counter(TypedDict):
    items: Annotated[list[int], operator.add]
    n: int


def bump(state: Counter) -> dict[str, Any]:
    return {"items": [state["n"]], "n": state["n"] + 1}


def check(state: Counter) -> dict[str, Any]:
    return {"items": [-1]}


def again(state: Counter) -> Literal["again", "done"]:
    return "again" if state["n"] < 3 else "done"


def counter_graph() -> graphnb.StateGraph[Any]:
    graph = graphnb.StateGraph(Counter, name="counter")
    graph.add_node("bump", bump).add_node("check", check)
    graph.add_edge(graphnb.START, "bump").add_edge("bump", "check")
    graph.add_conditional_edges("check", again, {"again": "bump", "done": graphnb.END})
    return graph


@pytest.fixture(autouse=True)
def _forget_modules(monkeypatch):
    # Loaded modules register in sys.modules (get_type_hints looks their globals up there).
    monkeypatch.setattr(sys, "modules", dict(sys.modules))


def load(text: str, path: Path) -> Any:
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def test_the_module_builds_the_same_graph_with_langgraph(tmp_path):
    graph = counter_graph()
    module = load(to_langgraph_module(graph), tmp_path / "counter_lg.py")
    assert type(module.build_graph()).__module__ == "langgraph.graph.state"
    assert module.graph.invoke({"n": 0}) == graph.compile().invoke({"n": 0})
    assert module.graph.name == "counter"


def test_the_module_is_deterministic_and_lint_clean(tmp_path):
    text = to_langgraph_module(counter_graph())
    assert text == to_langgraph_module(counter_graph())
    path = tmp_path / "counter_lg.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--select",
            "E,F,W,I,UP,B",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert "import graphnb" not in text
    assert "from graphnb" not in text


def test_compile_options_and_the_memory_saver_are_carried_over(tmp_path):
    compiled = counter_graph().compile(
        checkpointer=MemorySaver(), interrupt_before=["check"], recursion_limit=7
    )
    text = to_langgraph_module(compiled)
    assert "checkpointer=InMemorySaver()" in text
    assert 'interrupt_before=["check"]' in text
    module = load(text, tmp_path / "paused.py")
    config = {"configurable": {"thread_id": "t"}}
    module.graph.invoke({"n": 0}, config)
    assert module.graph.get_state(config).next == ("check",)
    assert module.graph.config["recursion_limit"] == 7


def test_a_langgraph_graph_goes_round_trip(tmp_path):
    original = LGStateGraph(Counter)
    original.add_node("bump", bump)
    original.add_edge(START, "bump")
    original.add_edge("bump", END)
    module = load(to_langgraph_module(from_langgraph(original)), tmp_path / "round.py")
    assert module.graph.invoke({"n": 4}) == original.compile().invoke({"n": 4})


class Flaky(Exception):
    pass


ATTEMPTS: list[int] = []


def flaky(state: Counter) -> dict[str, Any]:
    ATTEMPTS.append(1)
    if len(ATTEMPTS) % 3:
        raise Flaky("down")
    return {"n": state["n"] + 1}


async def double(state: Counter) -> dict[str, Any]:
    return {"n": state["n"] * 2}


def policed_graph() -> graphnb.StateGraph[Any]:
    retry = graphnb.RetryPolicy(max_attempts=4, initial_interval=0.001, retry_on=(Flaky, OSError))
    graph = graphnb.StateGraph(Counter, name="policed")
    graph.add_node("flaky", flaky, retry=retry, metadata={"owner": "ada", "tags": [1, None]})
    graph.add_node("double", double, timeout=2.5, cache=graphnb.CachePolicy(ttl=30))
    graph.add_edge(graphnb.START, "flaky").add_edge("flaky", "double")
    return graph.add_edge("double", graphnb.END)


def test_retry_timeout_cache_and_metadata_are_carried_over_and_back(tmp_path):
    import asyncio

    text = to_langgraph_module(policed_graph())
    assert "retry_on=(Flaky, OSError)" in text
    assert "graph = build_graph().compile(cache=InMemoryCache()" in text
    module = load(text, tmp_path / "policed.py")
    node = module.build_graph().nodes["flaky"]
    assert node.retry_policy.max_attempts == 4
    assert node.metadata == {"owner": "ada", "tags": [1, None]}
    assert module.build_graph().nodes["double"].timeout.run_timeout == 2.5
    assert asyncio.run(module.graph.ainvoke({"n": 1, "items": []}))["n"] == 4
    assert len(module.ATTEMPTS) == 3, "retried twice on LangGraph, as on graphnb"

    def comparable(node: Any) -> dict[str, Any]:  # callables live in another module
        data: dict[str, Any] = node.model_dump(exclude={"binding"})
        if data.get("retry"):
            data["retry"]["retry_on"] = [b.split(":")[-1] for b in data["retry"]["retry_on"]]
        return data

    back = from_langgraph(module.build_graph()).spec
    # (the import adds nodes by name, the order LangGraph runs a step's nodes in)
    assert sorted(map(comparable, back.nodes), key=str) == sorted(
        map(comparable, policed_graph().spec.nodes), key=str
    )


def test_policies_langgraph_cannot_run_the_same_way_are_refused():
    timed = graphnb.StateGraph(Counter).add_node(bump, timeout=1.0)
    timed.add_edge(graphnb.START, "bump").add_edge("bump", graphnb.END)
    assert problems_of(timed) == [
        "node 'bump': LangGraph times out only async nodes (it cannot cancel a sync one)"
    ]
    keyed = graphnb.StateGraph(Counter).add_node(bump, cache=graphnb.CachePolicy(fields=("n",)))
    keyed.add_edge(graphnb.START, "bump").add_edge("bump", graphnb.END)
    assert "CachePolicy keys by the whole input" in "\n".join(problems_of(keyed))


class Drawn(GraphState):
    notes: Annotated[list[str], StateField(reducer=graphnb.append)] = []
    text: Annotated[str, StateField(streaming=True)] = ""


def note(state: Drawn) -> dict[str, Any]:
    return {"notes": ["x"]}


def ask(state: Counter) -> dict[str, Any]:
    return {"n": graphnb.interrupt("how many?")}


def with_context(state: Counter, context: Any) -> dict[str, Any]:
    return {}


def fan_out(state: Counter) -> list[graphnb.Send]:
    return [graphnb.Send("bump", {"n": n}) for n in range(2)]


def problems_of(graph: Any) -> list[str]:
    with pytest.raises(ExportError) as caught:
        to_langgraph_module(graph)
    return [str(problem) for problem in caught.value.problems]


def test_graphnb_only_features_are_refused_by_name():
    drawn = graphnb.StateGraph(Drawn).add_node(note)
    drawn.add_edge(graphnb.START, "note").add_edge("note", graphnb.END)
    problems = problems_of(drawn)
    assert any(p.startswith("field 'notes': its StateField is graphnb's") for p in problems)
    assert any(p.startswith("field 'text'") for p in problems)

    untyped = graphnb.StateGraph(dict).add_node("n", lambda state: {})
    untyped.add_edge(graphnb.START, "n").add_edge("n", graphnb.END)
    assert any(p.startswith("state: a dict state") for p in problems_of(untyped))

    nodes = graphnb.StateGraph(Counter).add_node(ask).add_node(with_context)
    nodes.add_edge(graphnb.START, "ask").add_edge("ask", "with_context")
    nodes.add_edge("with_context", graphnb.END)
    problems = problems_of(nodes)
    assert "node 'ask': calls graphnb's interrupt()" in "\n".join(problems)
    assert "node 'with_context': it takes graphnb's run context ('context')" in "\n".join(problems)

    sending = graphnb.StateGraph(Counter).add_node(bump)
    sending.add_conditional_edges(graphnb.START, fan_out, [], sends=["bump"])
    sending.add_edge("bump", graphnb.END)
    assert "router of '__start__': returns graphnb's Send" in "\n".join(problems_of(sending))

    child = graphnb.StateGraph(Counter).add_node(bump)
    child.add_edge(graphnb.START, "bump").add_edge("bump", graphnb.END)
    mapped = graphnb.StateGraph(Counter).add_node("inner", child, inputs={"n": "n"})
    mapped.add_edge(graphnb.START, "inner").add_edge("inner", graphnb.END)
    problems = problems_of(mapped)
    assert problems == [
        "node 'inner': its inputs/outputs mapping has no LangGraph equivalent (a LangGraph "
        "subgraph shares the fields both states declare)"
    ]


class Tally(TypedDict):
    n: Annotated[int, operator.add]


def langgraph_fan_out(state: Tally) -> list[Any]:
    from langgraph.types import Send

    return [Send("bump", {"n": n}) for n in range(1, 3)]


def test_a_router_that_only_sends_keeps_its_conditional_edges_call(tmp_path):
    # A source whose edges are all Send edges (no path to pick) used to be written
    # without its add_conditional_edges call: the LangGraph module never ran its router.
    graph = graphnb.StateGraph(Tally, name="sends").add_node(bump)
    graph.add_conditional_edges(graphnb.START, langgraph_fan_out, [], sends=["bump"])
    graph.add_edge("bump", graphnb.END)
    assert [e.kind for e in graph.spec.edges if e.source == graphnb.START] == ["send"]
    text = to_langgraph_module(graph)
    assert "add_conditional_edges(START, langgraph_fan_out" in text
    module = load(text, tmp_path / "sends_lg.py")
    assert module.graph.invoke({"n": 0}) == {"n": 5}  # 0 + (1 + 1) + (2 + 1)


def test_a_graphnb_subgraph_exports_as_a_compiled_langgraph_node(tmp_path):
    child = graphnb.StateGraph(Counter).add_node(bump)
    child.add_edge(graphnb.START, "bump").add_edge("bump", graphnb.END)
    parent = graphnb.StateGraph(Counter).add_node("inner", child).add_node(check)
    parent.add_edge(graphnb.START, "inner").add_edge("inner", "check")
    parent.add_edge("check", graphnb.END)
    text = to_langgraph_module(parent)
    assert 'builder.add_node("inner", build_inner_graph().compile())' in text
    module = load(text, tmp_path / "nested.py")
    assert module.graph.invoke({"n": 1, "items": []}) == dict(
        parent.compile().invoke({"n": 1, "items": []})
    )


def test_the_command_line_exports_to_langgraph(tmp_path):
    source = tmp_path / "drawn.py"
    source.write_text(
        "from typing import TypedDict\n"
        "from graphnb import END, START, StateGraph\n\n\n"
        "class S(TypedDict):\n    n: int\n\n\n"
        "def inc(state: S) -> dict:\n    return {'n': state['n'] + 1}\n\n\n"
        "graph = StateGraph(S).add_node(inc).add_edge(START, 'inc').add_edge('inc', END)\n",
        encoding="utf-8",
    )
    out = tmp_path / "drawn_lg.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphnb",
            "export",
            str(source),
            "--to",
            "langgraph",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert load(out.read_text(encoding="utf-8"), tmp_path / "again.py").graph.invoke({"n": 1}) == {
        "n": 2
    }
    wrong = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphnb",
            "export",
            str(source),
            "--to",
            "langgraph",
            "-o",
            str(tmp_path / "x.ipynb"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert wrong.returncode != 0
    assert "a LangGraph export is a .py file" in wrong.stderr


@pytest.mark.parametrize(("name", "reserved"), [("fetch:user", ":"), ("a|b", "|")])
def test_a_node_name_langgraph_refuses_is_named_instead_of_written(
    name: str, reserved: str
) -> None:
    graph = graphnb.StateGraph(Counter).add_node(name, bump)
    graph.add_edge(graphnb.START, name).add_edge(name, graphnb.END)
    assert problems_of(graph) == [
        f"node {name!r}: LangGraph refuses a node name holding {reserved!r}"
    ]
