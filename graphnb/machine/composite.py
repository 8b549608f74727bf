"""Hierarchical machines: a state whose work is a machine of its own.

``Machine(..., substates={Phase.REVIEW: nested(review, exits={...})})`` makes ``REVIEW``
a composite state: entering it starts the nested machine at its initial state; when the
nested machine reaches one of its final states, the composite state is done and the
parent machine takes the event that final state is mapped to in ``exits`` (a completion
transition, as in UML statecharts). Nested machines nest to any depth.

Run as a graph (:meth:`~graphnb.machine.Machine.to_graph`), a composite state is a
subgraph node whose child graph runs the nested machine on the same state; its events
reach the outer stream with their path (``("REVIEW", "READ")``) and diagrams draw it as
a cluster. :meth:`~graphnb.machine.Machine.fire` stays one level: it moves between the
parent's states, a composite state counting as one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .machine import Machine

__all__ = ["Nested", "nested"]


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
