"""Batches: many inputs through one graph, on a local thread pool or any ``Executor``.

On a thread pool of this process the compiled graph itself runs each input. On any other
:class:`concurrent.futures.Executor` (a Dask ``Client.get_executor()``, a process pool, a
Ray executor) the graph travels as a :class:`Recipe`: its spec as JSON (every node and
router named by an importable ``module:qualname`` binding), its compile options and its
checkpointer's URL with every option of the saver (``table_prefix`` ...). A worker
rebuilds the graph from the recipe once per process and runs the inputs it is given;
nothing is pickled but the recipe, the inputs and the results, so a lambda or a closure
cannot travel and is refused before anything is sent. A node's retry, timeout and cache
policies travel in the spec, a subgraph node as its child's spec.

With ``thread_ids``, each input runs on its own thread and a rerun with the same ids
resumes the unfinished inputs only: a finished thread returns its last state without
running again, a thread stopped mid-run (a worker killed) continues from its last
checkpoint, a new thread starts from the input.

While a batch runs, ``batch(progress=...)`` hands a :class:`BatchProgress` to an
:class:`OnProgress` callback after inputs finish and a few times a second. ``True`` asks
for the display the package façade installed (:mod:`graphnb.progress`: a widget in a
notebook, a text bar elsewhere); the engine itself imports no display.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..binding import is_loaded_file, resolve
from ..errors import BindingError, GraphRuntimeError, GraphSetupError

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from ..records import StateSnapshot
    from .store import ThreadStore
    from .wiring import Wiring

# pickle, traceback, uuid and concurrent.futures (which imports logging) load when a batch
# runs: `import graphnb` imports this module to install the recipe builder.

__all__ = [
    "BatchProgress",
    "BatchSetupError",
    "OnProgress",
    "Recipe",
    "RemoteError",
    "install_builder",
    "install_progress",
    "progress_callback",
    "recipe_of",
    "run_item",
    "run_remote",
    "as_completed",
    "as_executor",
    "submit_remote",
]


class BatchSetupError(GraphSetupError):
    """A graph cannot travel to workers, or a worker cannot rebuild it.

    Attributes:
        node: the node (or router source) at fault, when one is.
    """

    def __init__(self, message: str, *, node: str | None = None) -> None:
        self.node = node
        super().__init__(message)


class RemoteError(GraphRuntimeError):
    """An input's error raised on a worker that could not be sent back as itself.

    Attributes:
        type_name: the qualified name of the original exception's class.
        thread_id: the input's thread, when it had one.
        remote_traceback: the traceback text as the worker saw it.
    """

    def __init__(
        self, message: str, *, type_name: str, thread_id: str | None, remote_traceback: str
    ) -> None:
        self.type_name = type_name
        self.thread_id = thread_id
        self.remote_traceback = remote_traceback
        super().__init__(message)


@dataclass(frozen=True)
class Recipe:
    """What travels to a worker to rebuild a compiled graph there (hashable, picklable)."""

    spec_json: str
    checkpointer: str | None
    recursion_limit: int
    max_concurrency: int | None
    interrupt_before: tuple[str, ...] = ()
    interrupt_after: tuple[str, ...] = ()
    node_bindings: tuple[tuple[str, str], ...] = field(default=())
    # the saver's options besides its URL (table_prefix ...), as (name, value) pairs; a
    # value may be a dict (PostgreSQL's connection_options), so they are not hashed
    checkpointer_options: tuple[tuple[str, Any], ...] = field(default=(), hash=False)


class BatchGraph(Protocol):
    """What a batch runs its inputs on: a compiled graph (:class:`~graphnb.CompiledGraph`)."""

    @property
    def threads(self) -> ThreadStore[Any]: ...

    def invoke(
        self,
        input: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        thread_id: str | None = None,
    ) -> Any: ...

    def get_state(self, thread_id: str) -> StateSnapshot[Any]: ...


Builder = Callable[[Recipe], BatchGraph]
"""Rebuilds a compiled graph from a recipe (installed by the package façade)."""

_builder: Builder | None = None
_built: dict[Recipe, BatchGraph] = {}
_built_lock = threading.Lock()


def install_builder(builder: Builder) -> None:
    """Make ``builder`` rebuild graphs from recipes on workers from now on."""
    global _builder
    _builder = builder


def recipe_of(graph: Wiring[Any]) -> Recipe:
    """The recipe of ``graph``, checked to be rebuildable in another process.

    Raises:
        BatchSetupError: naming the node whose callable has no importable binding (a
            lambda, a closure, a notebook function), or the checkpointer workers cannot
            open (a saver object without a URL, or ``memory://``).
    """
    spec = graph.spec
    bindings = _travelling_bindings(graph, "")
    url, options = _checkpointer_url(graph)
    return Recipe(
        spec_json=spec.to_json(indent=None),
        checkpointer=url,
        checkpointer_options=options,
        recursion_limit=graph.recursion_limit,
        max_concurrency=graph.max_concurrency,
        interrupt_before=tuple(sorted(graph.interrupt_before)),
        interrupt_after=tuple(sorted(graph.interrupt_after)),
        node_bindings=tuple(bindings),
    )


def _travelling_bindings(graph: Wiring[Any], path: str) -> list[tuple[str, str]]:
    """Every node's and router's binding, a subgraph node's child's too (named by path).

    A subgraph travels inside the spec (the child's spec is the node's ``subgraph``) and
    is compiled again on the worker, so its own nodes must be importable there.
    """
    bindings: list[tuple[str, str]] = []
    for node in graph.spec.nodes:
        name = f"{path}{node.id}"
        found = graph.nodes.get(node.id)
        subgraph = found.subgraph if found is not None else None
        if subgraph is not None:
            _check_child_options(name, subgraph.child)
            bindings.extend(_travelling_bindings(subgraph.child, f"{name}/"))
            continue
        fn = found.fn if found is not None else None
        bindings.append((name, _travelling_binding(name, node.binding, fn, "node")))
    for source, binding in graph.spec.routers.items():
        router = graph.routers.get(source)
        name = f"{path}{source}"
        _travelling_binding(name, binding, router.fn if router else None, "router of")
    return bindings


def _check_child_options(name: str, child: Wiring[Any]) -> None:
    """Refuse a compiled child whose compile options its spec does not carry.

    A worker compiles the child from its spec with the defaults; a child compiled with
    its own ``interrupt_before`` (say) would run differently there.
    """
    from .wiring import DEFAULT_RECURSION_LIMIT  # loads with a graph, not with graphnb

    given = [
        option
        for option, value, default in (
            ("interrupt_before", child.interrupt_before, frozenset()),
            ("interrupt_after", child.interrupt_after, frozenset()),
            ("recursion_limit", child.recursion_limit, DEFAULT_RECURSION_LIMIT),
            ("max_concurrency", child.max_concurrency, None),
        )
        if value != default
    ]
    if given:
        raise BatchSetupError(
            f"subgraph node {name!r} cannot travel to workers: its child graph "
            f"{child.name!r} was compiled with {', '.join(given)}, which workers (compiling "
            "it from its spec) would not know; add the StateGraph itself as the node, or "
            "run the batch on a thread pool",
            node=name,
        )


def _travelling_binding(name: str, binding: str | None, fn: Any, what: str) -> str:
    hint = "define it at the top level of an importable module (not in a notebook)"
    if binding is None:
        raise BatchSetupError(
            f"{what} {name!r} cannot travel to workers: its callable {fn!r} has no "
            f"importable name (a lambda or a closure); {hint}",
            node=name,
        )
    if ":" not in binding:
        raise BatchSetupError(
            f"{what} {name!r} cannot travel to workers: it is bound to the notebook name "
            f"{binding!r}, which a worker process cannot import; {hint}",
            node=name,
        )
    module_name = binding.partition(":")[0]
    if is_loaded_file(module_name):
        file = getattr(sys.modules.get(module_name), "__file__", None) or module_name
        raise BatchSetupError(
            f"{what} {name!r} cannot travel to workers: its file {file!r} has no module name "
            f"a worker can import (graphnb loaded it as {module_name!r}); rename the file to "
            "a module name (letters, digits and underscores, not the name of another module)",
            node=name,
        )
    try:
        found = resolve(binding)
    except BindingError as error:
        raise BatchSetupError(f"{what} {name!r}: {error}", node=name) from error
    # A node with a retry, timeout or cache runs its function wrapped (graphnb_node
    # names it); the worker wraps it the same way, from the spec's policies.
    runs = getattr(fn, "graphnb_node", fn)
    if runs is not None and found is not runs and getattr(runs, "__wrapped__", None) is not found:
        raise BatchSetupError(
            f"{what} {name!r} cannot travel to workers: its binding {binding!r} names "
            f"{found!r}, not the callable the graph runs ({runs!r})",
            node=name,
        )
    return binding


def _checkpointer_url(graph: Wiring[Any]) -> tuple[str | None, tuple[tuple[str, Any], ...]]:
    """The URL workers open the checkpointer from, and the saver's options.

    Every option travels (``table_prefix``, timeouts ...): a worker opening the URL with
    the defaults would write the threads into other tables. The savers of
    :mod:`graphnb.checkpoint` say both through ``reopen_args()``.
    """
    saver = graph.checkpointer
    if saver is None:
        return None, ()
    reopen = getattr(saver, "reopen_args", None)
    args = reopen() if callable(reopen) else None
    if args is not None:
        url, options = args
        return url, tuple(sorted(options.items()))
    url = getattr(graph, "_checkpointer_url", None) or getattr(saver, "url", None)
    if url is None and getattr(saver, "path", None) not in (None, ":memory:"):
        url = f"sqlite:///{saver.path}"  # type: ignore[attr-defined]
    if not isinstance(url, str) or url.startswith("memory://") or url.endswith(":memory:"):
        raise BatchSetupError(
            f"workers cannot open the checkpointer {saver!r}: it lives in this process; "
            "compile with a database URL every worker can reach (postgresql://..., "
            "mysql://..., or sqlite:///file.db on a shared disk)"
        )
    return url, ()


def build(recipe: Recipe) -> BatchGraph:
    """The graph of ``recipe``, rebuilt once per process (workers keep it between tasks).

    Raises:
        BatchSetupError: naming the node whose binding cannot be imported here.
    """
    with _built_lock:
        graph = _built.get(recipe)
        if graph is not None:
            return graph
        for node, binding in recipe.node_bindings:
            try:
                resolve(binding)
            except BindingError as error:
                raise BatchSetupError(
                    f"node {node!r} cannot be rebuilt on this worker: {error} (is its module "
                    "installed on the workers, or on their PYTHONPATH?)",
                    node=node,
                ) from error
        if _builder is None:
            raise BatchSetupError("no graph builder is installed; import graphnb first")
        graph = _builder(recipe)
        _built[recipe] = graph
        return graph


def run_item(
    graph: BatchGraph,
    item: Any,
    thread_id: str | None,
    context: Mapping[str, Any] | None,
) -> Any:
    """Run one input, resuming its thread when it has one (see the module docs)."""
    if thread_id is None:
        return graph.invoke(item, context=context)
    position = graph.threads.load(thread_id)
    if position is None:
        return graph.invoke(item, context=context, thread_id=thread_id)
    snapshot = graph.get_state(thread_id)
    if not snapshot.next or snapshot.interrupts:
        return snapshot.values  # finished, or waiting for a human: nothing to run
    return graph.invoke(None, context=context, thread_id=thread_id)


def run_remote(
    recipe: Recipe,
    item: Any,
    thread_id: str | None,
    context: Mapping[str, Any] | None,
    task: str = "",
) -> tuple[bool, Any]:
    """A worker's task: ``(True, result)`` or ``(False, error)``, both picklable.

    ``task`` names this input of this batch and is otherwise unused: an executor that
    runs a call once for equal arguments (Dask's pure tasks) would run equal inputs once.
    """
    try:
        result = run_item(build(recipe), item, thread_id, context)
    except Exception as error:
        return False, _sendable(error, thread_id)
    # A result the executor cannot pickle is not its error: Dask logs it and never
    # resolves the input's future. Checked here, it is the input's error.
    unpicklable = _unpicklable(result)
    if unpicklable is None:
        return True, result
    where, cause = unpicklable
    kind = type(cause)
    return False, RemoteError(
        f"the final state{f' of thread {thread_id!r}' if thread_id else ''} cannot be sent "
        f"back from the worker: {where} does not pickle ({kind.__name__}: {cause}); keep "
        "such objects out of the state",
        type_name=f"{kind.__module__}.{kind.__qualname__}",
        thread_id=thread_id,
        remote_traceback="",
    )


def _unpicklable(value: Any) -> tuple[str, Exception] | None:
    """``(what, error)`` when ``value`` does not pickle, naming its first field that does not."""
    import pickle

    try:
        pickle.dumps(value)
    except Exception as error:
        fields = value if isinstance(value, Mapping) else getattr(value, "__dict__", {})
        for name, field_value in fields.items():
            try:
                pickle.dumps(field_value)
            except Exception as field_error:
                return f"field {name!r} ({type(field_value).__name__})", field_error
        return type(value).__name__, error
    return None


def as_executor(executor: Any) -> Executor:
    """``executor`` as a :class:`concurrent.futures.Executor`.

    A Dask ``Client`` given as it is (``executor=client``, not ``client.get_executor()``)
    is taken as its executor: its own ``submit`` returns Dask futures, which the batch
    cannot wait on (an ``AttributeError`` about ``_condition`` came out of the standard
    library, naming neither Dask nor the fix).

    Raises:
        BatchSetupError: ``executor`` is neither an ``Executor`` nor a Dask client.
    """
    from concurrent.futures import Executor

    if isinstance(executor, Executor):
        return executor
    get_executor = getattr(executor, "get_executor", None)
    if callable(get_executor):
        taken = get_executor()
        if isinstance(taken, Executor):
            return taken
    raise BatchSetupError(
        f"executor= takes a concurrent.futures.Executor (a thread or process pool, a Dask "
        f"client or client.get_executor(), graphnb.ray_executor.RayExecutor), got "
        f"{type(executor).__module__}.{type(executor).__qualname__}"
    )


def submit_remote(
    executor: Executor,
    recipe: Recipe,
    items: Sequence[Any],
    ids: Sequence[str | None],
    context: Mapping[str, Any] | None,
) -> list[Future[tuple[bool, Any]]]:
    """One :func:`run_remote` future per input; an input that cannot be sent is its error.

    Raises:
        Exception: what ``executor.submit`` raised for a reason other than an input that
            does not pickle (e.g. the executor is shut down).
    """
    import uuid
    from concurrent.futures import Future

    batch = uuid.uuid4().hex
    futures: list[Future[tuple[bool, Any]]] = []
    for index, (item, thread_id) in enumerate(zip(items, ids, strict=True)):
        try:
            future = executor.submit(
                run_remote, recipe, item, thread_id, context, f"{batch}-{index}"
            )
        except Exception:
            # Dask pickles at submit, and its error names only its own task graph
            unpicklable = _unpicklable(item)
            if unpicklable is None:
                for sent in futures:
                    sent.cancel()
                raise
            where, error = unpicklable
            future = Future()
            future.set_result(
                (
                    False,
                    BatchSetupError(
                        f"input {index} cannot be sent to workers: {where} does not pickle "
                        f"({type(error).__name__}: {error})"
                    ),
                )
            )
        futures.append(future)
    return futures


def _sendable(error: Exception, thread_id: str | None) -> Exception:
    # an error whose class takes keyword-only context does not unpickle as itself
    import pickle
    import traceback

    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        kind = type(error)
        return RemoteError(
            f"{kind.__name__}: {error}",
            type_name=f"{kind.__module__}.{kind.__qualname__}",
            thread_id=thread_id,
            remote_traceback="".join(traceback.format_exception(error)),
        )
    return error


def check_thread_ids(
    graph: Wiring[Any], thread_ids: Sequence[str] | None, count: int
) -> list[str | None]:
    """One thread id (or ``None``) per input.

    Raises:
        ValueError: the ids do not match the inputs one to one, or repeat.
        ThreadRequiredError: ids are given to a graph without a checkpointer.
    """
    if thread_ids is None:
        return [None] * count
    ids = list(thread_ids)
    if len(ids) != count:
        raise ValueError(f"thread_ids has {len(ids)} ids for {count} inputs; give one per input")
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"thread_ids repeats {repeated[:5]}; each input needs its own thread")
    graph.threads  # noqa: B018 - raises when there is no checkpointer
    return list(ids)


@dataclass(frozen=True)
class BatchProgress:
    """Where a batch stands, as handed to an :data:`OnProgress` callback.

    Attributes:
        total: the inputs of the batch.
        done: inputs finished with a result.
        failed: inputs finished with an error.
        running: inputs a worker is running now, as far as the executor tells (a
            ``concurrent.futures`` pool does; an executor that does not counts none).
        elapsed: seconds since the batch started.
        finished: every input has finished; this is the last update.
    """

    total: int
    done: int
    failed: int
    running: int
    elapsed: float
    finished: bool = False

    @property
    def completed(self) -> int:
        """Inputs finished either way."""
        return self.done + self.failed

    @property
    def rate(self) -> float:
        """Inputs finished per second so far (0 before the first)."""
        return self.completed / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far; ``None`` before the first input finishes."""
        if self.completed == 0 or self.rate == 0:
            return None
        return (self.total - self.completed) / self.rate


class OnProgress(Protocol):
    """Receives a :class:`BatchProgress` after each input finishes and a few times a second.

    The last call has ``finished=True``. It runs in the thread that called ``batch``.
    """

    def __call__(self, progress: BatchProgress, /) -> None:
        """Show or record ``progress``."""


ProgressFactory = Callable[[int], OnProgress]
"""Makes the display of a batch of that many inputs (installed by the package façade)."""

_progress_factory: ProgressFactory | None = None


def install_progress(factory: ProgressFactory) -> None:
    """Make ``factory`` make the display of ``batch(..., progress=True)`` from now on."""
    global _progress_factory
    _progress_factory = factory


def progress_callback(progress: bool | OnProgress, total: int) -> OnProgress | None:
    """The callback ``progress=`` asks for: none, the environment's display, or its own.

    Raises:
        TypeError: ``progress`` is neither a bool nor callable.
    """
    if progress is False:
        return None
    if progress is True:
        if _progress_factory is None:
            return None
        return _progress_factory(total)
    if not callable(progress):
        raise TypeError(
            f"progress must be True, False or a callable taking a BatchProgress, got "
            f"{type(progress).__name__}"
        )
    return progress


def as_completed(
    futures: Sequence[Future[tuple[bool, Any]]],
    on_progress: OnProgress | None,
    *,
    every: float = 0.25,
) -> Iterator[tuple[int, tuple[bool, Any]]]:
    """Each future's index and outcome as it finishes, telling ``on_progress`` meanwhile.

    An error the executor itself raised for an input (a Dask ``KilledWorker``) is that
    input's outcome. Interrupted (Ctrl-C, ``on_progress`` raised, the iteration closed
    early), the inputs not yet started are cancelled: a thread pool would otherwise run
    every one of them first.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    index = {future: i for i, future in enumerate(futures)}
    started = time.perf_counter()
    pending = set(futures)
    done = failed = 0
    try:
        while pending:
            finished, pending = wait(pending, timeout=every, return_when=FIRST_COMPLETED)
            outcomes = sorted((index[future], _outcome(future)) for future in finished)
            for _, (ok, _) in outcomes:
                done, failed = (done + 1, failed) if ok else (done, failed + 1)
            if on_progress is not None:
                on_progress(
                    BatchProgress(
                        total=len(futures),
                        done=done,
                        failed=failed,
                        running=sum(1 for future in pending if future.running()),
                        elapsed=time.perf_counter() - started,
                        finished=not pending,
                    )
                )
            yield from outcomes
    except BaseException:
        for future in futures:
            future.cancel()
        raise


def _outcome(future: Future[tuple[bool, Any]]) -> tuple[bool, Any]:
    try:
        return future.result()
    except Exception as error:
        return False, error
