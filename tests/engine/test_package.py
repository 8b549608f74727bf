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
    # Pydantic's import is most of a fresh process's start-up: the builder, specs, typed
    # states and checkpoint records load it on first use, through the package's __getattr__.
    code = (
        "import sys, json, graphnb; "
        "before = sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', "
        "'pydantic_core', 'logging', 'concurrent'}); "
        "listed = 'StateGraph' in dir(graphnb) and 'GraphState' in dir(graphnb); "
        "graph = graphnb.StateGraph(dict); "
        "print(json.dumps([before, listed, 'pydantic' in sys.modules, graphnb.START, "
        "type(graph).__module__]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # tab completion (dir) lists the names before they load
    assert json.loads(out.stdout) == [[], True, True, "__start__", "graphnb.graph"]


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
