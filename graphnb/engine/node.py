"""Calling user code: nodes and routers, their signatures, and streamed results."""

from __future__ import annotations

import inspect
import typing
from collections.abc import AsyncIterable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Literal, get_args, get_origin

from .context import INJECTED, RunContext

__all__ = [
    "Node",
    "Router",
    "Streamed",
    "call_target",
    "command_destinations",
    "complete_value",
    "engine_caller",
    "first_parameter_type",
    "injected_parameters",
    "routes_from_annotation",
    "takes_context",
]


@dataclass(frozen=True, slots=True)
class Streamed:
    """A node result whose chunks are streamed live, then written as one complete value.

    Args:
        chunks: a sync or async iterable of chunks of any type.
        update: a partial update written together with the complete value.
        aggregate: builds the complete value from the list of chunks; by default strings
            are concatenated and anything else is collected into a list.
        field: the field receiving the complete value; the state's streaming field when
            omitted.

    A generator node (sync or async) is a streamed result too: each ``yield`` is a chunk,
    and a sync generator may ``return`` a partial update.
    """

    chunks: Iterable[Any] | AsyncIterable[Any]
    update: Mapping[str, Any] | None = None
    aggregate: Callable[[list[Any]], Any] | None = None
    field: str | None = None


def complete_value(chunks: list[Any], aggregate: Callable[[list[Any]], Any] | None) -> Any:
    """The value a finished stream writes into its field."""
    if aggregate is not None:
        return aggregate(chunks)
    if all(isinstance(chunk, str) for chunk in chunks):
        return "".join(chunks)
    return chunks


def takes_context(fn: Callable[..., Any]) -> bool:
    """Whether a callable takes the run context.

    It does through a second required positional parameter, or a parameter named
    ``context``; so ``lambda s, name=name: ...`` receives none.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    if _injected(signature):
        return True
    required = 0
    for parameter in signature.parameters.values():
        if parameter.name == "context":
            return True
        if parameter.kind is parameter.VAR_POSITIONAL:
            return True
        if (
            parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
            and parameter.default is parameter.empty
        ):
            required += 1
    return required >= 2


def engine_caller(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What the engine calls as ``call(state)`` or ``call(state, context)``.

    ``fn`` itself, unless its ``context`` parameter is keyword-only: the engine passes the
    context positionally, so that one parameter gets it by name.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    injected = _injected(signature)
    if injected:
        return _injecting(fn, injected)
    parameter = signature.parameters.get("context")
    if parameter is None or parameter.kind is not parameter.KEYWORD_ONLY:
        return fn

    def call(state: Any, context: Any) -> Any:
        return fn(state, context=context)

    return call


def _injected(signature: inspect.Signature) -> tuple[str, ...]:
    """The parameters after the state that get a part of the run by keyword, as LangGraph's.

    Those named ``runtime``, ``config``, ``writer`` or ``store``, or annotated
    ``Runtime[...]`` (then it gets the run context whatever its name), and ``context``
    beside one of these.
    """
    names = []
    for index, parameter in enumerate(signature.parameters.values()):
        if index == 0 or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        annotation = parameter.annotation
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if parameter.name in INJECTED or str(text).startswith(("Runtime", "RunContext")):
            names.append(parameter.name)
    if names and "context" in signature.parameters and "context" not in names:
        names.append("context")
    return tuple(names)


def injected_parameters(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The parameters of ``fn`` the engine passes by keyword (``runtime``, ``config`` ...)."""
    try:
        return _injected(inspect.signature(fn))
    except (TypeError, ValueError):
        return ()


def _injecting(fn: Callable[..., Any], names: tuple[str, ...]) -> Callable[..., Any]:
    """``fn`` called as ``call(state, context)``, its injected parameters given by keyword."""
    parts = tuple(
        (name, name if name in INJECTED else "runtime") for name in names
    )  # a Runtime-annotated parameter of another name, or `context`: the run context

    def call(state: Any, context: RunContext) -> Any:
        return fn(state, **{name: context.inject(part) for name, part in parts})

    return call


