"""Teaching: exercises that check a learner's graph, and a stepper that replays a run.

Example:
    >>> from graphnb import END, START, StateGraph
    >>> from graphnb.teach import Exercise
    >>> exercise = Exercise("Two nodes").has_nodes("a", "b").has_path("a", "b")
    >>> graph = StateGraph(dict).add_node("a", lambda s: {}).add_edge(START, "a")
    >>> print(exercise.check(graph.add_edge("a", END)))
    Two nodes: 0 of 2 checks passed.
    - Add a node named `b` (the graph has `a`).
    - A run cannot get from `a` to `b`: add edges so the path START → `a` → `b` → END exists.
"""

from __future__ import annotations

from .attempt import Broken, attempt
from .exercise import Exercise
from .result import CheckResult, Point
from .stepper import Frame, NodeWrite, Stepper

__all__ = [
    "Broken",
    "CheckResult",
    "Exercise",
    "Frame",
    "NodeWrite",
    "Point",
    "Stepper",
    "attempt",
]
