"""RayExecutor as a concurrent.futures executor: what shutting it down does to its calls.

Each test starts a local Ray of its own (the executor shuts down only a Ray it started).
"""

from __future__ import annotations

import operator
import time
from concurrent.futures import CancelledError
from typing import Any

import pytest


def _executor() -> Any:
    pytest.importorskip("ray")
    import ray

    from graphnb.ray_executor import RayExecutor

    if ray.is_initialized():  # another test's Ray: this executor would not own it
        pytest.skip("Ray is already running in this process")
    return RayExecutor(num_cpus=1)


@pytest.mark.slow
def test_leaving_the_with_block_waits_for_the_submitted_calls() -> None:
    with _executor() as executor:
        # closures travel by value: the workers need not import this module
        slept = executor.submit(lambda: time.sleep(1))
        product = executor.submit(lambda x, y: operator.mul(x, y), 6, 7)
    # Ray is shut down, but only once both calls finished: neither future hangs
    assert product.result(timeout=60) == 42
    assert slept.result(timeout=60) is None


@pytest.mark.slow
def test_a_shutdown_that_does_not_wait_leaves_no_future_pending() -> None:
    executor = _executor()
    slept = executor.submit(lambda: time.sleep(30))
    executor.shutdown(wait=False)
    with pytest.raises(CancelledError):
        slept.result(timeout=60)
