"""Importing nbformat without the grammar compile that costs seconds of CPU.

``import nbformat`` imports its validator, hence jsonschema, whose format checkers import
every optional checker package installed. One of them, ``rfc3987_syntax`` (the checker of
the ``iri`` and ``iri-reference`` formats), builds an Earley parser from a grammar file at
import time: about 1.5 s of CPU on a fast machine, over 80% of the import. Notebook
schemas use neither format, so nbformat is imported with that one package hidden, and
jsonschema leaves those two formats unchecked (as it does whenever the package is absent).
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["import_nbformat"]

_SLOW_CHECKER = "rfc3987_syntax"


def import_nbformat() -> ModuleType:
    """``nbformat``, imported without jsonschema's IRI format checker if not yet loaded."""
    loaded = sys.modules.get("nbformat")
    if loaded is not None:
        return loaded
    if "jsonschema" in sys.modules or _SLOW_CHECKER in sys.modules:
        import nbformat  # jsonschema's checkers are already set up: nothing to save

        return nbformat
    sys.modules[_SLOW_CHECKER] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import nbformat
    finally:
        del sys.modules[_SLOW_CHECKER]  # a later `import rfc3987_syntax` works as usual
    return nbformat
