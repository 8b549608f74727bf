"""Names a package loads on first use (PEP 562), so that importing the package stays cheap."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, modules: Mapping[str, str], listed: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``modules`` load on first use.

    ``modules`` maps each lazy name to the module that defines it; a name read once is kept
    in the package, so later reads do not come here again. ``__dir__`` lists the names not
    loaded yet, too (``listed``, the package's ``__all__``), for tab completion.
    """

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *listed})

    return __getattr__, __dir__
