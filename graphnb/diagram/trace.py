"""A run's trace, drawn on top of its diagram: what ran, in which step, where it stopped."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..spec import END, START
from .model import Diagram

__all__ = ["StepEnd", "Trace"]


@dataclass(frozen=True, slots=True)
class StepEnd:
    """The end of one super-step: which nodes finished and which run next.

    Attributes:
        step: the step's number (``-1`` is the input step, which "runs" START).
        finished: the nodes that finished in this step.
        next: the nodes scheduled for the next step (empty when the run ended).
    """

    step: int
    finished: tuple[str, ...]
    next: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Trace:
    """What a run did, to draw on its diagram.

    Build one from a run's events with :meth:`from_events`, or directly (a state machine
    lists the transitions it took in ``edges``).

    Attributes:
        steps: the steps in which each node ran, by node id.
        edges: ``(source, target)`` pairs known to have been taken.
        current: the nodes running (or about to run) when the trace was taken.
        failed: the node that failed, if one did.
        step_ends: the end of each super-step, from which the taken edges are inferred.
        inner: the traces inside subgraph nodes, by node id (from the events of
            ``stream(..., subgraphs=True)``, each carrying its ``namespace``).

    Example:
        >>> from graphnb import StateGraph, START, END
        >>> graph = StateGraph(dict)
        >>> _ = graph.add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
        >>> trace = Trace.from_events(graph.compile().stream({}, mode="events"))
        >>> dict(trace.steps), trace.current, trace.failed
        ({'__start__': (-1,), 'a': (0,)}, (), None)
    """

    steps: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    edges: tuple[tuple[str, str], ...] = ()
    current: tuple[str, ...] = ()
    failed: str | None = None
    step_ends: tuple[StepEnd, ...] = ()
    inner: Mapping[str, Trace] = field(default_factory=dict)

    @classmethod
    def from_events(cls, events: Iterable[Any]) -> Trace:
        """The trace of the engine's stream events (``stream(..., mode="events")``).

        Events of other kinds (chunks) are ignored, so the whole stream can be passed; a
        run cut short (failed, interrupted, still going) gives a partial trace whose
        ``current`` nodes are those running, waiting at an interrupt, or scheduled next.
        """
        steps: dict[str, list[int]] = {}
        running: dict[str, None] = {}
        step_ends: list[StepEnd] = []
        failed: str | None = None
        waiting: tuple[str, ...] = ()
        nested: dict[str, list[Any]] = {}
        for event in events:
            kind = getattr(event, "kind", None)
            namespace = getattr(event, "namespace", ())
            if namespace:  # an event inside a subgraph node: that node's inner trace
                nested.setdefault(namespace[0], []).append(event)
                continue
            if kind == "node_started":
                steps.setdefault(event.node, []).append(event.step)
                running[event.node] = None
            elif kind == "node_finished":
                running.pop(event.node, None)
            elif kind == "node_failed":
                running.pop(event.node, None)
                failed = event.node
            elif kind == "step_finished":
                finished = tuple(event.nodes)
                if event.step < 0:
                    for node in finished:
                        steps.setdefault(node, []).append(event.step)
                step_ends.append(StepEnd(event.step, finished, tuple(event.next)))
            elif kind == "interrupted":
                waiting = tuple(dict.fromkeys(stop.node for stop in event.interrupts))
        current: tuple[str, ...] = waiting or tuple(running)
        if not current and failed is None and step_ends:
            current = step_ends[-1].next
        return cls(
            {node: tuple(ran) for node, ran in steps.items()},
            current=current,
            failed=failed,
            step_ends=tuple(step_ends),
            inner={node: _inner(found) for node, found in nested.items()},
        )

    def taken_edges(self, diagram: Diagram) -> tuple[int, ...]:
        """The indices of ``diagram``'s edges the run went along, in edge order.

        An edge counts as taken when its source finished in a step and its target was
        scheduled next (for a join: when every source had run by then); an edge into END
        when its source finished and none of its other targets was scheduled.
        """
        pairs = set(self.edges)
        first_run = {node: min(ran) for node, ran in self.steps.items() if ran}
        onward: dict[str, list[str]] = {}
        for edge in diagram.edges:
            if edge.target != END:
                onward.setdefault(edge.source, []).append(edge.target)
        taken: list[int] = []
        for edge in diagram.edges:
            if (edge.source, edge.target) in pairs or any(
                self._took(edge.source, edge.target, edge.kind, t, first_run, onward)
                for t in self.step_ends
            ):
                taken.append(edge.index)
        return tuple(taken)

    @staticmethod
    def _took(
        source: str,
        target: str,
        kind: str,
        step: StepEnd,
        first_run: Mapping[str, int],
        onward: Mapping[str, list[str]],
    ) -> bool:
        if target == END:
            return source in step.finished and not any(
                t in step.next for t in onward.get(source, ())
            )
        if kind == "join":
            return target in step.next and first_run.get(source, step.step + 1) <= step.step
        return source in step.finished and target in step.next

    def visited(self, diagram: Diagram) -> tuple[str, ...]:
        """The ids of ``diagram``'s nodes the run reached (END once an edge into it is taken)."""
        reached = set(self.steps) | set(self.current)
        if self.failed:
            reached.add(self.failed)
        taken = set(self.taken_edges(diagram))
        for edge in diagram.edges:
            if edge.index in taken:
                reached.update((edge.source, edge.target))
        return tuple(node.id for node in diagram.nodes if node.id in reached)


def _inner(events: list[Any]) -> Trace:
    """The trace inside one subgraph node, from its events (namespace shortened by one).

    A child streams no step ends, so they are rebuilt from its nodes: the nodes that
    finished in step ``k`` lead to the nodes started in step ``k + 1``.
    """
    import dataclasses

    shortened = [dataclasses.replace(e, namespace=e.namespace[1:]) for e in events]
    trace = Trace.from_events(shortened)
    finished: dict[int, list[str]] = {}
    started: dict[int, list[str]] = {}
    for event in shortened:
        if event.namespace:
            continue
        kind = getattr(event, "kind", None)
        if kind == "node_finished":
            finished.setdefault(event.step, []).append(event.node)
        elif kind == "node_started":
            started.setdefault(event.step, []).append(event.node)
    if not started:
        return trace
    first = min(started)
    ends = [StepEnd(first - 1, (START,), tuple(started[first]))]
    for step in sorted(finished):
        ends.append(StepEnd(step, tuple(finished[step]), tuple(started.get(step + 1, ()))))
    steps = {START: (first - 1,), **trace.steps}
    return dataclasses.replace(trace, steps=steps, step_ends=tuple(ends))
