"""What a callable's code refers to: names read directly or as ``module.name``."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["code_names", "references", "wrapper_of"]


def references(fn: Any) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of each function or class ``fn``'s code reads from its globals.

    Reads ``interrupt`` (imported by name) and ``types.interrupt`` (through a module)
    alike; nested functions and comprehensions included, and so are the functions of
    ``fn``'s own module it calls and those its closure holds (a helper that builds the
    ``Send`` packets), followed in turn. Nothing is called.
    """
    seen: set[tuple[str, str]] = set()
    followed: set[int] = set()
    todo = [fn]
    while todo:
        target = inspect.unwrap(todo.pop())
        code = getattr(target, "__code__", None)
        scope = getattr(target, "__globals__", None)
        if id(target) in followed or code is None or not isinstance(scope, dict):
            continue
        followed.add(id(target))
        names = _names(code)
        for value in [*(scope.get(name) for name in names), *_closure(target)]:
            found = [value]
            if isinstance(value, types.ModuleType):
                found = [getattr(value, other, None) for other in names]
            for item in found:
                key = (getattr(item, "__module__", None), getattr(item, "__name__", None))
                if isinstance(key[0], str) and isinstance(key[1], str) and key not in seen:
                    seen.add(key)  # type: ignore[arg-type]
                    yield key  # type: ignore[misc]
            if isinstance(value, types.FunctionType) and value.__module__ == target.__module__:
                todo.append(value)


def _closure(fn: Any) -> list[Any]:
    """What the cells of ``fn``'s closure hold (an empty cell holds nothing yet)."""
    values = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:
            continue
    return values


def _names(code: types.CodeType) -> list[str]:
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_names(const))
    return list(dict.fromkeys(names))


def code_names(fn: Any) -> set[str]:
    """The global and attribute names ``fn``'s own code reads (nested code included)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return set(_names(code)) if code is not None else set()


def wrapper_of(wrapper: Any, fn: Any) -> None:
    """Mark ``wrapper`` (made with ``functools.wraps(fn)``) as unnameable by a binding.

    ``functools.wraps`` gives it ``fn``'s module and qualified name, through which a
    binding would name ``fn`` itself, and a graph rebuilt from its spec (the builder's)
    would call ``fn`` unwrapped; a ``<...>`` part makes the binding ``None``, so the
    builder keeps the wrapper itself. ``__wrapped__`` goes too: graphnb reads the
    wrapper's own signature, not ``fn``'s.
    """
    wrapper.__qualname__ = f"{fn.__qualname__}.<from langgraph>"
    wrapper.__dict__.pop("__wrapped__", None)
