"""The run loop of threaded runs: the plain loop, plus a checkpoint after every step.

Kept apart from :mod:`graphnb.engine.compiled` so that runs without a thread pay nothing
for persistence. It reads and writes the thread only through the engine's own
:class:`~graphnb.engine.store.ThreadStore`, never a saver's module. A threaded run:

0. takes the thread's lock (:meth:`~graphnb.engine.store.ThreadStore.thread_lock`),
   held to the run's end, so no other run (thread, process, machine) advances the
   thread meanwhile: it waits, or fails, as the saver's ``on_busy_thread`` says;
1. loads the thread's last checkpoint (or the one ``checkpoint_id`` names);
2. either resumes it (input ``None`` or a :class:`Command`): the stored next nodes run,
   on the stored state; or merges the input into the stored state through the reducers
   and starts from ``START`` (or from a seeded thread's ``start_at`` nodes), writing an
   ``input`` checkpoint;
3. runs super-steps as the plain loop does, writing one checkpoint per step, holding the
   step's writes, in a single statement: a crash loses at most the step in flight, and
   a resumed run starts that step again, so no update is applied twice or lost;
4. stops where ``interrupt_before``/``interrupt_after`` say, or when a node calls
   :func:`~graphnb.interrupt`, recording the pending interrupts;
5. keeps, for subgraph nodes, the id of the checkpoint the step in flight started from
   (``ThreadedRun.base``): each child runs this same loop on a thread named after it
   (:mod:`graphnb.engine.subgraph`), and answers to its interrupts pass down by id.

The loop is written once (:func:`_loop`) and driven from sync or async code by
:mod:`graphnb.engine.loop`; ``thread_events`` and ``athread_events`` only pick the driver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Generator, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..checkpoint_errors import CheckpointLoadError, ResumeError, ThreadNotFoundError
from ..errors import GraphRecursionError
from ..human import Command, GraphInterrupt, asking, done_asking
from ..records import INPUT, CheckpointSource, Durability, Interrupt, NewCheckpoint, child_thread
from ..terminals import START
from .events import Event, Interrupted, StepFinished
from .feed import arelay, relay, watched
from .loop import Call, Loop, Step, drive_async, drive_sync
from .run import Run
from .send import instance_key, parse_key, position
from .store import CheckpointWriter, ThreadStore
from .tracing import trace_writer

if TYPE_CHECKING:
    from ..checkpoint_meta import LoadedCheckpoint
    from .node import Node
    from .wiring import Wiring

__all__ = [
    "RunOptions",
    "ThreadedRun",
    "athread_events",
    "step_base",
    "thread_events",
    "unstarted",
]

S = TypeVar("S")
Update = dict[str, Any]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What a threaded run was asked for."""

    thread_id: str
    checkpoint_id: str | None = None
    interrupt_before: Collection[str] = field(default_factory=frozenset)
    interrupt_after: Collection[str] = field(default_factory=frozenset)
    # A subgraph's run: the store of its own state model over the parent's saver, and
    # (time travel into a subgraph) the checkpoint each nested subgraph node starts from.
    store: ThreadStore[Any] | None = None
    into: tuple[tuple[str, str | None], ...] = ()
    durability: Durability = "sync"


