"""The builder's composition face, Python side: subgraph nodes, graphs offered for binding,
policies in the spec, and runs seen through subgraphs and Send instances."""

from __future__ import annotations

import operator
import time
from typing import Annotated, Any

from graphnb import END, START, CachePolicy, GraphState, RetryPolicy, Send, StateGraph
from graphnb.widget import Builder
from graphnb.widget.composition import GRAPH_KEY, find_graphs, subgraph_problems

from .conftest import run_async  # type: ignore[import-not-found]


class Notes(GraphState):
    topic: str = ""
    notes: Annotated[list[str], operator.add] = []


PAUSE = {"search": 0.0}


def search(state: Notes) -> dict[str, Any]:
    time.sleep(PAUSE["search"])  # long enough to be published running, when a test asks
    return {"notes": [f"searched {state.topic}"]}


def summarise(state: Notes) -> dict[str, Any]:
    return {"notes": ["summary"]}


def fan(state: Notes) -> list[Send]:
    return [Send("work", {"topic": topic}) for topic in ("a", "b", "c")]


def work(state: Notes) -> dict[str, Any]:
    return {"notes": [state.topic]}


def prep(state: Notes) -> dict[str, Any]:
    return {}


def _research() -> StateGraph[Notes]:
    child = StateGraph(Notes, name="research").add_node("search", search)
    child.add_node("summarise", summarise)
    child.add_edge(START, "search").add_edge("search", "summarise").add_edge("summarise", END)
    return child


def _namespace(**more: Any) -> dict[str, Any]:
    space: dict[str, Any] = dict(
        Notes=Notes, search=search, summarise=summarise, fan=fan, work=work, prep=prep
    )
    space.update(more)
    return space


def _composed() -> StateGraph[Notes]:
    parent = StateGraph(Notes, name="parent").add_node("research", _research())
    parent.add_node("prep", prep).add_node("work", work)
    parent.add_edge(START, "research").add_edge("research", "prep")
    parent.add_conditional_edges("prep", fan, sends=["work"])
    return parent.add_edge("work", END)


async def _run(builder: Builder) -> Any:
    return await builder.run({"topic": "x"})


def test_a_subgraph_node_is_not_an_unbound_problem_and_the_graph_runs(comm):
    builder = Builder(_composed(), namespace=_namespace())
    assert builder.problems == []
    assert builder.spec.node("research").subgraph is not None
    final = run_async(_run(builder))
    assert final.notes == ["searched x", "summary", "a", "b", "c"]


def test_run_state_keys_inner_nodes_by_path_and_counts_send_instances(comm):
    builder = Builder(_composed(), namespace=_namespace())
    comm.clear()
    PAUSE["search"] = 0.3
    try:
        run_async(_run(builder))
    finally:
        PAUSE["search"] = 0.0
    states = comm.updates("run_state")
    final = states[-1]["nodes"]
    assert final["research/search"]["status"] == "done"
    assert final["research/summarise"]["runs"] == 1
    assert final["work"]["instances"] == {"total": 3, "running": 0, "done": 3, "failed": 0}
    assert final["work"]["status"] == "done"
    # While the child ran, its node was shown running inside the running group.
    running_inside = [
        s["nodes"]
        for s in states
        if s["nodes"].get("research/search", {}).get("status") == "running"
    ]
    assert running_inside
    assert all(n["research"]["status"] == "running" for n in running_inside)
    assert "research/search" not in final.get("active", [])


def test_the_notebook_graphs_are_offered_with_their_specs(comm):
    child = _research()
    builder = Builder(namespace=_namespace(research_graph=child, compiled=child.compile()))
    offered = {g["name"]: g for g in builder.graphs}
    assert set(offered) == {"compiled", "research_graph"}
    assert offered["research_graph"]["kind"] == "StateGraph"
    assert offered["compiled"]["kind"] == "CompiledGraph"
    assert offered["research_graph"]["nodes"] == 2
    assert offered["research_graph"]["spec"]["name"] == "research"
    assert find_graphs({"_hidden": child}) == []


def test_a_node_bound_to_a_notebook_graph_by_the_front_end_runs_it(comm):
    child = _research()
    builder = Builder(namespace=_namespace(research_graph=child))
    spec = {
        "version": 2,
        "name": "drawn",
        "nodes": [
            {
                "id": "inner",
                "binding": None,
                "metadata": {GRAPH_KEY: "research_graph"},
                "subgraph": builder.graphs[0]["spec"],
            }
        ],
        "edges": [
            {"source": START, "target": "inner"},
            {"source": "inner", "target": END},
        ],
        "state": {"kind": "model", "binding": "Notes"},
    }
    comm.receive_update({"spec": spec})
    assert builder.problems == []
    final = run_async(_run(builder))
    assert final.notes == ["searched x", "summary"]


def test_problems_inside_a_subgraph_are_pinned_on_its_node(comm):
    builder = Builder(_composed(), namespace=_namespace())
    spec = builder.spec.model_copy(deep=True)
    child = spec.node("research").subgraph
    assert child is not None
    child.node("search").binding = "no_such_function"
    child.node("summarise").binding = None
    builder.spec = spec
    pinned = [p for p in builder.problems if p["nodes"] == ["research"]]
    messages = " | ".join(p["message"] for p in pinned)
    assert "in subgraph `research`: `summarise` is not bound to a callable." in messages
    assert "no_such_function" in messages
    assert {p["code"] for p in pinned} == {"unbound", "unresolved"}
    assert subgraph_problems(builder.spec.model_copy(update={"nodes": []})) == []


