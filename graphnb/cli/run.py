"""``graphnb run FILE[:GRAPH]``: run a graph from a file or notebook, streaming its progress.

How a run is read from the options and printed lives in :mod:`graphnb.console`, shared
with exported modules; the names the other commands use are re-exported here.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..console import (
    EXIT_FAILED,
    EXIT_LOAD,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    add_run_options,
    compile_for,
    database_errors,
    redacted,
    reporting,
    run_loaded,
    to_json,
)

__all__ = [
    "EXIT_FAILED",
    "EXIT_LOAD",
    "EXIT_OK",
    "EXIT_USAGE",
    "CommandError",
    "add_run_options",
    "compile_for",
    "database_errors",
    "load_target",
    "redacted",
    "register",
    "reporting",
    "run_loaded",
    "to_json",
]


def load_target(target: str) -> tuple[str, Any]:
    """Load ``FILE[:GRAPH]``, turning load failures into :class:`CommandError`."""
    from ..export import GraphLoadError, GraphNotFoundError, load_graph

    try:
        return load_graph(target)
    except FileNotFoundError as error:
        raise CommandError(f"no such file: {error.filename}", EXIT_LOAD) from None
    except GraphLoadError as error:
        raise CommandError(str(error), EXIT_LOAD) from None
    except GraphNotFoundError as error:
        raise CommandError(str(error), EXIT_USAGE) from None


def run(args: argparse.Namespace) -> int:
    """Handle ``graphnb run``."""
    return reporting(lambda: run_loaded(load_target(args.target)[1], args))


def register(subparsers: Any) -> None:
    """Add ``run`` to the command line."""
    command = subparsers.add_parser(
        "run",
        help="run a graph from a .py file or notebook, streaming its progress",
        description="Run the graph FILE defines (FILE:GRAPH picks one of several). "
        "Progress goes to stderr, the final state to stdout as JSON.",
    )
    command.add_argument("target", metavar="FILE[:GRAPH]", help="a .py file or .ipynb notebook")
    add_run_options(command)
    command.set_defaults(handler=run)
