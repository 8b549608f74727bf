"""``graphnb serve FILE[:GRAPH] ...``: serve graphs with the API ``langgraph-sdk`` speaks.

Each target is loaded as ``graphnb run`` loads it and becomes an assistant named by its
variable; the threads live in ``--db`` (SQLite or PostgreSQL), runs execute in this process.
See docs/serve.md.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..console import EXIT_USAGE, CommandError, compile_for, redacted, reporting
from .run import load_target

__all__ = ["register"]

DEFAULT_DB = "sqlite:///graphnb-serve.db"


def serve(args: argparse.Namespace) -> int:
    """Handle ``graphnb serve``."""
    return reporting(lambda: _serve(args), db=args.db)


def _serve(args: argparse.Namespace) -> int:
    try:
        from ..serve import TOKEN_ENV, InsecureBindError, check_bind
        from ..serve import serve as run_server
    except ImportError as error:
        raise CommandError(
            f"graphnb serve needs the serve extra ({error.name} is missing): "
            "pip install 'graphnb[serve]'",
            EXIT_USAGE,
        ) from None
    token = args.auth_token or os.environ.get(TOKEN_ENV) or None
    try:
        check_bind(args.host, token)  # before loading: a refused server runs no user code
    except InsecureBindError as error:
        raise CommandError(str(error), EXIT_USAGE) from None
    if not args.db.startswith(("sqlite:///", "postgresql://", "postgres://")):
        raise CommandError(
            f"--db takes sqlite:///FILE or postgresql://..., got {redacted(args.db)!r}",
            EXIT_USAGE,
        )
    graphs: dict[str, Any] = {}
    for target in args.targets:
        name, graph = load_target(target)
        if name in graphs:
            raise CommandError(f"two targets define a graph named {name!r}", EXIT_USAGE)
        graphs[name] = compile_for(graph, args.db)
    run_server(
        graphs,
        host=args.host,
        port=args.port,
        store=args.db,
        auth_token=token,
        body_limit=args.body_limit,
    )
    return 0


def register(subparsers: Any) -> None:
    """Add ``serve`` to the command line."""
    command = subparsers.add_parser(
        "serve",
        help="serve graphs over HTTP with the API langgraph-sdk speaks",
        description="Serve the graphs FILE defines (FILE:GRAPH picks one), one assistant "
        "each, named by its variable. Needs the serve extra: pip install 'graphnb[serve]'.",
    )
    command.add_argument(
        "targets", nargs="+", metavar="FILE[:GRAPH]", help="a .py file or .ipynb notebook"
    )
    command.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    command.add_argument("--port", type=int, default=2024, help="port to listen on (2024)")
    command.add_argument(
        "--db", default=DEFAULT_DB, help=f"where threads and runs live ({DEFAULT_DB})"
    )
    command.add_argument(
        "--auth-token",
        default=None,
        help="token every request must send (x-api-key); needed beyond loopback; "
        "also read from GRAPHNB_SERVE_TOKEN",
    )
    command.add_argument(
        "--body-limit", type=int, default=1 << 20, help="largest request body in bytes (1 MiB)"
    )
    command.set_defaults(handler=serve)
