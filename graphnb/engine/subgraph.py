"""Subgraphs: a compiled graph run as one node of another.

``add_node("research", research_graph)`` makes a node whose run is a whole run of the
child graph. Fields pass in and out by name: with no mapping, the fields both states
declare (every field, when either is a plain ``dict`` state); with ``inputs={parent:
child}`` and ``outputs={child: parent}``, exactly those. The child starts from the
parent's values of its input fields (merged into its defaults), and what it changed is
written back through the parent's reducers as one update of the subgraph node, so an
``append`` field gets the child's new items once, not the parent's items again.

Events from inside reach the outer stream when the run asks for them
(``stream(..., subgraphs=True)``), live, each with its ``namespace``: the subgraph
nodes it is inside, outermost first (``event.path`` adds the node itself:
``("research", "search")``). Without the flag the child runs with events off.

Without a thread, the child runs on the plain loop. Under a threaded parent, it runs on
a thread of its own, next to the parent's in the same saver (see :func:`child_thread`):

- its thread id is ``parent_thread|node@base``, ``base`` being the id of the parent's
  checkpoint the step in flight started from. The step run again (after a crash, an
  interrupt or a time travel to ``base``) finds the same child thread, a later step or
  another branch of the parent's history finds a new one;
- the child checkpoints every step there, in its own state model;
- an ``interrupt()`` inside it stops the child (its interrupt row keeps the updates of
  the child's nodes that finished), then the parent, at the subgraph node, with the
  interrupt's id prefixed by the node: ``research/ask:0``. The parent's resume hands
  the answers to the child, which resumes inside, re-running none of its finished
  nodes; nesting repeats this level by level (``outer/inner/ask:0``);
- a run killed mid-child resumes the parent's step; the subgraph node finds its child
  thread unfinished and resumes it from its last checkpoint (or, when the child had
  finished, takes its final state without running it again);
- ``get_state(thread, subgraphs=True)`` adds the child's snapshot under the node's
  name, and running the parent with a child snapshot's ``thread_id`` and
  ``checkpoint_id`` time-travels into the child (:func:`split_thread`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from ..human import Command, GraphInterrupt
from ..records import CHILD_PATTERN, Interrupt, child_thread, is_child_thread
from .events import Event, Interrupted, StepFinished
from .plain import plain_events
from .run import Run
from .send import instance_key, parse_key

if TYPE_CHECKING:
    from ..checkpoint_meta import LoadedCheckpoint
    from ..records import StateSnapshot
    from ..schema import StateSchema
    from ..spec import SubgraphWrites
    from .driver import ThreadedRun
    from .loop import Call
    from .node import Node
    from .store import Saver, ThreadStore
    from .wiring import Wiring

__all__ = [
    "Subgraph",
    "SubgraphInterrupt",
    "child_states",
    "child_thread",
    "field_names",
    "graph_of",
    "is_child_thread",
    "mapping_problems",
    "split_thread",
]


def split_thread(
    graph: Wiring[Any], thread_id: str, checkpoint_id: str | None
) -> tuple[str, str | None, tuple[tuple[str, str | None], ...]]:
    """Where a run given a child's thread starts: the root thread, its checkpoint, the path.

    ``t|a@X|b@Y`` with checkpoint ``C`` becomes thread ``t`` from checkpoint ``X``, with
    subgraph node ``a`` resuming its child from ``Y`` and ``a``'s node ``b`` its own from
    ``C``. Any other thread id comes back as it was.
    """
    root, _, rest = thread_id.partition("|")
    parts = CHILD_PATTERN.findall("|" + rest) if rest else []
    if not parts or "".join(f"|{k}@{b}" for k, b in parts) != "|" + rest:
        return thread_id, checkpoint_id, ()
    node = graph.nodes.get(parse_key(parts[0][0]))
    if node is None or node.subgraph is None:
        return thread_id, checkpoint_id, ()
    keys = [key for key, _ in parts]
    starts: list[str | None] = [base for _, base in parts[1:]]
    return root, parts[0][1], tuple(zip(keys, [*starts, checkpoint_id], strict=True))


def check_thread_type(thread_id: object) -> None:
    """Refuse a thread id that is not a string before anything reads it as one.

    Raises:
        ThreadRequiredError: naming what was given.
    """
    if not isinstance(thread_id, str):
        from ..checkpoint_errors import ThreadRequiredError

        raise ThreadRequiredError(
            f"thread_id is a string naming the conversation or job, got {thread_id!r:.80}"
        )


def graph_of(graph: Wiring[Any], thread_id: str) -> tuple[Wiring[Any], ThreadStore[Any]]:
    """The graph whose thread ``thread_id`` is, and its store: a subgraph's for its thread."""
    check_thread_type(thread_id)
    threads: ThreadStore[Any] = graph.threads
    if "|" not in thread_id:
        return graph, threads
    _, _, path = split_thread(graph, thread_id, None)
    found, store = graph, threads
    for key, _ in path:
        node = found.nodes.get(parse_key(key))
        if node is None or node.subgraph is None:
            return graph, threads
        found, store = node.subgraph.child, node.subgraph.store(threads.saver)
    return found, store


