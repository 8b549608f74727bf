"""What travels to a batch's workers: nodes with policies, subgraphs, the saver's options.

Issue 29, items 10 and 17: on a process pool, Dask or Ray, a node with ``retry=``,
``timeout=`` or ``cache=`` was refused (its binding named the function, not the wrapper
the graph runs), a subgraph node was refused as "a lambda or a closure", and the saver's
options (``table_prefix`` ...) stayed behind, so the workers wrote into other tables.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from graphnb import END, START, StateGraph
from graphnb.checkpoint import PostgresSaver, SqliteSaver
from graphnb.engine.batch import BatchSetupError
from graphnb.errors import NodeError

from .conftest import POSTGRES_URL, process_pool
from .test_batch import strip

INPUTS = [{"x": 1}, {"x": 2}, {"x": -1}, {"x": 4}]


def check_like_local(graph: Any, results: list[Any], local: Any) -> None:
    want = local.batch(INPUTS, return_exceptions=True)
    for got, expected in zip(results, want, strict=True):
        if isinstance(expected, NodeError):
            assert isinstance(got, NodeError)
            assert str(got) == str(expected)
        else:
            assert strip(got) == strip(expected)
    pids = {r["pid"] for r in results if isinstance(r, dict)}
    assert pids
    assert os.getpid() not in pids  # the workers ran them


@pytest.mark.parametrize("build", ["build_with_policies", "build_nested"])
def test_policies_and_subgraphs_run_on_a_process_pool(nodes: Any, build: str) -> None:
    graph = getattr(nodes, build)()
    with process_pool(2) as pool:
        results = graph.batch(INPUTS, executor=pool, return_exceptions=True)
    check_like_local(graph, results, getattr(nodes, build)())


@pytest.mark.slow
@pytest.mark.parametrize("build", ["build_with_policies", "build_nested"])
def test_policies_and_subgraphs_run_on_dask(dask_client: Any, nodes: Any, build: str) -> None:
    graph = getattr(nodes, build)()
    results = graph.batch(INPUTS, executor=dask_client.get_executor(), return_exceptions=True)
    check_like_local(graph, results, getattr(nodes, build)())


@pytest.mark.slow
@pytest.mark.slow
def test_a_dask_client_given_as_it_is_runs_the_batch(dask_client: Any, nodes: Any) -> None:
    # executor=client, not client.get_executor(): Client.submit returns Dask futures, and
    # the batch failed waiting on them ("'Future' object has no attribute '_condition'")
    graph = nodes.build_with_policies()
    results = graph.batch(INPUTS, executor=dask_client, return_exceptions=True)
    check_like_local(graph, results, nodes.build_with_policies())
    finished = dict(graph.batch_as_completed(INPUTS[:2], executor=dask_client))
    assert strip(finished[1]) == strip(results[1])


def test_an_object_that_is_no_executor_is_refused_naming_what_it_got(nodes: Any) -> None:
    graph = nodes.build_with_policies()
    with pytest.raises(BatchSetupError, match=r"concurrent\.futures\.Executor.*got builtins\.str"):
        graph.batch(INPUTS, executor="dask://127.0.0.1:8786")


@pytest.mark.parametrize("build", ["build_with_policies", "build_nested"])
def test_policies_and_subgraphs_run_on_ray(ray_executor: Any, nodes: Any, build: str) -> None:
    graph = getattr(nodes, build)()
    results = graph.batch(INPUTS, executor=ray_executor, return_exceptions=True)
    check_like_local(graph, results, getattr(nodes, build)())


def test_a_subgraph_compiled_with_its_own_options_is_refused_naming_them(nodes: Any) -> None:
    inner = StateGraph(dict, name="inner").add_node("double", nodes.double)
    inner.add_edge(START, "double").add_edge("double", END)
    outer = StateGraph(dict).add_node("inner", inner.compile(interrupt_before="double"))
    app = outer.add_edge(START, "inner").add_edge("inner", END).compile()
    with process_pool(1) as pool, pytest.raises(BatchSetupError) as caught:
        app.batch([{"x": 1}], executor=pool)
    assert caught.value.node == "inner"
    assert "interrupt_before" in str(caught.value)
    # a child's node that cannot travel is named by its path
    closure = StateGraph(dict, name="inner").add_node("step", lambda state: {"x": 0})
    closure.add_edge(START, "step").add_edge("step", END)
    outer = StateGraph(dict).add_node("inner", closure)
    app = outer.add_edge(START, "inner").add_edge("inner", END).compile()
    with process_pool(1) as pool, pytest.raises(BatchSetupError, match="lambda") as caught:
        app.batch([{"x": 1}], executor=pool)
    assert caught.value.node == "inner/step"


def sqlite_tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return [name for (name,) in rows]


def test_a_sqlite_savers_options_travel_to_a_process_pool(nodes: Any, tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "runs.db", table_prefix="mine_", synchronous="FULL")
    graph = nodes.build(saver)
    ids = ["a", "b", "c", "d"]
    with process_pool(2) as pool:
        results = graph.batch(INPUTS, executor=pool, thread_ids=ids, return_exceptions=True)
    assert strip(results[0]) == strip(graph.get_state("a").values)
    assert graph.get_state("d").next == ()
    assert graph.list_threads() == ids
    assert not [t for t in sqlite_tables(tmp_path / "runs.db") if t.startswith("graphnb_")]


@pytest.mark.slow
@pytest.mark.db
@pytest.mark.parametrize("executor", ["dask", "ray", "process"])
def test_a_postgres_savers_options_travel_to_the_workers(
    nodes: Any, executor: str, request: pytest.FixtureRequest
) -> None:
    prefix = f"t{uuid.uuid4().hex[:12]}_"
    saver = PostgresSaver(
        POSTGRES_URL,
        table_prefix=prefix,
        statement_timeout=30,
        connection_options={"keepalives_idle": 20},
    )
    graph = nodes.build_with_policies(saver)
    ids = [f"{prefix}{i}" for i in range(len(INPUTS))]
    try:
        if executor == "process":
            with process_pool(2) as pool:
                results = graph.batch(INPUTS, executor=pool, thread_ids=ids, return_exceptions=True)
        else:
            pool = (
                request.getfixturevalue("dask_client").get_executor()
                if executor == "dask"
                else request.getfixturevalue("ray_executor")
            )
            results = graph.batch(INPUTS, executor=pool, thread_ids=ids, return_exceptions=True)
        assert isinstance(results[2], NodeError)
        for thread, got in zip(ids, results, strict=True):
            state = graph.get_state(thread)  # in this saver's tables, not graphnb_*
            if isinstance(got, dict):
                assert state.values == got
        assert sorted(graph.list_threads()) == sorted(ids)
        default = PostgresSaver(POSTGRES_URL)
        try:
            assert not set(ids) & set(default.threads())
        finally:
            default.close()
    finally:
        saver.close()
        conn = saver._connect()
        try:
            for table in (saver.table, saver.version_table, saver.cache_table):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        finally:
            conn.close()
