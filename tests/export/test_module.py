from __future__ import annotations

import json
import math
import operator
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.cli.demo import build as build_demo
from graphnb.export import ExportError, load_module, to_module, write_module

STEPS = 3
GREETING = "hello"


class Notes(GraphState):
    items: Annotated[list[str], StateField(reducer=append)] = []
    count: int = 0
    answer: Annotated[str, StateField(streaming=True, alias="finalAnswer")] = ""


def _label(count: int) -> str:
    return json.dumps({"n": count, "root": round(math.sqrt(count), 2)})


def collect(state: Notes) -> dict[str, Any]:
    return {"items": [_label(state.count)], "count": state.count + 1}


def decide(state: Notes) -> Literal["again", "done"]:
    return "again" if state.count < STEPS else "done"


def speak(state: Notes):
    yield from (GREETING, " ", "world")


def looping_graph() -> StateGraph[Notes]:
    graph = StateGraph(Notes, name="loop")
    graph.add_node("collect", collect, label="Collect", position=(10, 20.5))
    graph.add_node("speak", speak)
    graph.add_edge(START, "collect")
    graph.add_conditional_edges("collect", decide, {"again": "collect", "done": "speak"})
    graph.add_edge("speak", END)
    return graph


def run_python(path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(path), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("ruff")
    if binary is None:
        pytest.skip("ruff is not installed")
    return subprocess.run([binary, *args], capture_output=True, text=True, check=False)


def test_exported_module_runs_as_a_subprocess_and_prints_the_final_state(tmp_path: Path) -> None:
    path = write_module(looping_graph(), tmp_path / "loop.py")
    done = run_python(path, "--input", '{"count": 1}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout)
    assert final["count"] == 3
    assert final["answer"] == "hello world"
    assert final["items"] == [_label(1), _label(2)]
    assert "> collect" in done.stderr
    assert "hello world" in done.stderr


def test_exported_module_gives_the_same_final_state_as_the_original(tmp_path: Path) -> None:
    original = looping_graph().compile().invoke({"finalAnswer": "x"})
    module = load_module(write_module(looping_graph(), tmp_path / "loop_same.py"))
    exported = module.graph.invoke({"finalAnswer": "x"})
    assert exported.model_dump() == original.model_dump()
    assert type(exported).__name__ == "Notes"


def test_exported_module_holds_sources_and_only_the_imports_they_need() -> None:
    text = to_module(looping_graph(), ruff=False)
    assert "def collect(state: Notes)" in text
    assert "def _label(count: int) -> str:" in text
    assert "class Notes(GraphState):" in text
    assert "STEPS = 3" in text
    assert "GREETING = 'hello'" in text or 'GREETING = "hello"' in text
    assert "import json\nimport math\n" in text
    assert "from graphnb import END, START, GraphState, StateField, StateGraph, append" in text
    assert "pytest" not in text
    assert 'label="Collect", position=(10.0, 20.5)' in text
    assert '{"again": "collect", "done": "speak"}' in text


def test_node_and_edge_metadata_and_edge_labels_are_kept(tmp_path: Path) -> None:
    graph = looping_graph()
    graph.add_node("tag", collect, metadata={"owner": "ada", "tags": ["x", 1.5, None, True]})
    graph.add_edge("tag", END, label="stop here", metadata={"why": {"nested": [1]}})
    graph.add_edge(START, "tag")
    module = load_module(write_module(graph, tmp_path / "kept.py"))
    exported = module.build_graph().spec
    assert [n.metadata for n in exported.nodes] == [n.metadata for n in graph.spec.nodes]
    assert [(e.label, e.metadata) for e in exported.edges] == [
        (e.label, e.metadata) for e in graph.spec.edges
    ]


def test_export_is_deterministic() -> None:
    assert to_module(looping_graph()) == to_module(looping_graph())
    assert to_module(looping_graph(), ruff=False) == to_module(looping_graph(), ruff=False)


def test_export_is_formatted_and_lint_clean(tmp_path: Path) -> None:
    path = write_module(looping_graph(), tmp_path / "clean.py")
    checked = ruff("check", "--isolated", "--no-cache", "--select", "E,F,W,I,B", str(path))
    assert checked.returncode == 0, checked.stdout
    formatted = ruff("format", "--isolated", "--no-cache", "--check", str(path))
    assert formatted.returncode == 0, formatted.stdout


def test_export_without_ruff_still_compiles_and_lints(tmp_path: Path) -> None:
    path = tmp_path / "raw.py"
    path.write_text(to_module(looping_graph(), ruff=False), encoding="utf-8")
    compile(path.read_text(encoding="utf-8"), str(path), "exec")
    checked = ruff("check", "--isolated", "--no-cache", "--select", "E,F,W,I", str(path))
    assert checked.returncode == 0, checked.stdout


def test_library_callables_are_imported_not_copied() -> None:
    text = to_module(build_demo())
    assert "from graphnb.cli.demo import DemoState, outline, write" in text
    assert "def outline" not in text


def test_c_reducers_of_dict_states_are_imported_from_their_public_module(
    tmp_path: Path,
) -> None:
    def count(state: dict[str, Any]) -> dict[str, Any]:
        return {"total": 2, "log": ["counted"]}

    graph = StateGraph(dict, reducers={"total": operator.mul, "log": append}, name="sum")
    graph.add_node("count", count).add_edge(START, "count").add_edge("count", END)
    text = to_module(graph)
    assert "from operator import mul" in text
    assert 'reducers={"total": mul, "log": append}' in text
    path = tmp_path / "sums.py"
    path.write_text(text, encoding="utf-8")
    done = run_python(path, "-q", "-i", '{"total": 40, "log": ["start"]}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"total": 80, "log": ["start", "counted"]}


@pytest.mark.parametrize(
    "name",
    [
        "with space",
        "quote's",
        'double "quoted"',
        "ünïcødé ✓",
        "class",
        "None",
        "a\\b",
        "tab\tnew\nline",
    ],
)
def test_odd_node_names_survive_the_export(name: str, tmp_path: Path) -> None:
    def mark(state: Notes, context: Any) -> dict[str, Any]:
        return {"items": [context.node]}

    graph = StateGraph(Notes, name=name)
    graph.add_node(name, mark, label=name).add_edge(START, name).add_edge(name, END)
    module = load_module(write_module(graph, tmp_path / "odd.py"))
    assert module.graph.spec.nodes[0].id == name
    assert module.graph.spec.nodes[0].label == name
    assert module.graph.spec.name == name
    assert module.graph.invoke({}).items == [name]


def test_lambdas_closures_and_notebook_instances_fail_with_every_reason() -> None:
    factor = 3

    def scaled(state: dict[str, Any]) -> dict[str, Any]:
        return {"x": state["x"] * factor}

    class Model:
        def __call__(self, state: dict[str, Any]) -> dict[str, Any]:
            return {}

    graph = StateGraph(dict, name="bad")
    graph.add_node("double", lambda state: {"x": state["x"] * 2})
    graph.add_node("scaled", scaled)
    graph.add_node("model", Model())
    graph.add_edge(START, "double").add_edge("double", "scaled").add_edge("scaled", "model")
    graph.add_edge("model", END)
    with pytest.raises(ExportError) as caught:
        to_module(graph)
    problems = {problem.name: problem.reason for problem in caught.value.problems}
    assert set(problems) == {"node 'double'", "node 'scaled'", "node 'model'"}
    assert "lambda" in problems["node 'double'"]
    assert "closure over factor" in problems["node 'scaled'"]
    assert "instance of" in problems["node 'model'"]
    assert "cannot export 'bad'" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_lambda_bound_in_an_importable_module_is_imported_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "shortcuts.py").write_text(
        "double = lambda state: {'x': state['x'] * 2}\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    shortcuts = importlib.import_module("shortcuts")
    graph = StateGraph(dict, name="lam")
    graph.add_node("double", shortcuts.double).add_edge(START, "double").add_edge("double", END)
    text = to_module(graph)
    assert "from shortcuts import double" in text
    path = tmp_path / "lam.py"
    path.write_text(text, encoding="utf-8")
    done = run_python(path, "-q", "-i", '{"x": 21}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"x": 42}


def test_a_helper_missing_from_its_module_is_reported() -> None:
    def broken(state: dict[str, Any]) -> dict[str, Any]:
        return {"x": undefined_helper(state)}  # type: ignore[name-defined]  # noqa: F821

    graph = StateGraph(dict, name="missing")
    graph.add_node("broken", broken).add_edge(START, "broken").add_edge("broken", END)
    with pytest.raises(ExportError, match="'undefined_helper' is not defined"):
        to_module(graph)


def main(state: dict[str, Any]) -> dict[str, Any]:
    return {"ran": [*state.get("ran", []), "main"]}


def graph(state: dict[str, Any]) -> dict[str, Any]:
    return {"ran": [*state.get("ran", []), "graph"]}


def build_graph(state: dict[str, Any]) -> dict[str, Any]:
    return {"ran": [*state.get("ran", []), "build_graph"]}


def test_user_names_that_clash_with_generated_ones_get_other_names(tmp_path: Path) -> None:
    builder = StateGraph(dict, name="clash")
    builder.add_node("main", main).add_node("graph", graph).add_node("build", build_graph)
    builder.add_edge(START, "main").add_edge("main", "graph").add_edge("graph", "build")
    text = to_module(builder.add_edge("build", END))
    assert "def main_(argv" in text
    # The builder's variable must not shadow the node callable named `graph`.
    assert 'graph_.add_node("graph", graph)' in text
    assert "graph_ = build_graph_().compile()" in text
    path = tmp_path / "clash.py"
    path.write_text(text, encoding="utf-8")
    done = run_python(path, "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ran": ["main", "graph", "build_graph"]}


def test_exported_module_documents_how_to_run_it_and_has_help(tmp_path: Path) -> None:
    path = write_module(looping_graph(), tmp_path / "loop_help.py")
    text = path.read_text(encoding="utf-8")
    assert "python loop_help.py --input '{\"items\": []}'" in text
    done = run_python(path, "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "Run the graph 'loop'" in done.stdout
    for option in ("--input", "--input-file", "--thread", "--db", "--quiet"):
        assert option in done.stdout


def test_compile_options_of_a_compiled_graph_are_kept(tmp_path: Path) -> None:
    compiled = looping_graph().compile(recursion_limit=7, interrupt_before=["speak"])
    text = to_module(compiled, ruff=False)
    # interrupt_before needs a thread: the module keeps one in memory
    assert (
        "graph = build_graph().compile(\n"
        '    recursion_limit=7, interrupt_before=["speak"], checkpointer="memory://"\n)'
    ) in text
    module = load_module(write_module(compiled, tmp_path / "options.py"))
    assert module.graph.recursion_limit == 7
    assert module.graph.interrupt_before == frozenset({"speak"})
