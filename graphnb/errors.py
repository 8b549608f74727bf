"""Exceptions raised by graphnb.

One base class, :class:`GraphnbError`. Problems found while a graph is defined derive from
:class:`GraphSetupError` (also a :class:`TypeError`); problems met while it runs derive from
:class:`GraphRuntimeError` (also a :class:`RuntimeError`). Every error carries its context
as attributes (``.node``, ``.field``, ``.step`` ...), not only in its message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "BindingError",
    "ConflictingUpdateError",
    "GraphRecursionError",
    "GraphRuntimeError",
    "GraphSetupError",
    "GraphValidationError",
    "GraphnbError",
    "InvalidUpdateError",
    "NodeError",
    "NodeTimeout",
    "RouteError",
]


class GraphnbError(Exception):
    """Base class of every error graphnb raises on purpose."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take their context as keyword-only arguments, which pickle's default
        # (calling the class with ``args``) cannot pass: rebuild from the message and the
        # attributes instead, so an error raised on a batch's worker arrives as itself.
        return (_unpickle_error, (type(self), self.args, dict(self.__dict__)))


def _unpickle_error(
    kind: type[GraphnbError], args: tuple[Any, ...], attributes: dict[str, Any]
) -> GraphnbError:
    error = kind.__new__(kind)
    Exception.__init__(error, *args)
    error.__dict__.update(attributes)
    return error


def listed(headline: str, problems: Sequence[object]) -> str:
    """``headline``, then each of ``problems`` on a line of its own, as a bulleted list."""
    return "\n".join([headline, *(f"  - {problem}" for problem in problems)])


class GraphSetupError(GraphnbError, TypeError):
    """A graph, a state model or a binding is defined wrongly."""


class GraphValidationError(GraphSetupError):
    """A graph failed validation; ``problems`` lists every problem found, one sentence each."""

    def __init__(self, problems: Sequence[str], *, graph: str = "graph") -> None:
        self.problems = list(problems)
        self.graph = graph
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(listed(f"{graph!r} has {count} {noun}:", self.problems))


class BindingError(GraphSetupError):
    """A binding (``module:qualname`` or a notebook name) cannot be resolved."""

    def __init__(self, message: str, *, binding: str) -> None:
        self.binding = binding
        super().__init__(message)


class GraphRuntimeError(GraphnbError, RuntimeError):
    """Something went wrong while a graph ran."""


class NodeError(GraphRuntimeError):
    """A node raised; the original exception is chained as ``__cause__``."""

    def __init__(self, message: str, *, node: str, step: int) -> None:
        self.node = node
        self.step = step
        super().__init__(message)


class InvalidUpdateError(NodeError, ValueError):
    """A node wrote a value its state does not accept; the write was not applied."""

    def __init__(
        self, message: str, *, node: str, step: int, field: str | None, value: Any = None
    ) -> None:
        self.field = field
        self.value = value
        super().__init__(message, node=node, step=step)


class ConflictingUpdateError(GraphRuntimeError, ValueError):
    """Several nodes of one step wrote the same field, whose reducer keeps only one value."""

    def __init__(self, message: str, *, field: str, nodes: Sequence[str], step: int) -> None:
        self.field = field
        self.nodes = tuple(nodes)
        self.step = step
        super().__init__(message)


class NodeTimeout(NodeError, TimeoutError):
    """A node ran past its ``timeout``; ``limit`` is that timeout in seconds."""

    def __init__(self, message: str, *, node: str, step: int, limit: float) -> None:
        self.limit = limit
        super().__init__(message, node=node, step=step)


class RouteError(NodeError):
    """A router returned a route its conditional edges do not declare."""

    def __init__(self, message: str, *, node: str, step: int, route: object) -> None:
        self.route = route
        super().__init__(message, node=node, step=step)


class GraphRecursionError(GraphRuntimeError, RecursionError):
    """A run took more super-steps than its recursion limit allows."""

    def __init__(self, message: str, *, limit: int) -> None:
        self.limit = limit
        super().__init__(message)
