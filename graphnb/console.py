r"""Run a graph in a terminal: the options, the input, progress on stderr, the state as JSON.

Shared by ``graphnb run`` (:mod:`graphnb.cli.run`) and the ``main()`` of every exported
module (:func:`graphnb.export.run_cli`), so neither imports the other.

Progress (nodes starting and finishing, streamed chunks) goes to standard error; the final
state goes to standard output as JSON, so ``graphnb run flow.py --quiet | jq`` works.

Thread ids, node names, state values and streamed text come from users, files and
databases. Printed raw, a newline in a thread id forges a line and an escape sequence
(``\x1b[2J``) drives the terminal: every human-readable line goes through :func:`shown`,
and JSON through :func:`json_text`, which escapes what ``json.dumps`` leaves raw.

Exit codes, shared by every graphnb command that loads a file, are :class:`ExitCode`'s.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import unquote

# graphnb's own top level has loaded these already: they cost nothing here.
from .engine.events import Chunk, Interrupted, NodeFailed, NodeFinished, NodeStarted, StepFinished
from .errors import GraphnbError

if TYPE_CHECKING:
    from .checkpoint import BaseSaver
    from .engine.compiled import CompiledGraph
    from .records import Interrupt

__all__ = [
    "CommandError",
    "ExitCode",
    "add_run_options",
    "compile_for",
    "database_errors",
    "json_text",
    "parse_json",
    "recompiled",
    "redacted",
    "reporting",
    "run_loaded",
    "shown",
    "to_json",
]


class ExitCode(IntEnum):
    """The exit codes every graphnb command that loads a file shares."""

    OK = 0
    """Done."""
    FAILED = 1
    """The graph failed while it ran (or could not be exported, or seeded)."""
    USAGE = 2
    """Bad usage: an unknown option, input that is not JSON, an unknown graph name."""
    LOAD = 3
    """The file is missing or could not be loaded (it raised, or is not Python)."""
    INTERRUPTED = 130
    """Ctrl-C, as a shell reports it (128 + SIGINT)."""
    BROKEN_PIPE = 141
    """The reader of the output went away (128 + SIGPIPE), as a shell reports it."""


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
    source.add_argument(
        "--resume",
        metavar="JSON",
        help="answer the interrupt() the thread stopped at with this JSON value and go on "
        "(needs --thread)",
    )
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


def _parse_input(args: argparse.Namespace) -> Any:
    """The input given by ``--input``, ``--input-file`` (a state) or ``--resume`` (a Command)."""
    if args.resume is not None:
        return _parse_answer(args)
    text: str | None = args.input
    where = "--input"
    if args.input_file is not None:
        where = args.input_file
        try:
            with open(args.input_file, encoding="utf-8") as file:
                text = file.read()
        except OSError as error:
            raise CommandError(f"cannot read {where}: {error.strerror}", ExitCode.LOAD) from None
        except UnicodeDecodeError as error:
            raise CommandError(
                f"{where} is not UTF-8 text: byte {error.start} is {error.object[error.start]:#x}",
                ExitCode.USAGE,
            ) from None
    if text is None:
        return None
    value = parse_json(text, where)
    if not isinstance(value, dict):
        raise CommandError(
            f"{where} must be a JSON object of state fields, got {type(value).__name__}",
            ExitCode.USAGE,
        )
    return value


def _parse_answer(args: argparse.Namespace) -> Any:
    from .human import Command

    if args.thread is None:
        raise CommandError(
            "--resume needs --thread ID: the thread whose interrupt it answers", ExitCode.USAGE
        )
    hint = " (a text answer is quoted: --resume '\"yes\"')"
    return Command(resume=parse_json(args.resume, "--resume", hint=hint))


MAX_JSON_DEPTH = 200
"""How deep JSON input may nest: deeper states cannot be printed as JSON (pydantic stops
near 255 levels) nor stored, so such input is refused when it is read."""


def parse_json(text: str, where: str, *, line: bool = False, hint: str = "") -> Any:
    """``text`` read as JSON; what cannot be read is a :class:`CommandError` (exit 2).

    Besides invalid JSON, this refuses JSON nested deeper than :data:`MAX_JSON_DEPTH`
    (deeper still, Python's reader raises ``RecursionError``) and integers of more digits
    than ``sys.get_int_max_str_digits()`` (a ``ValueError``): bad input too, said in one
    line naming ``where`` the text came from.

    Args:
        text: the JSON text.
        where: what it is, as the message names it (``--input``, ``in.jsonl line 3``).
        line: ``text`` is one line: a position is its column only.
        hint: added to the message of invalid JSON.
    """
    too_deep = f"is JSON nested more than {MAX_JSON_DEPTH} levels deep, which graphnb does not take"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        at = f"column {error.colno}" if line else f"line {error.lineno} column {error.colno}"
        reason = f"is not valid JSON: {error.msg} at {at}{hint}"
    except RecursionError:
        reason = too_deep
    except ValueError:  # Python's limit on the digits of an integer read from text
        limit = sys.get_int_max_str_digits()
        reason = f"holds a number of more than {limit} digits, too long to read"
    else:
        if _depth(value) <= MAX_JSON_DEPTH:
            return value
        reason = too_deep
    raise CommandError(f"{where} {reason}", ExitCode.USAGE)


def _depth(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (a scalar is 0), without recursing."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        )
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def reporting(action: Callable[[], int], *, db: str | None = None) -> int:
    """Run a command's action; a failure becomes one ``error:`` line and an exit code.

    A :class:`CommandError` carries its own code. Any other graphnb error (a failed run, a
    refused export or seed) and a database failure exit with 1. The ``db`` URL's password
    is never printed: the URL is shown redacted, and a message that repeats the password
    (a driver's, a saver's) has it replaced by ``***``. Control characters in messages are
    escaped.
    """

    def report(message: str, code: int) -> int:
        for secret in _secrets(db or ""):
            message = message.replace(secret, "***")
        print(f"error: {shown(message, keep=chr(10))}", file=sys.stderr)
        return code

    try:
        return action()
    except CommandError as error:
        return report(str(error), error.code)
    except GraphnbError as error:
        return report(str(error), ExitCode.FAILED)
    except database_errors() as error:
        # Drivers write several lines (a hint on the next one); the error is one line.
        return report(f"--db {redacted(db or '')}: {' '.join(str(error).split())}", ExitCode.FAILED)


def run_loaded(graph: Any, args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Run a graph (compiled or not) with the parsed run options; returns the exit code."""
    output = out or sys.stdout

    def run_it() -> int:
        values = _parse_input(args)
        if args.db is not None and args.thread is None:
            raise CommandError(
                "--db needs --thread ID: the thread the run belongs to", ExitCode.USAGE
            )
        db = args.db if args.thread is not None else None
        compiled = compile_for(graph, db)
        try:
            final = _stream(compiled, values, args, sys.stderr)
        finally:
            if db is not None:  # the saver compile_for opened for this run
                compiled.checkpointer.close()
        output.write(to_json(final) + "\n")
        output.flush()
        return ExitCode.OK

    return reporting(run_it, db=args.db)


def _stream(
    compiled: Any, values: dict[str, Any] | None, args: argparse.Namespace, progress: TextIO
) -> Any:
    options: dict[str, Any] = {}
    if args.thread is not None:
        if compiled.checkpointer is None:
            raise CommandError(
                f"--thread needs --db URL: {compiled.name!r} was compiled without a checkpointer",
                ExitCode.USAGE,
            )
        options["thread_id"] = args.thread
        if values is None and compiled.checkpointer.load(args.thread) is None:
            values = {}  # a new thread starts from the defaults: input None only resumes
    final: Any = None
    streaming = False
    steps: set[int] = set()
    started = time.perf_counter()
    for event in compiled.stream(values, **options):
        if isinstance(event, StepFinished):
            final = event.state
            continue
        if isinstance(event, Interrupted):
            progress.write(_interrupted(event.interrupts, args.thread, args.db))
            final = compiled.get_state(args.thread).values
            continue
        if isinstance(event, NodeStarted):
            # Numbered as the thread numbers its checkpoints: a run on a thread that has
            # history (or a seed) goes on from its step, as `graphnb threads` shows.
            steps.add(event.step)
        if args.quiet:
            continue
        if isinstance(event, NodeStarted):
            progress.write(f"> {shown(event.node)} (step {event.step})\n")
        elif isinstance(event, Chunk):
            streaming = True
            progress.write(shown(event.value, keep="\n\t"))
        elif isinstance(event, NodeFinished):
            if streaming:
                progress.write("\n")
                streaming = False
            fields = ", ".join(map(shown, event.update)) or "nothing"
            took = f"{event.duration * 1000:.1f} ms"
            progress.write(f"< {shown(event.node)} wrote {fields} in {took}\n")
        elif isinstance(event, NodeFailed):
            progress.write(f"! {shown(event.node)} failed: {shown(event.message, keep=chr(10))}\n")
        progress.flush()
    if not args.quiet:
        elapsed = (time.perf_counter() - started) * 1000
        count = len(steps)
        progress.write(f"done: {count} step{'s' if count != 1 else ''} in {elapsed:.1f} ms\n")
    return final


def _interrupted(interrupts: Sequence[Interrupt], thread_id: str, db: str | None = None) -> str:
    """What the run stopped at, and the command line that goes on from there.

    The command names the thread and, when the run was given one, the ``--db`` it is
    kept in (password hidden): ``--thread`` alone is refused on a graph compiled without
    a checkpointer, and a new process would not find the thread anywhere else.
    """
    stops = ", ".join(f"{i.when} {shown(i.node)}" for i in interrupts)
    again = f"run again with --thread {shown(shlex.quote(thread_id))}"
    if db is not None:
        again += f" --db {shown(shlex.quote(redacted(db)))}"
    asked = [i for i in interrupts if i.when == "during"]
    if not asked:
        return f"interrupted ({stops}); {again} to resume\n"
    if len(asked) == 1:
        question = f"  {shown(asked[0].node)} asks: {shown(json_text(asked[0].value))}\n"
        return f"interrupted ({stops})\n{question}{again} --resume JSON to answer\n"
    questions = "".join(
        f"  {shown(i.node)} asks ({shown(i.id)}): {shown(json_text(i.value))}\n" for i in asked
    )
    answer = "--resume '{\"<id>\": JSON, ...}' to answer each"
    return f"interrupted ({stops})\n{questions}{again} {answer}\n"


def compile_for(graph: Any, db: BaseSaver | str | None) -> Any:
    """``graph`` ready to run, keeping its threads in ``db`` (a saver or its URL) if given.

    A builder is compiled; a compiled graph is compiled again around the new checkpointer
    (its nodes, routers and options kept) when ``db`` is given.

    Raises:
        CommandError: ``db`` is not a URL a saver can be made of (exit code 2); the
            message shows it with its password hidden.
    """
    from .checkpoint import CheckpointError
    from .engine.compiled import CompiledGraph

    saver = open_saver(db) if isinstance(db, str) else db
    try:
        if isinstance(graph, CompiledGraph):
            return graph if saver is None else recompiled(graph, saver)
        return graph.compile(checkpointer=saver) if saver is not None else graph.compile()
    except CheckpointError as error:
        where = redacted(db) if isinstance(db, str) else repr(db)
        raise CommandError(f"--db {where}: {error}", ExitCode.USAGE) from None


def recompiled(graph: CompiledGraph[Any], checkpointer: BaseSaver | str) -> CompiledGraph[Any]:
    """``graph`` compiled again around ``checkpointer``: all else it was compiled with kept.

    That is its nodes (with their private input schemas), routers and options, and what
    ``StateGraph.compile`` sets after building it: the context, input and output schemas
    and the long-term store.
    """
    from .engine.compiled import CompiledGraph

    again = CompiledGraph(
        graph.spec,
        graph.schema,
        {name: node.fn for name, node in graph.nodes.items()},
        graph.routers,
        recursion_limit=graph.recursion_limit,
        max_concurrency=graph.max_concurrency,
        checkpointer=checkpointer,
        interrupt_before=tuple(sorted(graph.interrupt_before)),
        interrupt_after=tuple(sorted(graph.interrupt_after)),
    )
    for name, node in graph.nodes.items():
        again.nodes[name].reading(node.reads)
    again.context_schema, again.store = graph.context_schema, graph.store
    again.input_fields, again.output_fields = graph.input_fields, graph.output_fields
    return again


def open_saver(url: str) -> BaseSaver:
    """The saver ``url`` names; a URL no saver takes is a :class:`CommandError` (exit 2).

    Drivers and :mod:`urllib` raise ``ValueError`` on a malformed URL (a port that is not
    a number, a bracket left open); the message never shows the password.
    """
    from .checkpoint import SaverSetupError, saver_from_url

    try:
        _check_postgres_url(url)
        return saver_from_url(url)
    except (SaverSetupError, ValueError) as error:
        reason = str(error)
        for secret in _secrets(url):
            reason = reason.replace(secret, "***")
        raise CommandError(
            f"--db {redacted(url)} is not a usable URL: {reason}", ExitCode.USAGE
        ) from None


def _check_postgres_url(url: str) -> None:
    """Parse a PostgreSQL URL as libpq will, so a malformed one is a usage error now.

    The saver connects on first use; without this a bracket left open or a bad port
    would surface mid-command as a driver error.

    Raises:
        ValueError: the URL does not parse, or a port is not a number from 1 to 65535.
    """
    scheme, _, rest = url.partition("://")
    if scheme.split("+")[0].lower() not in ("postgresql", "postgres"):
        return
    try:
        from psycopg import Error
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:  # the saver says how to install the driver
        return
    try:
        info = conninfo_to_dict(f"postgresql://{rest}")
    except Error as error:
        raise ValueError(" ".join(str(error).split())) from None
    for port in str(info.get("port") or "").split(","):
        if port and not (port.isdigit() and 0 < int(port) < 65536):
            raise ValueError(f"port {port!r} is not a number from 1 to 65535")


def redacted(url: str) -> str:
    """``url`` with its password hidden, fit for a message; it never raises.

    The password is what lies between the first ``:`` after the scheme and the last
    ``@``, so a malformed URL (a bad port, an ``@`` in the password) is hidden too.

    >>> redacted("postgresql://app:s3cret@db.example:5432/runs")
    'postgresql://app:***@db.example:5432/runs'
    >>> redacted("mysql://root:p@ss/w:rd@[::1:port/db")
    'mysql://root:***@[::1:port/db'
    >>> redacted("sqlite:///runs.db")
    'sqlite:///runs.db'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    userinfo, at, host = rest.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    if not at or not colon:
        return url
    return f"{scheme}{sep}{user}:***@{host}"


def _secrets(url: str) -> list[str]:
    """The password of ``url`` as written and as drivers decode it, longest first."""
    rest = url.partition("://")[2] or url
    userinfo, at, _ = rest.rpartition("@")
    password = userinfo.partition(":")[2] if at else ""
    found = {password, unquote(password)} - {""}
    return sorted(found, key=len, reverse=True)


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
    return json_text(data, indent=2)


def shown(text: object, *, keep: str = "") -> str:
    r"""``text`` with every character that is not printable written as its escape.

    Args:
        text: what to print; not a string is turned into one with ``str``.
        keep: control characters to let through (``"\n\t"`` for streamed text, whose
            lines are meant to show).

    >>> print(shown("alice\n\x1b[31mbob\u202e"))
    alice\n\x1b[31mbob\u202e
    >>> print(shown("line one\nline two", keep="\n"))
    line one
    line two
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() or c in keep else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by its repr."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def json_text(value: Any, *, indent: int | None = None) -> str:
    r"""``value`` as JSON, non-ASCII text kept, characters that are not printable escaped.

    ``json.dumps`` escapes only the C0 controls; DEL, the C1 controls (``\x9b`` starts
    an escape sequence on some terminals), bidi overrides and lone surrogates (which
    UTF-8 output cannot even encode) are written as ``\uXXXX`` too. Outside strings JSON
    holds only printable characters and newlines, so the result is the same JSON value.

    NaN and the infinities, which JSON cannot hold (``json.dumps`` would write the
    invalid ``NaN``), are written as the strings ``"nan"``, ``"inf"`` and ``"-inf"``.

    >>> print(json_text({"id": "caf\u00e9\x9b\ud800"}))
    {"id": "café\u009b\ud800"}
    >>> print(json_text({"score": float("nan"), "range": [1.5, float("-inf")]}))
    {"score": "nan", "range": [1.5, "-inf"]}
    """
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere: the rare case pays the second pass
        text = json.dumps(_finite(value), ensure_ascii=False, indent=indent)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text)