class ThreadedRun(Run[S]):
    """A run that belongs to a thread: its nodes may call ``interrupt()``."""

    first_step = 0
    resumes: Mapping[str, tuple[Any, ...]] = {}
    # Updates of nodes that finished in a step some other node interrupted; they are
    # merged when the step completes, and those nodes do not run again.
    done: dict[str, Update] = {}
    interrupted: list[Interrupt] = []
    by_key: Mapping[str, Node] = {}  # the step's tasks by instance key, while resuming one
    # What subgraph nodes need (graphnb.engine.subgraph): the checkpoint the step in
    # flight started from, names their child threads; answers to their children's
    # interrupts by subgraph node and child interrupt id; time travel into a child.
    base = ""
    store: ThreadStore[Any] | None = None  # where this run's thread lives
    subanswers: Mapping[str, dict[str, Any]] = {}
    into: tuple[tuple[str, str | None], ...] = ()

    def begin_step(self, tasks: list[Node]) -> list[Node]:
        """The step's nodes that still have to run."""
        self.interrupted = []
        done = self.done
        if not done:
            return tasks
        self.by_key = {instance_key(node): node for node in tasks}
        return [node for node in tasks if instance_key(node) not in done]

    def end_step(self, results: list[tuple[Node, Update]]) -> list[tuple[Node, Update]]:
        """The whole step's results: those stored before an interrupt, then this run's."""
        done = self.done
        if not done:
            return results
        by_key, nodes = self.by_key, self.graph.nodes
        merged = [
            (by_key.get(key) or nodes[parse_key(key)], update) for key, update in done.items()
        ] + results
        self.done = {}
        return sorted(merged, key=lambda pair: position(pair[0]))

    def check_limit(self) -> None:
        """Count the recursion limit from the step this run started at."""
        if self.step - self.first_step >= self.limit:
            raise GraphRecursionError(
                f"the run reached its recursion limit of {self.limit} super-steps without "
                f"ending; raise it with recursion_limit=... if the graph is meant to loop longer",
                limit=self.limit,
            )

    def node_sync(self, node: Node) -> Generator[Event, None, Update]:
        """Run a node with its answers to ``interrupt()`` at hand."""
        key = instance_key(node)
        token = asking(key, self.resumes.get(key, ()))
        try:
            return (yield from super().node_sync(node))
        except GraphInterrupt as signal:
            # Let the step's other nodes finish: their updates are kept for the resume.
            # (A subgraph node reports all of its child's interrupts at once.)
            self.interrupted.extend(getattr(signal, "interrupts", None) or [signal.interrupt])
            return {}
        finally:
            done_asking(token)

    async def node_async(self, node: Node, emit: Any) -> Update:
        """Async :meth:`node_sync`."""
        key = instance_key(node)
        token = asking(key, self.resumes.get(key, ()))
        try:
            return await super().node_async(node, emit)
        except GraphInterrupt as signal:
            self.interrupted.extend(getattr(signal, "interrupts", None) or [signal.interrupt])
            return {}
        finally:
            done_asking(token)


@dataclass(slots=True)
class _Plan:
    """How a threaded run begins."""

    update: dict[str, Any] | None  # the input's checked update; None when resuming
    tasks: list[str] | None  # the first step's nodes; None: route from START
    skip_before: bool  # resuming past an interrupt_before stop


def _plan(
    graph: Wiring[Any],
    threads: ThreadStore[Any],
    run: ThreadedRun[Any],
    position: LoadedCheckpoint | None,
    given: Any,
) -> _Plan:
    if isinstance(given, Command):
        if position is None:
            raise ThreadNotFoundError(
                f"thread {run.thread_id!r} has nothing to resume: it has no checkpoint",
                thread_id=run.thread_id,
            )
        _resume_from(graph, threads, run, position)
        run.resumes, run.subanswers = _answers(position, given.resume, run.thread_id or "")
        return _Plan(None, list(position.next), skip_before=True)
    if given is None:
        if position is None:
            # The docs promise this, as for Command(resume=...): a mistyped thread id must
            # not silently start (and store) a new thread from the defaults.
            raise ThreadNotFoundError(
                f"thread {run.thread_id!r} has nothing to resume: it has no checkpoint; "
                "pass an input to start it",
                thread_id=run.thread_id,
            )
        if not unstarted(position):
            _resume_from(graph, threads, run, position)
            run.resumes = {node: tuple(a) for node, a in position.meta.resumes.items()}
            return _Plan(None, list(position.next), skip_before=True)
    # A new run on the thread: the input merges into the stored state.
    update = run.start(given, base=position.values if position is not None else None)
    run.first_step = run.step = last_step(position) + 2 if position is not None else 0
    if position is not None:
        _check_nodes(graph, position, resuming=False)
    start_at = position.meta.start_at if position is not None else None
    return _Plan(update, list(start_at) if start_at else None, skip_before=False)


def unstarted(position: LoadedCheckpoint) -> bool:
    """Whether ``position`` is a seed not run yet, or an edit of one (no ``as_node``).

    Such an edit keeps the seed's ``start_at`` (``[]``: the graph's entry), so the
    first run starts where the seed said, and input ``None`` starts it too.
    """
    return position.row.source == "seed" or position.meta.start_at is not None


