"""``graphnb draw FILE[:GRAPH] -o out.svg``: draw a graph as SVG, Mermaid or DOT."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..console import CommandError, ExitCode, reporting, shown
from .output import cannot_write, wrote
from .run import graph_command, load_target

__all__ = ["register"]

_FORMATS = {"svg": "to_svg", "mermaid": "to_mermaid", "mmd": "to_mermaid", "dot": "to_dot"}


def draw(args: argparse.Namespace) -> int:
    """Draw a graph as SVG, Mermaid or DOT.

    Draw the graph FILE defines. The output's suffix picks the format: .svg, .mmd (Mermaid)
    or .dot. Without -o the diagram goes to stdout.
    """
    return reporting(lambda: _draw(args))


def _draw(args: argparse.Namespace) -> int:
    from ..diagram import DiagramError, save
    from ..diagram import render as renderers

    _, graph = load_target(args.target)
    try:
        if args.output is None:
            render = getattr(renderers, _FORMATS[args.format or "mermaid"])
            # A terminal shows it: names' control characters must not drive it.
            sys.stdout.write(shown(render(graph), keep="\n\t"))
            return ExitCode.OK
        if args.format is not None:
            raise CommandError(
                "give either -o FILE (format from its suffix) or --format", ExitCode.USAGE
            )
        written = save(graph, args.output)
    except DiagramError as error:  # a bad format or path is a usage error
        raise CommandError(str(error), ExitCode.USAGE) from None
    except OSError as error:  # a missing folder, no permission, a directory
        raise CommandError(cannot_write(args.output, error), ExitCode.LOAD) from None
    return wrote(written)


def register(subparsers: Any) -> None:
    """Add ``draw`` to the command line."""
    command = graph_command(subparsers, "draw", draw)
    command.add_argument("-o", "--output", metavar="PATH", help="where to write the diagram")
    command.add_argument(
        "--format", choices=sorted(_FORMATS), help="format written to stdout (default: mermaid)"
    )
