"""Export graphs as standalone Python modules and notebooks, and load graphs from files.

Example:
    >>> from graphnb.cli.demo import build
    >>> from graphnb.export import to_module
    >>> "def build_graph()" in to_module(build(), ruff=False)
    True
"""

from __future__ import annotations

from .errors import ExportError, ExportProblem, GraphLoadError, GraphNotFoundError
from .load import load_graph, load_graphs, load_module
from .module import to_module, write_module
from .notebook import to_notebook, write_notebook
from .script import run_cli

__all__ = [
    "ExportError",
    "ExportProblem",
    "GraphLoadError",
    "GraphNotFoundError",
    "load_graph",
    "load_graphs",
    "load_module",
    "run_cli",
    "to_module",
    "to_notebook",
    "write_module",
    "write_notebook",
]
