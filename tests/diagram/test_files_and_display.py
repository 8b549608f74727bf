from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import graphnb.diagram
from graphnb import END, START, StateGraph
from graphnb.diagram import UnknownFormatError, mimebundle, save, to_dot, to_mermaid, to_svg

from .samples import noop, react_machine, router_graph


@pytest.mark.parametrize(
    ("suffix", "render"),
    [
        (".svg", to_svg),
        (".mmd", to_mermaid),
        (".mermaid", to_mermaid),
        (".dot", to_dot),
        (".gv", to_dot),
    ],
)
def test_save_picks_the_format_from_the_suffix(tmp_path: Path, suffix: str, render: object) -> None:
    spec = router_graph()
    written = save(spec, tmp_path / f"graph{suffix}")
    assert written == tmp_path / f"graph{suffix}"
    assert callable(render)
    assert written.read_text(encoding="utf-8") == render(spec)


def test_save_rejects_unknown_suffixes_without_writing(tmp_path: Path) -> None:
    target = tmp_path / "graph.png"
    with pytest.raises(UnknownFormatError, match=r"'\.png'") as info:
        save(router_graph(), target)
    assert info.value.suffix == ".png"
    assert isinstance(info.value, ValueError)
    assert not target.exists()


def test_builders_and_compiled_graphs_display_as_svg_in_jupyter() -> None:
    graph = StateGraph(dict, name="shown")
    graph.add_node("a", noop).add_edge(START, "a").add_edge("a", END)
    for shown in (graph, graph.compile()):
        bundle = shown._repr_mimebundle_()
        assert bundle["image/svg+xml"].startswith("<svg")
        assert bundle["text/plain"] == "<graph 'shown': 1 node, 2 edges>"


def test_machine_mimebundle_speaks_of_states_and_transitions() -> None:
    bundle = mimebundle(react_machine())
    assert bundle["text/plain"] == "<machine 'react_agent': 7 states, 16 transitions>"
    assert "gnb-machine" in bundle["image/svg+xml"]


def test_importing_graphnb_or_the_diagram_package_does_not_import_networkx() -> None:
    heavy = ("networkx", "IPython", "anywidget", "ipywidgets")
    code = f"import sys, graphnb, graphnb.diagram; print([m for m in {heavy} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_api_is_exactly_the_documented_names() -> None:
    assert sorted(graphnb.diagram.__all__) == [
        "Diagram",
        "DiagramEdge",
        "DiagramError",
        "DiagramNode",
        "NETWORKX_LAYOUTS",
        "NetworkxGraphError",
        "NotDrawableError",
        "StepEnd",
        "Trace",
        "UnknownFormatError",
        "UnknownLayoutError",
        "extract",
        "from_networkx",
        "is_networkx",
        "layout",
        "mimebundle",
        "save",
        "to_dot",
        "to_mermaid",
        "to_networkx",
        "to_svg",
    ]
    for name in graphnb.diagram.__all__:
        assert getattr(graphnb.diagram, name) is not None


def surrogate_graph() -> StateGraph[dict[str, object]]:
    """Names holding a lone surrogate, as a file name that is not UTF-8 gives them."""
    graph = StateGraph(dict, name="g\udc80")
    graph.add_node("n\ud800", noop, label="l\udfff")
    graph.add_conditional_edges("n\ud800", lambda s: "r\ud801", {"r\ud801": END})
    graph.add_edge(START, "n\ud800")
    return graph


@pytest.mark.parametrize("suffix", [".svg", ".mmd", ".mermaid", ".dot", ".gv"])
def test_lone_surrogates_in_names_are_saved_as_their_escapes(tmp_path: Path, suffix: str) -> None:
    written = save(surrogate_graph(), tmp_path / f"graph{suffix}")
    text = written.read_text(encoding="utf-8")
    assert "\\udfff" in text  # the label, as its escape
    assert "\\ud801" in text  # the route
    if suffix != ".mmd" and suffix != ".mermaid":  # Mermaid gives such ids its own
        assert "n\\ud800" in text.replace("\\\\", "\\")


def test_save_leaves_an_existing_file_as_it_was_when_the_text_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "graph.mmd"
    target.write_text("my old diagram\n", encoding="utf-8")
    monkeypatch.setitem(graphnb.diagram.files.FORMATS, ".mmd", lambda obj: "ok\ud800")
    with pytest.raises(UnicodeEncodeError):
        save(router_graph(), target)
    assert target.read_text(encoding="utf-8") == "my old diagram\n"
