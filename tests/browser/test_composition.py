"""Composition on the builder (issue 14, item 7), in a real JupyterLab: a subgraph node is a
group that expands in place and opens for editing (mouse and keyboard), a node binds to a
graph of the notebook, retry/timeout/cache are checked fields of the node's panel, a Send
edge is marked, and a run lights the node working inside an expanded group and counts the
Send instances.

One JupyterLab server and one Chromium for the module; each test opens its own notebook.
Console errors fail every test (the ``lab`` fixture).
"""

from __future__ import annotations

COMPOSED = """
import operator
import time
from typing import Annotated
from graphnb import END, START, GraphState, Send, StateGraph
from graphnb.widget import Builder

class Notes(GraphState):
    topic: str = "graphs"
    notes: Annotated[list[str], operator.add] = []

PAUSE = 0.0

def search(state: Notes) -> dict:
    time.sleep(PAUSE)
    return {"notes": [f"searched {state.topic}"]}

def summarise(state: Notes) -> dict:
    return {"notes": ["summary"]}

def prep(state: Notes) -> dict:
    return {}

def fan(state: Notes) -> list:
    return [Send("work", {"topic": t}) for t in ("a", "b", "c")]

def work(state: Notes) -> dict:
    return {"notes": [state.topic]}

research = (
    StateGraph(Notes, name="research")
    .add_node("search", search)
    .add_node("summarise", summarise)
    .add_edge(START, "search")
    .add_edge("search", "summarise")
    .add_edge("summarise", END)
)
graph = (
    StateGraph(Notes, name="team")
    .add_node("research", research)
    .add_node("prep", prep)
    .add_node("work", work)
    .add_edge(START, "research")
    .add_edge("research", "prep")
    .add_conditional_edges("prep", fan, sends=["work"])
    .add_edge("work", END)
)
builder = Builder(graph)
builder
"""


def _child_ids(kernel, node: str) -> list[str]:
    spec = kernel.json("builder.spec")
    child = next(n for n in spec["nodes"] if n["id"] == node)["subgraph"]
    return [n["id"] for n in child["nodes"]]


def test_a_subgraph_expands_in_place_and_opens_for_editing_by_mouse_and_keyboard(lab):
    kernel = lab.open_notebook("groups", [COMPOSED])
    page = lab.page
    lab.builder()
    group = page.get_by_test_id("node-research")
    assert "graphnb-subgraph" in (group.get_attribute("class") or "")
    assert group.get_attribute("data-expanded") == "false"
    assert "2 nodes" in page.get_by_test_id("node-binding-research").inner_text()
    assert lab.node("research/search").count() == 0

    # The Send edge is drawn apart from the others and says what it is.
    send_edge = lab.edge("prep", "work")
    send_edge.wait_for(state="attached")
    assert send_edge.locator("path.graphnb-edge-send").count() == 1
    assert page.get_by_test_id("edge-label-prep-work").inner_text() == "Send \u00d7n"

    # Expand in place: the child's nodes and edges are drawn inside the group.
    lab.side(page.get_by_test_id("subgraph-toggle-research")).click()
    lab.node("research/search").wait_for()
    assert group.get_attribute("data-expanded") == "true"
    assert ("research/search", "research/summarise") in lab.edge_pairs()
    inner = lab.node("research/search").bounding_box()
    frame = lab.node("research").bounding_box()
    assert inner
    assert frame
    assert frame["x"] <= inner["x"]
    assert inner["y"] + inner["height"] <= frame["y"] + frame["height"]
    lab.screenshot("composition-expanded", lab.builder())
    # ... and collapse back to one node.
    lab.side(page.get_by_test_id("subgraph-toggle-research")).click()
    lab.node("research/search").wait_for(state="detached")

    # Double-click opens the child: its nodes are the canvas, edits land in the parent's spec.
    group.dblclick()
    page.get_by_test_id("scope-bar").wait_for(timeout=5_000)
    assert page.get_by_test_id("scope-current").inner_text() == "research"
    lab.node("search").wait_for()
    assert sorted(lab.node_ids()) == ["__end__", "__start__", "search", "summarise"]
    rename = lab.start_rename("search")
    rename.fill("lookup")
    rename.press("Enter")
    lab.wait_until(
        lambda: _child_ids(kernel, "research") == ["lookup", "summarise"],
        message=lambda: f"child nodes in Python: {_child_ids(kernel, 'research')}",
    )
    assert kernel.json("builder.problems") == []
    # Undo inside the subgraph undoes the rename in the parent's spec.
    lab.node("lookup").click()
    page.keyboard.press("Control+z")
    lab.wait_until(lambda: _child_ids(kernel, "research") == ["search", "summarise"])

    # Escape goes back up; Enter on a selected subgraph node opens it again.
    lab.node("summarise").click()
    page.keyboard.press("Escape")
    page.get_by_test_id("scope-bar").wait_for(state="detached")
    lab.node("prep").wait_for()
    lab.node("research").click()
    page.keyboard.press("Enter")
    page.get_by_test_id("scope-bar").wait_for()
    lab.node("summarise").wait_for()
    page.get_by_test_id("scope-up-0").click()
    page.get_by_test_id("scope-bar").wait_for(state="detached")
    assert "research" in lab.node_ids()
    lab.assert_no_js_errors()


