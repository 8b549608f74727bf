"""The package surface: what `import graphnb` exposes and what it must not import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import graphnb

PUBLIC = {
    "DEFAULT_RECURSION_LIMIT",
    "END",
    "START",
    "BindingError",
    "Chunk",
    "CompiledGraph",
    "Command",
    "ConflictingUpdateError",
    "EdgeSpec",
    "Event",
    "FieldSpec",
    "GraphRecursionError",
    "GraphRuntimeError",
    "GraphSetupError",
    "GraphSpec",
    "GraphState",
    "GraphValidationError",
    "GraphnbError",
    "Interrupt",
    "Interrupted",
    "InvalidUpdateError",
    "NodeError",
    "NodeFailed",
    "NodeFinished",
    "NodeSpec",
    "NodeStarted",
    "Position",
    "Reducer",
    "RouteError",
    "RunContext",
    "Runtime",
    "Send",
    "CacheHit",
    "CachePolicy",
    "MemoryCache",
    "NodeRetrying",
    "NodeTimeout",
    "RetryPolicy",
    "StateField",
    "StateGraph",
    "StateSnapshot",
    "StateSpec",
    "StepFinished",
    "StreamMode",
    "Streamed",
    "__version__",
    "add",
    "append",
    "get_stream_writer",
    "interrupt",
    "merge",
    "replace",
}


def test_all_is_exactly_the_public_api():
    assert set(graphnb.__all__) == PUBLIC
    for name in graphnb.__all__:
        assert hasattr(graphnb, name), name


def test_import_pulls_in_no_heavy_dependency():
    code = (
        "import sys, json, graphnb; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'networkx', 'ipywidgets', 'anywidget', 'IPython', 'nbformat', 'traitlets', 'asyncio'}"
        " or m.startswith('graphnb.checkpoint'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_import_leaves_pydantic_until_a_name_that_needs_it_is_used():
    # Pydantic's import is most of a fresh process's start-up: specs, typed states and
    # checkpoint metadata load it on first use, through the package's __getattr__.
    code = (
        "import sys, json, graphnb; "
        "before = sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', "
        "'pydantic_core', 'logging', 'concurrent'}); "
        "listed = 'StateGraph' in dir(graphnb) and 'GraphState' in dir(graphnb); "
        "graph = graphnb.StateGraph(dict); "
        "built = 'pydantic' in sys.modules; "
        "spec = graphnb.GraphSpec; "
        "print(json.dumps([before, listed, built, 'pydantic' in sys.modules, graphnb.START, "
        "type(graph).__module__]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # tab completion (dir) lists the names before they load
    assert json.loads(out.stdout) == [[], True, False, True, "__start__", "graphnb.graph"]


_DICT_RUN = """
import json, sys
from graphnb import END, START, StateGraph

def route(state):
    return "done" if state["n"] >= 3 else "again"

def count(state):
    return {"n": state.get("n", 0) + 1, "seen": ["count"]}

