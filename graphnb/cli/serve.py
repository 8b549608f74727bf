"""``graphnb serve`` and ``graphnb worker``: serve graphs with the API ``langgraph-sdk`` speaks.

Each target is loaded as ``graphnb run`` loads it and becomes an assistant named by its
variable; the threads live in ``--db`` (SQLite or PostgreSQL). Runs execute in the serving
process, or, with ``--broker``, in any process that ``graphnb serve`` or ``graphnb worker``
started on the same database and broker. See docs/serve.md.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..console import CommandError, ExitCode, compile_for, redacted, reporting
from .run import graph_command, load_target

if TYPE_CHECKING:
    from ..serve.app import AppOptions

__all__ = ["register"]

DEFAULT_DB = "sqlite:///graphnb-serve.db"


def serve(args: argparse.Namespace) -> int:
    """Serve graphs over HTTP with the API langgraph-sdk speaks.

    Serve the graphs FILE defines (FILE:GRAPH picks one), one assistant each, named by its
    variable. Needs the serve extra: pip install 'graphnb[serve]'.
    """
    return reporting(lambda: _serve(args), db=args.db)


def worker(args: argparse.Namespace) -> int:
    """Execute the runs graphnb serve --broker queues.

    Execute the runs of the graphs FILE defines that any graphnb serve process on the same
    --db and --broker queues. Needs the serve extra.
    """
    return reporting(lambda: _worker(args), db=args.db)


def _needs_extra(command: str, error: ImportError) -> CommandError:
    return CommandError(
        f"graphnb {command} needs the serve extra ({error.name} is missing): "
        "pip install 'graphnb[serve]'",
        ExitCode.USAGE,
    )


def _check_broker(url: str) -> None:
    from ..serve.events import BrokerUnreachableError, RunEvents

    async def reach() -> None:
        events = RunEvents(url)
        try:
            await events.check()
        finally:
            await events.close()

    try:
        asyncio.run(reach())
    except BrokerUnreachableError as error:
        raise CommandError(str(error), ExitCode.FAILED) from None


def _check_places(args: argparse.Namespace) -> None:
    if not args.db.startswith(("sqlite:///", "postgresql://", "postgres://")):
        raise CommandError(
            f"--db takes sqlite:///FILE or postgresql://..., got {redacted(args.db)!r}",
            ExitCode.USAGE,
        )
    if args.broker is not None:
        if not args.broker.startswith(("redis://", "rediss://")):
            raise CommandError(
                f"--broker takes redis://HOST:PORT[/DB], got {redacted(args.broker)!r}",
                ExitCode.USAGE,
            )
        if not args.db.startswith(("postgresql://", "postgres://")):
            raise CommandError(
                "--broker shares the runs between processes through PostgreSQL: "
                f"--db must be postgresql://..., got {redacted(args.db)!r}",
                ExitCode.USAGE,
            )
    if args.jobs < 0:
        raise CommandError(f"--jobs must be 0 or more, got {args.jobs}", ExitCode.USAGE)
    if args.broker is not None:
        _check_broker(args.broker)  # before any user code runs, and before uvicorn starts


def _graphs(args: argparse.Namespace) -> dict[str, Any]:
    graphs: dict[str, Any] = {}
    for target in args.targets:
        name, graph = load_target(target)
        if name in graphs:
            raise CommandError(f"two targets define a graph named {name!r}", ExitCode.USAGE)
        graphs[name] = compile_for(graph, args.db)
    return graphs


def _serve(args: argparse.Namespace) -> int:
    try:
        from ..serve import TOKEN_ENV, InsecureBindError, check_bind
        from ..serve import serve as run_server
    except ImportError as error:
        raise _needs_extra("serve", error) from None
    token = args.auth_token or os.environ.get(TOKEN_ENV) or None
    if token is not None and args.auth is not None:
        raise CommandError(
            "give --auth-token (or GRAPHNB_SERVE_TOKEN) or --auth, not both", ExitCode.USAGE
        )
    if args.auth is None:  # a hook given is an auth setting: any address may be bound
        try:
            check_bind(args.host, token)  # before loading: a refused server runs no user code
        except InsecureBindError as error:
            raise CommandError(str(error), ExitCode.USAGE) from None
    _check_places(args)
    auth = None if args.auth is None else _load_auth(args.auth)
    options: AppOptions = {
        "store": args.db,
        "auth_token": token,
        "auth": auth,
        "body_limit": args.body_limit,
    }
    if args.broker is not None:
        options |= {"broker": args.broker, "jobs": args.jobs, "stalled_after": args.stalled_after}
    run_server(_graphs(args), host=args.host, port=args.port, **options)
    return ExitCode.OK


def _load_auth(spec: str) -> Any:
    """The auth hook ``--auth`` names: ``module:function`` or ``FILE.py:function``."""
    where, _, name = spec.rpartition(":")
    if not where or not name:
        raise CommandError(f"--auth takes module:function, got {spec!r}", ExitCode.USAGE)
    try:
        if where.endswith(".py"):
            loaded = importlib.util.spec_from_file_location(Path(where).stem, where)
            if loaded is None or loaded.loader is None or not Path(where).is_file():
                raise ImportError(f"no file {where}")
            module = importlib.util.module_from_spec(loaded)
            loaded.loader.exec_module(module)
        else:
            if "" not in sys.path:
                sys.path.insert(0, "")  # a module beside the command, as python -m finds it
            module = importlib.import_module(where)
    except ImportError as error:
        raise CommandError(
            f"--auth {spec}: cannot import {where}: {error}", ExitCode.USAGE
        ) from None
    hook = getattr(module, name, None)
    if not callable(hook):
        raise CommandError(f"--auth {spec}: {where} has no function {name!r}", ExitCode.USAGE)
    return hook


def _worker(args: argparse.Namespace) -> int:
    try:
        from ..serve.queue import work
    except ImportError as error:
        raise _needs_extra("worker", error) from None
    if args.jobs < 1:
        raise CommandError(f"--jobs must be 1 or more, got {args.jobs}", ExitCode.USAGE)
    _check_places(args)
    graphs = _graphs(args)
    print(f"graphnb worker: {len(graphs)} graph(s), {args.jobs} runs at once", flush=True)
    asyncio.run(
        work(
            graphs,
            db=args.db,
            broker=args.broker,
            jobs=args.jobs,
            stalled_after=args.stalled_after,
        )
    )
    return 0


def _add_queue_options(command: argparse.ArgumentParser, *, broker_required: bool) -> None:
    command.add_argument(
        "--broker",
        required=broker_required,
        default=None,
        help="redis://HOST:PORT[/DB]: runs go through a queue in --db (PostgreSQL) to any "
        "graphnb serve or graphnb worker process on the same database and broker",
    )
    command.add_argument(
        "--jobs",
        type=int,
        default=10,
        help="with --broker, runs this process executes at once (10; serve: 0 for an API "
        "process only)",
    )
    command.add_argument(
        "--stalled-after",
        type=float,
        default=30.0,
        help="with --broker, seconds without a worker's heartbeat after which its runs go "
        "to another worker (30)",
    )


def register(subparsers: Any) -> None:
    """Add ``serve`` to the command line."""
    command = graph_command(subparsers, "serve", serve, many=True)
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
        "--auth",
        default=None,
        metavar="MODULE:FUNCTION",
        help="your own auth check instead of a token: FUNCTION(headers) returns the user's "
        "identity or raises (401; PermissionError 403); users see only their own threads",
    )
    command.add_argument(
        "--body-limit", type=int, default=1 << 20, help="largest request body in bytes (1 MiB)"
    )
    _add_queue_options(command, broker_required=False)

    command = graph_command(subparsers, "worker", worker, many=True)
    command.add_argument("--db", required=True, help="postgresql://... (the servers' --db)")
    _add_queue_options(command, broker_required=True)
