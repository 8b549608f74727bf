"""Export never replaces a file unasked nor shadows a module (issue 11, item 11)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.widget import Builder
from graphnb.widget.exporting import ExportExistsError, ExportNameError


def _demo(name: str) -> StateGraph[Any]:
    from graphnb.cli import demo

    graph = demo.build()
    graph._spec.name = name
    return graph


def test_export_refuses_to_replace_a_file_unless_asked(comm, tmp_path):
    existing = tmp_path / "story_flow.py"
    existing.write_text("# the user's own work\n")
    builder = Builder(_demo("story flow"), namespace={}, path=tmp_path / "story.json")

    with pytest.raises(ExportExistsError) as raised:
        builder.export()
    assert raised.value.path == existing
    assert isinstance(raised.value, FileExistsError)
    assert "overwrite=True" in str(raised.value)
    assert existing.read_text() == "# the user's own work\n"

    # From the canvas: the Export button, then the explicit choice to overwrite.
    reply = comm.receive({"type": "export"})
    assert existing.read_text() == "# the user's own work\n"
    assert reply == {"error": None, "written": None, "exists": str(existing), "command": None}
    assert builder.export_status.startswith("export failed: ")
    assert "exists" in builder.notice
    reply = comm.receive({"type": "export", "overwrite": True})
    assert reply == {"error": None, "written": str(existing), "exists": None, "command": None}
    assert "from graphnb.cli.demo import" in existing.read_text()
    assert builder.export_status == str(existing.resolve())
    assert builder.notice == ""

    assert builder.export(overwrite=True) == existing


@pytest.mark.parametrize("name", ["json", "asyncio", "os", "typing"])
def test_a_graph_named_after_a_standard_library_module_is_not_exported(comm, tmp_path, name):
    builder = Builder(_demo(name), namespace={}, path=tmp_path / "drawing.json")
    with pytest.raises(ExportNameError) as raised:
        builder.export(overwrite=True)
    assert raised.value.module == name
    assert f"`{name}` is a module of Python's standard library" in str(raised.value)
    assert not (tmp_path / f"{name}.py").exists()
    comm.receive({"type": "export", "overwrite": True})
    assert f"cannot export to {name}.py" in builder.notice
    assert not (tmp_path / f"{name}.py").exists()


def test_an_explicit_path_named_after_a_module_is_refused_too(comm, tmp_path):
    builder = Builder(_demo("fine"), namespace={})
    with pytest.raises(ExportNameError, match="`json` is a module of Python's standard library"):
        builder.export(tmp_path / "json.py")
    with pytest.raises(ExportNameError, match="`pydantic` is an importable module"):
        builder.export(tmp_path / "pydantic.py")
    assert list(tmp_path.iterdir()) == []


def test_a_graph_named_after_the_module_its_nodes_come_from_is_not_exported(
    comm, tmp_path, monkeypatch
):
    nodes = tmp_path / "nodes.py"
    nodes.write_text("def research(state):\n    return {'notes': ['found']}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "nodes", raising=False)
    import nodes as module  # type: ignore[import-not-found]

    graph = StateGraph(dict, name="nodes").add_node("research", module.research)
    builder = Builder(graph.add_edge(START, "research").add_edge("research", END), namespace={})
    assert builder.spec.nodes[0].binding == "nodes:research"
    with pytest.raises(ExportNameError) as raised:
        builder.export(tmp_path / "nodes.py", overwrite=True)
    assert raised.value.module == "nodes"
    assert "module `nodes`" in str(raised.value)
    # Elsewhere too: the exported file would import itself instead of the user's module.
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    with pytest.raises(ExportNameError, match=r"the graph's nodes come from module `nodes`"):
        builder.export(elsewhere / "nodes.py")
    assert nodes.read_text().startswith("def research")
    assert not (elsewhere / "nodes.py").exists()


def test_an_earlier_export_on_the_import_path_may_be_replaced_when_asked(
    comm, tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(tmp_path))
    builder = Builder(_demo("flowchart_one"), namespace={}, path=tmp_path / "d.json")
    written = builder.export()
    assert written == tmp_path / "flowchart_one.py"
    assert Path(builder.export(overwrite=True)) == written