PANELS = """
from graphnb import END, START, StateGraph
from graphnb.widget import Builder

def fetch(state: dict) -> dict:
    return {"fetched": True}

def helper_step(state: dict) -> dict:
    return {"helped": True}

helper = StateGraph(dict, name="helper").add_node("helper_step", helper_step)
helper.add_edge(START, "helper_step").add_edge("helper_step", END)

graph = StateGraph(dict, name="host").add_node("fetch", fetch).add_node("slot", fetch)
builder = Builder(graph.add_edge(START, "fetch").add_edge("fetch", "slot").add_edge("slot", END))
builder
"""


def _node(kernel, node: str) -> dict:
    return next(n for n in kernel.json("builder.spec")["nodes"] if n["id"] == node)


def test_policies_are_checked_fields_and_a_node_binds_to_a_notebook_graph(lab):
    kernel = lab.open_notebook("policies", [PANELS])
    page = lab.page
    lab.builder()
    lab.node("fetch").click()
    page.get_by_test_id("policies-fetch").wait_for()

    # A bad timeout is refused, naming the field and what it expects; a good one is written.
    timeout = page.get_by_test_id("policy-timeout")
    timeout.fill("soon")
    timeout.press("Enter")
    error = page.get_by_test_id("policy-error")
    error.wait_for()
    expected = 'timeout: expected seconds, more than 0 (empty: no limit), got "soon"'
    assert error.inner_text() == expected
    assert "graphnb-invalid" in (timeout.get_attribute("class") or "")
    assert "timeout" not in _node(kernel, "fetch")
    timeout.fill("2.5")
    timeout.press("Enter")
    lab.wait_until(lambda: _node(kernel, "fetch").get("timeout") == 2.5)
    assert page.get_by_test_id("policy-error").count() == 0

    # Retry: on with the spec's defaults, then five attempts; zero attempts is refused.
    lab.side(page.get_by_test_id("policy-retry")).check()
    lab.wait_until(lambda: (_node(kernel, "fetch").get("retry") or {}).get("max_attempts") == 3)
    attempts = page.get_by_test_id("policy-max_attempts")
    attempts.fill("0")
    attempts.press("Tab")
    page.get_by_test_id("policy-error").wait_for()
    assert (
        "max_attempts: expected a whole number of attempts, at least 1"
        in page.get_by_test_id("policy-error").inner_text()
    )
    attempts.fill("5")
    attempts.press("Enter")
    lab.wait_until(lambda: _node(kernel, "fetch")["retry"]["max_attempts"] == 5)

    # Cache: a time to live and a version.
    lab.side(page.get_by_test_id("policy-cache")).check()
    lab.side(page.get_by_test_id("policy-ttl")).fill("60")
    lab.side(page.get_by_test_id("policy-ttl")).press("Enter")
    lab.side(page.get_by_test_id("policy-version")).fill("v2")
    lab.side(page.get_by_test_id("policy-version")).press("Enter")
    cache = {"ttl": 60.0, "version": "v2", "fields": None}
    lab.wait_until(lambda: _node(kernel, "fetch").get("cache") == cache)
    # The compiled graph carries the policies.
    assert kernel.json("[n.timeout for n in builder.compile().spec.nodes]")[0] == 2.5
    # The cache can live in the saver's database instead, and back in memory.
    lab.side(page.get_by_test_id("policy-store")).select_option("saver")
    lab.wait_until(lambda: _node(kernel, "fetch")["cache"] == {**cache, "store": "saver"})
    lab.side(page.get_by_test_id("policy-store")).select_option("memory")
    lab.wait_until(lambda: _node(kernel, "fetch")["cache"] == cache)

    # Bind `slot` to the notebook's `helper` graph: it becomes a subgraph group and runs it.
    lab.node("slot").click()
    select = page.get_by_test_id("subgraph-select")
    select.wait_for()
    select.select_option("helper")
    lab.side(page.get_by_test_id("subgraph-bind")).click()
    lab.wait_until(lambda: (_node(kernel, "slot").get("subgraph") or {}).get("name") == "helper")
    assert _node(kernel, "slot")["binding"] is None
    page.get_by_test_id("subgraph-toggle-slot").wait_for()
    summary = page.get_by_test_id("subgraph-summary").inner_text()
    assert summary.startswith("slot runs the graph helper")
    assert page.get_by_test_id("panel-policies").count() == 0, "policies are a step's"
    assert kernel.json("builder.problems") == []
    result = kernel.json("builder.compile().invoke({})")
    assert result == {"fetched": True, "helped": True}
    # Double-click opens a group, so its name is edited in the panel.
    rename = page.get_by_test_id("subgraph-rename")
    rename.fill("fetch")
    rename.press("Enter")
    assert "graphnb-invalid" in (rename.get_attribute("class") or ""), "the name is taken"
    rename.fill("helping")
    rename.press("Enter")
    lab.wait_until(
        lambda: (
            [n["id"] for n in kernel.json("builder.spec")["nodes"]]
            == [
                "fetch",
                "helping",
            ]
        )
    )
    lab.node("helping").wait_for()
    assert kernel.json("builder.compile().invoke({})") == {"fetched": True, "helped": True}
    lab.assert_no_js_errors()


