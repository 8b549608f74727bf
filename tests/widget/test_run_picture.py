"""The run picture is a pure function of the run's events: no picture is changed once made."""

from __future__ import annotations

import copy
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from graphnb import END, START, CachePolicy, RetryPolicy, Send, StateGraph
from graphnb.engine.events import NodeStarted, StepFinished
from graphnb.widget.run_picture import advance, ending, failed, finished, idle_run, started


class Story(TypedDict, total=False):
    topic: str
    items: Annotated[list[str], operator.add]
    notes: Annotated[list[str], operator.add]


def child_step(state: Story) -> dict[str, Any]:
    return {"notes": [f"child saw {state.get('topic')}"]}


def map_item(state: Story) -> dict[str, Any]:
    return {"items": [state["topic"].upper()]}


attempts: list[int] = []


def flaky(state: Story) -> dict[str, Any]:
    attempts.append(1)
    if len(attempts) % 2:
        raise ConnectionError("try again")
    return {"notes": ["flaky done"]}


def cached(state: Story) -> dict[str, Any]:
    return {"notes": ["cached"]}


def fan_out(state: Story) -> list[Send]:
    return [Send("map_item", {"topic": word}) for word in ("a", "b", "c")]


def graph() -> Any:
    child = StateGraph(Story, name="child").add_node("child_step", child_step)
    child.add_edge(START, "child_step").add_edge("child_step", END)
    parent = StateGraph(Story, name="parent")
    parent.add_node("research", child.compile())
    parent.add_node("map_item", map_item)
    parent.add_node("flaky", flaky, retry=RetryPolicy(max_attempts=3, initial_interval=0))
    parent.add_node("cached", cached, cache=CachePolicy(fields=("items",)))
    parent.add_edge(START, "research")
    parent.add_conditional_edges("research", fan_out, sends=["map_item"])
    parent.add_edge("map_item", "flaky").add_edge("flaky", "cached").add_edge("cached", END)
    return parent.compile()


def draw(app: Any, given: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Fold advance over a real run's events, checking that no picture changes after."""
    nodes = [node.id for node in app.spec.nodes]
    picture = started(nodes, thread_id=None, field=None)
    seen: list[tuple[Any, Any]] = []
    for event in app.stream(given, mode="events", subgraphs=True):
        frozen = copy.deepcopy(picture)
        after = advance(picture, event, baseline={})
        assert picture == frozen, f"advance changed the picture it was given ({event!r})"
        seen.append((event, after))
        picture = after
    return picture, seen


def test_advance_draws_a_whole_run_without_changing_a_picture():
    app = graph()
    app.invoke({"topic": "warm the cache"})  # the second run's `cached` is a cache hit
    picture, seen = draw(app, {"topic": "owls"})
    nodes = picture["nodes"]
    assert nodes["research/child_step"]["status"] == "done", "a subgraph's node, by its path"
    assert nodes["map_item"]["instances"] == {"total": 3, "running": 0, "done": 3, "failed": 0}
    assert nodes["flaky"]["retries"] == 1
    assert nodes["cached"]["cache_hits"] == 1
    assert picture["active"] == []
    assert [step["nodes"] for step in picture["steps"]][-1] == ["cached"]
    assert picture["steps"][-1]["state"]["items"] == ["A", "B", "C"]
    # A step event that changes nothing drawn gives the same picture back.
    steps = [after for event, after in seen if isinstance(event, StepFinished)]
    assert len({id(step) for step in steps}) == len(steps), "each step made a new picture"
    last = finished(picture, "done", elapsed=1.5)
    assert last["status"] == "done"
    assert last["elapsed"] == 1.5
    assert picture["status"] == "running", "finished made a new picture too"


def test_a_run_that_stops_shows_where_and_why():
    app = graph()
    nodes = [node.id for node in app.spec.nodes]
    running = advance(
        started(nodes, thread_id="t", field=None),
        next(e for e in app.stream({"topic": "x"}, mode="events") if isinstance(e, NodeStarted)),
        baseline={},
    )
    assert running["nodes"]["research"]["status"] == "running"
    assert ending(()) == "done"
    stopped = finished(running, "stopped", elapsed=0.1)
    assert stopped["nodes"]["research"]["status"] == "idle", "no clock runs after a stop"
    error = failed(running, ValueError("broken"))
    assert error["error"] is not None
    assert error["error"]["message"] == "ValueError: broken"
    assert running["error"] is None
    told = failed(error, "the watched run failed")
    assert told["error"] == error["error"], "a message does not hide the node's failure"
    assert failed(idle_run(nodes), "lost")["error"]["message"] == "lost"  # type: ignore[index]


@pytest.mark.parametrize("asks", [True, False])
def test_a_run_stopped_at_an_interrupt_is_waiting_or_paused(asks):
    from graphnb.records import Interrupt

    stop = Interrupt(node="research", when="during" if asks else "before", value="?", id="1")
    assert stop.asks is asks
    status = ending((stop,))
    assert status == ("waiting" if asks else "paused")
    picture = finished(idle_run(["research"]), status, stops=(stop,), elapsed=0)
    assert picture["nodes"]["research"]["status"] == status
