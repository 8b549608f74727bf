"""What a callable's code refers to: names read directly or as ``module.name``."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["references"]


def references(fn: Any) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of each function or class ``fn``'s code reads from its globals.

    Reads ``interrupt`` (imported by name) and ``types.interrupt`` (through a module)
    alike; nested functions and comprehensions included. Nothing is called.
    """
    target = inspect.unwrap(fn)
    code = getattr(target, "__code__", None)
    scope = getattr(target, "__globals__", None)
    if code is None or not isinstance(scope, dict):
        return
    names = _names(code)
    seen: set[tuple[str, str]] = set()
    for name in names:
        value = scope.get(name)
        found = [value]
        if isinstance(value, types.ModuleType):
            found = [getattr(value, other, None) for other in names]
        for item in found:
            key = (getattr(item, "__module__", None), getattr(item, "__name__", None))
            if isinstance(key[0], str) and isinstance(key[1], str) and key not in seen:
                seen.add(key)  # type: ignore[arg-type]
                yield key  # type: ignore[misc]


def _names(code: types.CodeType) -> list[str]:
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_names(const))
    return list(dict.fromkeys(names))
