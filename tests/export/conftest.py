from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _forget_loaded_files() -> Iterator[None]:
    """Undo what loading test files does to the process: sys.path entries and modules."""
    path = list(sys.path)
    before = set(sys.modules)
    yield
    sys.path[:] = path
    temporary = tempfile.gettempdir()
    for name in set(sys.modules) - before:
        file = str(getattr(sys.modules[name], "__file__", "") or "")
        if file.startswith((temporary, "<notebook")):
            del sys.modules[name]
