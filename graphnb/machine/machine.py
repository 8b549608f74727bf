"""A stateless state machine: states and events are enums, the caller holds the state.

Example:
    >>> from enum import Enum, auto
    >>> from graphnb.machine import Machine, TransitionNotAllowed, external, internal
    >>> class Door(Enum):
    ...     OPEN = auto()
    ...     CLOSED = auto()
    >>> class Push(Enum):
    ...     OPEN = auto()
    ...     CLOSE = auto()
    ...     KNOCK = auto()
    >>> door = Machine(
    ...     "door",
    ...     states=Door,
    ...     events=Push,
    ...     initial=Door.CLOSED,
    ...     transitions=[
    ...         external(Door.CLOSED, Door.OPEN, on=Push.OPEN, when=lambda ctx: ctx["key"],
    ...                  guard_name="has_key"),
    ...         external(Door.OPEN, Door.CLOSED, on=Push.CLOSE),
    ...         internal(Door.CLOSED, on=Push.KNOCK),
    ...     ],
    ... )
    >>> door.fire(Door.CLOSED, Push.OPEN, {"key": True})
    <Door.OPEN: 1>
    >>> door.can_fire(Door.CLOSED, Push.OPEN, {"key": False})
    False
    >>> try:
    ...     door.fire(Door.OPEN, Push.KNOCK)
    ... except TransitionNotAllowed as error:
    ...     print(error)
    machine 'door' cannot take event KNOCK in state OPEN: no transition is declared
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from ..spec import END, START, EdgeSpec, GraphSpec, NodeSpec
from .errors import MachineDefinitionError, TransitionNotAllowed
from .graph import machine_graph
from .transition import Transition

if TYPE_CHECKING:
    from ..graph import StateGraph

__all__ = ["Machine", "Nested", "UnknownEventPolicy", "nested"]

S = TypeVar("S", bound=Enum)
E = TypeVar("E", bound=Enum)

UnknownEventPolicy = Literal["raise", "ignore"]
"""What :meth:`Machine.fire` does with an event its state cannot take: raise
:class:`TransitionNotAllowed`, or ignore it and stay in the state."""


def _name(value: object) -> str:
    """An enum member's name, anything else's repr (for messages about wrong values)."""
    return value.name if isinstance(value, Enum) else repr(value)


# -- composite states ----------------------------------------------------------------------
#
# ``Machine(..., substates={Phase.REVIEW: nested(review, exits={...})})`` makes ``REVIEW``
# a composite state: entering it starts the nested machine at its initial state; when the
# nested machine reaches one of its final states, the composite state is done and the
# parent machine takes the event that final state is mapped to in ``exits`` (a completion
# transition, as in UML statecharts). Nested machines nest to any depth. Run as a graph
# (:meth:`Machine.to_graph`), a composite state is a subgraph node whose child graph runs
# the nested machine on the same state; its events reach the outer stream with their path
# (``("REVIEW", "READ")``) and diagrams draw it as a cluster. :meth:`Machine.fire` stays
# one level: it moves between the parent's states, a composite state counting as one.


@dataclass(frozen=True)
class Nested:
    """A nested machine and how its final states leave the composite state.

    Attributes:
        machine: the nested machine.
        exits: per final state of the nested machine, the event of the parent machine
            that is taken when the nested machine ends there.
    """

    machine: Machine[Any, Any]
    exits: Mapping[Enum, Enum] = field(default_factory=dict)

    def exit_event(self, final_name: str) -> Enum | None:
        """The parent event for the nested machine's final state called ``final_name``."""
        for final, event in self.exits.items():
            if final.name == final_name:
                return event
        return None


def nested(machine: Machine[Any, Any], *, exits: Mapping[Enum, Enum]) -> Nested:
    """Declare a composite state's machine; see :class:`Nested`.

    Args:
        machine: the nested machine.
        exits: each final state of ``machine`` -> the parent's event it fires.
    """
    return Nested(machine, dict(exits))