graph = StateGraph(dict, reducers={"seen": lambda old, new: old + new})
graph.add_node(count)
graph.add_node("left", lambda state: {"seen": ["left"]})
graph.add_node("right", lambda state: {"seen": ["right"]})
graph.add_node("report", lambda state: {"seen": ["report"]}, label="Report")
graph.add_edge(START, "count")
graph.add_conditional_edges("count", route, {"again": "count", "done": "left"})
graph.add_edge("left", "right")
graph.add_edge(["left", "right"], "report")
graph.add_edge("report", END)
app = graph.compile()
result = app.invoke({"n": 0, "seen": []})
events = [type(event).__name__ for event in app.stream({"n": 2, "seen": []})]
loaded = "pydantic" in sys.modules
spec = app.spec
print(json.dumps({
    "result": result,
    "events": len(events),
    "pydantic_after_run": loaded,
    "pydantic_after_spec": "pydantic" in sys.modules,
    "spec_type": type(spec).__name__,
    "spec": spec.to_dict(),
    "same_as_builder": graph.spec == spec,
}))
"""


def test_a_dict_state_graph_builds_and_runs_without_pydantic():
    # `from graphnb import StateGraph` on a dict state must stay as light as the peers'
    # imports (benchmarks/, import scenario): pydantic loads only when a spec is asked for.
    out = subprocess.run(
        [sys.executable, "-c", _DICT_RUN], capture_output=True, text=True, check=True
    )
    found = json.loads(out.stdout)
    assert found["result"] == {
        "n": 3,
        "seen": ["count", "count", "count", "left", "right", "report"],
    }
    assert found["events"] > 0
    assert found["pydantic_after_run"] is False
    # the spec is still there, whole and validated, once asked for
    assert (found["pydantic_after_spec"], found["spec_type"]) == (True, "GraphSpec")
    assert found["same_as_builder"] is True
    spec = found["spec"]
    assert [node["id"] for node in spec["nodes"]] == ["count", "left", "right", "report"]
    assert spec["nodes"][3]["label"] == "Report"
    assert spec["nodes"][0]["binding"].endswith("count")
    assert spec["routers"]["count"].endswith("route")
    edges = {(e["source"], e["target"], e["kind"], e["route"]) for e in spec["edges"]}
    assert edges == {
        ("__start__", "count", "direct", None),
        ("count", "count", "conditional", "again"),
        ("count", "left", "conditional", "done"),
        ("left", "right", "direct", None),
        ("left", "report", "join", None),
        ("right", "report", "join", None),
        ("report", "__end__", "direct", None),
    }
    assert spec["state"] == {
        "kind": "dict",
        "binding": None,
        "fields": [
            {
                "name": "seen",
                "type": "Any",
                "reducer": "<lambda>",
                "alias": None,
                "streaming": False,
                "required": False,
            }
        ],
    }


def test_a_model_state_graph_still_validates_its_writes_in_a_fresh_process():
    code = (
        "import json, sys\n"
        "from graphnb import END, START, GraphState, InvalidUpdateError, StateGraph\n"
        "class S(GraphState):\n"
        "    n: int = 0\n"
        "graph = StateGraph(S)\n"
        "graph.add_node('inc', lambda s: {'n': s.n + 1})\n"
        "graph.add_edge(START, 'inc').add_edge('inc', END)\n"
        "ok = graph.compile().invoke({'n': 1})\n"
        "graph2 = StateGraph(S)\n"
        "graph2.add_node('bad', lambda s: {'n': 'many'})\n"
        "graph2.add_edge(START, 'bad').add_edge('bad', END)\n"
        "try:\n"
        "    graph2.compile().invoke({})\n"
        "    refused = None\n"
        "except InvalidUpdateError as error:\n"
        "    refused = str(error)\n"
        "print(json.dumps([ok.n, refused, graph.spec.state.kind]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n, refused, kind = json.loads(out.stdout)
    assert (n, kind) == (2, "model")
    assert refused is not None
    assert "'n'" in refused
    assert "int" in refused


def test_lazy_names_are_the_modules_own_objects():
    from graphnb.engine.compiled import CompiledGraph
    from graphnb.graph import StateGraph
    from graphnb.spec import END, START
    from graphnb.state import GraphState

    assert (graphnb.StateGraph, graphnb.CompiledGraph) == (StateGraph, CompiledGraph)
    assert (graphnb.START, graphnb.END, graphnb.GraphState) == (START, END, GraphState)
    namespace: dict[str, object] = {}
    exec("from graphnb import *", namespace)
    assert PUBLIC - {"__version__"} <= set(namespace)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        graphnb.Nope  # noqa: B018


def test_package_ships_type_information():
    from importlib.resources import files

    assert files("graphnb").joinpath("py.typed").is_file()


@pytest.mark.parametrize(
    ("build", "named"),
    [
        (lambda g: g.add_node("a", len, label=3), "label"),
        (lambda g: g.add_node("a", len, metadata={"x": object()}), "metadata.x"),
        (lambda g: g.add_edge("a", 5), "target"),
        (lambda g: g.add_edge(["a", "b"], "c", label=7), "label"),
    ],
)
def test_a_drafted_graph_still_refuses_a_bad_value_where_it_is_given(build, named):
    # The builder keeps plain nodes and edges out of pydantic, but not its checks.
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=named):
        build(graphnb.StateGraph(dict))
