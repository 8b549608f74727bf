"""Where an object comes from: the user's own code, an installed library, nowhere importable.

The answers decide what an export copies as source and what it imports.
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from ..binding import is_loaded_file

__all__ = ["import_path", "importable", "is_user_code", "type_checking_imports"]

_MISSING: Any = object()
_NOTEBOOK_MODULES = ("__main__", "builtins")


def type_checking_imports(scope: Mapping[str, Any]) -> dict[str, tuple[str, str | None]]:
    """Names a module imports under ``if TYPE_CHECKING:``, as ``(module, attribute)``."""
    module = sys.modules.get(str(scope.get("__name__", "")))
    file = getattr(module, "__file__", None)
    if module is None or not file or not str(file).endswith(".py"):
        return {}
    package = getattr(module, "__package__", None) or ""
    return dict(_hidden_imports(str(file), package))


@cache
def _hidden_imports(file: str, package: str) -> tuple[tuple[str, tuple[str, str | None]], ...]:
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ()
    found: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
        if name != "TYPE_CHECKING":
            continue
        for statement in node.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    local = alias.asname or alias.name.partition(".")[0]
                    found[local] = (alias.name, "" if alias.asname else None)
            elif isinstance(statement, ast.ImportFrom):
                base = statement.module or ""
                if statement.level:
                    parts = package.split(".")[: len(package.split(".")) - statement.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                for alias in statement.names:
                    found[alias.asname or alias.name] = (base, alias.name)
    return tuple(sorted(found.items()))


@cache
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    return tuple(sorted(str(Path(root).resolve()) for root in roots))


def is_user_code(module_name: str | None) -> bool:
    """Whether objects of this module are written as source rather than imported."""
    if not module_name or module_name in _NOTEBOOK_MODULES or not importable(module_name):
        return module_name != "builtins"
    if module_name.partition(".")[0] == "graphnb":
        return False
    file = getattr(sys.modules.get(module_name), "__file__", None)
    if not file:
        return False
    resolved = str(Path(file).resolve())
    return not any(resolved.startswith(root) for root in _library_roots())


def importable(module_name: str) -> bool:
    """Whether ``import module_name`` works outside this process.

    Not for a notebook's module, nor for a ``.py`` file loaded under a made-up name (its
    own name, ``my-flow``, is no module name): their objects are written as source.
    """
    if module_name in _NOTEBOOK_MODULES or module_name.startswith("__"):
        return False
    if is_loaded_file(module_name):
        return False
    module = sys.modules.get(module_name)
    return module is not None and getattr(module, "__spec__", None) is not None


def import_path(obj: Any) -> tuple[str, str] | None:
    """``(module, qualname)`` to import ``obj`` from, preferring the shortest public module."""
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(module_name, str) or not importable(module_name):
        return None
    if isinstance(qualname, str) and "<" not in qualname:
        found: Any = sys.modules[module_name]
        for part in qualname.split("."):
            found = getattr(found, part, _MISSING)
        if found is obj:
            head = qualname.partition(".")[0]
            head_value = getattr(sys.modules[module_name], head)
            for parent in _parents(module_name):
                if getattr(sys.modules.get(parent), head, _MISSING) is head_value:
                    return parent, qualname
            return module_name, qualname
    names = sorted(name for name, value in vars(sys.modules[module_name]).items() if value is obj)
    public = [name for name in names if not name.startswith("_")]
    if not (public or names):
        return None
    name = (public or names)[0]
    for parent in _parents(module_name):
        if getattr(sys.modules.get(parent), name, _MISSING) is obj:
            return parent, name
    return module_name, name


def _parents(module_name: str) -> list[str]:
    """Shorter public modules that may re-export a module's names, shortest first.

    ``_operator`` is re-exported by ``operator``; ``graphnb.reducers`` by ``graphnb``.
    """
    parts = module_name.split(".")
    found = [".".join(parts[:end]) for end in range(1, len(parts))]
    if module_name.startswith("_") and importable(module_name.lstrip("_")):
        found.insert(0, module_name.lstrip("_"))
    return found
