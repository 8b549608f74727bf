"""Run a machine as a graph: each state is a node, each transition a conditional edge.

A state's *handler* does the state's work and names the event that comes next; the
router after the state fires that event through the machine (guards and actions
included) and follows the transition taken. A handler that names no event ends the run,
so a run stops in a final state or wherever the machine waits for outside input.

Example:
    >>> from enum import Enum, auto
    >>> from graphnb.machine import Machine, external
    >>> class Phase(Enum):
    ...     DRAFT = auto()
    ...     REVIEW = auto()
    ...     DONE = auto()
    >>> class Step(Enum):
    ...     SUBMIT = auto()
    ...     APPROVE = auto()
    >>> flow = Machine("review", states=Phase, events=Step, initial=Phase.DRAFT,
    ...     final=[Phase.DONE], transitions=[
    ...         external(Phase.DRAFT, Phase.REVIEW, on=Step.SUBMIT),
    ...         external(Phase.REVIEW, Phase.DONE, on=Step.APPROVE),
    ...     ])
    >>> graph = flow.to_graph(dict, {
    ...     Phase.DRAFT: lambda state: {"text": "hello", "event": Step.SUBMIT},
    ...     Phase.REVIEW: lambda state: Step.APPROVE,
    ... })
    >>> final = graph.compile().invoke({})
    >>> final["phase"], final["text"]
    ('DONE', 'hello')
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.context import RunContext
from ..engine.node import Node
from ..errors import GraphSetupError

if TYPE_CHECKING:
    from ..graph import StateGraph
    from ..spec import GraphSpec
    from .transition import Transition

__all__ = ["machine_graph"]

Handler = Callable[..., Any]


class _RunnableMachine(Protocol):
    """What running a machine as a graph needs of it; :class:`~graphnb.machine.Machine` has it.

    Described here rather than imported, so that :mod:`graphnb.machine.machine` (which
    offers :meth:`~graphnb.machine.Machine.to_graph`) imports this module and not the
    other way round.
    """

    @property
    def name(self) -> str:
        """The machine's name."""

    @property
    def states(self) -> type[Enum]:
        """The enum of its states."""

    @property
    def events(self) -> type[Enum]:
        """The enum of its events."""

    @property
    def spec(self) -> GraphSpec:
        """Its states and transitions as a graph spec (a fresh copy each time)."""

    def resolve(self, state: Any, event: Any, context: Any = None) -> Transition[Any, Any] | None:
        """The transition ``event`` takes from ``state``, or ``None``."""

    @property
    def substates(self) -> Mapping[Any, _NestedMachine]:
        """Its composite states, each with its nested machine."""


class _NestedMachine(Protocol):
    """A composite state's machine and its exits (:class:`~graphnb.machine.Nested`)."""

    @property
    def machine(self) -> _RunnableMachine:
        """The nested machine."""

    def exit_event(self, final_name: str) -> Enum | None:
        """The parent's event for the nested machine's final state ``final_name``."""


def _enums(machine: _RunnableMachine) -> list[type[Enum]]:
    """The state enums of ``machine`` and of every machine nested in it."""
    found = [machine.states]
    for inner in machine.substates.values():
        found.extend(e for e in _enums(inner.machine) if e not in found)
    return found


def machine_graph(
    machine: _RunnableMachine,
    state: type[Any],
    handlers: Mapping[Any, Handler],
    *,
    event_field: str = "event",
    phase_field: str = "phase",
) -> StateGraph[Any]:
    """Build the graph that runs ``machine``.

    Args:
        machine: the machine.
        state: the graph's state type; it needs ``event_field`` and ``phase_field`` (a
            ``dict`` state has them implicitly).
        handlers: per state, a sync or async callable taking the state (and optionally
            the run context) and returning the next event, ``None``, or a partial update
            whose ``event_field`` holds the next event. States without a handler name no
            event, so a run ends there.
        event_field: the field holding the name of the event a handler chose.
        phase_field: the field holding the name of the current state.

    Returns:
        a :class:`~graphnb.StateGraph` whose spec is ``machine.spec`` plus bindings.
    """
    from ..graph import StateGraph

    enums = tuple(_enums(machine))
    unknown = [key for key in handlers if not isinstance(key, enums)]
    if unknown:
        names = " or ".join(e.__name__ for e in enums)
        raise GraphSetupError(
            f"handlers of machine {machine.name!r} are keyed by {unknown!r}, which are not "
            f"{names} members"
        )
    composite = machine.substates
    for member in composite:
        if member in handlers:
            raise GraphSetupError(
                f"state {member.name} of machine {machine.name!r} is a nested machine: its "
                "work is done by the handlers of the nested machine's states, not one of its own"
            )
    spec = machine.spec
    namespace: dict[str, Any] = {}
    for node in spec.nodes:
        member = machine.states[node.id]
        node.binding = node.id
        if member in composite:
            # Bound to its child graph below; a plain node until then.
            node.subgraph = None
            namespace[node.id] = _placeholder
            continue
        namespace[node.id] = _node(
            member, handlers.get(member), machine.events, event_field, phase_field
        )
    for source in list(spec.routers):
        key = f"route_{source}"
        spec.routers[source] = key
        member = machine.states[source]
        if member in composite:
            namespace[key] = _exit_router(machine, member, composite[member], phase_field)
        else:
            namespace[key] = _router(machine, member, event_field)
    graph = StateGraph.from_spec(spec, namespace=namespace, state=state)
    for member, inner in composite.items():
        kept = tuple(_enums(inner.machine))
        child = machine_graph(
            inner.machine,
            state,
            {key: handler for key, handler in handlers.items() if isinstance(key, kept)},
            event_field=event_field,
            phase_field=phase_field,
        )
        graph._attach_subgraph(member.name, child)
    return graph