class SubgraphInterrupt(GraphInterrupt):
    """A child's interrupts, raised in its parent's subgraph node (ids prefixed by it)."""

    def __init__(self, interrupts: list[Interrupt]) -> None:
        super().__init__(interrupts[0])
        self.interrupts = interrupts


def child_states(
    graph: Wiring[Any], threads: ThreadStore[Any], position: LoadedCheckpoint
) -> dict[str, StateSnapshot[Any]]:
    """The snapshots of the children of the subgraph nodes the step at ``position`` runs."""
    keys = [name for name in position.meta.next if graph.nodes[name].subgraph is not None]
    counts: dict[str, int] = {}
    for entry in position.meta.sends:  # Send instances, numbered per target in item order
        target = str(entry[0])
        number = counts[target] = counts.get(target, -1) + 1
        if graph.nodes[target].subgraph is not None:
            keys.append(f"{target}[{number}]")
    if not keys:
        return {}
    from .driver import step_base  # the driver loads with the first threaded run

    walk = step_base(threads, position)
    answer: Any = None
    while True:  # the walk back asks for loads; answer them here, synchronously
        try:
            call: Call = walk.send(answer)
        except StopIteration as stop:
            base: str = stop.value
            break
        answer = call.sync(*call.args, **call.kwargs)
    found = {}
    for key in keys:
        sub: Subgraph = graph.nodes[parse_key(key)].subgraph
        store = sub.store(threads.saver)
        child = store.load(child_thread(position.row.thread_id, key, base))
        if child is not None:
            snapshot = store.snapshot(child)
            inner = child_states(sub.child, store, child)
            found[key] = dataclasses.replace(snapshot, subgraphs=inner) if inner else snapshot
    return found


def field_names(schema: StateSchema[Any]) -> frozenset[str] | None:
    """The fields a state declares; ``None`` for a plain ``dict`` state (any key goes)."""
    if schema.model is None and not schema.typed:
        return None
    return frozenset(schema.fields)


def mapping_problems(
    node: str,
    parent: StateSchema[Any],
    parent_name: str,
    child_schema: StateSchema[Any],
    child: str,
    *,
    inputs: Mapping[str, str] | None,
    outputs: Mapping[str, str] | None,
) -> list[str]:
    """Mapped fields that one of the two states does not have, one sentence each.

    Read from the two state schemas only, so a graph is checked without compiling its
    children.
    """
    found = []
    mine, theirs = field_names(parent), field_names(child_schema)
    for option, pairs, sources, targets, source_graph, target_graph in (
        ("inputs", inputs, mine, theirs, parent_name, child),
        ("outputs", outputs, theirs, mine, child, parent_name),
    ):
        for source, target in (pairs or {}).items():
            for name, names, graph in (
                (source, sources, source_graph),
                (target, targets, target_graph),
            ):
                if names is not None and name not in names:
                    found.append(
                        f"subgraph node `{node}` maps {option} {source!r} -> "
                        f"{target!r}, but graph {graph!r} has no field {name!r} "
                        f"(parent {parent_name!r}, child {child!r})."
                    )
    return found