def last_step(position: LoadedCheckpoint) -> int:
    """The last step whose writes the state at ``position`` holds.

    Its ``step``, but for an ``error`` checkpoint: that one is numbered for the step that
    failed (``meta.error["step"]``) and holds the state from before it. (Error checkpoints
    written before they took the failed step's number carry it in ``meta.error`` too.)
    """
    error = position.meta.error
    if position.row.source == "error" and error and isinstance(error.get("step"), int):
        return int(error["step"]) - 1
    return position.row.step


def _check_nodes(graph: Wiring[Any], position: LoadedCheckpoint, *, resuming: bool) -> None:
    """Refuse a checkpoint whose run-state names nodes the graph does not have.

    Reading such a checkpoint is fine (the graph may have changed since), but running
    from it would fail deep in the loop with a ``KeyError``.
    """
    meta = position.meta
    named = {"start_at": list(meta.start_at or ())}
    if resuming:
        named["next"] = list(meta.next)
        named["pending"] = [parse_key(str(entry[0])) for entry in meta.pending if entry]
        named["interrupts"] = [parse_key(i.node) for i in meta.interrupts]
        named["sends"] = [str(entry[0]) for entry in meta.sends if entry]
    for part, nodes in named.items():
        unknown = [node for node in nodes if node not in graph.nodes]
        if unknown:
            row = position.row
            raise CheckpointLoadError(
                f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} names node "
                f"{unknown[0]!r} in its {part}, which the graph does not have (nodes: "
                f"{', '.join(graph.nodes)}); run from an earlier checkpoint or update_state",
                thread_id=row.thread_id,
                checkpoint_id=row.checkpoint_id,
            )


def _resume_from(
    graph: Wiring[Any],
    threads: ThreadStore[Any],
    run: ThreadedRun[Any],
    position: LoadedCheckpoint,
) -> None:
    _check_nodes(graph, position, resuming=True)
    run.done = dict(threads.pending(position))
    if position.meta.sends:  # a map-reduce step was next: its instances run again
        run.sends = threads.sends(position)
    run.values = dict(position.values)
    run.first_step = run.step = last_step(position) + 1
    joins = run.graph.joins
    index = {target: i for i, (_, target) in enumerate(joins)}
    # only sources the join still has: a join fires when it has seen as many as it has
    run.joins = {
        index[t]: set(s) & joins[index[t]][0] for t, s in position.meta.joins.items() if t in index
    }
    run.held = set(position.meta.deferred) & run.graph.deferred


def _answers(
    position: LoadedCheckpoint, resume: Any, thread_id: str
) -> tuple[dict[str, tuple[Any, ...]], dict[str, dict[str, Any]]]:
    """Each node's answers to its ``interrupt()`` calls, the new answer included.

    Second, the answers to interrupts inside subgraph nodes (ids ``node/child id``), by
    subgraph node and child interrupt id: the child's own thread keeps them.
    """
    answers = {node: tuple(a) for node, a in position.meta.resumes.items()}
    inner: dict[str, dict[str, Any]] = {}
    pending = [i for i in position.interrupts if i.when == "during"]
    if not pending:
        if resume is not None and not position.interrupts:
            # An answer nobody asked for would be dropped without a word (a human's
            # approval given to the wrong thread, or twice).
            where = "its run finished" if not position.next else "it did not stop at one"
            raise ResumeError(
                f"thread {thread_id!r} has no pending interrupt to answer ({where}); run it "
                "with None to go on, or with an input to start a new run",
                thread_id=thread_id,
                checkpoint_id=position.row.checkpoint_id,
            )
        return answers, inner
    if isinstance(resume, Mapping) and set(resume) <= {i.id for i in pending} and resume:
        chosen = [(i, resume[i.id]) for i in pending if i.id in resume]
    elif len(pending) == 1:
        chosen = [(pending[0], resume)]
    else:
        ids = ", ".join(repr(i.id) for i in pending)
        raise ResumeError(
            f"thread {thread_id!r} has {len(pending)} pending interrupts ({ids}); resume "
            "with Command(resume={interrupt_id: answer, ...})",
            thread_id=thread_id,
            checkpoint_id=position.row.checkpoint_id,
        )
    for interrupt, answer in chosen:
        prefix = interrupt.node + "/"
        if interrupt.id.startswith(prefix):
            inner.setdefault(interrupt.node, {})[interrupt.id[len(prefix) :]] = answer
        else:
            answers[interrupt.node] = (*answers.get(interrupt.node, ()), answer)
    return answers, inner


