"""The things an exercise can ask of a graph, each answering with friendly points."""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import GraphRecursionError
from ..spec import END, START, GraphSpec
from .result import Point
from .subject import Subject, as_map, describe_error

__all__ = [
    "FinalState",
    "HasEdges",
    "HasField",
    "HasNodes",
    "HasPath",
    "Interrupts",
    "NoDeadEnds",
    "Requirement",
    "Streams",
]

_threads = itertools.count()


def _name(node: str) -> str:
    return {START: "START", END: "END"}.get(node, f"`{node}`")


def _names(nodes: Sequence[str]) -> str:
    return ", ".join(_name(node) for node in nodes) or "none"


class Requirement(Protocol):
    """One thing an exercise asks: described for the learner, checked on a subject."""

    @property
    def description(self) -> str:
        """What is asked, in a sentence."""
        ...

    def check(self, subject: Subject) -> list[Point]:
        """The points this requirement gives ``subject``; never raises."""
        ...


def _spec_or_point(description: str, subject: Subject) -> GraphSpec | Point:
    if subject.spec is None:
        return Point(description, False, f"{description}: {subject.why_not}.")
    return subject.spec


def _successors(spec: GraphSpec) -> dict[str, set[str]]:
    onward: dict[str, set[str]] = {}
    for edge in spec.edges:
        onward.setdefault(edge.source, set()).add(edge.target)
    return onward


def _reachable(spec: GraphSpec, start: str) -> set[str]:
    onward = _successors(spec)
    seen, todo = {start}, [start]
    while todo:
        for target in onward.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


@dataclass(frozen=True, slots=True)
class HasNodes:
    """The graph has nodes with these names."""

    names: tuple[str, ...]

    @property
    def description(self) -> str:  # noqa: D102
        return f"has the nodes {_names(self.names)}"

    def check(self, subject: Subject) -> list[Point]:  # noqa: D102
        spec = _spec_or_point(self.description, subject)
        if isinstance(spec, Point):
            return [spec]
        present = [node.id for node in spec.nodes]
        points = []
        for name in self.names:
            if name in present:
                points.append(Point(f"has a node `{name}`", True, nodes=(name,)))
            else:
                points.append(
                    Point(
                        f"has a node `{name}`",
                        False,
                        f"Add a node named `{name}` (the graph has {_names(present)}).",
                    )
                )
        return points


@dataclass(frozen=True, slots=True)
class HasEdges:
    """The graph has these edges (of any kind: direct, conditional or join)."""

    pairs: tuple[tuple[str, str], ...]

    @property
    def description(self) -> str:  # noqa: D102
        return "has the edges " + ", ".join(f"{_name(a)} → {_name(b)}" for a, b in self.pairs)

    def check(self, subject: Subject) -> list[Point]:  # noqa: D102
        spec = _spec_or_point(self.description, subject)
        if isinstance(spec, Point):
            return [spec]
        onward = _successors(spec)
        points = []
        for source, target in self.pairs:
            asked = f"has an edge {_name(source)} → {_name(target)}"
            pinned = tuple(n for n in (source, target) if n not in (START, END))
            if target in onward.get(source, ()):
                points.append(Point(asked, True, nodes=pinned))
                continue
            now = sorted(onward.get(source, ()))
            where = (
                f"{_name(source)} leads to {_names(now)} now"
                if now
                else f"nothing leaves {_name(source)} yet"
            )
            points.append(
                Point(
                    asked,
                    False,
                    f"Draw an edge from {_name(source)} to {_name(target)} ({where}).",
                    pinned,
                )
            )
        return points


@dataclass(frozen=True, slots=True)
class HasPath:
    """A run can go from START to END through these nodes, in this order."""

    through: tuple[str, ...]

    @property
    def description(self) -> str:  # noqa: D102
        return "has a path " + " → ".join(_name(n) for n in (START, *self.through, END))

    def check(self, subject: Subject) -> list[Point]:  # noqa: D102
        spec = _spec_or_point(self.description, subject)
        if isinstance(spec, Point):
            return [spec]
        stops = (START, *self.through, END)
        for here, there in itertools.pairwise(stops):
            if there not in _reachable(spec, here):
                pinned = tuple(n for n in (here, there) if n not in (START, END))
                return [
                    Point(
                        self.description,
                        False,
                        f"A run cannot get from {_name(here)} to {_name(there)}: "
                        f"add edges so the path {' → '.join(_name(n) for n in stops)} exists.",
                        pinned,
                    )
                ]
        return [Point(self.description, True)]