def call_target(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The routine a call of ``fn`` runs: a callable object's ``__call__``, else ``fn``."""
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable objects
    if not inspect.isroutine(fn) and call is not None and inspect.isroutine(call):
        return call
    return fn


class Node:
    """A node's callable, with how to call it worked out once."""

    __slots__ = (
        "call",
        "fn",
        "index",
        "input",
        "instance",
        "is_async",
        "is_async_gen",
        "name",
        "payload",
        "plain",
        "reads",
        "subgraph",
        "takes_context",
    )

    def __init__(self, name: str, index: int, fn: Callable[..., Any]) -> None:
        target = call_target(fn)
        self.name = name
        self.index = index
        self.fn = fn
        self.call = engine_caller(fn)
        self.is_async = inspect.iscoroutinefunction(target)
        self.is_async_gen = inspect.isasyncgenfunction(target)
        self.takes_context = takes_context(fn)
        # Set on the instances a router's Send makes (graphnb.engine.send): the instance's
        # number among its node's, its input values and the payload's checked writes.
        self.instance: int | None = None
        self.input: dict[str, Any] | None = None
        self.payload: dict[str, Any] | None = None
        # A graph run as this node (graphnb.engine.subgraph.Subgraph), else None.
        self.subgraph: Any = fn if getattr(fn, "is_subgraph", False) else None
        # The node's private input schema (a StateSchema of it), else None: see reading().
        self.reads: Any = None
        # Whether the node reads a plain view of the state (one test per call decides).
        self.plain = self.subgraph is None

    def reading(self, schema: Any) -> None:
        """Give the node a private input schema: it reads only that schema's fields."""
        self.reads = schema
        self.plain = self.subgraph is None and schema is None

    def instance_of(self, number: int, values: dict[str, Any], payload: dict[str, Any]) -> Node:
        """A copy of this node that runs on ``values`` as the ``number``-th Send instance."""
        copy = Node.__new__(Node)
        for slot in Node.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.instance, copy.input, copy.payload = number, values, payload
        return copy

    def __repr__(self) -> str:
        if self.instance is not None:
            return f"Node({self.name!r}, instance={self.instance})"
        return f"Node({self.name!r})"


class Router:
    """A router: picks the next node(s) from the state after its source ran."""

    __slots__ = ("call", "fn", "is_async", "routes", "sends", "source", "takes_context")

    def __init__(
        self,
        source: str,
        fn: Callable[..., Any],
        routes: Mapping[str, str],
        sends: Collection[str] = (),
    ) -> None:
        self.source = source
        self.fn = fn
        self.call = engine_caller(fn)
        self.routes = dict(routes)
        self.sends = frozenset(sends)
        self.is_async = inspect.iscoroutinefunction(call_target(fn))
        self.takes_context = takes_context(fn)

    def targets(self, chosen: Any) -> tuple[list[Any], Any]:
        """Map a router's return value to targets; returns ``(targets, bad value)``.

        A target is a node name, or a ``Send`` (kept as it is) to a declared send target.
        """
        picks: Collection[Any] = (
            chosen if isinstance(chosen, (list, tuple, set, frozenset)) else [chosen]
        )
        targets = []
        for pick in picks:
            if isinstance(pick, str):
                target = self.routes.get(pick)
            elif getattr(pick, "node", None) in self.sends and hasattr(pick, "payload"):
                target = pick  # a Send: engine.send imports this module, so duck-typed
            else:
                target = None
            if target is None:
                return [], pick
            targets.append(target)
        return targets, None


def routes_from_annotation(fn: Callable[..., Any]) -> list[str] | None:
    """Targets declared by a router's ``Literal[...]`` return annotation, if it has one."""
    try:
        hints = typing.get_type_hints(call_target(fn))
    except Exception:  # unresolvable annotations: fall back to explicit routes
        return None
    annotation = hints.get("return")
    if annotation is None:
        return None
    found: list[str] = []
    _collect_literals(annotation, found)
    return found or None


def first_parameter_type(fn: Callable[..., Any]) -> Any:
    """The resolved annotation of ``fn``'s first parameter (the state it reads), if any."""
    target = call_target(fn)
    try:
        first = next(iter(inspect.signature(target).parameters.values()), None)
    except (TypeError, ValueError):
        return None
    if first is None or first.annotation is first.empty:
        return None
    holder = SimpleNamespace(__annotations__={first.name: first.annotation})
    try:
        hints = typing.get_type_hints(holder, globalns=getattr(target, "__globals__", {}))
    except Exception:  # an unresolvable annotation (a class local to a function)
        return None
    return hints.get(first.name)


def command_destinations(fn: Callable[..., Any]) -> list[str] | None:
    """Destinations declared by a node's ``-> Command[Literal["a", "b"]]`` annotation.

    As LangGraph reads them: the ``Literal`` names in the type argument of a ``Command``
    return annotation (graphnb's or LangGraph's: any generic class named ``Command``).
    Only the return annotation is resolved, so a parameter annotated with a class local
    to a function (unresolvable under ``from __future__ import annotations``) is no bar.
    """
    target = call_target(fn)
    raw = getattr(target, "__annotations__", None)
    if not isinstance(raw, Mapping) or "return" not in raw:
        return None
    holder = SimpleNamespace(__annotations__={"return": raw["return"]})
    try:
        hints = typing.get_type_hints(holder, globalns=getattr(target, "__globals__", {}))
    except Exception:  # an unresolvable annotation: nothing declared
        return None
    found: list[str] = []
    _collect_commands(hints.get("return"), found)
    return found or None


def _collect_commands(annotation: Any, found: list[str]) -> None:
    origin = get_origin(annotation)
    if origin is None:
        return
    if getattr(origin, "__name__", None) == "Command":
        for arg in get_args(annotation):
            _collect_literals(arg, found)
    else:  # Command[...] | None, Union[...]
        for arg in get_args(annotation):
            _collect_commands(arg, found)


def _collect_literals(annotation: Any, found: list[str]) -> None:
    origin = get_origin(annotation)
    if origin is Literal:
        found.extend(str(value) for value in get_args(annotation) if isinstance(value, str))
    elif origin is not None:
        for arg in get_args(annotation):
            _collect_literals(arg, found)
