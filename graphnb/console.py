"""Run a graph in a terminal: the options, the input, progress on stderr, the state as JSON.

Shared by ``graphnb run`` (:mod:`graphnb.cli.run`) and the ``main()`` of every exported
module (:func:`graphnb.export.run_cli`), so neither imports the other.

Progress (nodes starting and finishing, streamed chunks) goes to standard error; the final
state goes to standard output as JSON, so ``graphnb run flow.py --quiet | jq`` works.

Exit codes, shared by every graphnb command that loads a file:

- ``0``: done;
- ``1``: the graph failed while it ran (or could not be exported, or seeded);
- ``2``: bad usage: unknown option, input that is not JSON, unknown graph name;
- ``3``: the file is missing or could not be loaded (it raised, or is not Python).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from .checkpoint import BaseSaver

__all__ = [
    "EXIT_FAILED",
    "EXIT_LOAD",
    "EXIT_OK",
    "EXIT_USAGE",
    "CommandError",
    "add_run_options",
    "compile_for",
    "database_errors",
    "redacted",
    "reporting",
    "run_loaded",
    "to_json",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_LOAD = 3


class CommandError(Exception):
    """A command cannot go on; carries the message and the exit code."""

    def __init__(self, message: str, code: int) -> None:
        self.code = code
        super().__init__(message)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``graphnb run`` and exported modules' ``main()``."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--input",
        "-i",
        metavar="JSON",
        help="the input state as a JSON object; without it the run starts from the state's "
        "defaults",
    )
    source.add_argument("--input-file", metavar="PATH", help="read the input JSON from a file")
    parser.add_argument(
        "--thread",
        metavar="ID",
        help="run on this persisted thread, checkpointing each step; on an existing thread "
        "--input starts a new run and no input resumes an interrupted one",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="where threads are kept: sqlite:///runs.db, postgresql://..., mysql://..., "
        "memory:// (needs --thread)",
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="print only the final state, no progress"
    )


def _parse_input(args: argparse.Namespace) -> dict[str, Any] | None:
    """The input state given by ``--input`` or ``--input-file``."""
    text: str | None = args.input
    where = "--input"
    if args.input_file is not None:
        where = args.input_file
        try:
            with open(args.input_file, encoding="utf-8") as file:
                text = file.read()
        except OSError as error:
            raise CommandError(f"cannot read {where}: {error.strerror}", EXIT_LOAD) from None
        except UnicodeDecodeError as error:
            raise CommandError(
                f"{where} is not UTF-8 text: byte {error.start} is {error.object[error.start]:#x}",
                EXIT_USAGE,
            ) from None
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(
            f"{where} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}",
            EXIT_USAGE,
        ) from None
    if not isinstance(value, dict):
        raise CommandError(
            f"{where} must be a JSON object of state fields, got {type(value).__name__}",
            EXIT_USAGE,
        )
    return value


def reporting(action: Callable[[], int], *, db: str | None = None) -> int:
    """Run a command's action; a failure becomes one ``error:`` line and an exit code.

    A :class:`CommandError` carries its own code. Any other graphnb error (a failed run, a
    refused export or seed) and a database failure exit with 1; the database URL is shown
    with its password hidden.
    """
    from .errors import GraphnbError

    try:
        return action()
    except CommandError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.code
    except GraphnbError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except database_errors() as error:
        print(f"error: --db {redacted(db or '')}: {error}", file=sys.stderr)
        return EXIT_FAILED


def run_loaded(graph: Any, args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Run a graph (compiled or not) with the parsed run options; returns the exit code."""
    output = out or sys.stdout

    def run_it() -> int:
        values = _parse_input(args)
        if args.db is not None and args.thread is None:
            raise CommandError("--db needs --thread ID: the thread the run belongs to", EXIT_USAGE)
        db = args.db if args.thread is not None else None
        compiled = compile_for(graph, db)
        try:
            final = _stream(compiled, values, args, sys.stderr)
        finally:
            if db is not None:  # the saver compile_for opened for this run
                compiled.checkpointer.close()
        output.write(to_json(final) + "\n")
        output.flush()
        return EXIT_OK

    return reporting(run_it, db=args.db)


