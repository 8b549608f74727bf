"""The command line of an exported module: ``python module.py --input '{...}'``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["run_cli"]


def run_cli(graph: Any, argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run ``graph`` with options read from ``argv``, streaming progress; returns the exit code.

    Exported modules call this from their ``main()``. The options are those of
    ``graphnb run`` (``--input``, ``--input-file``, ``--thread``, ``--db``, ``--quiet``).
    """
    import argparse

    from ..console import add_run_options, run_loaded

    parser = argparse.ArgumentParser(prog=prog, description=f"Run the graph {graph_name(graph)!r}.")
    add_run_options(parser)
    args = parser.parse_args(argv)
    return run_loaded(graph, args)


def graph_name(graph: Any) -> str:
    """The name of a graph, compiled or not."""
    spec = getattr(graph, "spec", None)
    return str(getattr(spec, "name", "graph"))
