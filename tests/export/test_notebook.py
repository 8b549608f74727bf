from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from graphnb.cli.demo import build as build_demo
from graphnb.export import (
    ExportError,
    GraphLoadError,
    GraphNotFoundError,
    load_graph,
    load_graphs,
    load_module,
    to_module,
    to_notebook,
    write_notebook,
)
from graphnb.export.load import SKIP_ON_LOAD

CELLS = [
    "%load_ext autoreload\nfrom typing import Annotated\n"
    "from graphnb import END, START, GraphState, StateField, StateGraph, append",
    "PREFIX = 'seen: '\n\n\nclass Story(GraphState):\n"
    "    lines: Annotated[list[str], StateField(reducer=append)] = []\n    topic: str = 'cats'",
    "def opening(state: Story) -> dict:\n    return {'lines': [PREFIX + state.topic]}",
    "def ending(state: Story) -> dict:\n    return {'lines': ['the end']}",
    "builder = StateGraph(Story, name='story')\n"
    "builder.add_node('opening', opening, position=(0, 0))\n"
    "builder.add_node('ending', ending, position=(0, 120))\n"
    "builder.add_edge(START, 'opening').add_edge('opening', 'ending').add_edge('ending', END)\n"
    "story = builder.compile()\ndisplay(story)\nprint('built')",
]


def write_source_notebook(path: Path, cells: list[str] = CELLS) -> Path:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.cells.insert(0, nbformat.v4.new_markdown_cell("# A story"))
    nbformat.write(notebook, str(path))
    return path


def test_graphs_defined_in_a_notebook_are_loaded_by_variable_name(tmp_path: Path) -> None:
    graphs = load_graphs(write_source_notebook(tmp_path / "story.ipynb"))
    assert list(graphs) == ["builder", "story"]
    assert graphs["story"].invoke({}).lines == ["seen: cats", "the end"]


def test_a_notebook_graph_exports_to_a_module_that_runs(tmp_path: Path) -> None:
    _, graph = load_graph(str(write_source_notebook(tmp_path / "story2.ipynb")) + ":story")
    text = to_module(graph)
    assert "class Story(GraphState):" in text
    assert "PREFIX = " in text
    assert "autoreload" not in text
    module = tmp_path / "story_module.py"
    module.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(module), "-q", "--input", '{"topic": "dogs"}'],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"lines": ["seen: dogs", "the end"], "topic": "dogs"}


def test_a_failing_cell_is_reported_with_its_number(tmp_path: Path) -> None:
    path = write_source_notebook(tmp_path / "broken.ipynb", ["x = 1", "raise ValueError('boom')"])
    with pytest.raises(GraphLoadError, match="code cell 2 raised ValueError: boom") as caught:
        load_graphs(path)
    assert caught.value.cell == 2


def test_a_syntax_error_names_its_cell_and_its_line_in_that_cell(tmp_path: Path) -> None:
    path = write_source_notebook(tmp_path / "syntax.ipynb", ["x = 1\ny = 2", "z = 3\nz = = 4"])
    with pytest.raises(GraphLoadError) as caught:
        load_graphs(path)
    assert "code cell 2 has a syntax error at line 2: invalid syntax" in str(caught.value)
    assert caught.value.cell == 2


def test_an_exported_notebook_loads_back_without_running_its_run_cell(tmp_path: Path) -> None:
    """Its last cell runs the graph on an example input: `{}` here, which this graph (a
    required topic) refuses. Loading the notebook for its graph must not run that cell."""
    cells = [*CELLS[:4], CELLS[4]]
    cells[1] = cells[1].replace("topic: str = 'cats'", "topic: str")
    _, graph = load_graph(f"{write_source_notebook(tmp_path / 'needs.ipynb', cells)}:story")
    exported = write_notebook(graph, tmp_path / "exported.ipynb")
    run_cell = nbformat.read(str(exported), as_version=4).cells[-1]
    assert run_cell.source.startswith("final = graph.invoke({})")
    assert run_cell.metadata["tags"] == [SKIP_ON_LOAD]
    loaded = load_graphs(exported)["graph"]
    assert loaded.invoke({"topic": "owls"}).lines == ["seen: owls", "the end"]
    assert "class Story(GraphState):" in to_module(loaded)


def test_without_a_name_the_one_compiled_graph_is_picked_and_unknown_names_fail(
    tmp_path: Path,
) -> None:
    path = write_source_notebook(tmp_path / "pick.ipynb")
    name, graph = load_graph(str(path))
    assert graph.invoke({}).topic == "cats"
    assert name == "story"
    with pytest.raises(GraphNotFoundError, match="no graph named 'nope'") as caught:
        load_graph(f"{path}:nope")
    assert caught.value.available == ["builder", "story"]


def test_exported_notebook_runs_every_cell_in_a_kernel(tmp_path: Path) -> None:
    path = write_notebook(build_demo(), tmp_path / "demo.ipynb", input={"question": "Why export?"})
    notebook = nbformat.read(str(path), as_version=4)
    kinds = [cell.cell_type for cell in notebook.cells]
    assert kinds[0] == "markdown"
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    final = notebook.cells[-1].outputs[0]["data"]["text/plain"]
    assert "Why export?" in final
    assert "stream the answer" in final


def test_notebook_export_is_deterministic() -> None:
    first = nbformat.writes(to_notebook(build_demo()))
    assert first == nbformat.writes(to_notebook(build_demo()))


