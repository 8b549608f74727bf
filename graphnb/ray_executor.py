"""A :class:`concurrent.futures.Executor` on Ray, for ``graph.batch(executor=...)``.

Ray has no ``concurrent.futures`` executor of its own (its ``ray.util.multiprocessing.Pool``
imitates :mod:`multiprocessing` instead), so this module adapts its tasks: each
``submit`` is one Ray task, and its future is the one Ray gives for the task's result.
Ray loads when a :class:`RayExecutor` is made, never on ``import graphnb``::

    from graphnb.ray_executor import RayExecutor

    with RayExecutor(num_cpus=4) as ray_pool:  # a local Ray; or address="ray://head:10001"
        results = app.batch(inputs, executor=ray_pool, thread_ids=ids)

Workers rebuild the graph from its recipe (see :mod:`graphnb.engine.batch`), so they
must import graphnb and the nodes' modules: install them on the cluster, or pass
``runtime_env={"env_vars": {"PYTHONPATH": ...}}`` (a local Ray inherits this process's
environment, ``PYTHONPATH`` included).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures import wait as wait_for
from typing import Any, ParamSpec, TypeVar

__all__ = ["RayExecutor"]

P = ParamSpec("P")
T = TypeVar("T")


class RayExecutor(Executor):
    """Runs each submitted call as a Ray task.

    Args:
        address: the cluster to join (``"ray://head:10001"``, ``"auto"``); ``None``
            starts a local Ray, or joins the one this process already started.
        num_cpus: the CPUs of a local Ray, so how many tasks run at once there.
        runtime_env: Ray's runtime environment for the workers (``env_vars``,
            ``py_modules`` ...).
        task_options: options of every task (``num_cpus=1``, ``max_retries=3`` ...),
            as ``ray.remote`` takes them.
        **init_options: further ``ray.init`` options.

    Shutting the executor down (or leaving its ``with`` block) shuts Ray down when this
    executor started it.

    Raises:
        ImportError: Ray is not installed (``pip install "graphnb[ray]"``).
    """

    def __init__(
        self,
        *,
        address: str | None = None,
        num_cpus: int | None = None,
        runtime_env: dict[str, Any] | None = None,
        task_options: dict[str, Any] | None = None,
        **init_options: Any,
    ) -> None:
        try:
            import ray
        except ImportError as error:
            raise ImportError(
                'RayExecutor needs Ray: pip install "graphnb[ray]" (or ray>=2.9)'
            ) from error
        self._ray = ray
        self._owns = not ray.is_initialized()
        if self._owns:
            try:
                ray.init(
                    address=address,
                    num_cpus=num_cpus,
                    runtime_env=runtime_env,
                    include_dashboard=init_options.pop("include_dashboard", False),
                    log_to_driver=init_options.pop("log_to_driver", False),
                    **init_options,
                )
            except BaseException:
                # A start that failed half way (a raylet that missed Ray's startup
                # deadline) leaves processes behind: stop them before reporting it.
                ray.shutdown()
                raise
        self._task_options = dict(task_options or {})
        self._remotes: dict[Callable[..., Any], Any] = {}
        self._lock = threading.Lock()
        self._shutdown = False
        self._pending: dict[Future[Any], Any] = {}  # submitted, not yet resolved: Ray's ref

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` as a Ray task; its future resolves to the result.

        Raises:
            RuntimeError: the executor was shut down.
        """
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a RayExecutor after shutdown")
            remote = self._remotes.get(fn)
            if remote is None:
                remote = self._ray.remote(fn)
                if self._task_options:
                    remote = remote.options(**self._task_options)
                self._remotes[fn] = remote
            ref = remote.remote(*args, **kwargs)
            future: Future[T] = ref.future()
            self._pending[future] = ref  # before a shutdown can look for it
        future.add_done_callback(self._resolved)
        return future

    def _resolved(self, future: Future[Any]) -> None:
        with self._lock:
            self._pending.pop(future, None)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse new calls; shut Ray down if this executor started it.

        As any executor's: ``wait`` waits for the submitted calls to finish (leaving a
        ``with`` block does), and ``cancel_futures`` cancels those not yet done. A Ray shut
        down under running calls ends them: their futures are cancelled, never left
        pending forever.
        """
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
            pending = dict(self._pending)
        if cancel_futures:
            for future, ref in pending.items():
                future.cancel()  # Ray's futures never report running: this always works
                self._ray.cancel(ref)
        if wait:
            wait_for(pending)
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
            with self._lock:
                left = list(self._pending)
            for future in left:  # Ray is gone: nothing would ever resolve them
                future.cancel()