@dataclass(frozen=True, slots=True)
class NoDeadEnds:
    """Every node a run can reach has a way on to END."""

    @property
    def description(self) -> str:  # noqa: D102
        return "has no dead ends"

    def check(self, subject: Subject) -> list[Point]:  # noqa: D102
        spec = _spec_or_point(self.description, subject)
        if isinstance(spec, Point):
            return [spec]
        onward = _successors(spec)
        points = []
        for node in (node.id for node in spec.nodes):
            if not onward.get(node):
                points.append(
                    Point(
                        self.description,
                        False,
                        f"`{node}` is a dead end: nothing leaves it. Add an edge from "
                        f"`{node}` to the next node, or to END.",
                        (node,),
                    )
                )
            elif END not in (reachable := _reachable(spec, node)):
                # A way on that stops at a dead end is not a circle: name the dead ends.
                stuck = [n.id for n in spec.nodes if n.id in reachable and not onward.get(n.id)]
                why = (
                    "every way on stops at "
                    + ", ".join(f"`{n}`" for n in stuck)
                    + (", a dead end" if len(stuck) == 1 else ", dead ends")
                    if stuck
                    else "it goes round in circles"
                )
                points.append(
                    Point(
                        self.description,
                        False,
                        f"From `{node}` a run can never reach END: {why}. "
                        "Add a way out (an edge or a route to END).",
                        (node,),
                    )
                )
        return points or [Point(self.description, True)]


@dataclass(frozen=True, slots=True)
class HasField:
    """The state model has this field, with this type, reducer and streaming flag if given."""

    name: str
    type: str | None = None
    reducer: str | None = None
    streaming: bool | None = None

    @property
    def description(self) -> str:  # noqa: D102
        parts = [f"the state has a field `{self.name}`"]
        if self.type is not None:
            parts.append(f"of type `{self.type}`")
        if self.reducer is not None:
            parts.append(f"with the `{self.reducer}` reducer")
        if self.streaming:
            parts.append("that streams")
        return " ".join(parts)

    def check(self, subject: Subject) -> list[Point]:  # noqa: D102
        spec = _spec_or_point(self.description, subject)
        if isinstance(spec, Point):
            return [spec]
        fields = {f.name: f for f in spec.state.fields}
        found = fields.get(self.name)
        if found is None:
            if spec.state.kind == "dict":
                why = "the graph runs on a plain dict; give it a state model (a GraphState)"
            else:
                why = f"the state `{spec.state.binding}` has {_names(sorted(fields))}"
            return [
                Point(self.description, False, f"Add a field `{self.name}` to the state: {why}.")
            ]
        wrong = []
        if self.type is not None and found.type.replace(" ", "") != self.type.replace(" ", ""):
            wrong.append(f"its type is `{found.type}`, expected `{self.type}`")
        if self.reducer is not None and found.reducer != self.reducer:
            wrong.append(
                f"its reducer is `{found.reducer}`, expected `{self.reducer}` "
                f"(Annotated[..., StateField(reducer={self.reducer})])"
            )
        if self.streaming is not None and found.streaming != self.streaming:
            wrong.append(
                "it does not stream (StateField(streaming=True))"
                if self.streaming
                else "it streams, and should not"
            )
        if wrong:
            message = f"Field `{self.name}`: " + "; ".join(wrong) + "."
            return [Point(self.description, False, message)]
        return [Point(self.description, True)]


def _run_text(input: Any) -> str:
    return f"Run on {input!r}"


def _play(app: Any, input: Any) -> tuple[list[Any], BaseException | None]:
    """Run ``app`` on ``input`` in a fresh thread: its events, and the error that ended it."""
    events: list[Any] = []
    try:
        for event in app.stream(input, thread_id=f"teach-{next(_threads)}"):
            events.append(event)
    except Exception as error:
        return events, error
    return events, None


def _played(subject: Subject, input: Any, description: str) -> list[Any] | Point:
    """The events of the subject's graph run on ``input``.

    Or the failed point for ``description`` when the graph does not compile or its run
    raised.
    """
    app = subject.compiled()
    if app is None:
        return Point(description, False, f"{_run_text(input)}: {subject.why_not}.")
    events, error = _play(app, input)
    if error is not None:
        message, nodes = _failure(input, error, events, subject.spec)
        return Point(description, False, message + ".", nodes)
    return events


