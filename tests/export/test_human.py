"""Exports of graphs that stop for a human run as their docstring and hints say."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from graphnb import END, START, GraphState, StateGraph, interrupt
from graphnb.export import write_module, write_notebook


class Essay(GraphState):
    topic: str = ""
    draft: str = ""
    approved: bool = False


def write(state: Essay) -> dict[str, str]:
    return {"draft": f"An essay on {state.topic}."}


def review(state: Essay) -> dict[str, bool]:
    return {"approved": bool(interrupt({"draft": state.draft, "ask": "approve?"}))}


def essay_graph() -> StateGraph[Essay]:
    graph = StateGraph(Essay, name="essay").add_node("write", write).add_node("review", review)
    return graph.add_edge(START, "write").add_edge("write", "review").add_edge("review", END)


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def test_the_docstring_command_of_an_interrupting_module_runs_and_its_hint_resumes(
    tmp_path: Path,
) -> None:
    # The docstring's command failed with "interrupt() works only inside ... a thread",
    # and the hint to resume left out --db, then failed with "--thread needs --db URL".
    path = write_module(essay_graph(), tmp_path / "essay.py")
    text = path.read_text(encoding="utf-8")
    docstring = text.split('"""')[1]
    (command,) = re.findall(r"^    (python .+)$", docstring, re.MULTILINE)
    argv = shlex.split(command.replace('"..."', '"owls"'))
    first = run([sys.executable, *argv[1:]], tmp_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["draft"] == "An essay on owls."
    assert "review asks:" in first.stderr
    (hint,) = re.findall(r"run again with (.+) --resume JSON to answer", first.stderr)
    assert "--db sqlite:///essay-threads.db" in hint
    assert (tmp_path / "essay-threads.db").exists()
    second = run([sys.executable, str(path), *shlex.split(hint), "--resume", "true"], tmp_path)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == {
        "topic": "owls",
        "draft": "An essay on owls.",
        "approved": True,
    }
    # --db names another place; the module imported runs on a thread in memory
    other = run(
        [sys.executable, str(path), "--input", '{"topic": "bats"}', "--db", "memory://"],
        tmp_path,
    )
    assert other.returncode == 0, other.stderr
    assert "--db memory://" in other.stderr
    assert "pip install graphnb, no extras" in docstring
    assert 'graph.invoke({...}, thread_id="...")' in docstring


def test_an_exported_interrupting_notebook_runs_to_its_last_cell(tmp_path: Path) -> None:
    # Its last cell failed under nbconvert with "interrupt() works only inside ... a thread".
    path = write_notebook(essay_graph(), tmp_path / "essay.ipynb", input={"topic": "owls"})
    notebook = nbformat.read(str(path), as_version=4)
    NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    run_cell, waiting = notebook.cells[-2:]
    assert "An essay on owls." in run_cell.outputs[0]["data"]["text/plain"]
    assert "node='review'" in waiting.outputs[0]["data"]["text/plain"]


def test_a_module_that_cannot_interrupt_keeps_no_threads(tmp_path: Path) -> None:
    graph = StateGraph(Essay, name="plain").add_node("write", write)
    path = write_module(graph.add_edge(START, "write").add_edge("write", END), tmp_path / "p.py")
    text = path.read_text(encoding="utf-8")
    assert "checkpointer" not in text
    assert "thread" not in text.split('"""')[1]
    done = run([sys.executable, str(path), "--input", '{"topic": "owls"}'], tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.glob("*.db")) == []


BLOCK_EXTRAS = """
import importlib.abc, runpy, sys

EXTRAS = {"anywidget", "ipywidgets", "jupyterlab", "IPython", "ipykernel", "psycopg",
          "pymysql", "openai", "opentelemetry", "dask", "distributed", "ray", "langgraph"}


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in EXTRAS:
            raise ImportError(f"{name} is an extra")
        return None


sys.meta_path.insert(0, Blocker())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_an_exported_module_needs_graphnbs_core_and_says_so(tmp_path: Path) -> None:
    # README called the export standalone while the module imports graphnb: the header
    # now says what it needs, and it runs with no extra importable.
    path = write_module(essay_graph(), tmp_path / "essay.py")
    docstring = path.read_text(encoding="utf-8").split('"""')[1]
    assert "It needs graphnb's core (pip install graphnb, no extras)" in docstring
    done = run(
        [sys.executable, "-c", BLOCK_EXTRAS, str(path), "--input", '{"topic": "owls"}'],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "review asks:" in done.stderr
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "needs\n`pip install graphnb`, no extras" in readme
