from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

FLOW = """
from typing import Annotated

from graphnb import END, START, GraphState, StateField, StateGraph, append


class Count(GraphState):
    seen: Annotated[list[str], StateField(reducer=append)] = []
    total: int = 0
    text: Annotated[str, StateField(streaming=True)] = ""


def add(state: Count) -> dict:
    if state.total < 0:
        raise ValueError("negative totals are not allowed")
    return {"seen": ["add"], "total": state.total + 1}


def talk(state: Count):
    yield from ("one ", "two")


builder = StateGraph(Count, name="count")
builder.add_node("add", add).add_node("talk", talk)
builder.add_edge(START, "add").add_edge("add", "talk").add_edge("talk", END)
graph = builder.compile()
other = StateGraph(dict, name="other")
"""


def python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``cwd``, its output captured."""
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def graphnb(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return python("-c", "from graphnb.cli import main; raise SystemExit(main())", *args, cwd=cwd)


@pytest.fixture
def flow(tmp_path: Path) -> Path:
    path = tmp_path / "flow.py"
    path.write_text(FLOW, encoding="utf-8")
    return path


def test_help_lists_every_command(tmp_path: Path) -> None:
    done = graphnb("--help", cwd=tmp_path)
    assert done.returncode == 0
    for command in ("run", "draw", "export", "threads"):
        assert command in done.stdout


def test_run_streams_progress_to_stderr_and_prints_the_final_state(
    flow: Path, tmp_path: Path
) -> None:
    done = graphnb("run", f"{flow}:graph", "--input", '{"total": 41}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"seen": ["add"], "total": 42, "text": "one two"}
    assert "> add (step 0)" in done.stderr
    assert "< add wrote seen, total" in done.stderr
    assert "one two" in done.stderr
    assert "done: 2 steps in " in done.stderr


def test_run_picks_the_graph_named_graph_and_compiles_builders(flow: Path, tmp_path: Path) -> None:
    assert json.loads(graphnb("run", str(flow), "-q", cwd=tmp_path).stdout)["total"] == 1
    built = graphnb("run", f"{flow}:builder", "-q", cwd=tmp_path)
    assert json.loads(built.stdout)["total"] == 1


def test_run_prints_standard_json_when_the_state_holds_nan_or_infinities(
    tmp_path: Path,
) -> None:
    """``json.dumps`` writes ``NaN``, which JSON parsers refuse (or jq turns into null)."""
    (tmp_path / "nan.py").write_text(
        "from graphnb import END, START, StateGraph\n"
        "def score(state):\n"
        "    return {'score': float('nan'), 'range': [0.5, float('-inf')]}\n"
        "graph = StateGraph(dict).add_node('score', score)\n"
        "graph.add_edge(START, 'score').add_edge('score', END)\n",
        encoding="utf-8",
    )
    done = graphnb("run", "nan.py", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr

    def refuse(constant: str) -> None:
        raise AssertionError(f"not standard JSON: {constant}")

    printed = json.loads(done.stdout, parse_constant=refuse)
    assert printed == {"score": "nan", "range": [0.5, "-inf"]}


def test_run_reads_input_from_a_file(flow: Path, tmp_path: Path) -> None:
    (tmp_path / "in.json").write_text('{"total": 9}', encoding="utf-8")
    done = graphnb("run", str(flow), "--input-file", "in.json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total"] == 10
    assert done.stderr == ""


def test_run_rejects_bad_json_with_exit_code_2(flow: Path, tmp_path: Path) -> None:
    done = graphnb("run", str(flow), "--input", "{total: 1}", cwd=tmp_path)
    assert done.returncode == 2
    assert "--input is not valid JSON" in done.stderr
    assert done.stdout == ""
    listed = graphnb("run", str(flow), "--input", "[1, 2]", cwd=tmp_path)
    assert listed.returncode == 2
    assert "must be a JSON object" in listed.stderr
    (tmp_path / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    encoded = graphnb("run", str(flow), "--input-file", "latin1.json", cwd=tmp_path)
    assert encoded.returncode == 2
    assert "error: latin1.json is not UTF-8 text: byte 13 is 0xe9" in encoded.stderr


def test_run_of_a_missing_file_exits_with_code_3(tmp_path: Path) -> None:
    done = graphnb("run", "nowhere.py", cwd=tmp_path)
    assert done.returncode == 3
    assert "no such file: nowhere.py" in done.stderr


def test_run_of_an_unknown_graph_lists_the_graphs_and_exits_with_code_2(
    flow: Path, tmp_path: Path
) -> None:
    done = graphnb("run", f"{flow}:missing", cwd=tmp_path)
    assert done.returncode == 2
    assert "no graph named 'missing'" in done.stderr
    assert "builder, graph, other" in done.stderr


def test_run_of_a_file_that_raises_exits_with_code_3(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("import nonexistent_module_xyz\n", encoding="utf-8")
    done = graphnb("run", "bad.py", cwd=tmp_path)
    assert done.returncode == 3
    assert "ModuleNotFoundError" in done.stderr


def test_run_of_a_failing_node_exits_with_code_1(flow: Path, tmp_path: Path) -> None:
    done = graphnb("run", str(flow), "--input", '{"total": -5}', cwd=tmp_path)
    assert done.returncode == 1
    assert "negative totals are not allowed" in done.stderr
    assert done.stdout == ""


def test_run_executes_a_graph_defined_in_a_notebook(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOW)])
    nbformat.write(notebook, str(tmp_path / "flow.ipynb"))
    done = graphnb("run", "flow.ipynb:graph", "-q", "-i", '{"total": 1}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total"] == 2


@pytest.mark.parametrize(
    ("suffix", "start"), [(".svg", "<svg"), (".mmd", "---"), (".dot", "digraph")]
)
def test_draw_writes_the_format_its_suffix_names(
    flow: Path, tmp_path: Path, suffix: str, start: str
) -> None:
    done = graphnb("draw", f"{flow}:graph", "-o", f"out{suffix}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / f"out{suffix}").read_text(encoding="utf-8")
    assert start in text[:200]
    assert "talk" in text


def test_draw_without_output_prints_mermaid(flow: Path, tmp_path: Path) -> None:
    done = graphnb("draw", f"{flow}:graph", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "flowchart" in done.stdout
    assert "add --> talk" in done.stdout


def test_draw_to_an_unknown_format_exits_with_code_2(flow: Path, tmp_path: Path) -> None:
    done = graphnb("draw", f"{flow}:graph", "-o", "out.png", cwd=tmp_path)
    assert done.returncode == 2
    assert ".png" in done.stderr
    assert not (tmp_path / "out.png").exists()


def test_export_turns_a_notebook_into_a_module_that_runs(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOW)])
    nbformat.write(notebook, str(tmp_path / "flow.ipynb"))
    done = graphnb("export", "flow.ipynb:graph", "-o", "count.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "class Count(GraphState):" in (tmp_path / "count.py").read_text(encoding="utf-8")
    ran = python("count.py", "-q", "-i", '{"total": 2}', cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {"seen": ["add"], "total": 3, "text": "one two"}


def test_export_to_a_notebook_and_to_stdout(flow: Path, tmp_path: Path) -> None:
    done = graphnb("export", f"{flow}:graph", "-o", "count.ipynb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cells = nbformat.read(str(tmp_path / "count.ipynb"), as_version=4).cells
    assert any("def build_graph()" in cell.source for cell in cells)
    printed = graphnb("export", f"{flow}:graph", cwd=tmp_path)
    assert printed.returncode == 0
    assert printed.stdout.startswith('"""The graph \'count\'')


