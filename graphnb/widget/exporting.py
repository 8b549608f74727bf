"""Where the Export button may write: never over a file unasked, never over a module's name.

The builder writes ``<graph name>.py`` next to the notebook. A graph named ``nodes``
once replaced the user's ``nodes.py``, the very module its nodes came from, and a graph
named ``json`` shadowed the standard library for every script run from that folder. So
an export:

- refuses a file name that is the name of an importable module: one of the standard
  library, one installed or importable from here, or one the exported code itself imports
  (the graph's binding modules); the error names the module;
- refuses to replace an existing file unless asked (``overwrite=True``; the Overwrite
  button of the widget's confirmation).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path

from ..errors import GraphnbError

__all__ = [
    "ExportExistsError",
    "ExportNameError",
    "binding_modules",
    "check_target",
    "imported_modules",
]


class ExportNameError(GraphnbError, ValueError):
    """The export's file name is the name of a module it would shadow.

    Attributes:
        path: the file the export would write.
        module: the module of that name.
    """

    def __init__(self, message: str, *, path: Path, module: str) -> None:
        self.path = path
        self.module = module
        super().__init__(message)


class ExportExistsError(GraphnbError, FileExistsError):
    """The export's file exists; replacing it needs ``overwrite=True``.

    Attributes:
        path: the existing file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(
            f"{path} exists; export(overwrite=True) (or Overwrite in the builder) replaces it"
        )


def imported_modules(source: str) -> set[str]:
    """The top-level names of the modules ``source`` imports (absolute imports only)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.partition(".")[0])
    return found


def check_target(target: Path, *, imports: Iterable[str], overwrite: bool) -> None:
    """Refuse an export to ``target`` that would shadow a module or replace a file unasked.

    Args:
        target: the file the export would write.
        imports: the modules the graph's code comes from: those the exported code
            imports (see :func:`imported_modules`) and those its bindings name.
        overwrite: whether replacing an existing file was asked for.

    Raises:
        ExportNameError: ``target``'s name is that of a module (named in the message).
        ExportExistsError: ``target`` exists and ``overwrite`` is false.
    """
    name = target.stem
    if target.suffix == ".py" and name.isidentifier():
        why = _shadowed(name, target, set(imports))
        if why is not None:
            raise ExportNameError(
                f"cannot export to {target.name}: {why}; a file of that name would be "
                f"imported in its place. Rename the graph, or export(path=...) to another name",
                path=target,
                module=name,
            )
    if target.exists() and not overwrite:
        raise ExportExistsError(target)


def _shadowed(name: str, target: Path, imports: set[str]) -> str | None:
    """Why a module called ``name`` must not be written at ``target``; None when it may."""
    if name in sys.stdlib_module_names:
        return f"`{name}` is a module of Python's standard library"
    if name in imports:
        return f"the graph's nodes come from module `{name}`"
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # in sys.modules without a spec (`__main__` ...)
        return f"`{name}` is an imported module"
    if spec is None:
        return None
    if spec.origin is not None and spec.has_location:
        if Path(spec.origin).resolve() == target.resolve() and _is_export(target):
            return None  # an earlier export to this very file
        return f"`{name}` is an importable module ({spec.origin})"
    folders = [Path(p).resolve() for p in (spec.submodule_search_locations or [])]
    if folders and all(folder.parent == target.resolve().parent for folder in folders):
        return None  # a plain folder next to the file, not a module anyone imports
    return f"`{name}` is an importable module"


EXPORT_MARK = "exported by graphnb"
"""What the first line of an exported module says (``to_module``'s docstring)."""


def _is_export(path: Path) -> bool:
    """Whether ``path`` is a module an earlier export wrote (its first line says so)."""
    try:
        with path.open(encoding="utf-8") as file:
            return EXPORT_MARK in file.readline()
    except (OSError, UnicodeDecodeError):
        return False


def binding_modules(bindings: Iterable[str | None]) -> set[str]:
    """The top-level modules that ``module:qualname`` bindings name."""
    found = set()
    for binding in bindings:
        if binding and ":" in binding:
            found.add(binding.partition(":")[0].partition(".")[0])
    return found
