"""Errors of state machines: wrong definitions, and events a state does not accept."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import GraphRuntimeError, GraphSetupError, listed

__all__ = ["MachineDefinitionError", "TransitionNotAllowed"]


class MachineDefinitionError(GraphSetupError):
    """A machine is declared wrongly; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[str], *, machine: str) -> None:
        self.problems = list(problems)
        self.machine = machine
        super().__init__(listed(f"machine {machine!r} is declared wrongly:", self.problems))


class TransitionNotAllowed(GraphRuntimeError, ValueError):
    """An event was fired in a state that has no transition (or no open guard) for it.

    Attributes:
        machine: the machine's name.
        state: the state the event was fired in.
        event: the event.
        guarded: true when transitions exist but every guard said no.
    """

    def __init__(self, *, machine: str, state: object, event: object, guarded: bool) -> None:
        self.machine = machine
        self.state = state
        self.event = event
        self.guarded = guarded
        state_name = getattr(state, "name", state)
        event_name = getattr(event, "name", event)
        why = "every guard of its transitions refused" if guarded else "no transition is declared"
        super().__init__(
            f"machine {machine!r} cannot take event {event_name} in state {state_name}: {why}"
        )
