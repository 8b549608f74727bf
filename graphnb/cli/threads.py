"""``graphnb threads --db URL``: list persisted threads, show one's history, seed one."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .run import EXIT_USAGE

__all__ = ["register"]


def threads(args: argparse.Namespace) -> int:
    """Handle ``graphnb threads``."""
    print("error: persistence (graphnb.checkpoint) is not available", file=sys.stderr)
    return EXIT_USAGE


def register(subparsers: Any) -> None:
    """Add ``threads`` to the command line."""
    command = subparsers.add_parser("threads", help="list, show and seed persisted threads")
    command.add_argument("--db", metavar="URL", required=True, help="checkpoint database URL")
    command.set_defaults(handler=threads)
