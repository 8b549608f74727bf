"""Batches on a real local Ray, through graphnb's RayExecutor."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from graphnb.errors import NodeError

from .conftest import POSTGRES_URL
from .test_batch import strip


@pytest.mark.slow
@pytest.mark.db
def test_ray_batch_of_200_on_postgres_matches_a_local_run(ray_executor: Any, nodes: Any) -> None:
    run = uuid.uuid4().hex[:8]
    ids = [f"{run}-{i}" for i in range(200)]
    inputs = [{"x": i if i % 50 else -i - 1} for i in range(200)]  # 4 inputs fail
    graph = nodes.build(POSTGRES_URL)
    try:
        results = graph.batch(inputs, executor=ray_executor, thread_ids=ids, return_exceptions=True)
        local = nodes.build().batch(inputs, return_exceptions=True)
        assert len(results) == 200
        for got, want in zip(results, local, strict=True):
            if isinstance(want, NodeError):
                assert isinstance(got, NodeError)
                assert (str(got), got.node) == (str(want), want.node)
            else:
                assert strip(got) == strip(want)
        pids = {r["pid"] for r in results if isinstance(r, dict)}
        assert len(pids) == 2  # both Ray workers ran inputs, none ran in this process
        assert all(isinstance(p, int) for p in pids)
        for thread, got in zip(ids, results, strict=True):
            state = graph.get_state(thread)
            if isinstance(got, dict):
                assert state.values == got
                assert state.next == ()
        # a rerun runs nothing on the finished threads; the failed one (input 0) tries its
        # failed step again, which fails again and records one more error checkpoint
        steps = {t: len(graph.get_state_history(t)) for t in ids[:10]}
        again = graph.batch(
            inputs[:10], executor=ray_executor, thread_ids=ids[:10], return_exceptions=True
        )
        assert isinstance(again[0], NodeError)
        assert [strip(r) for r in again[1:]] == [strip(r) for r in results[1:10]]
        grown = {t: len(graph.get_state_history(t)) - steps[t] for t in ids[:10]}
        assert grown == {t: int(t == ids[0]) for t in ids[:10]}
        assert graph.get_state(ids[0]).source == "error"
    finally:
        for thread in ids:
            graph.delete_thread(thread)
        graph.checkpointer.close()
