"""What a view learns while a node works: a synchronous node holds the event loop, yet its
start (and what it streamed so far) is published while it runs, not after."""

from __future__ import annotations

import time
from typing import Annotated, Any

from graphnb import END, START, GraphState, StateField, StateGraph
from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


class Talk(GraphState):
    text: Annotated[str, StateField(streaming=True)] = ""
    done: bool = False


async def _run(builder: Builder) -> Any:
    return await builder.run({})


def _statuses(comm: Any, node: str) -> list[str]:
    return [update["nodes"][node]["status"] for update in comm.updates("run_state")]


def test_a_blocking_node_is_published_running_while_it_blocks(comm):
    seen: list[list[str]] = []

    def slow(state: Talk) -> dict[str, Any]:
        time.sleep(0.5)  # holds the loop: no loop timer can publish meanwhile
        seen.append(_statuses(comm, "slow"))
        time.sleep(0.1)
        return {"done": True}

    graph = StateGraph(Talk, name="g").add_node("slow", slow)
    graph.add_edge(START, "slow").add_edge("slow", END)
    builder = Builder(graph, namespace={"slow": slow})
    comm.clear()
    run_async(_run(builder))
    assert len(seen) == 1
    assert "running" in seen[0], f"published while slow blocked: {seen}"
    assert _statuses(comm, "slow")[-1] == "done"


def test_chunks_of_a_blocking_generator_go_out_while_it_still_works(comm):
    seen: list[str] = []

    def talk(state: Talk) -> Any:
        yield "one "
        time.sleep(0.5)
        seen.append("".join(m["text"] for m in comm.custom("chunks")))
        yield "two"

    graph = StateGraph(Talk, name="g").add_node("talk", talk)
    graph.add_edge(START, "talk").add_edge("talk", END)
    builder = Builder(graph, namespace={"talk": talk})
    comm.clear()
    run_async(_run(builder))
    assert seen == ["one "], "the first chunk waited for the second"
    assert builder.run_state["chunks"] == "one two"


class Fresh(GraphState):
    """Used by one test only: pydantic builds a GraphState's serializer on its first
    validation, and a run builds states without validating them."""

    done: bool = False


def test_a_run_whose_state_model_was_never_validated_reports_its_steps(comm):
    def mark(state: Fresh) -> dict[str, Any]:
        return {"done": True}

    graph = StateGraph(Fresh, name="g").add_node("mark", mark)
    graph.add_edge(START, "mark").add_edge("mark", END)
    builder = Builder(graph, namespace={"mark": mark})
    run_async(_run(builder))
    assert builder.run_state["error"] is None
    assert builder.run_state["status"] == "done"
    assert builder.run_state["steps"][-1]["state"] == {"done": True}