def _stream(
    compiled: Any, values: dict[str, Any] | None, args: argparse.Namespace, progress: TextIO
) -> Any:
    from .engine.events import (
        Chunk,
        Interrupted,
        NodeFailed,
        NodeFinished,
        NodeStarted,
        StepFinished,
    )

    options: dict[str, Any] = {}
    if args.thread is not None:
        if compiled.checkpointer is None:
            raise CommandError(
                f"--thread needs --db URL: {compiled.name!r} was compiled without a checkpointer",
                EXIT_USAGE,
            )
        options["thread_id"] = args.thread
    final: Any = None
    streaming = False
    steps = 0
    started = time.perf_counter()
    for event in compiled.stream(values, **options):
        if isinstance(event, StepFinished):
            final = event.state
            if event.step >= 0:  # step -1 is the input, not a step the graph took
                steps += 1
            continue
        if isinstance(event, Interrupted):
            stops = ", ".join(f"{i.when} {i.node}" for i in event.interrupts)
            progress.write(
                f"interrupted ({stops}); run again with --thread {args.thread} to resume\n"
            )
            final = compiled.get_state(args.thread).values
            continue
        if args.quiet:
            continue
        if isinstance(event, NodeStarted):
            progress.write(f"> {event.node} (step {event.step})\n")
        elif isinstance(event, Chunk):
            streaming = True
            progress.write(str(event.value))
        elif isinstance(event, NodeFinished):
            if streaming:
                progress.write("\n")
                streaming = False
            fields = ", ".join(event.update) or "nothing"
            progress.write(f"< {event.node} wrote {fields} in {event.duration * 1000:.1f} ms\n")
        elif isinstance(event, NodeFailed):
            progress.write(f"! {event.node} failed: {event.message}\n")
        progress.flush()
    if not args.quiet:
        elapsed = (time.perf_counter() - started) * 1000
        progress.write(f"done: {steps} step{'s' if steps != 1 else ''} in {elapsed:.1f} ms\n")
    return final


def compile_for(graph: Any, db: BaseSaver | str | None) -> Any:
    """``graph`` ready to run, keeping its threads in ``db`` (a saver or its URL) if given.

    A builder is compiled; a compiled graph is compiled again around the new checkpointer
    (its nodes, routers and options kept) when ``db`` is given.
    """
    from .checkpoint import CheckpointError
    from .engine.compiled import CompiledGraph

    try:
        if isinstance(graph, CompiledGraph):
            if db is None:
                return graph
            return CompiledGraph(
                graph.spec,
                graph.schema,
                {name: node.fn for name, node in graph.nodes.items()},
                graph.routers,
                recursion_limit=graph.recursion_limit,
                max_concurrency=graph.max_concurrency,
                checkpointer=db,
                interrupt_before=tuple(sorted(graph.interrupt_before)),
                interrupt_after=tuple(sorted(graph.interrupt_after)),
            )
        return graph.compile(checkpointer=db) if db is not None else graph.compile()
    except CheckpointError as error:
        where = redacted(db) if isinstance(db, str) else repr(db)
        raise CommandError(f"--db {where}: {error}", EXIT_USAGE) from None


def redacted(url: str) -> str:
    """``url`` with its password hidden, fit for a message.

    >>> redacted("postgresql://app:s3cret@db.example:5432/runs")
    'postgresql://app:***@db.example:5432/runs'
    """
    parts = urlsplit(url)
    if not parts.password:
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def database_errors() -> tuple[type[BaseException], ...]:
    """The base errors of the database drivers loaded so far (a server not running ...)."""
    import sqlite3

    found: list[type[BaseException]] = [sqlite3.Error]
    for module, name in (("psycopg", "Error"), ("pymysql", "MySQLError")):
        loaded = sys.modules.get(module)
        if loaded is not None:
            found.append(getattr(loaded, name))
    return tuple(found)


def to_json(state: Any) -> str:
    """A state (model or mapping) as indented JSON; values JSON cannot hold become reprs."""
    from pydantic import BaseModel
    from pydantic_core import to_jsonable_python

    if isinstance(state, BaseModel):
        data = state.model_dump(mode="json", fallback=repr)
    else:
        data = to_jsonable_python(state, fallback=repr)
    return json.dumps(data, indent=2, ensure_ascii=False)