def _names(nodes: list[Node]) -> list[str]:
    # A Send instance is stored with its payload (_sends), not as a name to run again.
    return [node.name for node in nodes if node.instance is None]


def _sends(nodes: list[Node]) -> list[tuple[str, Update]]:
    return [(node.name, node.payload or {}) for node in nodes if node.instance is not None]


def _joins(run: Run[Any]) -> dict[str, set[str]]:
    joins = run.graph.joins
    return {joins[index][1]: seen for index, seen in run.joins.items() if seen}


def _stops(
    finished: list[Node], tasks: list[Node], options: RunOptions, *, skip_before: bool = False
) -> list[Interrupt]:
    after, before = options.interrupt_after, options.interrupt_before
    if not tasks or (not after and (skip_before or not before)):
        # The usual case: no stop was asked for. And with nothing left to run the run ends
        # there: a stop after the last node would leave a thread waiting for nothing.
        return []
    stops = [Interrupt(n.name, "after") for n in finished if n.name in after]
    if not skip_before:
        stops.extend(Interrupt(n.name, "before") for n in tasks if n.name in before)
    return stops


def _keeps(tasks: list[Node]) -> bool:
    # A child's thread is named after the checkpoint its step starts from: keep that one.
    return any(node.subgraph is not None for node in tasks)


def _checkpoint(
    run: ThreadedRun[Any], tasks: list[Node], *, step: int, source: CheckpointSource, **fields: Any
) -> NewCheckpoint:
    """A checkpoint of ``run`` with ``tasks`` due next; ``fields`` are its kind's own."""
    return NewCheckpoint(
        step=step,
        source=source,
        next=_names(tasks),
        sends=_sends(tasks),
        values=run.values,
        joins=_joins(run),
        deferred=sorted(run.held),
        **fields,
    )


def _step_checkpoint(
    run: ThreadedRun[Any],
    results: list[tuple[Node, Update]],
    tasks: list[Node],
    stops: list[Interrupt],
) -> NewCheckpoint:
    return _checkpoint(
        run,
        tasks,
        step=run.step,
        source="loop",
        ran=[instance_key(node) for node, _ in results],
        writes=[(instance_key(node), update) for node, update in results if update],
        interrupts=stops,
        keep=_keeps(tasks),
    )


def _interrupt_checkpoint(
    run: ThreadedRun[Any], tasks: list[Node], results: list[tuple[Node, Update]]
) -> NewCheckpoint:
    stopped = {i.node for i in run.interrupted}
    order = {instance_key(node): i for i, node in enumerate(tasks)}
    return _checkpoint(
        run,
        tasks,
        step=run.step - 1,
        source="interrupt",
        interrupts=sorted(run.interrupted, key=lambda i: order.get(i.node, 0)),
        resumes=run.resumes,
        # A finished node whose Command went somewhere runs again on resume rather than
        # being kept as done: the row keeps updates, not where a Command sent the run.
        pending=[
            (instance_key(node), update)
            for node, update in results
            if instance_key(node) not in stopped and (node.index, node.instance) not in run.gotos
        ],
    )


def _input_checkpoint(
    run: ThreadedRun[Any], plan: _Plan, tasks: list[Node], stops: list[Interrupt]
) -> NewCheckpoint:
    return _checkpoint(
        run,
        tasks,
        step=run.step - 1,
        source="input",
        writes=[(INPUT, plan.update)] if plan.update else [],
        interrupts=stops,
        keep=_keeps(tasks),
    )


def _record_failure(
    run: ThreadedRun[Any],
    writer: CheckpointWriter,
    tasks: list[Node],
    before: tuple[dict[str, Any], dict[int, set[str]]],
    error: Exception,
) -> Generator[Call, Any, None]:
    """Write an ``error`` checkpoint: the failed step's state before it, to run again.

    It is numbered for the step that failed (a failure in the first step is at step 0,
    after the input's -1). Its ``meta.error`` is what a threads listing reports as
    ``failed``. Resuming the
    thread (input ``None``) runs the same nodes again from the same state, as after an
    interrupt. A failure to store it leaves the run's own error to be raised.
    """
    run.values, run.joins = before
    failed = _checkpoint(
        run,
        tasks,
        step=run.step,
        source="error",
        resumes=run.resumes,
        pending=list(run.done.items()),
        error={
            "node": getattr(error, "node", None),
            "type": type(error).__name__,
            "message": str(error)[:4000],
            "step": run.step,
        },
    )
    try:
        yield _put(writer, failed)
    except Exception:  # the run's own error is the one to report
        return


