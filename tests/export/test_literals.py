"""Values an export writes as Python literals: constants, a notebook's input, names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from graphnb import END, START, StateGraph
from graphnb.export import (
    ExportError,
    load_graph,
    load_graphs,
    to_module,
    to_notebook,
    write_module,
    write_notebook,
)


def echo(state: dict[str, Any]) -> dict[str, Any]:
    return {"seen": True}


def echo_graph(name: str = "echo", node: str = "echo") -> StateGraph[dict[str, Any]]:
    graph = StateGraph(dict, name=name)
    graph.add_node(node, echo)
    return graph.add_edge(START, node).add_edge(node, END)


def notebook_graph(tmp_path: Path, *cells: str) -> Any:
    """The graph ``graph`` of a notebook made of ``cells`` (its names are not importable)."""
    header = "from graphnb import END, START, StateGraph"
    footer = (
        "builder = StateGraph(dict, name='tags')\nbuilder.add_node('tag', tag)\n"
        "builder.add_edge(START, 'tag').add_edge('tag', END)\ngraph = builder.compile()"
    )
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in (header, *cells, footer)]
    )
    path = tmp_path / "constants.ipynb"
    nbformat.write(notebook, str(path))
    return load_graph(f"{path}:graph")[1]


# -- item 12: the run cell's input is Python ---------------------------------------------


def test_notebook_input_is_written_as_python_literals_and_the_notebook_loads(
    tmp_path: Path,
) -> None:
    path = write_notebook(echo_graph(), tmp_path / "echo.ipynb", input={"flag": True, "x": None})
    run_cell = nbformat.read(str(path), as_version=4).cells[-1].source
    assert '"flag": True' in run_cell
    assert '"x": None' in run_cell
    # Loading runs every cell, the run cell included: JSON's true/null would be a NameError.
    final = load_graphs(path)
    assert "graph" in final


def test_notebook_input_that_is_not_a_literal_is_an_export_error_naming_the_key() -> None:
    with pytest.raises(ExportError, match="input 'when'") as caught:
        to_notebook(echo_graph(), input={"ok": 1, "when": object()})
    assert [problem.name for problem in caught.value.problems] == ["input 'when'"]


# -- item 12: names in markdown cells show as typed --------------------------------------


HOSTILE_NAMES = [
    "**bold** _it_",
    "<img src=x onerror=alert(1)>",
    "tick`s ``and`` more",
    "[link](http://example.com) & #hash",
    "line\nbreak\x1b[31m",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_markdown_cells_render_graph_and_node_names_as_typed(name: str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    from graphnb.export.codegen import printable

    notebook = to_notebook(echo_graph(name=name, node=name), ruff=False)
    rendered = markdown_it.MarkdownIt().render(notebook.cells[0].source)
    # The heading, the bold name and the node's code span, and no markup from the name.
    assert [rendered.count(tag) for tag in ("<h1>", "<strong>", "<code>", "<p>")] == [1, 1, 1, 2]
    for markup in ("<img", "<a ", "<em>"):
        assert markup not in rendered
    assert rendered.count(_html_text(printable(name))) == 3, rendered


def _html_text(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


# -- item 14: sets in the same order whatever the hash seed ------------------------------

TAGGED = """
from graphnb import END, START, StateGraph

TAGS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
NESTED = {"by_kind": {("b", 2), ("a", 1), ("c", 3)}, "mixed": {3, "x", 1.5, "a", None}}


def tag(state: dict) -> dict:
    return {"tags": sorted(TAGS), "nested": len(NESTED)}


graph = StateGraph(dict, name="tagged")
graph.add_node("tag", tag).add_edge(START, "tag").add_edge("tag", END)
"""


@pytest.mark.slow  # five interpreters
def test_set_constants_export_identically_under_any_hash_seed(tmp_path: Path) -> None:
    (tmp_path / "tagged_flow.py").write_text(TAGGED, encoding="utf-8")
    program = (
        "import sys\nfrom graphnb.export import load_graph, to_module\n"
        "sys.stdout.write(to_module(load_graph(sys.argv[1])[1], ruff=False))"
    )
    outputs = set()
    for seed in ("1", "2", "3", "4", "5"):
        done = subprocess.run(
            [sys.executable, "-c", program, str(tmp_path / "tagged_flow.py")],
            capture_output=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=120,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    text = outputs.pop().decode()
    assert "TAGS = {'alpha', 'beta', 'delta', 'epsilon', 'eta', 'gamma', 'theta', 'zeta'}" in text


def test_python_literal_round_trips_sets_tuples_and_nesting() -> None:
    from graphnb.export.codegen import python_literal

    for value in [set(), {1}, (1,), (), {"k": [{2, 1}, (None, True)]}, {3, "x", None}, -0.5]:
        text = python_literal(value)
        assert text is not None
        assert eval(text) == value  # a literal: nothing to evaluate but the value itself
    assert python_literal(float("nan")) is None
    assert python_literal({1: object()}) is None


# -- item 14: values an export cannot write get the export's own error ------------------


def test_a_5000_digit_constant_is_an_export_error_naming_it(tmp_path: Path) -> None:
    graph = notebook_graph(
        tmp_path, "BIG = 10**5000", "def tag(state: dict) -> dict:\n    return {'n': BIG}"
    )
    with pytest.raises(ExportError, match=r"'BIG' is an int of about 5001 digits") as caught:
        to_module(graph, ruff=False)
    assert [problem.name for problem in caught.value.problems] == ["node 'tag' (uses 'BIG')"]
    with pytest.raises(ExportError, match="input 'n'"):
        to_notebook(echo_graph(), input={"n": [10**5000]}, ruff=False)


def test_lone_surrogates_are_written_as_escapes_that_load_back(tmp_path: Path) -> None:
    graph = notebook_graph(
        tmp_path, "ODD = 'a\\ud800b'", "def tag(state: dict) -> dict:\n    return {'odd': ODD}"
    )
    module = write_module(graph, tmp_path / "odd\udcff.py", ruff=False)
    text = module.read_text(encoding="utf-8")
    assert "ODD = 'a\\ud800b'" in text
    assert "odd\\\\udcff.py" in text  # the escape, in the docstring
    notebook = write_notebook(
        echo_graph(name="g\ud800", node="n\udc80"), tmp_path / "odd.ipynb", input={"s": "\udc80"}
    )
    written = notebook.read_text(encoding="utf-8")
    assert "\\\\ud800" in written  # the escape, as markdown and as the notebook's JSON hold it
    assert nbformat.read(str(notebook), as_version=4).cells[-1].source.count("\\udc80") == 1
