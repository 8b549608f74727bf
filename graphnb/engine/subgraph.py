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

The child runs on the plain loop, without a thread of its own: on a threaded parent its
steps are not checkpointed, and an ``interrupt()`` inside it stops the parent at the
subgraph node; the resumed run starts the child again from its beginning, the answer
waiting for the ``interrupt()`` call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from .events import Event, StepFinished

if TYPE_CHECKING:
    from ..schema import StateSchema
    from .compiled import CompiledGraph
    from .node import Node
    from .run import Run

__all__ = ["Subgraph", "field_names"]


def field_names(schema: StateSchema[Any]) -> frozenset[str] | None:
    """The fields a state declares; ``None`` for a plain ``dict`` state (any key goes)."""
    if schema.model is None and not schema.typed:
        return None
    return frozenset(schema.fields)


class Subgraph:
    """A child graph bound to a parent node, with the fields passed in and out."""

    is_subgraph = True  # what graphnb.engine.node looks for (it cannot import this module)

    def __init__(
        self,
        node: str,
        child: CompiledGraph[Any],
        parent: StateSchema[Any],
        parent_name: str,
        *,
        inputs: Mapping[str, str] | None = None,
        outputs: Mapping[str, str] | None = None,
    ) -> None:
        self.node = node
        self.child = child
        self.parent = parent
        self.parent_name = parent_name
        self.inputs = dict(inputs) if inputs is not None else None
        self.outputs = dict(outputs) if outputs is not None else None

    def problems(self) -> list[str]:
        """Mapped fields that one of the two states does not have, one sentence each."""
        found = []
        mine, theirs = field_names(self.parent), field_names(self.child.schema)
        child = self.child.name
        for option, pairs, sources, targets, source_graph, target_graph in (
            ("inputs", self.inputs, mine, theirs, self.parent_name, child),
            ("outputs", self.outputs, theirs, mine, child, self.parent_name),
        ):
            for source, target in (pairs or {}).items():
                for name, names, graph in (
                    (source, sources, source_graph),
                    (target, targets, target_graph),
                ):
                    if names is not None and name not in names:
                        found.append(
                            f"subgraph node `{self.node}` maps {option} {source!r} -> "
                            f"{target!r}, but graph {graph!r} has no field {name!r} "
                            f"(parent {self.parent_name!r}, child {child!r})."
                        )
        return found

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
        """The parent's update: what the child changed, renamed, as reducer writes."""
        mine, theirs = field_names(self.parent), field_names(self.child.schema)
        if self.outputs is None and mine is None and theirs is None:
            return self.parent.diff(before, after)
        pairs = self._pairs(self.outputs, theirs, mine)
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
        child = self.child
        inner = child._run(events=run.subgraphs, context=run.data, recursion_limit=None)
        inner.steps = False  # the child's states are its own business, not the stream's
        inner.subgraphs = run.subgraphs
        prefix = (node.name,)
        event: Any
        for event in child._events(inner, self.input_of(before)):
            if not isinstance(event, StepFinished):
                yield dataclasses.replace(event, namespace=prefix + event.namespace)
        return self.update_of(before, inner.values)
