"""A file defining a LangGraph graph runs, draws and exports as the graph it imports to.

Issue 29, item 25: `graphnb run`/`export` said "defines no graph (graphs: none)" for a
LangGraph builder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langgraph")

from graphnb.cli import main

FLOW = """
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class Count(TypedDict):
    n: int


def bump(state: Count) -> dict:
    return {"n": state["n"] + 1}


def double(state: Count) -> dict:
    return {"n": state["n"] * 2}


builder = StateGraph(Count)
builder.add_node("bump", bump)
builder.add_node("double", double)
builder.add_edge(START, "bump")
builder.add_edge("bump", "double")
builder.add_edge("double", END)
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(tmp_path)):
            del sys.modules[name]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_langgraph_builder_runs_draws_and_exports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "lg.py").write_text(FLOW, encoding="utf-8")
    code, out, err = cli(capsys, "run", "lg.py", "--input", '{"n": 1}', "-q")
    assert code == 0, err
    assert json.loads(out) == {"n": 4}
    code, out, err = cli(capsys, "export", "lg.py")
    assert code == 0, err
    assert "bump" in out
    namespace: dict[str, object] = {}
    exec(compile(out, "exported.py", "exec"), namespace)  # the module runs on its own
    code, out, err = cli(capsys, "draw", "lg.py", "--format", "mermaid")
    assert code == 0, err
    assert "bump" in out


def test_a_compiled_langgraph_graph_keeps_its_breakpoints_and_saver(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    compiled = FLOW + (
        "app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=['double'])\n"
    )
    (tmp_path / "lg.py").write_text(compiled, encoding="utf-8")
    code, out, err = cli(capsys, "run", "lg.py", "--input", '{"n": 1}', "--thread", "t")
    assert code == 0, err
    assert "interrupted (before double)" in err
    assert json.loads(out) == {"n": 2}


def test_a_graphnb_graph_beside_a_langgraph_one_is_still_the_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    both = FLOW + (
        "from graphnb.interop import from_langgraph\n"
        "mine = from_langgraph(builder)\n"
        "mine.add_node('extra', lambda state: {'n': 0})\n"
        "mine.add_edge('double', 'extra').add_edge('extra', '__end__')\n"
    )
    (tmp_path / "lg.py").write_text(both, encoding="utf-8")
    code, out, err = cli(capsys, "run", "lg.py", "--input", '{"n": 1}', "-q")
    assert code == 0, err
    assert json.loads(out) == {"n": 0}, "the graphnb graph, as before"
    code, out, err = cli(capsys, "run", "lg.py:builder", "--input", '{"n": 1}', "-q")
    assert code == 0, err
    assert json.loads(out) == {"n": 4}, "named, the LangGraph one"


def test_a_langgraph_graph_graphnb_cannot_map_is_an_error_naming_what(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    refused = FLOW.replace(
        'builder.add_node("bump", bump)',
        "from langgraph.types import RetryPolicy\n"
        'builder.add_node("bump", bump, retry_policy=[RetryPolicy(), RetryPolicy()])',
    )
    (tmp_path / "lg.py").write_text(refused, encoding="utf-8")
    code, out, err = cli(capsys, "run", "lg.py", "--input", '{"n": 1}')
    assert code == 1
    assert err.startswith("error: the LangGraph graph 'builder' uses 1 feature(s)"), err
    assert "several RetryPolicy (node 'bump')" in err
    assert out == ""