class Subgraph:
    """A child graph bound to a parent node, with the fields passed in and out."""

    is_subgraph = True  # what graphnb.engine.node looks for (it cannot import this module)

    def __init__(
        self,
        node: str,
        child: Wiring[Any],
        parent: StateSchema[Any],
        parent_name: str,
        *,
        inputs: Mapping[str, str] | None = None,
        outputs: Mapping[str, str] | None = None,
        writes: SubgraphWrites = "changes",
    ) -> None:
        self.node = node
        self.writes = writes
        self.child = child
        self.parent = parent
        self.parent_name = parent_name
        self.inputs = dict(inputs) if inputs is not None else None
        self.outputs = dict(outputs) if outputs is not None else None
        self._stores: dict[int, tuple[Saver, ThreadStore[Any]]] = {}

    def store(self, saver: Saver) -> ThreadStore[Any]:
        """The child's threads in ``saver``, read through the child's own state model."""
        kept = self._stores.get(id(saver))
        if kept is None or kept[0] is not saver:
            from .store import open_store

            kept = self._stores[id(saver)] = (saver, open_store(saver, self.child.schema))
        return kept[1]

    def problems(self) -> list[str]:
        """Mapped fields that one of the two states does not have, one sentence each."""
        return mapping_problems(
            self.node,
            self.parent,
            self.parent_name,
            self.child.schema,
            self.child.name,
            inputs=self.inputs,
            outputs=self.outputs,
        )

    def _pairs(self, mapping: dict[str, str] | None, mine: Any, theirs: Any) -> dict[str, str]:
        if mapping is not None:
            return mapping
        if mine is None and theirs is None:
            return {}  # both open: every key passes (see input_of / update_of)
        shared = mine if theirs is None else theirs if mine is None else mine & theirs
        return {name: name for name in sorted(shared)}

    def input_of(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The child's input: the parent's values of the input fields, renamed."""
        mine, theirs = field_names(self.parent), field_names(self.child.schema)
        if self.inputs is None and mine is None and theirs is None:
            return dict(values)
        pairs = self._pairs(self.inputs, mine, theirs)
        return {target: values[source] for source, target in pairs.items() if source in values}

    def update_of(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
        """The parent's update, renamed, as reducer writes.

        What the child changed or, with ``writes="state"``, its final values (LangGraph's).
        """
        mine, theirs = field_names(self.parent), field_names(self.child.schema)
        whole = self.writes == "state"
        if self.outputs is None and mine is None and theirs is None:
            return dict(after) if whole else self.parent.diff(before, after)
        pairs = self._pairs(self.outputs, theirs, mine)
        if whole:
            return {target: after[source] for source, target in pairs.items() if source in after}
        fed = self._pairs(self.inputs, mine, theirs)  # parent field -> child field
        update: dict[str, Any] = {}
        round_trip: dict[str, Any] = {}
        for source, target in pairs.items():
            if source not in after:
                continue
            if fed.get(target) == source and target in before:
                # the child started from the parent's value: write back only its change
                round_trip[target] = after[source]
            else:
                update[target] = after[source]  # a new value for the parent's reducer
        old = {name: before.get(name) for name in round_trip}
        update.update(self.parent.diff(old, round_trip))
        return update

    def run_sync(
        self, run: Run[Any], node: Node, before: Mapping[str, Any]
    ) -> Generator[Event, None, Any]:
        """Run the child to its end, yielding its events (when asked) with their path."""
        if getattr(run, "base", ""):  # a threaded parent: the child gets a thread too
            return (yield from self._run_threaded(run, node, before))  # type: ignore[arg-type]
        child = self.child
        inner = Run.open(child, events=run.subgraphs, context=run.data, recursion_limit=None)
        inner.saver = run.saver  # the child's saver caches use the parent's saver
        inner.long_term_store = run.long_term_store or child.store
        inner.steps = False  # the child's states are its own business, not the stream's
        inner.subgraphs = run.subgraphs
        inner.nested = True  # its nodes may return Command(graph=Command.PARENT)
        prefix = (node.name,)
        event: Any
        for event in plain_events(inner, self.input_of(before)):
            if not isinstance(event, StepFinished):
                yield dataclasses.replace(event, namespace=prefix + event.namespace)
        return self.update_of(before, inner.values)

    def _run_threaded(
        self, run: ThreadedRun[Any], node: Node, before: Mapping[str, Any]
    ) -> Generator[Event, None, Any]:
        """Run (or resume) the child on its own thread; see the module's docstring."""
        from .driver import RunOptions, ThreadedRun, thread_events  # as in child_states

        child, key = self.child, instance_key(node)
        assert run.thread_id is not None
        thread = child_thread(run.thread_id, key, run.base)
        assert run.store is not None
        store = self.store(run.store.saver)
        checkpoint_id: str | None = None
        into: tuple[tuple[str, str | None], ...] = ()
        if run.into and run.into[0][0] == key:  # time travel into this child
            checkpoint_id, into = run.into[0][1], run.into[1:]
        given: Any = None
        if checkpoint_id is None:
            position = store.load(thread)
            if position is None:
                given = self.input_of(before)
            elif not (position.meta.next or position.meta.sends or position.meta.interrupts):
                return self.update_of(before, position.values)  # it finished: keep its end
            elif key in run.subanswers:
                given = Command(resume=run.subanswers[key])
        inner = ThreadedRun.open(
            child, events=run.subgraphs, context=run.data, recursion_limit=None, thread_id=thread
        )
        inner.saver = run.store.saver  # where its thread lives, and its saver caches
        inner.long_term_store = run.long_term_store or child.store
        inner.steps = False
        inner.subgraphs = run.subgraphs
        inner.nested = True
        options = RunOptions(
            thread, checkpoint_id, child.interrupt_before, child.interrupt_after, store, into
        )
        prefix = (node.name,)
        stopped: Interrupted | None = None
        event: Any
        for event in thread_events(child, inner, given, options):
            if isinstance(event, Interrupted):
                stopped = event
            elif not isinstance(event, StepFinished):
                yield dataclasses.replace(event, namespace=prefix + event.namespace)
        if stopped is not None:
            raise SubgraphInterrupt(
                [
                    Interrupt(key, "during", i.value, f"{key}/{i.id or f'{i.node}:{i.when}'}")
                    for i in stopped.interrupts
                ]
            )
        return self.update_of(before, inner.values)