def test_policies_written_by_the_panel_reach_the_compiled_graph(comm):
    calls: list[int] = []

    def flaky(state: Notes) -> dict[str, Any]:
        calls.append(1)
        if len(calls) < 2:
            raise ConnectionError("try again")
        return {"notes": ["ok"]}

    graph = StateGraph(Notes, name="g").add_node("flaky", flaky)
    graph.add_edge(START, "flaky").add_edge("flaky", END)
    builder = Builder(graph, namespace=_namespace(flaky=flaky))
    spec = builder.spec.to_dict()
    node = spec["nodes"][0]
    node["retry"] = {
        "max_attempts": 3,
        "initial_interval": 0,
        "backoff_factor": 1,
        "max_interval": 0,
        "jitter": False,
        "retry_on": None,
    }
    node["timeout"] = 5
    node["cache"] = {"ttl": 60, "version": "v1", "fields": None}
    comm.receive_update({"spec": spec})
    assert builder.spec.nodes[0].retry is not None
    assert builder.spec.nodes[0].timeout == 5
    compiled = builder.compile()
    assert compiled.invoke({"topic": "t"}).notes == ["ok"]
    assert len(calls) == 2
    assert compiled.invoke({"topic": "t"}).notes == ["ok"]  # from the cache
    assert len(calls) == 2


def test_retries_and_cache_hits_show_in_the_run_state(comm):
    calls: list[int] = []

    def flaky(state: Notes) -> dict[str, Any]:
        calls.append(1)
        if len(calls) % 2:
            raise ConnectionError("try again")
        return {"notes": ["ok"]}

    graph = StateGraph(Notes, name="g").add_node(
        "flaky",
        flaky,
        retry=RetryPolicy(initial_interval=0, jitter=False),
        cache=CachePolicy(version="v1"),
    )
    graph.add_edge(START, "flaky").add_edge("flaky", END)
    builder = Builder(graph, namespace=_namespace(flaky=flaky))
    comm.clear()
    run_async(_run(builder))
    first = comm.updates("run_state")[-1]["nodes"]["flaky"]
    assert first["retries"] == 1
    assert "cache_hits" not in first
    assert len(calls) == 2


class Loop(GraphState):
    topic: str = ""
    rounds: Annotated[int, operator.add] = 0


def cached(state: Loop) -> dict[str, Any]:
    return {"rounds": 1}


def again(state: Loop) -> str:
    return "cached" if state.rounds < 3 else END


def test_cache_hits_show_in_the_run_state(comm):
    graph = StateGraph(Loop, name="g").add_node(
        "cached", cached, cache=CachePolicy(fields=("topic",))
    )
    graph.add_edge(START, "cached")
    graph.add_conditional_edges("cached", again, routes=["cached", END])
    builder = Builder(graph, namespace={"Loop": Loop, "cached": cached, "again": again})
    comm.clear()
    final = run_async(_run(builder))
    assert final.rounds == 3
    record = comm.updates("run_state")[-1]["nodes"]["cached"]
    assert record["cache_hits"] == 2
    assert record["runs"] == 3


def test_a_graph_of_lambdas_bound_by_name_runs_as_it_is_until_its_child_is_edited(comm):
    lambdas = StateGraph(Notes, name="lambdas").add_node(
        "shout", lambda state: {"notes": [state.topic.upper()]}
    )
    lambdas.add_edge(START, "shout").add_edge("shout", END)
    for graph in (lambdas, lambdas.compile()):
        builder = Builder(namespace=_namespace(lambdas=graph))
        offered = builder.graphs[0]
        spec = {
            "version": 2,
            "name": "host",
            "nodes": [
                {"id": "inner", "metadata": {GRAPH_KEY: "lambdas"}, "subgraph": offered["spec"]}
            ],
            "edges": [{"source": START, "target": "inner"}, {"source": "inner", "target": END}],
            "state": {"kind": "model", "binding": "Notes"},
        }
        comm.receive_update({"spec": spec})
        assert builder.problems == []
        assert run_async(_run(builder)).notes == ["X"]
        assert builder.compile().invoke({"topic": "y"}).notes == ["Y"]
        # Moving the child's nodes is no edit of what it runs ...
        spec["nodes"][0]["subgraph"]["nodes"][0]["position"] = {"x": 500, "y": 500}
        comm.receive_update({"spec": spec})
        assert builder.problems == []
        # ... renaming one is: the child is then built from its spec, and says what it lacks.
        spec["nodes"][0]["subgraph"]["nodes"][0]["id"] = "yell"
        for edge in spec["nodes"][0]["subgraph"]["edges"]:
            edge["source"] = "yell" if edge["source"] == "shout" else edge["source"]
            edge["target"] = "yell" if edge["target"] == "shout" else edge["target"]
        comm.receive_update({"spec": spec})
        assert [p["message"] for p in builder.problems] == [
            "in subgraph `inner`: `yell` is not bound to a callable."
        ]


def test_a_child_given_in_code_runs_its_lambdas(comm):
    child = StateGraph(Notes, name="kid").add_node("x", lambda state: {"notes": ["kid"]})
    child.add_edge(START, "x").add_edge("x", END)
    parent = StateGraph(Notes, name="parent").add_node("kid", child)
    parent.add_edge(START, "kid").add_edge("kid", END)
    builder = Builder(parent, namespace={"Notes": Notes})
    assert builder.problems == []
    assert run_async(_run(builder)).notes == ["kid"]
