"""Errors raised while drawing."""

from __future__ import annotations

from pathlib import Path

from ..errors import GraphnbError

__all__ = ["DiagramError", "NotDrawableError", "UnknownFormatError"]


class DiagramError(GraphnbError):
    """Base class of the errors :mod:`graphnb.diagram` raises."""


class NotDrawableError(DiagramError, TypeError):
    """The object is neither a ``GraphSpec`` nor has a ``.spec`` that is one.

    Attributes:
        obj: the object that was given.
    """

    def __init__(self, obj: object) -> None:
        self.obj = obj
        super().__init__(
            f"cannot draw a {type(obj).__name__}: expected a GraphSpec or an object with a "
            "`.spec` GraphSpec (StateGraph, CompiledGraph, a widget Builder, a Machine), "
            "or a networkx graph"
        )


class UnknownFormatError(DiagramError, ValueError):
    """A file name's suffix names no diagram format.

    Attributes:
        path: the path that was given.
        suffix: its suffix.
    """

    def __init__(self, path: Path, formats: tuple[str, ...]) -> None:
        self.path = path
        self.suffix = path.suffix
        super().__init__(
            f"cannot tell the diagram format of {str(path)!r} from its suffix "
            f"{path.suffix!r}; expected one of {', '.join(formats)}"
        )
