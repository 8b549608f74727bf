"""An exercise: what a learner's graph must do, written by the teacher in one cell."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .noinput import no_keyboard
from .requirements import (
    FinalState,
    HasEdges,
    HasField,
    HasNodes,
    HasPath,
    Interrupts,
    NoDeadEnds,
    Requirement,
    Streams,
)
from .result import CheckResult, Point
from .subject import Subject, describe_error

__all__ = ["Exercise"]


class Exercise:
    """What a learner's graph must satisfy; each method adds a requirement and returns self.

    Example:
        >>> from graphnb import END, START, StateGraph
        >>> exercise = Exercise("Hello").has_nodes("greet").has_path("greet").no_dead_ends()
        >>> graph = StateGraph(dict).add_node("greet", lambda s: {"said": "hi"})
        >>> print(exercise.check(graph.add_edge(START, "greet")))
        Hello: 1 of 3 checks passed.
        - A run cannot get from `greet` to END: add edges so the path START → `greet` → END exists.
        - `greet` is a dead end: nothing leaves it. Add an edge from `greet` to the next node, or to END.
        >>> bool(exercise.check(graph.add_edge("greet", END)))
        True
    """  # noqa: E501

    def __init__(self, title: str = "Exercise") -> None:
        self.title = title
        self.requirements: list[Requirement] = []

    def __repr__(self) -> str:
        return f"<Exercise {self.title!r}: {len(self.requirements)} requirements>"

    def require(self, requirement: Requirement) -> Exercise:
        """Add any :class:`~graphnb.teach.requirements.Requirement`."""
        self.requirements.append(requirement)
        return self

    def has_nodes(self, *names: str) -> Exercise:
        """The graph has nodes with these names."""
        return self.require(HasNodes(names))

    def has_edges(self, *pairs: tuple[str, str]) -> Exercise:
        """The graph has these ``(source, target)`` edges (START and END included)."""
        return self.require(HasEdges(tuple(pairs)))

    def has_path(self, *through: str) -> Exercise:
        """A run can go from START to END through these nodes, in this order."""
        return self.require(HasPath(through))

    def no_dead_ends(self) -> Exercise:
        """Every node has a way on to END."""
        return self.require(NoDeadEnds())

    def has_field(
        self,
        name: str,
        *,
        type: str | None = None,
        reducer: str | None = None,
        streaming: bool | None = None,
    ) -> Exercise:
        """The state model has the field ``name`` (with this type text, reducer, streaming)."""
        return self.require(HasField(name, type, reducer, streaming))

    def final_state(self, input: Any, expected: Mapping[str, Any]) -> Exercise:
        """Run on ``input``, the final state has the ``expected`` field values."""
        return self.require(FinalState(input, dict(expected)))

    def streams(self, field: str, input: Any) -> Exercise:
        """Run on ``input``, the field arrives in streamed pieces."""
        return self.require(Streams(field, input))

    def interrupts(self, node: str, input: Any) -> Exercise:
        """Run on ``input`` in a thread, the run stops at ``node`` for a human."""
        return self.require(Interrupts(node, input))

    def check(self, graph: Any) -> CheckResult:
        """Check ``graph`` (a StateGraph, compiled graph, builder or spec); never raises.

        On the builder widget the missed points are also pinned on the canvas, next to
        its validation problems.
        """
        subject = Subject(graph)
        points: list[Point] = []
        met: list[bool] = []
        sizes: list[int] = []
        with no_keyboard():
            for requirement in self.requirements:
                found = self._check_one(requirement, subject)
                points.extend(found)
                met.append(all(point.passed for point in found))
                sizes.append(len(found))
        asked = tuple(_description(requirement) for requirement in self.requirements)
        result = CheckResult(self.title, tuple(points), tuple(met), tuple(sizes), asked)
        pin = getattr(graph, "pin_problems", None)
        if callable(pin):
            pin(result.problems())
        return result

    @staticmethod
    def _check_one(requirement: Requirement, subject: Subject) -> list[Point]:
        if subject.problem is not None:  # nothing to look at: one message says why
            message = f"Nothing to check yet: {subject.problem}."
            return [Point(requirement.description, False, message)]
        try:
            return list(requirement.check(subject))
        except Exception as error:  # a check must never hand the learner a traceback
            return [
                Point(
                    requirement.description,
                    False,
                    f"Could not check that it {requirement.description}: {describe_error(error)}.",
                )
            ]


def _description(requirement: Requirement) -> str:
    """What ``requirement`` asks; a teacher's own requirement that cannot say is named."""
    try:
        return str(requirement.description)
    except Exception:
        return type(requirement).__name__
