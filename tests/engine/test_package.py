"""The package surface: what `import graphnb` exposes and what it must not import."""

from __future__ import annotations

import json
import subprocess
import sys

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


def test_package_ships_type_information():
    from importlib.resources import files

    assert files("graphnb").joinpath("py.typed").is_file()
