from __future__ import annotations

import xml.etree.ElementTree as ET

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.diagram import to_svg

from .samples import cyclic_graph, fan_out_join, react_machine, router_graph

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups(root: ET.Element, css_class: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if css_class in g.get("class", "").split()]


def test_svg_parses_and_holds_every_node_and_edge(sample: tuple[str, GraphSpec]) -> None:
    _, spec = sample
    root = parse(to_svg(spec))
    assert root.tag == f"{SVG}svg"
    node_ids = [g.get("data-id") for g in groups(root, "gnb-node")]
    expected = [n.id for n in spec.nodes]
    if any(e.source == START for e in spec.edges):
        expected.insert(0, START)
    if any(e.target == END for e in spec.edges):
        expected.append(END)
    assert node_ids == expected
    edges = [g for g in groups(root, "gnb-edge") if g.get("data-index") is not None]
    assert [int(g.get("data-index", -1)) for g in edges] == list(range(len(spec.edges)))
    for g, edge in zip(edges, spec.edges, strict=True):
        assert (g.get("data-source"), g.get("data-target")) == (edge.source, edge.target)
        assert g.find(f"{SVG}path") is not None


def test_svg_is_byte_identical_for_the_same_graph(sample: tuple[str, GraphSpec]) -> None:
    _, spec = sample
    assert to_svg(spec) == to_svg(spec.model_copy(deep=True))


def test_conditional_edges_are_dashed_and_labelled_with_their_route() -> None:
    root = parse(to_svg(router_graph()))
    conditional = groups(root, "gnb-conditional")
    assert len(conditional) == 3
    labels = ["".join(t.itertext()) for g in conditional for t in g.iter(f"{SVG}text")]
    assert labels == ["needs_lookup", "give_up"]
    style = root.find(f"{SVG}style")
    assert style is not None
    assert ".gnb-conditional path{stroke-dasharray:5 4}" in (style.text or "")


def test_cycle_closing_edge_is_marked_as_back_edge() -> None:
    root = parse(to_svg(cyclic_graph()))
    back = groups(root, "gnb-back")
    assert [(g.get("data-source"), g.get("data-target")) for g in back] == [("check", "plan")]


def test_join_is_drawn_as_one_bar_with_the_joined_node_and_its_sources_in_the_tooltip() -> None:
    root = parse(to_svg(fan_out_join()))
    (join,) = groups(root, "gnb-joinbar")
    assert join.get("data-target") == "merge"
    assert join.find(f"{SVG}rect") is not None
    title = join.find(f"{SVG}title")
    assert title is not None
    assert title.text == "merge waits for all of: fetch_weather, fetch_flights, fetch_hotels"
    # The join edges end at the bar without arrowheads; the bar's connector has one.
    join_edges = groups(root, "gnb-join")
    assert [g.get("data-source") for g in join_edges] == [
        "fetch_weather",
        "fetch_flights",
        "fetch_hotels",
    ]
    assert all("marker-end" not in p.attrib for g in join_edges for p in g.iter(f"{SVG}path"))
    connector = join.find(f"{SVG}path")
    assert connector is not None
    assert "marker-end" in connector.attrib


def test_long_labels_are_shortened_with_the_full_text_in_the_tooltip() -> None:
    root = parse(to_svg(router_graph()))
    node = next(g for g in groups(root, "gnb-node") if g.get("data-id") == "classify")
    text = node.find(f"{SVG}text")
    title = node.find(f"{SVG}title")
    assert text is not None
    assert title is not None
    assert text.text is not None
    assert text.text.endswith("\u2026")
    assert len(text.text) == 28
    assert title.text is not None
    assert title.text.startswith("classify the user's question by topic and intent (classify)")


def test_machine_draws_start_and_end_as_pseudo_states_and_self_loop_labels() -> None:
    root = parse(to_svg(react_machine()))
    assert "gnb-machine" in root.get("class", "")
    start = groups(root, "gnb-start")[0]
    end = groups(root, "gnb-end")[0]
    assert start.find(f"{SVG}circle") is not None
    assert len(end.findall(f"{SVG}circle")) == 2
    (loop,) = groups(root, "gnb-loop")
    assert "gnb-internal" in loop.get("class", "")
    assert "".join(loop.itertext()).endswith("TOKEN")


def test_theme_colours_come_from_jupyterlab_variables_with_fallbacks() -> None:
    svg = to_svg(cyclic_graph())
    assert "var(--jp-content-font-color1,#1f2328)" in svg
    assert "var(--jp-layout-color2,#eef1f4)" in svg
    assert "prefers-color-scheme:dark" in svg
    # Transparent background: nothing paints the whole canvas.
    root = parse(svg)
    assert root.get("style") is None


def test_arrow_markers_are_unique_per_drawing() -> None:
    one, two = to_svg(cyclic_graph()), to_svg(router_graph())
    ids_one = {m.get("id") for m in parse(one).iter(f"{SVG}marker")}
    ids_two = {m.get("id") for m in parse(two).iter(f"{SVG}marker")}
    assert len(ids_one) == 2
    assert not ids_one & ids_two


def test_awkward_names_are_escaped_and_control_characters_dropped() -> None:
    name = "a<b>&\"c'\x01"
    spec = GraphSpec(
        name="x</svg>",
        nodes=[NodeSpec(id=name)],
        edges=[EdgeSpec(source=START, target=name, label="<&>")],
    )
    root = parse(to_svg(spec))
    assert [g.get("data-id") for g in groups(root, "gnb-node")] == [START, "a<b>&\"c'"]
    title = root.find(f"{SVG}title")
    assert title is not None
    assert title.text == "x</svg>"


def test_every_element_sits_inside_the_canvas(sample: tuple[str, GraphSpec]) -> None:
    _, spec = sample
    root = parse(to_svg(spec))
    width, height = float(root.get("width", 0)), float(root.get("height", 0))
    for rect in root.iter(f"{SVG}rect"):
        x, y = float(rect.get("x", 0)), float(rect.get("y", 0))
        assert x >= 0
        assert x + float(rect.get("width", 0)) <= width
        assert y >= 0
        assert y + float(rect.get("height", 0)) <= height
