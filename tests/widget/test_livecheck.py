"""The builder's incremental check gives exactly check_spec's problems, edit after edit."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.spec import FieldSpec, Position
from graphnb.validate import check_spec
from graphnb.widget.livecheck import LiveCheck

KINDS = ("direct", "direct", "direct", "conditional", "send", "join")


def edit(spec: GraphSpec, rng: random.Random) -> GraphSpec:
    """``spec`` after one random edit, as the canvas (or a careless user) might make it."""
    new = spec.model_copy(deep=True)
    ids = [node.id for node in new.nodes]
    ends = [*ids, START, END, "ghost"]
    roll = rng.random()
    if roll < 0.2:
        name = rng.choice([f"n{rng.randrange(40)}", f"n{rng.randrange(40)}", START, " ", "x"])
        new.nodes.insert(rng.randrange(len(new.nodes) + 1), NodeSpec(id=name))
    elif roll < 0.3 and new.nodes:
        del new.nodes[rng.randrange(len(new.nodes))]
    elif roll < 0.35 and new.nodes:
        new.nodes[rng.randrange(len(new.nodes))].id = f"n{rng.randrange(40)}"
    elif roll < 0.45 and new.nodes:
        node = rng.choice(new.nodes)
        node.binding = None if node.binding else "tools:step"
    elif roll < 0.7:
        edge = EdgeSpec(source=rng.choice([*ends[:-2], START]), target=rng.choice(ends))
        edge.kind = rng.choice(KINDS)  # type: ignore[assignment]
        new.edges.insert(rng.randrange(len(new.edges) + 1), edge)
    elif roll < 0.85 and new.edges:
        del new.edges[rng.randrange(len(new.edges))]
    elif roll < 0.9 and ids:
        source = rng.choice([*ids, START, "ghost"])
        if source in new.routers and rng.random() < 0.5:
            del new.routers[source]
        else:
            new.routers[source] = rng.choice([None, "tools:route"])
    elif roll < 0.93:
        new.state.fields.append(
            FieldSpec(name=f"f{rng.randrange(4)}", type="str", streaming=rng.random() < 0.5)
        )
    elif new.nodes:  # a drag: nothing the check looks at
        node = rng.choice(new.nodes)
        node.position = Position(x=rng.random() * 500, y=rng.random() * 500)
    return new


def chain(nodes: int) -> GraphSpec:
    names = [f"n{i}" for i in range(nodes)]
    edges = [EdgeSpec(source=START, target=names[0]), EdgeSpec(source=names[-1], target=END)]
    edges += [EdgeSpec(source=a, target=b) for a, b in itertools.pairwise(names)]
    return GraphSpec(nodes=[NodeSpec(id=n, binding="tools:step") for n in names], edges=edges)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), start=st.integers(1, 12), bindings=st.booleans())
def test_incremental_and_full_checks_agree_after_every_edit(
    seed: int, start: int, bindings: bool
) -> None:
    rng = random.Random(seed)
    live = LiveCheck(require_bindings=bindings)
    spec = chain(start) if rng.random() < 0.8 else GraphSpec()
    for step in range(40):
        assert live.check(spec) == check_spec(spec, require_bindings=bindings), f"edit {step}"
        spec = edit(spec, rng)


def test_a_fresh_check_of_a_changed_spec_agrees_after_many_edits() -> None:
    # Long runs drift further from the start: cycles, cut paths, duplicate ids, ghosts.
    rng = random.Random(2026)
    live = LiveCheck(require_bindings=True)
    spec = chain(30)
    seen_codes: set[str] = set()
    for _ in range(600):
        spec = edit(spec, rng)
        found = live.check(spec)
        assert found == check_spec(spec, require_bindings=True)
        seen_codes.update(problem.code for problem in found)
    # The edits did reach every kind of structural problem the check knows.
    assert {
        "duplicate-node",
        "reserved-name",
        "unknown-node",
        "unreachable",
        "dead-end",
        "no-way-out",
        "unbound",
        "router-unbound",
        "no-routes",
        "streaming-fields",
    } <= seen_codes


def test_a_drag_gives_the_very_same_problems_back() -> None:
    live = LiveCheck()
    spec = chain(5)
    spec.edges.pop()  # n3 -> n4 gone: n4 unreachable, n3 a dead end, n0..n2 stuck
    first = live.check(spec)
    moved = spec.model_copy(deep=True)
    moved.nodes[2].position = Position(x=10, y=20)
    assert live.check(moved) is first
    assert [p.code for p in first] == [*["no-way-out"] * 3, "dead-end", "unreachable"]


def test_a_router_on_start_is_not_an_unknown_node_in_either_check() -> None:
    spec = chain(2)
    spec.edges[0].kind = "conditional"
    spec.routers[START] = "tools:route"
    expected = check_spec(spec, require_bindings=True)
    assert "unknown-node" not in {problem.code for problem in expected}
    assert LiveCheck(require_bindings=True).check(spec) == expected


def chain_with_shortcuts(nodes: int, rng: random.Random) -> GraphSpec:
    """A chain where every other node also jumps a few nodes ahead: paths that can be cut."""
    spec = chain(nodes)
    for i in range(nodes - 2):
        if rng.random() < 0.5:
            far = min(nodes - 1, i + rng.randint(2, 8))
            spec.edges.append(EdgeSpec(source=f"n{i}", target=f"n{far}"))
    return spec


@pytest.mark.parametrize("seed", range(8))
def test_cutting_and_rejoining_paths_agrees_with_a_fresh_check(seed: int) -> None:
    # Removing an edge the check reached a node by re-searches only what hung below it
    # (mended from the nodes that kept their way): cut single edges, a node's every edge,
    # and several edges removed while others are added, in one edit each.
    rng = random.Random(seed)
    spec = chain_with_shortcuts(120, rng)
    live = LiveCheck()
    codes: set[str] = set()
    for _ in range(40):
        found = live.check(spec)
        assert found == check_spec(spec)
        codes.update(problem.code for problem in found)
        spec = spec.model_copy(deep=True)
        ids = [node.id for node in spec.nodes]
        roll = rng.random()
        if roll < 0.4:
            del spec.edges[rng.randrange(len(spec.edges))]
        elif roll < 0.6:
            cut = rng.choice(ids)
            spec.edges = [e for e in spec.edges if cut not in (e.source, e.target)]
        else:
            for _ in range(4):
                del spec.edges[rng.randrange(len(spec.edges))]
            for _ in range(3):
                spec.edges.append(EdgeSpec(source=rng.choice(ids), target=rng.choice(ids)))
    assert codes & {"unreachable", "no-way-out"}  # the edits did cut paths
