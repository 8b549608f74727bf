"""Reading and editing threads from outside a run: state, updates, seeds."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..checkpoint_errors import CheckpointConflictError, ThreadNotFoundError
from ..errors import GraphSetupError, InvalidUpdateError
from ..records import INPUT, UPDATE, Interrupt, NewCheckpoint, StateSnapshot, check_own_thread
from ..schema import WriteError, is_graph_state
from ..terminals import END
from .driver import ThreadedRun, last_step, unstarted
from .send import Send
from .store import ThreadStore
from .subgraph import check_thread_type, child_states, graph_of

if TYPE_CHECKING:
    from ..checkpoint_meta import LoadedCheckpoint
    from .wiring import Wiring

__all__ = ["seed_thread", "snapshot_of", "update_state"]

S = TypeVar("S")


def snapshot_of(
    threads: ThreadStore[S],
    thread_id: str,
    position: LoadedCheckpoint | None,
    graph: Wiring[S] | None = None,
) -> StateSnapshot[S]:
    """The user's view of a loaded checkpoint; a missing thread is an error.

    Given ``graph``, the snapshot holds its subgraph nodes' child states too.
    """
    if position is None:
        raise ThreadNotFoundError(
            f"thread {thread_id!r} has no checkpoint yet; run the graph with "
            f"thread_id={thread_id!r} or seed it with seed_thread()",
            thread_id=thread_id,
        )
    snapshot = threads.snapshot(position)
    if graph is not None:
        found = child_states(graph, threads, position)
        if found:
            return dataclasses.replace(snapshot, subgraphs=found)
    return snapshot


def _checked(graph: Wiring[Any], values: Any, node: str) -> dict[str, Any]:
    schema = graph.schema
    typed = is_graph_state(values)
    if not (typed or isinstance(values, Mapping)):
        raise InvalidUpdateError(
            f"an update must be a mapping or a {schema.label}, got {values!r}",
            node=node,
            step=-1,
            field=None,
            value=values,
        )
    try:
        if typed:
            values = schema.values_of(values)
        return dict(schema.check_writes(values))
    except WriteError as error:
        raise InvalidUpdateError(
            f"invalid update: {error}", node=node, step=-1, field=error.field, value=error.value
        ) from None


def _merge(graph: Wiring[Any], base: dict[str, Any], update: dict[str, Any], node: str) -> None:
    try:
        graph.schema.apply(base, update)
    except WriteError as error:
        raise InvalidUpdateError(
            f"invalid update: {error}", node=node, step=-1, field=error.field, value=error.value
        ) from None


def update_state(
    graph: Wiring[Any],
    thread_id: str,
    values: Any,
    *,
    as_node: str | None,
    checkpoint_id: str | None,
    goto: Sequence[str | Send] = (),
) -> str:
    """See :meth:`graphnb.CompiledGraph.update_state`.

    ``goto`` (with ``as_node=None``) adds nodes, or ``Send`` items, to the next step, as
    an input ``Command(goto=...)`` does in LangGraph: the next run on the thread runs
    them beside the nodes already due. ``END`` among them adds nothing.
    """
    # A subgraph's thread is edited in the child's model, as it is read and run.
    root = graph
    graph, threads = graph_of(graph, thread_id)
    if graph is root:  # not a child of this graph's subgraph nodes: the user's own id
        check_own_thread(thread_id)
    _check_update(graph, as_node, goto)
    with threads.thread_lock(thread_id):  # no run advances the thread under the edit
        position = threads.load(thread_id, checkpoint_id)
        writer = threads.writer(thread_id, position, metadata={"source": "update_state"})
        goto = [item for item in goto if item != END]
        update = _updated(graph, threads, thread_id, position, values, as_node, goto)
        return writer.put(update).checkpoint_id


def _check_update(graph: Wiring[Any], as_node: str | None, goto: Sequence[str | Send]) -> None:
    if as_node is not None and as_node != END and as_node not in graph.nodes:
        nodes = ", ".join(f"`{name}`" for name in graph.nodes)
        raise GraphSetupError(
            f"as_node=`{as_node}` is not a node of {graph.name!r} (its nodes: {nodes}); "
            "as_node=END finishes the thread"
        )
    names = [item.node if isinstance(item, Send) else item for item in goto]
    unknown = [name for name in names if name != END and name not in graph.nodes]
    if unknown or (goto and as_node is not None):
        nodes = ", ".join(f"`{name}`" for name in graph.nodes)
        raise GraphSetupError(
            f"goto names {', '.join(f'`{n}`' for n in unknown)}, not a node of "
            f"{graph.name!r} (its nodes: {nodes})"
            if unknown
            else "goto adds to the next step of an update without as_node"
        )


def _updated(
    graph: Wiring[Any],
    threads: ThreadStore[Any],
    thread_id: str,
    position: LoadedCheckpoint | None,
    values: Any,
    as_node: str | None,
    goto: Sequence[str | Send],
) -> NewCheckpoint:
    """The checkpoint an update of ``values`` as ``as_node`` writes after ``position``."""
    finish = as_node == END
    node = UPDATE if finish or as_node is None else as_node
    update = {} if finish and values is None else _checked(graph, values, node)
    merged = dict(position.values) if position is not None else graph.schema.defaults()
    kept: list[tuple[str, dict[str, Any]]] = []
    if finish and position is not None:
        # What the interrupted step's finished nodes wrote is kept, as LangGraph keeps it.
        kept = threads.pending(position)
        for done, written in kept:
            _merge(graph, merged, written, done)
    _merge(graph, merged, update, node)
    step = last_step(position) + 1 if position is not None else -1
    meta = position.meta if position is not None else None
    start_at: list[str] | None = None
    interrupts: tuple[Interrupt, ...]
    if finish:  # LangGraph's as_node=END: nothing left to run, no interrupt pending
        next_nodes, sends, joins, deferred = [], [], {}, []
        interrupts, resumes, pending = (), {}, []
    elif as_node is None:
        if position is not None and unstarted(position):  # the seed's first run: kept
            start_at = list(position.meta.start_at or ())
        next_nodes = list(meta.next) if meta is not None else []
        joins = dict(meta.joins) if meta is not None else {}
        deferred = list(meta.deferred) if meta is not None else []
        interrupts = position.interrupts if position is not None else ()
        resumes = dict(meta.resumes) if meta is not None else {}
        pending = threads.pending(position) if position is not None else []
        sends = threads.sends(position) if position is not None else []
        next_nodes += [n for n in goto if isinstance(n, str) and n not in next_nodes]
        for item in goto:
            if isinstance(item, Send):
                payload = _checked(graph, item.payload or {}, item.node)
                sends.append((item.node, payload))
    else:
        run = ThreadedRun.open(
            graph, events=False, context=None, recursion_limit=None, thread_id=thread_id
        )
        run.values, run.step = merged, step
        if meta is not None:
            index = {target: i for i, (_, target) in enumerate(graph.joins)}
            run.joins = {index[t]: set(s) for t, s in meta.joins.items() if t in index}
            run.held = set(meta.deferred) & graph.deferred
        tasks = run.next_tasks([graph.nodes[as_node]])
        next_nodes = [n.name for n in tasks if n.instance is None]
        sends = [(n.name, n.payload or {}) for n in tasks if n.instance is not None]
        joins = {graph.joins[i][1]: sorted(seen) for i, seen in run.joins.items() if seen}
        deferred = sorted(run.held)
        interrupts, resumes, pending = (), {}, []
    return NewCheckpoint(
        step=step,
        source="update",
        ran=[as_node] if as_node and not finish else [],
        writes=[*kept, (node, update)] if update else kept,
        next=next_nodes,
        sends=sends,
        values=merged,
        joins=joins,
        deferred=deferred,
        interrupts=interrupts,
        resumes=resumes,
        pending=pending,
        start_at=start_at,
    )


def seed_thread(
    graph: Wiring[Any],
    thread_id: str,
    values: Any,
    *,
    start_at: str | Sequence[str] | None,
) -> str:
    """See :meth:`graphnb.CompiledGraph.seed_thread`."""
    check_thread_type(thread_id)
    check_own_thread(thread_id)  # a subgraph's thread is made by its parent's run
    graph, threads = graph_of(graph, thread_id)
    names = [start_at] if isinstance(start_at, str) else list(start_at or ())
    unknown = [name for name in names if name not in graph.nodes]
    if unknown:
        raise GraphSetupError(
            f"start_at names {', '.join(f'`{n}`' for n in unknown)}, not a node of {graph.name!r}"
        )
    with threads.thread_lock(thread_id):
        return _seed(graph, threads, thread_id, values, names)


def _seed(
    graph: Wiring[Any],
    threads: ThreadStore[Any],
    thread_id: str,
    values: Any,
    names: list[str],
) -> str:
    if threads.load(thread_id) is not None:
        raise CheckpointConflictError(
            f"thread {thread_id!r} already has checkpoints; a seed goes into a new thread "
            "(edit an existing one with update_state)",
            thread_id=thread_id,
            expected=None,
        )
    update = _checked(graph, values, INPUT)
    seeded = graph.schema.defaults()
    _merge(graph, seeded, update, INPUT)
    writer = threads.writer(thread_id, None, metadata={"source": "seed_thread"})
    row = writer.put(
        NewCheckpoint(step=-1, source="seed", next=names, values=seeded, start_at=names or None)
    )
    return row.checkpoint_id
