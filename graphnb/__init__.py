"""graphnb: a Jupyter-native visual builder for typed-state graphs.

The engine (this package's top level) runs in any Python process: it imports neither
Jupyter, the widget libraries nor networkx. Diagrams, the widget and exports load their
dependencies when first used. Savers live in :mod:`graphnb.checkpoint`, state machines in
:mod:`graphnb.machine`, the ReAct agent in :mod:`graphnb.agent`, diagrams in
:mod:`graphnb.diagram`, exports in :mod:`graphnb.export`, the builder in
:mod:`graphnb.widget`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .engine.compiled import DEFAULT_RECURSION_LIMIT, CompiledGraph
from .engine.context import RunContext
from .engine.events import (
    Chunk,
    Event,
    Interrupted,
    NodeFailed,
    NodeFinished,
    NodeStarted,
    StepFinished,
    StreamMode,
)
from .engine.node import Streamed
from .errors import (
    BindingError,
    ConflictingUpdateError,
    GraphnbError,
    GraphRecursionError,
    GraphRuntimeError,
    GraphSetupError,
    GraphValidationError,
    InvalidUpdateError,
    NodeError,
    RouteError,
)
from .graph import StateGraph
from .reducers import Reducer, add, append, merge, replace
from .spec import END, START, EdgeSpec, FieldSpec, GraphSpec, NodeSpec, Position, StateSpec
from .state import GraphState, StateField

if TYPE_CHECKING:
    from .checkpoint.human import Command, interrupt
    from .checkpoint.record import Interrupt, StateSnapshot

__version__ = "0.1.0"

# Names of threaded runs load with graphnb.checkpoint on first use, not on `import graphnb`.
_LAZY = {
    "Command": "graphnb.checkpoint.human",
    "interrupt": "graphnb.checkpoint.human",
    "Interrupt": "graphnb.checkpoint.record",
    "StateSnapshot": "graphnb.checkpoint.record",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphnb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "END",
    "START",
    "BindingError",
    "Chunk",
    "CompiledGraph",
    "Command",
    "ConflictingUpdateError",
    "EdgeSpec",
    "Event",
    "FieldSpec",
    "GraphRecursionError",
    "GraphRuntimeError",
    "GraphSetupError",
    "GraphSpec",
    "GraphState",
    "GraphValidationError",
    "GraphnbError",
    "Interrupt",
    "Interrupted",
    "InvalidUpdateError",
    "NodeError",
    "NodeFailed",
    "NodeFinished",
    "NodeSpec",
    "NodeStarted",
    "Position",
    "Reducer",
    "RouteError",
    "RunContext",
    "StateField",
    "StateGraph",
    "StateSnapshot",
    "StateSpec",
    "StepFinished",
    "StreamMode",
    "Streamed",
    "__version__",
    "add",
    "append",
    "interrupt",
    "merge",
    "replace",
]
