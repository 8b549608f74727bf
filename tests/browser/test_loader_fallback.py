"""The builder's loader in a real Chromium: without a kernel it draws the saved spec."""

from __future__ import annotations

import json
from typing import Any

from graphnb import END, START, StateGraph
from graphnb.widget import Builder
from graphnb.widget.bundle import LOADER

RENDER_WITHOUT_KERNEL = """async ([source, spec]) => {
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    const loader = (await import(url)).default;
    const model = { get: (name) => (name === "spec" ? spec : undefined) };
    const invoke = () => Promise.reject(new Error("no kernel"));
    const el = document.createElement("div");
    document.body.appendChild(el);
    await loader.render({ model, el, experimental: { invoke } });
    return {
        boxes: el.querySelectorAll("svg rect").length,
        lines: el.querySelectorAll("svg line").length,
        labels: [...el.querySelectorAll("svg text")].map((text) => text.textContent),
        note: el.querySelector("p").textContent,
    };
}"""


def test_without_a_kernel_the_loader_draws_the_saved_graph(chromium: Any) -> None:
    graph = StateGraph(dict).add_node("plan", lambda state: {}).add_node("answer", lambda s: {})
    graph.add_edge(START, "plan").add_edge("plan", "answer").add_edge("answer", END)
    spec = json.loads(Builder(graph).spec.to_json())
    page = chromium.new_page()
    try:
        drawn = page.evaluate(RENDER_WITHOUT_KERNEL, [LOADER, spec])
    finally:
        page.close()
    assert drawn["boxes"] == 4
    assert drawn["lines"] == 3
    assert sorted(drawn["labels"]) == ["answer", "end", "plan", "start"]
    assert "live kernel" in drawn["note"]