def test_notebook_cells_may_await_at_top_level(tmp_path: Path) -> None:
    cells = [
        *CELLS[:4],
        CELLS[4].replace("story = builder.compile()", "story = builder.compile()\n"),
        "final = await story.ainvoke({'topic': 'owls'})\nassert final.lines[0] == 'seen: owls'",
    ]
    graphs = load_graphs(write_source_notebook(tmp_path / "awaits.ipynb", cells))
    assert graphs["story"].invoke({}).lines == ["seen: cats", "the end"]


def test_a_script_named_like_an_installed_module_does_not_shadow_it(tmp_path: Path) -> None:
    (tmp_path / "nbclient.py").write_text("VALUE = 1\n", encoding="utf-8")
    module = load_module(tmp_path / "nbclient.py")
    assert module.VALUE == 1
    assert module.__name__.startswith("graphnb_file_nbclient_")
    assert sys.modules["nbclient"].NotebookClient is NotebookClient


PROMPT_CELLS = [
    "%load_ext autoreload\n!echo setting up\nfrom graphnb import END, START, StateGraph",
    'PROMPT = """Answer in 3 lines.\n%d items were found\n!important: be brief\n"""\n'
    "LISTING = !ls\n"
    "def ask(state: dict) -> dict:\n"
    '    note = """\n    %(name)s asked\n    !yes\n    """\n'
    "    return {'prompt': PROMPT, 'note': note}",
    "%%time\nraise RuntimeError('a cell magic is skipped, as before')",
    "builder = StateGraph(dict, name='prompted')\nbuilder.add_node('ask', ask)\n"
    "builder.add_edge(START, 'ask').add_edge('ask', END)\ngraph = builder.compile()",
]


def _check_prompts_are_kept(path: Path) -> None:
    final = load_graph(f"{path}:graph")[1].invoke({})
    assert final["prompt"] == "Answer in 3 lines.\n%d items were found\n!important: be brief\n"
    assert final["note"] == "\n    %(name)s asked\n    !yes\n    "
    exported = to_module(load_graph(f"{path}:graph")[1], ruff=False)
    assert "    %(name)s asked\n    !yes\n" in exported
    assert "'Answer in 3 lines.\\n%d items were found\\n!important: be brief\\n'" in exported


def test_magic_lines_inside_strings_are_kept_with_ipython(tmp_path: Path) -> None:
    pytest.importorskip("IPython")
    _check_prompts_are_kept(write_source_notebook(tmp_path / "prompts.ipynb", PROMPT_CELLS))


def test_magic_lines_inside_strings_are_kept_without_ipython(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A module set to None in sys.modules cannot be imported: as if IPython were absent.
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.setitem(sys.modules, "IPython.core.inputtransformer2", None)
    _check_prompts_are_kept(write_source_notebook(tmp_path / "plain.ipynb", PROMPT_CELLS))


def test_an_export_replaces_its_file_whole_or_not_at_all(tmp_path: Path) -> None:
    """Written beside the file and moved over it: a failure leaves the old file as it was
    (and no stray file), and a replaced file keeps its permissions."""
    from graphnb.export.module import replace_text

    target = tmp_path / "flow.py"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    with pytest.raises(UnicodeEncodeError):
        replace_text(target, "new \ud800\n")  # a lone surrogate: UTF-8 cannot hold it
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flow.py"]
    replace_text(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flow.py"]


ONLY_ASSIGNED_MAGICS = [
    "from graphnb import END, START, StateGraph",
    "FILES = !ls\nHOME = %env HOME",
    "graph?\nStateGraph??",
    "def ask(state: dict) -> dict:\n    return {'answer': 42}",
    "graph = StateGraph(dict).add_node('ask', ask)\n"
    "graph.add_edge(START, 'ask').add_edge('ask', END)",
]


def _check_assigned_magics_are_skipped(path: Path) -> None:
    module = load_module(path)
    assert module.FILES is None
    assert module.HOME is None
    assert module.graph.compile().invoke({}) == {"answer": 42}


def test_a_cell_whose_only_magics_are_assignments_loads_with_ipython(tmp_path: Path) -> None:
    pytest.importorskip("IPython")
    path = write_source_notebook(tmp_path / "assigned.ipynb", ONLY_ASSIGNED_MAGICS)
    _check_assigned_magics_are_skipped(path)


def test_a_cell_whose_only_magics_are_assignments_loads_without_ipython(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.setitem(sys.modules, "IPython.core.inputtransformer2", None)
    path = write_source_notebook(tmp_path / "assigned_plain.ipynb", ONLY_ASSIGNED_MAGICS)
    _check_assigned_magics_are_skipped(path)


def test_an_instance_a_notebook_node_uses_is_reported_as_the_notebooks(tmp_path: Path) -> None:
    cells = [
        "from graphnb import END, START, StateGraph\n\n\nclass Client:\n"
        "    def ask(self, q):\n        return q\n\n\nclient = Client()",
        "def node(state: dict) -> dict:\n    return {'x': client.ask(1)}",
        "graph = StateGraph(dict).add_node('node', node)\n"
        "graph.add_edge(START, 'node').add_edge('node', END)",
    ]
    graph = load_graph(str(write_source_notebook(tmp_path / "client.ipynb", cells)))[1]
    with pytest.raises(ExportError) as caught:
        to_module(graph)
    [problem] = caught.value.problems
    assert problem.name == "node 'node' (uses 'client')"
    assert problem.reason.startswith("'client' is a Client defined in the notebook;")