def test_a_run_lights_the_node_inside_an_expanded_group_and_counts_sends(lab):
    kernel = lab.open_notebook("lit_inside", [COMPOSED.replace("PAUSE = 0.0", "PAUSE = 2.0")])
    page = lab.page
    lab.builder()
    lab.side(page.get_by_test_id("subgraph-toggle-research")).click()
    inner = page.get_by_test_id("node-research/search")
    inner.wait_for()
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => {
            const n = document.querySelector('[data-testid="node-research/search"]');
            return n && n.dataset.status === 'running' && n.classList.contains('graphnb-active');
        }""",
        timeout=30_000,
    )
    assert page.get_by_test_id("node-research").get_attribute("data-status") == "running"
    assert page.get_by_test_id("node-research/summarise").get_attribute("data-status") == "idle"
    lab.screenshot("composition-lit-inside", lab.page.locator('[data-testid="graphnb-builder"]'))
    page.wait_for_function(
        """() => /done/i.test(document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=60_000,
    )
    assert inner.get_attribute("data-status") == "done"
    sends = page.get_by_test_id("send-count-work")
    assert sends.inner_text() == "3 sent ✓"
    assert sends.get_attribute("data-status") == "done"
    assert sends.get_attribute("data-total") == "3"
    assert kernel.json("builder.last_run['nodes']['work']['instances']['done']") == 3
    lab.assert_no_js_errors()
