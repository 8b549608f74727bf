from __future__ import annotations

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