def test_export_of_an_unexportable_graph_lists_the_reasons(tmp_path: Path) -> None:
    (tmp_path / "lam.py").write_text(
        "from graphnb import END, START, StateGraph\n"
        "def make():\n"
        "    k = 2\n"
        "    def times(state):\n"
        "        return {'x': state['x'] * k}\n"
        "    return times\n"
        "graph = StateGraph(dict)\n"
        "graph.add_node('times', make()).add_edge(START, 'times').add_edge('times', END)\n",
        encoding="utf-8",
    )
    done = graphnb("export", "lam.py", "-o", "out.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "node 'times': it is a closure over k" in done.stderr
    assert not (tmp_path / "out.py").exists()


def test_export_to_an_unknown_suffix_exits_with_code_2(flow: Path, tmp_path: Path) -> None:
    done = graphnb("export", f"{flow}:graph", "-o", "out.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "use a .py or .ipynb file" in done.stderr


DOUBLING = """
from graphnb import END, START, StateGraph


def double(state):
    return {"x": state["x"] * 2}


graph = StateGraph(dict).add_node("double", double)
graph.add_edge(START, "double").add_edge("double", END)
"""


@pytest.mark.parametrize("name", ["my-flow.py", "test.py", "1st.py"])
def test_export_of_a_file_whose_name_is_no_module_name_writes_its_functions(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / name).write_text(DOUBLING, encoding="utf-8")
    done = graphnb("export", name, "-o", "out.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out.py").read_text(encoding="utf-8")
    assert "def double(state):" in text
    assert "graphnb_file" not in text
    ran = python("out.py", "-q", "-i", '{"x": 1}', cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {"x": 2}


def test_export_of_a_lambda_in_a_file_whose_name_is_no_module_name_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "my-flow.py").write_text(
        DOUBLING.replace(
            'def double(state):\n    return {"x": state["x"] * 2}',
            'double = lambda state: {"x": state["x"] * 2}',
        ),
        encoding="utf-8",
    )
    done = graphnb("export", "my-flow.py", "-o", "out.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "node 'double': it is a lambda" in done.stderr
    assert not (tmp_path / "out.py").exists()
