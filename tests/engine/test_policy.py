"""Per-node policies: retry with backoff, timeouts, caching; in code and in the spec."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from graphnb import (
    END,
    START,
    CacheHit,
    CachePolicy,
    GraphSetupError,
    GraphSpec,
    MemoryCache,
    NodeError,
    NodeFinished,
    NodeRetrying,
    NodeTimeout,
    RetryPolicy,
    StateGraph,
)

FAST = {"initial_interval": 0.001, "max_interval": 0.002}


def flaky(failures: int, error: type[Exception] = ConnectionError) -> Any:
    calls: list[int] = []

    def node(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if len(calls) <= failures:
            raise error(f"attempt {len(calls)} failed")
        return {"out": len(calls)}

    node.calls = calls  # type: ignore[attr-defined]
    return node


def one(fn: Any, **policies: Any) -> StateGraph[dict[str, Any]]:
    graph = StateGraph(dict).add_node("work", fn, **policies)
    return graph.add_edge(START, "work").add_edge("work", END)


def test_a_retried_node_succeeds_and_each_failed_attempt_is_an_event() -> None:
    node = flaky(2)
    app = one(node, retry=RetryPolicy(max_attempts=3, **FAST)).compile()
    events = list(app.stream({}))
    retries = [e for e in events if isinstance(e, NodeRetrying)]
    assert [(e.node, e.attempt) for e in retries] == [("work", 1), ("work", 2)]
    assert str(retries[0].error) == "attempt 1 failed"
    assert len(node.calls) == 3
    assert app.invoke({})["out"] == 4  # the failures are spent: the 4th call succeeds


def test_retries_stop_after_max_attempts_with_the_last_error() -> None:
    node = flaky(5)
    app = one(node, retry=RetryPolicy(max_attempts=2, **FAST)).compile()
    with pytest.raises(NodeError, match="attempt 2 failed") as caught:
        app.invoke({})
    assert isinstance(caught.value.__cause__, ConnectionError)
    assert len(node.calls) == 2


@pytest.mark.parametrize("error", [TypeError, KeyError, AttributeError])
def test_programming_errors_are_not_retried_by_default(error: type[Exception]) -> None:
    node = flaky(1, error)
    with pytest.raises(NodeError):
        one(node, retry=RetryPolicy(**FAST)).compile().invoke({})
    assert len(node.calls) == 1


def test_retry_on_chooses_the_exceptions() -> None:
    node = flaky(1, ValueError)
    policy = RetryPolicy(retry_on=ConnectionError, **FAST)
    with pytest.raises(NodeError):
        one(node, retry=policy).compile().invoke({})
    assert len(node.calls) == 1
    node = flaky(1, ValueError)
    policy = RetryPolicy(retry_on=lambda error: "attempt" in str(error), **FAST)
    assert one(node, retry=policy).compile().invoke({})["out"] == 2


@pytest.mark.parametrize("chosen", ["ValueError", 5, int, (), (ValueError, 5)])
def test_a_retry_on_that_could_not_choose_is_refused_where_it_is_written(chosen: object) -> None:
    # Taken as it was, it failed only once the node failed, with its own TypeError in
    # place of the node's error.
    with pytest.raises(ValueError, match="retry_on takes an exception class"):
        RetryPolicy(retry_on=chosen, **FAST)  # type: ignore[arg-type]


def test_backoff_grows_is_capped_and_jitter_is_seeded() -> None:
    plain = RetryPolicy(initial_interval=1, backoff_factor=2, max_interval=5, jitter=False)
    delay = plain.delays()
    assert [delay(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 5]
    jittered = RetryPolicy(initial_interval=1, backoff_factor=2, max_interval=5, seed=7)
    first, again = jittered.delays(), jittered.delays()
    waits = [first(n) for n in (1, 2, 3)]
    assert waits == [again(n) for n in (1, 2, 3)]
    assert all(base / 2 <= wait <= base for wait, base in zip(waits, [1, 2, 4], strict=True))
    assert waits != [1, 2, 4]


def test_bad_policies_are_refused_where_they_are_written() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="ttl"):
        CachePolicy(ttl=-1)
    with pytest.raises(GraphSetupError, match="timeout of `work`"):
        one(lambda s: None, timeout=0)
    with pytest.raises(GraphSetupError, match="retry of `work` must be a RetryPolicy"):
        one(lambda s: None, retry=3)

    def stream(state: dict[str, Any]) -> Any:
        yield "x"

    with pytest.raises(GraphSetupError, match="`work` streams"):
        one(stream, retry=RetryPolicy()).compile()


def test_a_sync_node_past_its_timeout_fails_and_its_result_is_discarded() -> None:
    release = threading.Event()
    finished: list[str] = []

    def slow(state: dict[str, Any]) -> dict[str, Any]:
        release.wait(5)
        finished.append("late")
        return {"out": "late"}

    app = one(slow, timeout=0.05).compile()
    started = time.perf_counter()
    with pytest.raises(NodeTimeout, match=r"`work` ran longer than its timeout of 0\.05 s") as e:
        app.invoke({})
    assert time.perf_counter() - started < 2
    assert (e.value.node, e.value.limit) == ("work", 0.05)
    release.set()


def test_an_async_node_past_its_timeout_is_cancelled() -> None:
    cancelled = asyncio.Event()

    async def slow(state: dict[str, Any]) -> dict[str, Any]:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {"out": "late"}

    async def run() -> None:
        with pytest.raises(NodeTimeout):
            await one(slow, timeout=0.05).compile().ainvoke({})
        assert cancelled.is_set()

    asyncio.run(run())


def test_a_timeout_counts_per_attempt_and_is_retried() -> None:
    calls: list[int] = []

    def slow_once(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.3)
        return {"out": len(calls)}

    app = one(slow_once, timeout=0.05, retry=RetryPolicy(**FAST)).compile()
    assert app.invoke({})["out"] == 2


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_cached_result_is_reused_until_its_ttl_runs_out() -> None:
    calls: list[Any] = []

    def costly(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(state["q"])
        return {"answer": state["q"] * 2}

    clock = Clock()
    cache = MemoryCache(clock=clock)
    app = one(costly, cache=CachePolicy(ttl=10, version="v1")).compile(cache=cache)
    assert app.invoke({"q": 2})["answer"] == 4
    events = list(app.stream({"q": 2}))
    assert [e.node for e in events if isinstance(e, CacheHit)] == ["work"]
    assert app.invoke({"q": 3})["answer"] == 6  # another input: another key
    assert calls == [2, 3]
    clock.now = 10.0
    app.invoke({"q": 2})
    assert calls == [2, 3, 2]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_the_updates_stream_marks_a_cached_update_as_langgraph_does(kind: str) -> None:
    def double(state: dict[str, Any]) -> dict[str, Any]:
        return {"answer": state["q"] * 2}

    async def adouble(state: dict[str, Any]) -> dict[str, Any]:
        return double(state)

    app = one(double if kind == "sync" else adouble, cache=CachePolicy()).compile()

    async def collect() -> list[Any]:
        return [chunk async for chunk in app.astream({"q": 2}, mode="updates")]

    def updates() -> list[Any]:
        return (
            list(app.stream({"q": 2}, mode="updates")) if kind == "sync" else asyncio.run(collect())
        )

    assert updates() == [{"work": {"answer": 4}}]
    hit = {"work": {"answer": 4}, "__metadata__": {"cached": True}}
    assert updates() == [hit]  # LangGraph's shape (test_pregel.py::test_node_cache)
    events = list(app.stream({"q": 2}, mode="events"))
    assert [e.cached for e in events if isinstance(e, NodeFinished)] == [True]


def test_the_cache_key_is_the_chosen_fields_and_the_version() -> None:
    calls: list[Any] = []

    def costly(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(state["q"])
        return {"answer": state["q"]}

    cache = MemoryCache()
    keyed = one(costly, cache=CachePolicy(fields=("q",))).compile(cache=cache)
    keyed.invoke({"q": 1, "noise": 1})
    keyed.invoke({"q": 1, "noise": 2})
    assert calls == [1]
    bumped = one(costly, cache=CachePolicy(fields=("q",), version="v2")).compile(cache=cache)
    bumped.invoke({"q": 1})
    assert calls == [1, 1]


def test_a_cached_value_is_a_copy() -> None:
    def make(state: dict[str, Any]) -> dict[str, Any]:
        return {"items": [1]}

    app = one(make, cache=CachePolicy()).compile()
    first = app.invoke({})
    first["items"].append(2)
    assert app.invoke({})["items"] == [1]


def test_async_nodes_retry_and_cache() -> None:
    calls: list[int] = []

    async def flaky_async(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("down")
        return {"out": len(calls)}

    app = one(flaky_async, retry=RetryPolicy(**FAST), cache=CachePolicy()).compile()
    assert asyncio.run(app.ainvoke({}))["out"] == 2
    assert asyncio.run(app.ainvoke({}))["out"] == 2
    assert len(calls) == 2


FLAKY_CALLS: list[int] = []


def flaky_once(state: dict[str, Any]) -> dict[str, Any]:
    FLAKY_CALLS.append(1)
    if len(FLAKY_CALLS) == 1:
        raise ConnectionError("down")
    return {"out": len(FLAKY_CALLS)}


def test_policies_live_in_the_spec_and_come_back_from_it(tmp_path: Path) -> None:
    node = flaky_once
    FLAKY_CALLS.clear()
    graph = one(
        node,
        retry=RetryPolicy(max_attempts=4, retry_on=(ConnectionError, OSError), **FAST),
        timeout=2.5,
        cache=CachePolicy(ttl=60, version="v3", fields=("q",)),
    )
    data = graph.spec.to_dict()["nodes"][0]
    assert data["retry"]["max_attempts"] == 4
    assert data["retry"]["retry_on"] == ["ConnectionError", "OSError"]
    assert data["timeout"] == 2.5
    assert data["cache"] == {"ttl": 60.0, "version": "v3", "fields": ["q"]}
    assert "retry" not in StateGraph(dict).add_node("a", node).spec.to_dict()["nodes"][0]
    spec = GraphSpec.from_json(graph.spec.to_json())
    rebuilt = StateGraph.from_spec(spec)
    assert rebuilt.spec == graph.spec
    assert rebuilt._policies["work"][0] == graph._policies["work"][0]
    assert rebuilt.compile().invoke({"q": 1})["out"] == 2  # retried from the spec's policy


def test_an_old_spec_without_policies_still_loads() -> None:
    old = (
        '{"version": 1, "name": "g", "nodes": [{"id": "a", "label": null, "binding": null, '
        '"position": null, "metadata": {}}], "edges": [], "routers": {}, '
        '"state": {"kind": "dict", "binding": null, "fields": []}, "metadata": {}}'
    )
    node = GraphSpec.from_json(old).nodes[0]
    assert (node.retry, node.timeout, node.cache) == (None, None, None)


def test_an_exported_module_keeps_the_policies(tmp_path: Path) -> None:
    from graphnb.export import load_module, write_module

    graph = one(
        flaky_once,
        retry=RetryPolicy(max_attempts=4, retry_on=(ConnectionError, OSError), jitter=False),
        timeout=2.5,
        cache=CachePolicy(ttl=60, version="v3", fields=("q",)),
    )
    module = load_module(write_module(graph, tmp_path / "policies.py", ruff=False))
    assert module.graph.spec.nodes[0].retry == graph.spec.nodes[0].retry
    assert module.graph.spec.nodes[0].timeout == 2.5
    assert module.graph.spec.nodes[0].cache == graph.spec.nodes[0].cache