def _placeholder(view: Any) -> None:  # pragma: no cover - replaced by the child graph
    return None


def _exit_router(
    machine: _RunnableMachine, state: Enum, inner: _NestedMachine, phase_field: str
) -> Callable[[Any], str | list[str]]:
    """The router after a composite state: the nested machine's final state picks the event."""

    def route(view: Any) -> str | list[str]:
        final = view.get(phase_field) if isinstance(view, Mapping) else getattr(view, phase_field)
        event = inner.exit_event(str(final))
        if event is None:
            return []
        return _take(machine, state, event, view)

    route.__name__ = f"exit_{state.name}"
    return route


def _take(machine: _RunnableMachine, state: Enum, event: Enum, view: Any) -> str | list[str]:
    """Take the transition ``event`` fires in ``state``: run its action, return its label.

    No transition (or no open guard): ``[]``, the run stays where it is.
    """
    transition = machine.resolve(state, event, view)
    if transition is None:
        return []
    if transition.action is not None:
        transition.action(state, transition.target, event, view)
    return transition.label


def _update(
    result: Any, state: Enum, events: type[Enum], event_field: str, phase_field: str
) -> dict[str, Any]:
    if result is None or isinstance(result, Enum):
        update: dict[str, Any] = {event_field: result}
    elif isinstance(result, Mapping):
        update = dict(result)
        update.setdefault(event_field, None)
    else:
        raise TypeError(
            f"the handler of state {state.name} returned {result!r}; expected an event, "
            "None, or a mapping of updates"
        )
    event = update[event_field]
    if isinstance(event, events):
        update[event_field] = event.name
    elif not (event is None or (isinstance(event, str) and event in events.__members__)):
        raise ValueError(
            f"the handler of state {state.name} named the event {event!r}; expected a "
            f"{events.__name__} member, the name of one, or None"
        )
    update[phase_field] = state.name
    return update


def _node(
    state: Enum,
    handler: Handler | None,
    events: type[Enum],
    event_field: str,
    phase_field: str,
) -> Callable[[Any, RunContext], Any]:
    if handler is None:

        def idle(view: Any, context: RunContext) -> dict[str, Any]:
            return _update(None, state, events, event_field, phase_field)

        idle.__name__ = state.name
        return idle
    # Called the way the engine calls a node: the same rules for the run context and for
    # async callables (functions or objects), so a handler behaves like any node.
    called = Node(state.name, 0, handler)
    with_context = called.takes_context
    if called.is_async:

        async def run_async(view: Any, context: RunContext) -> dict[str, Any]:
            call: Awaitable[Any] = handler(view, context) if with_context else handler(view)
            return _update(await call, state, events, event_field, phase_field)

        run_async.__name__ = state.name
        return run_async

    def run_sync(view: Any, context: RunContext) -> dict[str, Any]:
        result = handler(view, context) if with_context else handler(view)
        return _update(result, state, events, event_field, phase_field)

    run_sync.__name__ = state.name
    return run_sync


def _router(
    machine: _RunnableMachine, state: Enum, event_field: str
) -> Callable[[Any], str | list[str]]:
    def route(view: Any) -> str | list[str]:
        name = view.get(event_field) if isinstance(view, Mapping) else getattr(view, event_field)
        if name is None:
            return []
        event = machine.events[name]
        return _take(machine, state, event, view)

    route.__name__ = f"route_{state.name}"
    return route
