"""Composed graphs in diagrams: subgraph clusters, Send edges, policy marks."""

from __future__ import annotations

import json
import operator
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict
from xml.etree import ElementTree

import pytest

from graphnb import END, START, CachePolicy, RetryPolicy, Send, StateGraph
from graphnb.diagram import Trace, to_dot, to_mermaid, to_svg

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("GRAPHNB_UPDATE_SNAPSHOTS") == "1"  # as in test_snapshots.py
FORMATS: dict[str, Callable[[Any], str]] = {"mmd": to_mermaid, "svg": to_svg, "dot": to_dot}
SVG = "{http://www.w3.org/2000/svg}"


class State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


def note(state: State) -> dict[str, Any]:
    return {"notes": ["x"]}


def fan(state: State) -> list[Send]:
    return [Send("note", {})]


def composed() -> StateGraph[State]:
    inner = StateGraph(State, name="inner").add_node("search", note)
    inner.add_edge(START, "search").add_edge("search", END)
    middle = StateGraph(State, name="middle").add_node("deep", inner)
    middle.add_edge(START, "deep").add_edge("deep", END)
    graph = StateGraph(State, name="outer").add_node("research", middle)
    graph.add_node("note", note, retry=RetryPolicy(max_attempts=4), timeout=5, cache=CachePolicy())
    graph.add_edge(START, "research").add_conditional_edges("research", fan, sends=["note"])
    return graph.add_edge("note", END)


def test_mermaid_draws_nested_subgraphs_as_clusters() -> None:
    text = to_mermaid(composed())
    assert 'subgraph research["research"]' in text
    assert 'subgraph research__deep["deep"]' in text
    assert 'research__deep__search["search"]' in text
    assert text.count("\n    end\n") + text.count("\n        end\n") >= 2
    assert 'research -.->|"Send"| n0' in text  # "note" is a Mermaid keyword: n0


def test_dot_draws_clusters_with_path_ids() -> None:
    text = to_dot(composed())
    assert 'subgraph "cluster_research" {' in text
    assert 'subgraph "cluster_research/deep" {' in text
    assert '"research/deep/search" [label="search"' in text
    assert "arrowhead=normalnormal" in text


def test_policies_are_marked_on_the_node() -> None:
    mermaid = to_mermaid(composed())
    assert "retry 4, timeout 5s, cache" in mermaid
    assert "retry 4, timeout 5s, cache" in to_svg(composed())
    assert "retry" not in to_mermaid(StateGraph(State).add_node("a", note))


def _matches_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE:
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.exists(), f"no snapshot {path.name}; create it with GRAPHNB_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} changed; if intended, rerun with GRAPHNB_UPDATE_SNAPSHOTS=1 and review"
    )


@pytest.mark.parametrize("suffix", sorted(FORMATS))
def test_the_composed_graph_matches_its_snapshots(suffix: str) -> None:
    _matches_snapshot(f"composed.{suffix}", FORMATS[suffix](composed()))


def test_a_traced_composed_graph_matches_its_snapshot() -> None:
    events = composed().compile().stream({}, subgraphs=True)
    _matches_snapshot("composed_traced.svg", to_svg(composed(), trace=events))


def _element(svg: str | ElementTree.Element, data_id: str) -> ElementTree.Element:
    root = ElementTree.fromstring(svg) if isinstance(svg, str) else svg
    for element in root.iter(f"{SVG}g"):
        if element.get("data-id") == data_id:
            return element
    raise AssertionError(f"no element with data-id {data_id!r}")


def test_svg_draws_nested_subgraphs_as_clusters_around_their_nodes() -> None:
    svg = ElementTree.fromstring(to_svg(composed()))
    research = _element(svg, "research")
    assert "gnb-cluster" in (research.get("class") or "")
    outline = research.find(f"{SVG}rect")
    assert outline is not None
    deep = _element(svg, "research/deep")  # inside the research cluster
    assert deep in list(research.iter(f"{SVG}g"))
    search = _element(svg, "research/deep/search")
    assert search in list(deep.iter(f"{SVG}g"))
    # the child's drawing fits inside the cluster's outline
    inner = research.find(f"{SVG}g[@class='gnb-inner']")
    assert inner is not None
    width = float(outline.get("width") or 0)
    child_rects = [float(r.get("width") or 0) for r in inner.iter(f"{SVG}rect")]
    assert max(child_rects) < width