class Machine(Generic[S, E]):
    """A state machine definition: immutable, stateless, shareable between threads and runs.

    Args:
        name: the machine's name, used in errors, diagrams and graph specs.
        states: the enum of states.
        events: the enum of events.
        initial: the state a fresh run starts in.
        final: states where a run ends; every other state needs a transition out.
        transitions: the transitions, made with :func:`external` and :func:`internal`.
            Several transitions for the same state and event are tried in order; the
            first whose guard passes is taken.
        on_unknown: what an event without a usable transition does, see
            :data:`UnknownEventPolicy`.
        substates: composite states: per state, the machine that does its work, made
            with :func:`~graphnb.machine.nested` (see the composite states above).

    Raises:
        MachineDefinitionError: listing every problem of the declaration.
    """

    def __init__(
        self,
        name: str,
        *,
        states: type[S],
        events: type[E],
        initial: S,
        final: Iterable[S] = (),
        transitions: Iterable[Transition[S, E]],
        on_unknown: UnknownEventPolicy = "raise",
        substates: Mapping[S, Nested] | None = None,
    ) -> None:
        self.name = name
        self.substates: dict[S, Nested] = dict(substates or {})
        self.states = states
        self.events = events
        self.initial = initial
        # One state given alone (final=S.DONE) is taken as the list of it.
        self.final: tuple[S, ...] = (final,) if isinstance(final, states) else tuple(final)
        self.transitions: tuple[Transition[S, E], ...] = tuple(transitions)
        self.on_unknown: UnknownEventPolicy = on_unknown
        self._check_declaration()
        table: dict[tuple[S, E], list[Transition[S, E]]] = defaultdict(list)
        for transition in self.transitions:
            for source in transition.sources:
                table[source, transition.event].append(transition)
        self._table = {key: tuple(found) for key, found in table.items()}

    def __repr__(self) -> str:
        return (
            f"<Machine {self.name!r}: {len(self.states)} states, "
            f"{len(self.transitions)} transitions>"
        )

    # -- checking the declaration ----------------------------------------------------------

    def _check_declaration(self) -> None:
        """Raise one MachineDefinitionError listing every problem of the declaration."""
        problems: list[str] = []
        if not (isinstance(self.states, type) and issubclass(self.states, Enum)):
            raise MachineDefinitionError(
                [f"states must be an Enum, got {self.states!r}"], machine=self.name
            )
        if not (isinstance(self.events, type) and issubclass(self.events, Enum)):
            raise MachineDefinitionError(
                [f"events must be an Enum, got {self.events!r}"], machine=self.name
            )
        if self.on_unknown not in ("raise", "ignore"):
            problems.append(f"on_unknown must be 'raise' or 'ignore', got {self.on_unknown!r}")
        if not isinstance(self.initial, self.states):
            problems.append(f"the initial state {self.initial!r} is not a {self.states.__name__}")
        for state in self.final:
            if not isinstance(state, self.states):
                problems.append(f"the final state {state!r} is not a {self.states.__name__}")
        labels: Counter[tuple[str, str]] = Counter()
        unguarded: Counter[tuple[str, str]] = Counter()
        for transition in self.transitions:
            sources = ", ".join(_name(s) for s in transition.sources) or "nowhere"
            where = (
                f"the transition {sources} -> {_name(transition.target)} "
                f"on {_name(transition.event)}"
            )
            valid = True
            if not isinstance(transition.event, self.events):
                problems.append(f"{where} uses an event that is not a {self.events.__name__}")
                valid = False
            if not transition.sources:
                problems.append(f"{where} leaves from no state")
            for state in (*transition.sources, transition.target):
                if not isinstance(state, self.states):
                    problems.append(
                        f"{where} names {state!r}, which is not a {self.states.__name__}"
                    )
                    valid = False
            if not valid:  # its label and name cannot be read; it is reported already
                continue
            for source in transition.sources:
                labels[source.name, transition.label] += 1
                if transition.guard is None:
                    unguarded[source.name, transition.event.name] += 1
        for (source_name, label), count in labels.items():
            if count > 1:
                problems.append(
                    f"{count} transitions from {source_name} are labelled {label!r}; give their "
                    "guards distinct names (guard_name=...)"
                )
        for (source_name, event_name), count in unguarded.items():
            if count > 1:
                problems.append(
                    f"{count} unguarded transitions leave {source_name} on {event_name}; "
                    "only the first could ever be taken"
                )
        problems.extend(self._substate_problems())
        if not problems:
            reachable = self._reachable()
            leaving = {source for t in self.transitions for source in t.sources}
            for state in self.states:
                if state not in reachable:
                    problems.append(
                        f"state {state.name} cannot be reached from the initial state "
                        f"{self.initial.name}"
                    )
                elif state not in leaving and state not in self.final:
                    # A run would be stuck there, and the machine's graph would not compile.
                    problems.append(
                        f"state {state.name} has no transition out and is not final; list it "
                        "in final=[...] or give it a transition"
                    )
        if problems:
            raise MachineDefinitionError(problems, machine=self.name)

    def _substate_problems(self) -> list[str]:
        """What is wrong with the composite states, one sentence each."""
        problems: list[str] = []
        for state, inner in self.substates.items():
            if not isinstance(state, self.states):
                problems.append(f"the substate key {state!r} is not a {self.states.__name__}")
                continue
            where = f"the nested machine of state {state.name}"
            if not isinstance(inner, Nested) or not isinstance(inner.machine, Machine):
                problems.append(
                    f"{where} must be made with nested(machine, exits={{...}}), got {inner!r}"
                )
                continue
            child = inner.machine
            if child is self:
                problems.append(f"{where} is the machine itself")
                continue
            for final, event in inner.exits.items():
                if final not in child.final:
                    problems.append(
                        f"{where} ({child.name!r}) maps {_name(final)} in exits, which is not "
                        f"one of its final states ({', '.join(s.name for s in child.final)})"
                    )
                if not isinstance(event, self.events):
                    problems.append(
                        f"{where} leaves {_name(final)} on {event!r}, which is not a "
                        f"{self.events.__name__}"
                    )
                elif not self._table_has(state, event):
                    problems.append(
                        f"{where} leaves {_name(final)} on {event.name}, but no transition "
                        f"leaves {state.name} on {event.name}"
                    )
            for final in child.final:
                if final not in inner.exits:
                    problems.append(
                        f"{where} ({child.name!r}) can end in {final.name}, which exits "
                        "does not map to an event of this machine"
                    )
        return problems

    def _table_has(self, state: S, event: E) -> bool:
        return any(state in t.sources and t.event == event for t in self.transitions)

    def _reachable(self) -> set[S]:
        seen = {self.initial}
        todo = [self.initial]
        while todo:
            state = todo.pop()
            for transition in self.transitions:
                if state in transition.sources and transition.target not in seen:
                    seen.add(transition.target)
                    todo.append(transition.target)
        return seen

    # -- firing events ---------------------------------------------------------------------

    def resolve(self, state: S, event: E, context: Any = None) -> Transition[S, E] | None:
        """The transition ``event`` takes in ``state`` (guards checked, no action run).

        Returns ``None`` when the event is ignored (``on_unknown="ignore"``).

        Raises:
            TransitionNotAllowed: no transition applies and the policy is ``"raise"``.
        """
        candidates = self._table.get((state, event), ())
        for transition in candidates:
            if transition.guard is None or transition.guard(context):
                return transition
        if self.on_unknown == "ignore":
            return None
        raise TransitionNotAllowed(
            machine=self.name, state=state, event=event, guarded=bool(candidates)
        )

    def fire(self, state: S, event: E, context: Any = None) -> S:
        """Take ``event`` in ``state``: run the transition's action, return the new state.

        Args:
            state: the current state (the caller holds it; the machine keeps none).
            event: the event.
            context: passed to guards and actions.

        Raises:
            TransitionNotAllowed: no transition applies and the policy is ``"raise"``.
        """
        transition = self.resolve(state, event, context)
        if transition is None:
            return state
        if transition.action is not None:
            transition.action(state, transition.target, event, context)
        return transition.target

    def can_fire(self, state: S, event: E, context: Any = None) -> bool:
        """Whether ``event`` has a transition in ``state`` whose guard passes."""
        return any(
            transition.guard is None or transition.guard(context)
            for transition in self._table.get((state, event), ())
        )

    def events_from(self, state: S) -> list[E]:
        """The events ``state`` declares transitions for, in declaration order."""
        return list(dict.fromkeys(event for source, event in self._table if source == state))

    def transitions_from(self, state: S) -> list[Transition[S, E]]:
        """The transitions leaving ``state``, in declaration order."""
        return [t for t in self.transitions if state in t.sources]

    def is_final(self, state: S) -> bool:
        """Whether a run ends in ``state``."""
        return state in self.final

    # -- as a graph ------------------------------------------------------------------------

    @property
    def spec(self) -> GraphSpec:
        """The machine as a graph spec: a node per state, a conditional edge per transition.

        ``metadata`` is ``{"kind": "machine", "initial": ..., "final": [...]}``; each edge's
        label (and route) is ``"EVENT"`` or ``"EVENT [guard]"``, its metadata
        ``{"event", "guard", "internal"}``. START leads to the initial state and each final
        state to END, so the spec validates like any graph. A composite state's node holds
        its nested machine's spec (``subgraph``) and, in its metadata, ``exits``.
        """
        edges = [EdgeSpec(source=START, target=self.initial.name)]
        for transition in self.transitions:
            for source in transition.sources:
                edges.append(
                    EdgeSpec(
                        source=source.name,
                        target=transition.target.name,
                        kind="conditional",
                        route=transition.label,
                        label=transition.label,
                        metadata={
                            "event": transition.event.name,
                            "guard": transition.guard_name,
                            "internal": transition.internal,
                        },
                    )
                )
        edges.extend(EdgeSpec(source=state.name, target=END) for state in self.final)
        sources = dict.fromkeys(s.name for t in self.transitions for s in t.sources)
        nodes = [
            NodeSpec(id=state.name)
            if state not in self.substates
            else NodeSpec(
                id=state.name,
                subgraph=self.substates[state].machine.spec,
                metadata={
                    "exits": {f.name: e.name for f, e in self.substates[state].exits.items()}
                },
            )
            for state in self.states
        ]
        return GraphSpec(
            version=2 if self.substates else 1,
            name=self.name,
            nodes=nodes,
            edges=edges,
            routers=dict.fromkeys(sources),
            metadata={
                "kind": "machine",
                "initial": self.initial.name,
                "final": [state.name for state in self.final],
            },
        )

    def to_graph(
        self,
        state: type[Any],
        handlers: Mapping[S, Any],
        *,
        event_field: str = "event",
        phase_field: str = "phase",
    ) -> StateGraph[Any]:
        """A graph that runs this machine; see :func:`graphnb.machine.graph.machine_graph`."""
        return machine_graph(
            self, state, handlers, event_field=event_field, phase_field=phase_field
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ..diagram import mimebundle

        return mimebundle(self.spec)
