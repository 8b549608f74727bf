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

from .engine import batch as _batch
from .engine import display as _display
from .engine import store as _store
from .engine.context import RunContext, Runtime, get_stream_writer
from .engine.events import (
    CacheHit,
    Chunk,
    Event,
    Interrupted,
    NodeFailed,
    NodeFinished,
    NodeRetrying,
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
    NodeTimeout,
    RouteError,
)
from .lazy import lazy_names
from .reducers import Reducer, add, append, merge, replace

if TYPE_CHECKING:
    from .checkpoint.threads import Threads
    from .engine.batch import OnProgress as _OnProgress
    from .engine.batch import Recipe as _Recipe
    from .engine.compiled import DEFAULT_RECURSION_LIMIT, CompiledGraph
    from .engine.policy import CachePolicy, MemoryCache, RetryPolicy
    from .engine.send import Send
    from .graph import StateGraph
    from .human import Command, interrupt
    from .records import Interrupt, StateSnapshot
    from .schema import StateSchema
    from .spec import EdgeSpec, FieldSpec, GraphSpec, NodeSpec, Position, StateSpec
    from .state import GraphState, StateField
    from .terminals import END, START

from .version import __version__

# Names load on first use, not on `import graphnb`: specs, typed states and checkpoint
# metadata stand on Pydantic, whose import is most of a fresh process's start-up. The
# builder and engine load it only for those (a graph on a dict state runs without it).
_LAZY = {
    "DEFAULT_RECURSION_LIMIT": "graphnb.engine.compiled",
    "CompiledGraph": "graphnb.engine.compiled",
    "CachePolicy": "graphnb.engine.policy",
    "MemoryCache": "graphnb.engine.policy",
    "RetryPolicy": "graphnb.engine.policy",
    "Send": "graphnb.engine.send",
    "StateGraph": "graphnb.graph",
    "Command": "graphnb.human",
    "interrupt": "graphnb.human",
    "Interrupt": "graphnb.records",
    "StateSnapshot": "graphnb.records",
    "START": "graphnb.draft",
    "END": "graphnb.draft",
    "EdgeSpec": "graphnb.spec",
    "FieldSpec": "graphnb.spec",
    "GraphSpec": "graphnb.spec",
    "NodeSpec": "graphnb.spec",
    "Position": "graphnb.spec",
    "StateSpec": "graphnb.spec",
    "GraphState": "graphnb.state",
    "StateField": "graphnb.state",
}


# This façade is the one place that knows both the engine and the layers above it. The
# engine calls these through graphnb.engine.store and graphnb.engine.display, so it never
# imports a saver or the diagrams; each loads its package only when first used.
def _open_threads(checkpointer: Any, schema: StateSchema[Any]) -> Threads[Any]:
    from .checkpoint.threads import Threads
    from .checkpoint.url import as_saver

    return Threads(as_saver(checkpointer), schema)


def _draw(spec: GraphSpec) -> dict[str, str]:
    from .diagram import mimebundle

    return mimebundle(spec)


def _progress_display(total: int) -> _OnProgress:
    from .progress import display_for

    return display_for(total)


def _rebuild(recipe: _Recipe) -> CompiledGraph[Any]:
    from .graph import StateGraph

    checkpointer: Any = recipe.checkpointer
    if checkpointer is not None and recipe.checkpointer_options:
        from .checkpoint.url import saver_from_url

        checkpointer = saver_from_url(checkpointer, **dict(recipe.checkpointer_options))
    return StateGraph.from_spec(recipe.spec_json).compile(
        recursion_limit=recipe.recursion_limit,
        max_concurrency=recipe.max_concurrency,
        checkpointer=checkpointer,
        interrupt_before=list(recipe.interrupt_before),
        interrupt_after=list(recipe.interrupt_after),
    )


_store.install_opener(_open_threads)
_batch.install_builder(_rebuild)
_batch.install_progress(_progress_display)
_display.install_renderer(_draw)


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
    "Runtime",
    "Send",
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
    "get_stream_writer",
    "interrupt",
    "merge",
    "replace",
    "CacheHit",
    "CachePolicy",
    "MemoryCache",
    "NodeRetrying",
    "NodeTimeout",
    "RetryPolicy",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
