"""The Layout button computes positions off the kernel's event loop."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.widget import Builder
from graphnb.widget.background import Background
from graphnb.widget.layout import layout

from .conftest import run_async  # type: ignore[import-not-found]


def big_graph(nodes: int = 400) -> GraphSpec:
    rng = random.Random(5)
    names = [f"n{i}" for i in range(nodes)]
    edges = [EdgeSpec(source=START, target=names[0]), EdgeSpec(source=names[-1], target=END)]
    edges += [EdgeSpec(source=names[rng.randrange(i)], target=names[i]) for i in range(1, nodes)]
    while len(edges) < 2 * nodes:
        edges.append(EdgeSpec(source=rng.choice(names), target=rng.choice(names)))
    return GraphSpec(name="big", nodes=[NodeSpec(id=n) for n in names], edges=edges)


def stacked(builder: Builder) -> dict[str, Any]:
    """The builder's spec with every node at the origin, as the canvas would send it."""
    data = builder.spec.to_dict()
    for node in data["nodes"]:
        node["position"] = {"x": 0, "y": 0}
    return data


def test_layout_message_returns_at_once_and_applies_positions_on_the_loop(comm) -> None:
    builder = Builder(big_graph(), namespace={})
    comm.receive_update({"spec": stacked(builder)})
    expected = layout(builder.spec)

    async def scenario() -> tuple[bool, bool, int]:
        comm.receive({"type": "layout"})
        # The handler returned before the layout was applied: the loop is free.
        applied_at_once = builder.spec.nodes[1].position.y != 0  # type: ignore[union-attr]
        # Another message from the canvas is handled while the layout is computed.
        comm.receive({"type": "refresh"})
        pending = builder._layouts.pending
        assert pending is not None
        ticks = 0
        while not pending.done() or builder.spec.nodes[1].position.y == 0:  # type: ignore[union-attr]
            ticks += 1
            await asyncio.sleep(0.001)
        return applied_at_once, pending.done(), ticks

    applied_at_once, finished, ticks = run_async(scenario())

    assert not applied_at_once
    assert finished
    assert ticks > 0  # the loop went round while the worker thread laid the graph out
    placed = {n.id: (n.position.x, n.position.y) for n in builder.spec.nodes if n.position}
    assert placed == {name: expected[name] for name in placed}


def test_only_the_latest_layout_request_is_applied() -> None:
    background = Background("test")
    release = threading.Event()
    applied: list[str] = []

    def slow() -> str:
        release.wait(10)
        return "first"

    async def scenario() -> None:
        assert background.submit(slow, applied.append, lambda error: None)
        first = background.pending
        assert background.submit(lambda: "second", applied.append, lambda error: None)
        second = background.pending
        release.set()
        while not (first and first.done() and second and second.done()) or not applied:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.01)  # let a superseded result arrive, if it were to

    run_async(scenario())
    assert applied == ["second"]


def test_a_failed_layout_is_told_in_the_notice(comm, monkeypatch) -> None:
    builder = Builder(big_graph(20), namespace={})

    def broken(spec: GraphSpec, direction: str) -> dict[str, tuple[float, float]]:
        raise ValueError("no room on the canvas")

    monkeypatch.setattr("graphnb.widget.builder.layout", broken)

    async def scenario() -> None:
        comm.receive({"type": "layout"})
        while not builder.notice:
            await asyncio.sleep(0.001)

    run_async(scenario())
    assert builder.notice == "layout failed: no room on the canvas"


def test_without_a_running_loop_the_layout_runs_inline() -> None:
    results: list[int] = []
    assert not Background("inline").submit(lambda: 42, results.append, lambda error: None)
    assert results == [42]
