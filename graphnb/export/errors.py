"""Errors of exporting graphs and of loading them from files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import GraphnbError, listed

__all__ = ["ExportError", "ExportProblem", "GraphLoadError", "GraphNotFoundError"]


@dataclass(frozen=True, slots=True)
class ExportProblem:
    """One object an export cannot carry over.

    Attributes:
        name: the object as the graph uses it (a node, a router, a name a callable uses).
        reason: why it cannot be written as source nor imported by path.
    """

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name}: {self.reason}"


class ExportError(GraphnbError, ValueError):
    """A graph cannot be exported; ``problems`` lists every object at fault and why."""

    def __init__(self, problems: Sequence[ExportProblem], *, graph: str = "graph") -> None:
        self.problems = list(problems)
        self.graph = graph
        super().__init__(listed(f"cannot export {graph!r}:", self.problems))


class GraphLoadError(GraphnbError, RuntimeError):
    """A file holding graphs could not be loaded (it raised, or is not Python or a notebook).

    Attributes:
        path: the file.
        cell: for a notebook, the 1-based index of the code cell that failed.
    """

    def __init__(self, message: str, *, path: str, cell: int | None = None) -> None:
        self.path = path
        self.cell = cell
        super().__init__(message)


class GraphNotFoundError(GraphnbError, LookupError):
    """A file defines no graph of the requested name (or several, and none was named).

    Attributes:
        path: the file.
        name: the graph asked for, ``None`` when none was named.
        available: the names of the graphs the file defines.
    """

    def __init__(
        self, message: str, *, path: str, name: str | None, available: Sequence[str]
    ) -> None:
        self.path = path
        self.name = name
        self.available = list(available)
        super().__init__(message)
