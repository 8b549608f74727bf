"""State machines: enum states and events, guarded transitions, drawn and run as graphs.

A :class:`Machine` is a stateless definition (the caller holds the current state), as in
COLA's state machine: ``fire(state, event, context)`` returns the next state. Its
:attr:`~Machine.spec` is a graph spec, so it draws like any graph, and
:meth:`~Machine.to_graph` runs it on the graph engine. A state may be a machine of its
own (``substates={STATE: nested(machine, exits={...})}``): a hierarchical machine, run as
a subgraph and drawn nested.
"""

from __future__ import annotations

from .errors import MachineDefinitionError, TransitionNotAllowed
from .graph import machine_graph
from .machine import Machine, Nested, UnknownEventPolicy, nested
from .transition import Action, Guard, Transition, external, internal

__all__ = [
    "Action",
    "Guard",
    "Machine",
    "MachineDefinitionError",
    "Nested",
    "Transition",
    "TransitionNotAllowed",
    "UnknownEventPolicy",
    "external",
    "internal",
    "machine_graph",
    "nested",
]