def test_svg_marks_send_edges_and_policies() -> None:
    svg = to_svg(composed())
    assert 'class="gnb-edge gnb-send"' in svg
    assert ".gnb-send path{" in svg
    assert '<text class="gnb-policy"' in svg
    assert ">[retry 4, timeout 5s, cache]</text>" in svg


def test_the_trace_is_drawn_inside_clusters() -> None:
    app = composed().compile()
    traced = to_svg(composed(), trace=app.stream({}, subgraphs=True))
    search = _element(traced, "research/deep/search")
    assert "gnb-visited" in (search.get("class") or "")
    # an edge inside the innermost cluster is drawn as taken
    inner_edges = [
        g
        for g in ElementTree.fromstring(traced).iter(f"{SVG}g")
        if g.get("data-source") == "research/deep/search"
    ]
    assert inner_edges
    assert all("gnb-taken" in (g.get("class") or "") for g in inner_edges)
    # without inner events (no subgraphs=True) nothing inside is marked
    plain = to_svg(composed(), trace=app.stream({}))
    assert "gnb-visited" not in (_element(plain, "research/deep/search").get("class") or "")
    assert "gnb-visited" in (_element(plain, "research").get("class") or "")


def test_an_inner_trace_keeps_inner_events_off_the_parent_nodes() -> None:
    trace = Trace.from_events(composed().compile().stream({}, subgraphs=True))
    assert "search" not in trace.steps
    assert trace.inner["research"].inner["deep"].steps["search"] == (0,)


def clashing(separator: str) -> StateGraph[State]:
    """A subgraph node `sub` holding `a`, next to a node named as `a`'s path would be."""
    inner = StateGraph(State, name="inner").add_node("a", note)
    inner.add_edge(START, "a").add_edge("a", END)
    path = f"sub{separator}a"
    graph = StateGraph(State, name="outer").add_node("sub", inner).add_node(path, note)
    graph.add_edge(START, "sub").add_edge("sub", path).add_edge(path, END)
    return graph


def test_mermaid_ids_inside_a_cluster_never_take_an_outer_nodes_id() -> None:
    # Mermaid's ids are global: the inner `a` was written `sub__a`, the outer node's own
    # id, so the two were one node and the outer edges ran into the cluster.
    text = to_mermaid(clashing("__"))
    declared = re.findall(r'^ *(\w+)(?:\["|\(\[")', text, re.MULTILINE)
    assert len(declared) == len(set(declared)) == 6  # START, END, `sub__a`, 3 inside `sub`
    assert 'sub__a["sub__a"]' in text
    assert "sub --> sub__a" in text


def dot_nodes(text: str) -> list[str]:
    """The node names Graphviz reads from ``text`` (failing on a syntax error)."""
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("Graphviz's dot is not installed")
    done = subprocess.run([dot, "-Tjson0"], input=text.encode(), capture_output=True, check=True)
    assert done.stderr == b""
    objects = json.loads(done.stdout).get("objects", [])
    return [item["name"] for item in objects if "nodes" not in item]  # not the clusters


def test_dot_ids_inside_a_cluster_never_take_an_outer_nodes_id() -> None:
    # A cluster's inner ids were its path, `sub/a`: a node named `sub/a` beside it was
    # the same DOT node, drawn inside the cluster.
    text = to_dot(clashing("/"))
    names = dot_nodes(text)
    assert len(names) == len(set(names)) == 7  # START, END, `sub/a`, `sub` and its 3
    assert '"sub/a" [label="sub/a",' in text
    assert '"sub" -> "sub/a";' in text