def _first_event(run: ThreadedRun[Any], plan: _Plan, tasks: list[Node]) -> StepFinished[Any]:
    nodes = (START,) if plan.update is not None else ()
    return StepFinished(run.step - 1, nodes, run.state(), tuple(_names(tasks)))


def _stopped(
    run: ThreadedRun[Any], writer: CheckpointWriter, stops: list[Interrupt]
) -> Interrupted:
    row = writer.last
    return Interrupted(run.step, tuple(stops), row.checkpoint_id if row is not None else "")


def _put(writer: CheckpointWriter, checkpoint: NewCheckpoint) -> Call:
    return Call(writer.put, writer.aput, (checkpoint,))


def _loop(graph: Wiring[S], run: ThreadedRun[S], given: Any, options: RunOptions) -> Loop:
    """The threaded loop, once for sync and async runs; see the module's docstring.

    Whatever the durability held back or is storing in the background is stored before
    the loop ends (and so before the thread's lock is released), the run's own error
    first if both fail.
    """
    threads = run.store = options.store or graph.threads
    where = (options.thread_id, options.checkpoint_id)
    position = yield Call(threads.load, threads.aload, where)
    if options.into:
        yield from _check_into(graph, threads, position, options)
    writer = trace_writer(
        run,
        threads.writer(
            options.thread_id,
            position,
            metadata={"run_id": run.run_id},
            durability=options.durability,
        ),
    )
    flush = Call(writer.flush, writer.aflush)
    try:
        yield from _steps(graph, run, given, options, position, writer)
    except Exception:
        with suppress(Exception):  # the run's own error is the one to report
            yield flush
        raise
    except BaseException:  # closed early, Ctrl-C, cancelled: nothing more can be awaited
        writer.abandon()
        raise
    yield flush


def _steps(
    graph: Wiring[S],
    run: ThreadedRun[S],
    given: Any,
    options: RunOptions,
    position: LoadedCheckpoint | None,
    writer: CheckpointWriter,
) -> Loop:
    threads = run.store
    assert threads is not None  # set by _loop
    plan = _plan(graph, threads, run, position, given)
    if plan.tasks is not None:
        tasks = run._order(plan.tasks)
    else:
        tasks = yield Call(run.first_tasks, run.afirst_tasks)
    stops = _stops([], tasks, options, skip_before=plan.skip_before)
    if plan.update is not None:
        yield _put(writer, _input_checkpoint(run, plan, tasks, stops))
    if any(node.subgraph is not None for node in tasks):
        run.into = options.into
        run.base = (
            writer.last.checkpoint_id
            if writer.last is not None
            else (yield from step_base(threads, position))
        )
    if run.steps:
        yield _first_event(run, plan, tasks)
    if stops:
        yield _stopped(run, writer, stops)
        return
    while tasks:
        before = run.values, {k: set(v) for k, v in run.joins.items()} if run.joins else {}
        try:
            run.check_limit()
            results = yield Step(run.begin_step(tasks))
            results = run.end_step(results)
            run.into = ()
            if run.interrupted:
                yield _put(writer, _interrupt_checkpoint(run, tasks, results))
                yield _stopped(run, writer, run.interrupted)
                return
            run.merge(results)
            finished = [node for node, _ in results]
            if graph.sync_routing:  # what either driver would answer, without the round trip
                tasks = run.next_tasks(finished)
            else:
                tasks = yield Call(run.next_tasks, run.anext_tasks, (finished,))
        except Exception as error:
            yield from _record_failure(run, writer, tasks, before, error)
            raise
        stops = _stops(finished, tasks, options)
        yield _put(writer, _step_checkpoint(run, results, tasks, stops))
        run.base = writer.last.checkpoint_id  # type: ignore[union-attr]
        if run.steps:
            yield run.finished_event(tuple(_names(finished)), tasks)
        run.step += 1
        run.resumes = {}
        if stops:
            yield _stopped(run, writer, stops)
            return


