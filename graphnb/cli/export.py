"""``graphnb export FILE[:GRAPH] -o module.py``: turn a notebook's graph into a module."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..console import CommandError, ExitCode, reporting
from ..export.module import replace_text
from .output import cannot_write, same_file, wrote
from .run import graph_command, load_target

__all__ = ["register"]


def export(args: argparse.Namespace) -> int:
    """Export a graph as a standalone Python module or a notebook.

    Export the graph FILE defines (a notebook or .py file) as a standalone module that runs
    with `python module.py --input JSON`, or as a notebook when the output ends in .ipynb.
    Without -o the module goes to stdout.
    """
    return reporting(lambda: _export(args))


def _export(args: argparse.Namespace) -> int:
    from ..export import to_module
    from ..export.load import split_target

    output = Path(args.output) if args.output else None
    if output is not None and same_file(output, split_target(args.target)[0]):
        raise CommandError(
            f"cannot export to {args.output!r}: it is the file the graph is read from; "
            "name another output",
            ExitCode.USAGE,
        )
    if args.to == "langgraph":
        return _export_langgraph(args, output)
    if output is not None and output.suffix not in (".py", ".ipynb"):
        raise CommandError(
            f"cannot export to {str(output)!r}: use a .py or .ipynb file", ExitCode.USAGE
        )
    _, graph = load_target(args.target)
    if output is None:
        sys.stdout.write(to_module(graph))
        return ExitCode.OK
    try:
        if output.suffix == ".ipynb":
            from ..export import write_notebook

            write_notebook(graph, output)
        else:
            replace_text(output, to_module(graph, filename=output.name))
    except OSError as error:  # a missing folder, no permission, a directory
        raise CommandError(cannot_write(output, error), ExitCode.LOAD) from None
    return wrote(output)


def _export_langgraph(args: argparse.Namespace, output: Path | None) -> int:
    from ..interop import to_langgraph_module

    if output is not None and output.suffix != ".py":
        raise CommandError(
            f"cannot export to {str(output)!r}: a LangGraph export is a .py file", ExitCode.USAGE
        )
    _, graph = load_target(args.target)
    text = to_langgraph_module(graph)
    if output is None:
        sys.stdout.write(text)
        return ExitCode.OK
    try:
        replace_text(output, text)
    except OSError as error:
        raise CommandError(cannot_write(output, error), ExitCode.LOAD) from None
    return wrote(output)


def register(subparsers: Any) -> None:
    """Add ``export`` to the command line."""
    command = graph_command(subparsers, "export", export)
    command.add_argument("-o", "--output", metavar="PATH", help="the .py or .ipynb to write")
    command.add_argument(
        "--to",
        choices=("graphnb", "langgraph"),
        default="graphnb",
        help="the API the module builds the graph with: graphnb's (default) or LangGraph's "
        "(needs graphnb[langgraph])",
    )
