"""Transitions: what an event does in a state, declared as plain frozen data."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

__all__ = ["Action", "Guard", "Transition", "external", "internal"]

S = TypeVar("S", bound=Enum)
E = TypeVar("E", bound=Enum)

Guard = Callable[[Any], bool]
"""Decides whether a transition may be taken; called with the context given to ``fire``."""

Action = Callable[[Any, Any, Any, Any], object]
"""Runs when a transition is taken: ``action(source, target, event, context)``."""


@dataclass(frozen=True, slots=True)
class Transition(Generic[S, E]):
    """One declared transition.

    Attributes:
        sources: the states it leaves from (one or many).
        target: the state it leads to; for an internal transition, the state itself.
        event: the event that triggers it.
        guard: taken only when ``guard(context)`` is true; always taken when ``None``.
        action: called as ``action(source, target, event, context)`` when taken.
        internal: an internal transition stays in its state (no exit, no entry).
        guard_name: how the guard is shown in labels and diagrams; the guard's
            ``__name__`` when omitted.
    """

    sources: tuple[S, ...]
    target: S
    event: E
    guard: Guard | None = None
    action: Action | None = None
    internal: bool = False
    guard_name: str | None = None

    @property
    def label(self) -> str:
        """``"EVENT"``, or ``"EVENT [guard]"`` for a guarded transition."""
        if self.guard_name is None:
            return self.event.name
        return f"{self.event.name} [{self.guard_name}]"


def _guard_name(guard: Guard | None, name: str | None) -> str | None:
    if guard is None:
        return name
    return name or getattr(guard, "__name__", None) or type(guard).__name__


def external(
    source: S | Iterable[S],
    target: S,
    *,
    on: E,
    when: Guard | None = None,
    do: Action | None = None,
    guard_name: str | None = None,
) -> Transition[S, E]:
    """Declare an external transition from one or many states to ``target`` on ``on``.

    Args:
        source: the state, or several states, the transition leaves from.
        target: the state it leads to.
        on: the triggering event.
        when: an optional guard, called with the context.
        do: an optional action, called as ``do(source, target, event, context)``.
        guard_name: the guard's name in labels; the function's name when omitted.

    Example:
        >>> from enum import Enum
        >>> class Light(Enum):
        ...     RED = "red"
        ...     GREEN = "green"
        >>> class Signal(Enum):
        ...     GO = "go"
        >>> external(Light.RED, Light.GREEN, on=Signal.GO).label
        'GO'
    """
    # A string is one (wrong) state, reported as such, not a sequence of letters.
    sources = (source,) if isinstance(source, Enum | str) else tuple(source)
    return Transition(sources, target, on, when, do, False, _guard_name(when, guard_name))


def internal(
    state: S,
    *,
    on: E,
    when: Guard | None = None,
    do: Action | None = None,
    guard_name: str | None = None,
) -> Transition[S, E]:
    """Declare an internal transition: ``on`` runs ``do`` and stays in ``state``.

    Args:
        state: the state the transition belongs to.
        on: the triggering event.
        when: an optional guard, called with the context.
        do: an optional action, called as ``do(state, state, event, context)``.
        guard_name: the guard's name in labels; the function's name when omitted.
    """
    return Transition((state,), state, on, when, do, True, _guard_name(when, guard_name))
