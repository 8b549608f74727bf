"""LangGraph nodes returning ``Command(update=..., goto=...)``, run on graphnb.

graphnb nodes return updates and routers pick the next nodes, so an imported node that
returns a ``Command`` becomes the two: the node writes the command's ``update``, and a
router added from the node goes where the command's ``goto`` says (node names, ``END``,
or ``Send`` packets, turned into graphnb's). The router's routes are the node's declared
destinations (``Command[Literal[...]]`` or ``add_node(..., destinations=...)``, as
LangGraph draws them), or every node when it declares none. A node's static edges still
run beside its ``goto``, as on LangGraph.

The node hands its ``goto`` to its router through :data:`GOTOS`, keyed by the run, the
step and the node, in the order of the node's instances (a router of ``Send`` instances
runs in that order).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ..engine.context import RunContext
from .code import wrapper_of

__all__ = ["GOTOS", "Gotos", "commanding", "follow_command"]


class Gotos:
    """Where each task of a Command node said to go, until the node's router reads it."""

    def __init__(self) -> None:
        self._pending: dict[tuple[str, int, str], dict[int, list[Any]]] = {}
        self._lock = threading.Lock()

    def put(self, context: RunContext, goto: list[Any]) -> None:
        """Keep ``goto`` for the router of this task."""
        key = (context.run_id, context.step, context.node)
        with self._lock:
            self._pending.setdefault(key, {})[context.instance or 0] = goto

    def take(self, context: RunContext) -> list[Any]:
        """The next ``goto`` kept for this node in this step (``[]`` when none)."""
        key = (context.run_id, context.step, context.node)
        with self._lock:
            kept = self._pending.get(key)
            if not kept:
                return []
            goto = kept.pop(min(kept))
            if not kept:
                del self._pending[key]
            return goto


GOTOS = Gotos()
"""The gotos of every imported graph's runs: keys hold the run's id, unique per run."""


def commanding(fn: Callable[..., Any], name: str, gotos: Gotos = GOTOS) -> Callable[..., Any]:
    """``fn`` (a LangGraph node, possibly shimmed) writing a returned Command's update.

    The command's ``goto`` goes to ``gotos`` for :func:`follow_command`.
    """
    takes_context = _takes_context(fn)

    def settle(result: Any, context: RunContext) -> Any:
        commands = _commands(result)
        if commands is None:
            return result
        update: dict[str, Any] = {}
        goto: list[Any] = []
        for command in commands:
            _check(command, name)
            update.update(_update(command.update))
            goto.extend(_goto(command.goto))
        gotos.put(context, goto)
        return update

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def anode(state: Any, context: RunContext) -> Any:
            result = await (fn(state, context) if takes_context else fn(state))
            return settle(result, context)

        wrapper_of(anode, fn)
        anode.__langgraph_node__ = getattr(fn, "__langgraph_node__", fn)  # type: ignore[attr-defined]
        return anode

    @functools.wraps(fn)
    def node(state: Any, context: RunContext) -> Any:
        return settle(fn(state, context) if takes_context else fn(state), context)

    wrapper_of(node, fn)
    node.__langgraph_node__ = getattr(fn, "__langgraph_node__", fn)  # type: ignore[attr-defined]
    return node


def follow_command(state: Any, context: RunContext) -> list[Any]:
    """The router of a Command node: where the task's command said to go.

    One module-level function for every such node, so its binding resolves (the builder
    and the spec name it ``graphnb.interop.langgraph_command:follow_command``).
    """
    return GOTOS.take(context)


follow_command.__langgraph_command__ = True  # type: ignore[attr-defined]  # export skips it


def _takes_context(fn: Callable[..., Any]) -> bool:
    # The shim's (state, context); a LangGraph node itself takes the state alone here.
    try:
        return "context" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False


def _commands(result: Any) -> list[Any] | None:
    from langgraph.types import Command

    if isinstance(result, Command):
        return [result]
    if isinstance(result, list | tuple) and result and all(isinstance(r, Command) for r in result):
        return list(result)
    return None


def _check(command: Any, name: str) -> None:
    if command.graph is not None:
        raise NotImplementedError(
            f"node {name!r} returned Command(graph={command.graph!r}); graphnb routes a "
            "Command within the node's own graph only"
        )
    if command.resume is not None:
        raise NotImplementedError(
            f"node {name!r} returned Command(resume=...); resume a graphnb thread with "
            "graphnb.Command(resume=...) as a run's input"
        )


def _update(update: Any) -> dict[str, Any]:
    """A Command's update as a partial dict, as LangGraph reads it."""
    if update is None:
        return {}
    if isinstance(update, Mapping):
        return dict(update)
    if isinstance(update, list | tuple):
        return {key: value for key, value in update}
    fields = getattr(type(update), "model_fields", None)
    if fields is not None:  # a Pydantic state: the fields it was given
        return {key: getattr(update, key) for key in update.model_fields_set}
    if dataclasses.is_dataclass(update) and not isinstance(update, type):
        return {f.name: getattr(update, f.name) for f in dataclasses.fields(update)}
    raise TypeError(f"a Command's update must be a mapping or a state, got {update!r:.80}")


def _goto(goto: Any) -> list[Any]:
    from langgraph.types import Send as LangGraphSend

    from ..engine.send import Send

    items = list(goto) if isinstance(goto, list | tuple) else [goto]
    return [
        Send(item.node, item.arg) if isinstance(item, LangGraphSend) else item
        for item in items
        if item is not None and item != ()
    ]
