"""The ``graphnb`` command line.

Each subcommand lives in its own module of this package with a ``register(subparsers)``
function that adds its parser with :func:`subcommand` (or ``graph_command`` of
:mod:`graphnb.cli.run`, for a command whose first argument is a graph to load) and then its
options. The parser's ``handler`` is a function of the parsed arguments returning the exit
code, and its docstring is the command's help, as in Click and Typer: the first paragraph
is the line ``graphnb --help`` lists, the rest the description ``graphnb NAME --help``
shows. Heavy imports stay inside the handlers so ``graphnb --help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import platform
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..console import ExitCode

__all__ = ["main"]

COMMANDS = ("demo", "run", "batch", "draw", "export", "threads", "lab", "serve")
"""Subcommand modules, in the order ``--help`` lists them."""


def parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser, and each subcommand's parser by name."""
    from ..version import __version__

    top = argparse.ArgumentParser(
        prog="graphnb", description="Build, run, draw and export typed-state graphs."
    )
    top.add_argument(
        "-V",
        "--version",
        action="version",
        version=f"graphnb {__version__} (Python {platform.python_version()})",
    )
    subparsers = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return top, dict(subparsers.choices)


def subcommand(
    subparsers: Any,
    name: str,
    handler: Callable[[argparse.Namespace], int],
    **parser_options: Any,
) -> argparse.ArgumentParser:
    """Add the subcommand ``name``, which ``handler`` runs and its docstring describes.

    The docstring's first paragraph is the help ``graphnb --help`` lists, written as argparse
    writes help: its first letter lowercased and its final period dropped. The rest is the
    description ``graphnb NAME --help`` shows, rewrapped unless ``parser_options`` give
    another ``formatter_class``; they go to ``add_parser`` as they are.
    """
    summary, _, description = (inspect.getdoc(handler) or "").partition("\n\n")
    summary = " ".join(summary.split()).removesuffix(".")
    command: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary[:1].lower() + summary[1:],
        description=description or None,
        **parser_options,
    )
    command.set_defaults(handler=handler)
    return command


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    top, commands = _parsers()
    args, unknown = top.parse_known_args(words)
    if unknown:
        # argparse reports a subcommand's unknown option with the top-level usage, which
        # does not list it: `run --inptu` is told with run's usage, which shows --input.
        first = words.index(unknown[0]) if unknown[0] in words else len(words)
        after = words.index(args.command) < first
        (commands[args.command] if after else top).error(
            f"unrecognized arguments: {' '.join(unknown)}"
        )
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`graphnb threads ... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.BROKEN_PIPE