def _failure(
    input: Any, error: BaseException, events: Sequence[Any] = (), spec: GraphSpec | None = None
) -> tuple[str, tuple[str, ...]]:
    if isinstance(error, GraphRecursionError):
        return _endless(input, error, events, spec)
    node = getattr(error, "node", None)
    where = f" in node `{node}`" if isinstance(node, str) else ""
    cause = error.__cause__ if error.__cause__ is not None else error
    return f"{_run_text(input)}, the graph failed{where}: {describe_error(cause).rstrip('.')}", (
        (node,) if isinstance(node, str) else ()
    )


def _loop(steps: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The steps that repeat at the end of a run that hit its limit (shortest period)."""
    for period in range(1, len(steps) // 2 + 1):
        if steps[-period:] == steps[-2 * period : -period]:
            cycle = steps[-period:]
            # Start the loop where the run first entered it, as a learner reads the graph.
            for first in range(len(steps) - period + 1):
                if steps[first : first + period] == cycle:
                    return steps[first : first + period]
    return []


def _endless(
    input: Any, error: GraphRecursionError, events: Sequence[Any], spec: GraphSpec | None
) -> tuple[str, tuple[str, ...]]:
    """Say that the run went round a loop that never ended, which loop, and where it exits.

    The engine's own advice (raise the recursion limit) suits a graph meant to loop long;
    a learner's graph that hits the limit almost always has a way out that is never taken.
    """
    steps = [e.nodes for e in events if getattr(e, "kind", "") == "step_finished" and e.step >= 0]
    cycle = _loop(steps)
    nodes = tuple(dict.fromkeys(n for step in cycle for n in step))
    if not nodes:
        return (
            f"{_run_text(input)}, the run never ended: it took {error.limit} steps (the "
            "recursion limit) without reaching END. Give the loop a way out that is taken",
            (),
        )
    shown = " → ".join(" + ".join(f"`{n}`" for n in step) for step in (*cycle, cycle[0]))
    rounds = max(1, len(steps) // len(cycle))
    inside = set(nodes)
    exits = sorted(
        {
            edge.source
            for edge in (spec.edges if spec is not None else [])
            if edge.source in inside and edge.target not in inside and edge.kind == "conditional"
        }
    )
    if exits:
        where = (
            "the condition after "
            + ", ".join(f"`{n}`" for n in exits)
            + " never chose the way out: check when it should leave the loop"
            + " (and that the state it reads changes on each round)"
        )
    else:
        where = "no edge leads out of it: add a condition that leaves the loop, or an edge to END"
    return (
        f"{_run_text(input)}, the loop {shown} never ends: the run went round it {rounds} "
        f"times ({error.limit} steps, the recursion limit) without reaching END; {where}",
        tuple(exits) or nodes,
    )


_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _impostor(value: Any) -> type | None:
    """The first type in ``value`` that is not exactly a built-in one (None: all plain).

    A subclass of ``int`` or ``list`` can define ``__eq__`` to agree with anything, and
    Python asks the subclass first, so a check compares only exact built-in types.
    """
    kind = type(value)
    if kind in _SCALARS:
        return None
    if kind in (list, tuple, set, frozenset):
        items: Any = value
    elif kind is dict:
        items = [*value.keys(), *value.values()]
    else:
        return kind
    for item in items:
        found = _impostor(item)
        if found is not None:
            return found
    return None


def _plain_equal(actual: Any, expected: Any) -> bool:
    """Whether two values of built-in types are equal, a ``bool`` never standing for a number.

    Python says ``True == 1`` and ``[True] == [1]`` (a bool is an int), so a node that
    returned a comparison passed for a count; numbers of other kinds still compare by
    value (a state field typed ``float`` turns a given ``3`` into ``3.0``).
    """
    if (type(actual) is bool) != (type(expected) is bool):
        return False
    kind = type(expected)
    if kind in (list, tuple):
        return (
            type(actual) is kind
            and len(actual) == len(expected)
            and all(_plain_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if kind is dict:
        if type(actual) is not dict or len(actual) != len(expected):
            return False
        pairs = list(actual.items())
        return all(
            any(_plain_equal(k, key) and _plain_equal(v, value) for k, v in pairs)
            for key, value in expected.items()
        )
    if kind in (set, frozenset):
        return (
            type(actual) is kind
            and len(actual) == len(expected)
            and all(any(_plain_equal(a, e) for a in actual) for e in expected)
        )
    return bool(actual == expected)  # built-in scalars only: their own equality


def _differs(name: str, actual: Any, expected: Any) -> str | None:
    """Why ``actual`` is not ``expected`` (exact types, plain values), or None if it is."""
    if _impostor(expected) is None:
        odd = _impostor(actual)
        if odd is not None:
            return (
                f"`{name}` ended as a `{odd.__qualname__}` value, not plain data: return "
                f"built-in values (expected {expected!r})"
            )
        same = _plain_equal(actual, expected)
    else:
        # A teacher's object (a dataclass, an enum member): of exactly its type, so the
        # teacher's class answers ``==`` (a subclass on the right would be asked first).
        same = type(actual) is type(expected) and bool(expected == actual)
    if same:
        return None
    return f"`{name}` ended as {actual!r}, expected {expected!r}"


class _OnARun(ABC):
    """A requirement judged on the events of one run of the subject's graph on ``input``.

    A graph that does not compile, or a run that raises, fails it before :meth:`judge`.
    """

    __slots__ = ()
    input: Any

    @property
    @abstractmethod
    def description(self) -> str:
        """What is asked, in a sentence."""

    def check(self, subject: Subject) -> list[Point]:
        events = _played(subject, self.input, self.description)
        return [events if isinstance(events, Point) else self.judge(subject, events)]

    @abstractmethod
    def judge(self, subject: Subject, events: list[Any]) -> Point:
        """The point the run's ``events`` earn."""


@dataclass(frozen=True, slots=True)
class FinalState(_OnARun):
    """Run on ``input``, the final state has these field values (other fields are free).

    Values are compared as plain data of exactly the expected types: a value of a
    subclass (an ``int`` that says it equals everything) does not pass for the real one.
    """

    input: Any
    expected: Mapping[str, Any]

    @property
    def description(self) -> str:  # noqa: D102
        return f"run on {self.input!r}, ends with {dict(self.expected)!r}"

    def judge(self, subject: Subject, events: list[Any]) -> Point:  # noqa: D102
        ends = [e for e in events if getattr(e, "kind", "") == "step_finished"]
        state = as_map(ends[-1].state) if ends else {}
        # A field may be named by its name or its alias, whichever keys the state's map.
        fields = subject.spec.state.fields if subject.spec is not None else []
        other = {f.name: f.alias for f in fields if f.alias}
        other.update({alias: name for name, alias in other.items()})
        wrong = []
        for name, value in self.expected.items():
            key = name if name in state else other.get(name, name)
            if key not in state:
                wrong.append(f"there is no field `{name}`")
            elif (why := _differs(name, state[key], value)) is not None:
                wrong.append(why)
        if wrong:
            message = f"{_run_text(self.input)}, " + "; ".join(wrong) + "."
            return Point(self.description, False, message)
        return Point(self.description, True)


@dataclass(frozen=True, slots=True)
class Streams(_OnARun):
    """Run on ``input``, the field ``name`` arrives in pieces (chunks) as it is written."""

    name: str
    input: Any

    @property
    def description(self) -> str:  # noqa: D102
        return f"streams `{self.name}` when run on {self.input!r}"

    def judge(self, subject: Subject, events: list[Any]) -> Point:  # noqa: D102
        chunks = [e for e in events if getattr(e, "kind", "") == "chunk" and e.field == self.name]
        if chunks:
            return Point(self.description, True, nodes=(chunks[0].node,))
        return Point(
            self.description,
            False,
            f"{_run_text(self.input)}, no piece of `{self.name}` was streamed: mark the "
            "field StateField(streaming=True) and have a node yield its pieces.",
        )


@dataclass(frozen=True, slots=True)
class Interrupts(_OnARun):
    """Run on ``input`` in a thread, the run stops at ``node`` to wait for a human."""

    node: str
    input: Any

    @property
    def description(self) -> str:  # noqa: D102
        return f"stops at `{self.node}` for a human when run on {self.input!r}"

    def judge(self, subject: Subject, events: list[Any]) -> Point:  # noqa: D102
        stopped = [
            stop.node
            for event in events
            if getattr(event, "kind", "") == "interrupted"
            for stop in event.interrupts
        ]
        if self.node in stopped:
            return Point(self.description, True, nodes=(self.node,))
        where = f" (it stopped at {_names(stopped)})" if stopped else ""
        return Point(
            self.description,
            False,
            f"{_run_text(self.input)}, the run did not stop at `{self.node}`{where}: call "
            f"interrupt(...) inside `{self.node}`.",
            (self.node,),
        )
