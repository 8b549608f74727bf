"""The learner's graph, whatever form it comes in, read without ever raising.

A check is handed a ``StateGraph``, a ``CompiledGraph``, the builder widget or a bare
``GraphSpec``. :class:`Subject` gets the spec and a runnable graph out of any of them and
turns every failure on the way (a binding naming nothing, a graph that does not compile)
into a sentence the learner can act on, so no check ever shows a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..console import recompiled
from ..engine.compiled import CompiledGraph
from ..errors import GraphnbError
from ..graph import StateGraph
from ..spec import GraphSpec

__all__ = ["Subject", "as_map", "describe_error"]


def describe_error(error: BaseException) -> str:
    """One line naming what went wrong: the error's type and its message, never a traceback.

    A message of several lines (a list of problems) is joined into one sentence.
    """
    lines = [line.strip().removeprefix("- ") for line in str(error).splitlines()]
    head, *rest = [line for line in lines if line] or [""]
    rest = [line.rstrip(".") for line in rest[:-1]] + rest[-1:]  # "a; b." not "a.; b."
    text = f"{head} {'; '.join(rest)}" if rest else head
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def as_map(state: Any) -> dict[str, Any]:
    """A state as a plain dict of field values (a model's ``to_map``, a dict as it is)."""
    if isinstance(state, Mapping):
        return dict(state)
    to_map = getattr(state, "to_map", None)
    if callable(to_map):
        return dict(to_map())
    dump = getattr(state, "model_dump", None)
    if callable(dump):
        return dict(dump())
    return {"value": state}


class Subject:
    """What a check looks at: the learner's graph, its spec, and a compiled copy to run.

    Args:
        obj: a ``StateGraph``, ``CompiledGraph``, the builder widget, or a ``GraphSpec``.
    """

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.spec: GraphSpec | None = None
        self.problem: str | None = None
        self._compiled: CompiledGraph[Any] | None = None
        self._compile_error: str | None = None
        why = getattr(obj, "why", None)
        if type(obj).__name__ == "Broken" and isinstance(why, str):  # from attempt()
            self.problem = f"it could not be built: {why}"
            return
        try:
            spec = obj if isinstance(obj, GraphSpec) else getattr(obj, "spec", None)
        except Exception as error:  # a builder property may fail on a broken drawing
            spec, self.problem = None, f"its drawing could not be read ({describe_error(error)})"
        if isinstance(spec, GraphSpec):
            self.spec = spec
        elif self.problem is None:
            self.problem = (
                f"a `{type(obj).__name__}` is not a graph: pass the StateGraph you built, "
                "its compiled graph, or the builder"
            )

    def compiled(self) -> CompiledGraph[Any] | None:
        """The graph compiled with an in-memory checkpointer, or None (see :attr:`why_not`)."""
        if self._compiled is None and self._compile_error is None:
            try:
                self._compiled = self._compile()
            except Exception as error:
                self._compile_error = describe_error(error)
        return self._compiled

    @property
    def why_not(self) -> str:
        """Why :meth:`compiled` gave None."""
        why = self.problem or f"the graph does not compile: {self._compile_error}"
        return why.rstrip(".")

    def _compile(self) -> CompiledGraph[Any]:
        # Every run gets its own in-memory thread store, so checks that need a thread
        # (interrupts) work whatever the learner compiled with, and nothing is left behind.
        obj = self.obj
        if isinstance(obj, CompiledGraph):
            return recompiled(obj, "memory://")
        if isinstance(obj, StateGraph):
            return obj.compile(checkpointer="memory://")
        if callable(getattr(obj, "fire", None)):  # a state machine: its graph needs handlers
            raise GraphnbError(
                "a state machine is checked for its shape only; to run it, check "
                "machine.to_graph(state, handlers)"
            )
        to_graph = getattr(obj, "to_graph", None)
        if callable(to_graph):
            graph = to_graph()
            if isinstance(graph, StateGraph):
                return graph.compile(checkpointer="memory://")
        raise GraphnbError(
            "there is no code behind this graph: a bare spec can be checked for its shape only"
        )
