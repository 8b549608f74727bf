"""Fixtures of the batch tests: the node module importable here and on worker processes."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers start fresh (spawn), not as forks of this process.

    By the time a test asks for one, this process may run Ray's, Dask's or a connection
    pool's threads; a fork copies them mid-flight and the child can die at once
    (BrokenProcessPool, seen in CI after the Ray tests). Spawned workers find the node
    module through ``PYTHONPATH``, which the ``nodes`` fixture sets.
    """
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


@pytest.fixture
def nodes(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ``batch_nodes`` module, importable by this process and by workers it spawns.

    Workers are new processes: they find the module through ``PYTHONPATH``, which they
    inherit, not through this process's ``sys.path``.
    """
    monkeypatch.syspath_prepend(str(HERE))
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(HERE), path) if p))
    import batch_nodes

    return batch_nodes


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """A Dask client on a LocalCluster of 2 worker processes (two threads each).

    LocalCluster starts its workers with multiprocessing's spawn, which hands them this
    process's ``sys.path`` (not ``PYTHONPATH``): the node module's directory is put there
    for as long as the cluster lives, so restarted workers find it too.
    """
    distributed = pytest.importorskip("distributed")
    sys.path.insert(0, str(HERE))
    # ":0": any free port (with None the scheduler's HTTP server still wants 8787, and a
    # cluster already running, a notebook's say, fails the fixture)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0"
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
        sys.path.remove(str(HERE))


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[Any]:
    """A :class:`~graphnb.ray_executor.RayExecutor` on a local Ray of 2 CPUs.

    Ray's workers are processes of their own: they find graphnb and the node module
    through the ``PYTHONPATH`` of their runtime environment.
    """
    pytest.importorskip("ray")
    from graphnb.ray_executor import RayExecutor

    path = os.pathsep.join(p for p in (str(HERE), *sys.path) if p)
    options: dict[str, Any] = {"num_cpus": 2, "runtime_env": {"env_vars": {"PYTHONPATH": path}}}
    try:
        executor = RayExecutor(**options)
    except Exception as error:
        # Ray gives its raylet a fixed 30 s to start; on a loaded 2-core machine it can
        # miss that. One more try; any other failure is reported as it is.
        if "timed out during startup" not in str(error):
            raise
        executor = RayExecutor(**options)
    try:
        yield executor
    finally:
        executor.shutdown()
