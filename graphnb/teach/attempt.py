"""Build a learner's object without a traceback: a failure becomes a value a check reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .subject import describe_error

__all__ = ["Broken", "attempt"]


@dataclass(frozen=True, slots=True)
class Broken:
    """What :func:`attempt` returns when building failed; checks report ``why``.

    Attributes:
        why: the error, as one line.
    """

    why: str

    def __repr__(self) -> str:
        return f"Not built yet: {self.why}"

    def __getattr__(self, name: str) -> Any:
        # Building on a broken object (``attempt(lambda: broken.to_graph(...))``) names
        # the first failure rather than a missing attribute.
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"it was not built ({self.why})")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


def attempt(build: Callable[[], Any]) -> Any:
    """``build()``, or a :class:`Broken` naming why it failed, for scaffolds of exercises.

    A state machine checks itself when it is defined; wrapped in ``attempt``, a half-done
    one still lets the notebook run on, and its exercise says what is wrong.

    Example:
        >>> attempt(lambda: int("seven"))
        Not built yet: ValueError: invalid literal for int() with base 10: 'seven'
        >>> attempt(lambda: int("7"))
        7
    """
    try:
        return build()
    except Exception as error:
        return Broken(describe_error(error))
