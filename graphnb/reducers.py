"""Merge strategies: how a node's write to a field combines with the field's current value.

A reducer is called as ``reducer(current, update)`` and returns the new value. The built-in
reducers also know how to go the other way (``diff``): given the value a node was handed and
the value it left behind in a returned state instance, they derive the update the node meant,
so a mutated state merges exactly like a partial dict.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["Reducer", "add", "append", "as_reducer", "merge", "replace"]


class _Unchanged:
    """Marker returned by :meth:`Reducer.diff` when a field was left as it was."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Final = _Unchanged()


class Reducer:
    """A named merge strategy, optionally able to derive an update from a before/after pair.

    Args:
        merge: ``merge(current, update) -> new value``.
        name: shown in errors, diagrams and the spec; defaults to the function's name.
        diff: ``diff(before, after) -> update`` (or raises ``ValueError`` when no update can
            produce ``after``); without it a field changed in a returned state instance is an
            error, because the update cannot be recovered.
        exclusive: only one write per super-step makes sense (replace); a second write in
            the same step is a conflict instead of being merged.
        typed_updates: an update has the field's own type (or is one item of a list field),
            so it is validated before merging; otherwise the merged value is validated.
    """

    __slots__ = ("_diff", "_merge", "exclusive", "name", "typed_updates")

    def __init__(
        self,
        merge: Callable[[Any, Any], Any],
        *,
        name: str | None = None,
        diff: Callable[[Any, Any], Any] | None = None,
        exclusive: bool = False,
        typed_updates: bool = False,
    ) -> None:
        self._merge = merge
        self.typed_updates = typed_updates
        self._diff = diff
        self.name: str = name or str(getattr(merge, "__name__", type(merge).__name__))
        self.exclusive = exclusive

    def __call__(self, current: Any, update: Any) -> Any:
        """Merge ``update`` into ``current`` and return the new value."""
        return self._merge(current, update)

    def diff(self, before: Any, after: Any) -> Any:
        """Return the update that turns ``before`` into ``after``, or ``UNCHANGED``."""
        if after is before or after == before:
            return UNCHANGED
        if self._diff is None:
            raise ValueError(
                f"the reducer {self.name!r} cannot derive an update from a changed value; "
                "return a partial dict for this field instead"
            )
        return self._diff(before, after)

    def __repr__(self) -> str:
        return f"Reducer({self.name!r})"


def _replace(current: Any, update: Any) -> Any:
    return update


def _replace_diff(before: Any, after: Any) -> Any:
    return after


def _append(current: Any, update: Any) -> list[Any]:
    items = list(update) if isinstance(update, (list, tuple)) else [update]
    return [*(current or ()), *items]


def _sequence_tail(before: Any, after: Any) -> Any:
    before_len = len(before)
    if len(after) < before_len or after[:before_len] != before:
        raise ValueError(
            "items were removed or changed; an append-only field can only grow at its end"
        )
    return after[before_len:]


def _add(current: Any, update: Any) -> Any:
    if current is None:
        return update
    return current + update


def _add_diff(before: Any, after: Any) -> Any:
    if isinstance(after, (list, tuple, str)):
        return _sequence_tail(before, after)
    return after - before


def _merge(current: Any, update: Any) -> dict[Any, Any]:
    if not isinstance(update, Mapping):
        raise TypeError(f"expected a mapping to merge, got {type(update).__name__}")
    return {**(current or {}), **update}


def _merge_diff(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> dict[Any, Any]:
    removed = [key for key in before if key not in after]
    if removed:
        raise ValueError(f"keys {removed!r} were removed; a merged dict can only gain keys")
    return {key: value for key, value in after.items() if key not in before or before[key] != value}


replace: Final = Reducer(
    _replace, name="replace", diff=_replace_diff, exclusive=True, typed_updates=True
)
"""Keep the last value written (the default). Two writes in one super-step conflict."""

append: Final = Reducer(_append, name="append", diff=_sequence_tail, typed_updates=True)
"""Extend a list: a list or tuple update adds its items, any other value adds itself."""

add: Final = Reducer(_add, name="add", diff=_add_diff, typed_updates=True)
"""``current + update``: sums numbers, concatenates strings, lists and tuples."""

merge: Final = Reducer(_merge, name="merge", diff=_merge_diff, typed_updates=True)
"""Shallow dict merge: keys of the update win."""


def as_reducer(value: object) -> Reducer | None:
    """Return ``value`` as a :class:`Reducer` if it is one or a plain two-argument callable."""
    if isinstance(value, Reducer):
        return value
    if value is operator.add:
        # LangGraph's `Annotated[list, operator.add]`: the built-in `add` does the same and
        # validates each write alone instead of re-validating the whole merged value.
        return add
    if callable(value) and not isinstance(value, type) and _takes_two_arguments(value):
        return Reducer(value)
    return None


def _takes_two_arguments(fn: Callable[..., Any]) -> bool:
    import inspect

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # some builtins (operator.add) have no signature
        return True
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    has_varargs = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    return len(positional) == 2 or (has_varargs and len(positional) <= 2)