def _check_into(
    graph: Wiring[Any],
    threads: ThreadStore[Any],
    position: LoadedCheckpoint | None,
    options: RunOptions,
) -> Generator[Call, Any, None]:
    """Refuse a time travel into a subgraph whose checkpoint is not there, writing nothing.

    Level by level, the child thread the run would resume must be the one named and hold
    the checkpoint asked for; else the subgraph node would fail mid-run and the parent's
    thread would record that failure (and lose its pending interrupt).

    Raises:
        ThreadNotFoundError: naming the child thread and the checkpoint.
    """
    thread_id = options.thread_id
    start = options.checkpoint_id
    for key, checkpoint_id in options.into:
        named = child_thread(thread_id, key, start or "")
        node = graph.nodes.get(parse_key(key))
        subgraph = node.subgraph if node is not None else None
        runs = position is not None and (
            key in position.meta.next
            or any(e and str(e[0]) == parse_key(key) for e in position.meta.sends)
        )
        if subgraph is None or position is None or not runs:
            raise ThreadNotFoundError(
                f"thread {named!r} is not a subgraph's thread of this graph: "
                + (
                    f"{graph.name!r} has no subgraph node {key!r}"
                    if subgraph is None
                    else f"checkpoint {start!r} of thread {thread_id!r} does not run {key!r} next"
                ),
                thread_id=named,
                checkpoint_id=checkpoint_id,
            )
        base = yield from step_base(threads, position)
        if base != start:
            raise ThreadNotFoundError(
                f"thread {named!r} is not a subgraph's thread of this graph: the step of "
                f"checkpoint {start!r} of thread {thread_id!r} started at {base!r}",
                thread_id=named,
                checkpoint_id=checkpoint_id,
            )
        threads = subgraph.store(threads.saver)
        position = yield Call(threads.load, threads.aload, (named, checkpoint_id))
        if position is None:
            raise ThreadNotFoundError(
                f"thread {named!r} has no checkpoint", thread_id=named, checkpoint_id=None
            )
        graph, thread_id, start = subgraph.child, named, position.row.checkpoint_id


def step_base(
    threads: ThreadStore[Any], position: LoadedCheckpoint | None
) -> Generator[Call, Any, str]:
    """The checkpoint the step ``position`` is resuming started from.

    Subgraph nodes name their child threads after it; interrupt rows (and edits of them
    that keep the step) are written on top of it, so the walk skips them. An edit of a
    checkpoint where no step had stopped (a fork before a subgraph node, say) is a step
    base of its own: the children start anew from the edited state, rather than handing
    back what they made of the state before the edit.
    """
    while position is not None and position.row.parent_id is not None:
        row = position.row
        if row.source not in ("interrupt", "error") and not _keeps_step(position):
            break
        parent = yield Call(threads.load, threads.aload, (row.thread_id, row.parent_id))
        if (
            row.source == "update"
            and parent is not None
            and parent.row.source not in ("interrupt", "error")
            and not _keeps_step(parent)
        ):
            break
        position = parent
    return position.row.checkpoint_id if position is not None else ""


def _keeps_step(position: LoadedCheckpoint) -> bool:
    """Whether ``position`` is an edit that left the step as it was (no ``as_node``)."""
    return position.row.source == "update" and not position.meta.ran


def thread_events(
    graph: Wiring[S], run: ThreadedRun[S], given: Any, options: RunOptions
) -> Iterator[Event]:
    """The events of a threaded run, from sync code, holding the thread's lock."""
    with (options.store or graph.threads).thread_lock(options.thread_id):
        events = drive_sync(_loop(graph, run, given, options), run)
        if watched(options.thread_id):  # someone follows this thread live
            events = relay(options.thread_id, run, events)
        yield from events


async def athread_events(
    graph: Wiring[S], run: ThreadedRun[S], given: Any, options: RunOptions
) -> AsyncIterator[Event]:
    """The events of a threaded run, on the event loop, holding the thread's lock."""
    async with (options.store or graph.threads).athread_lock(options.thread_id):
        events = drive_async(_loop(graph, run, given, options), run)
        if watched(options.thread_id):
            events = arelay(options.thread_id, run, events)
        async for event in events:
            yield event
