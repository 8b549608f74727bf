from __future__ import annotations

from pathlib import Path
from typing import Any

from graphnb.spec import NodeSpec
from graphnb.teach import Exercise
from graphnb.widget import Builder


def test_missed_points_are_pinned_on_the_canvas_until_the_next_edit(
    comms: list[Any], notebook: dict[str, Any]
) -> None:
    builder = Builder(notebook["graph"], namespace=notebook)
    result = Exercise("Story").has_edges(("draft", "research")).check(builder)
    assert not result
    pinned = [p for p in builder.problems if p["code"] == "exercise"]
    assert pinned == [
        {
            "code": "exercise",
            "message": "Draw an edge from `draft` to `research` (`draft` leads to END now).",
            "nodes": ["draft", "research"],
        }
    ]
    spec = builder.spec.model_copy(deep=True)
    spec.nodes.append(NodeSpec(id="extra"))
    builder.spec = spec
    assert not [p for p in builder.problems if p["code"] == "exercise"]


def test_a_learner_who_draws_lesson_one_in_the_builder_passes_its_check(
    comms: list[Any], tmp_path: Any, monkeypatch: Any
) -> None:
    import sys
    import types

    import nbformat

    from graphnb import END, START
    from graphnb.spec import EdgeSpec, GraphSpec

    lesson = Path(__file__).resolve().parents[2] / "notebooks/course/solutions"
    notebook = nbformat.read(str(lesson / "01_state_and_reducers.ipynb"), as_version=4)
    cells = [c.source for c in notebook.cells if c.cell_type == "code"]
    # the learner's kernel: the lesson's cells, minus the graph written in code
    kernel = types.ModuleType("lesson_kernel")
    monkeypatch.setitem(sys.modules, "lesson_kernel", kernel)
    namespace: dict[str, Any] = kernel.__dict__
    for source in cells:
        if source.startswith("class Greeting"):
            source = source[: source.index("graph = StateGraph")]
        if ".check(" not in source:
            exec(compile(source, str(tmp_path / "cell.py"), "exec"), namespace)
    builder = Builder(namespace=namespace)
    drawn = GraphSpec(
        nodes=[NodeSpec(id="greet", binding="greet"), NodeSpec(id="shout", binding="shout")],
        edges=[
            EdgeSpec(source=START, target="greet"),
            EdgeSpec(source="greet", target="shout"),
            EdgeSpec(source="shout", target=END),
        ],
    )
    builder.spec = drawn
    builder.use_model("Greeting")
    result = namespace["exercise"].check(builder)
    assert result.passed, str(result)
    assert not [p for p in builder.problems if p["code"] == "exercise"]
    # the same drawing without its last edge: the missed point is pinned on `shout`
    drawn = builder.spec.model_copy(deep=True)
    drawn.edges = drawn.edges[:2]
    builder.spec = drawn
    assert not namespace["exercise"].check(builder)
    pinned = [p for p in builder.problems if p["code"] == "exercise"]
    assert ["shout"] in [p["nodes"] for p in pinned]
