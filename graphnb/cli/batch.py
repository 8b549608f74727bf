"""``graphnb batch FILE[:GRAPH] --input inputs.jsonl``: run a graph over many inputs.

Each line of the input file is one input state as a JSON object (blank lines are
skipped). Results are written as JSON lines, one per input in input order::

    {"line": 1, "thread_id": "batch-1", "state": {...}}
    {"line": 2, "thread_id": "batch-2", "error": {"type": "NodeError", "message": "..."}}

``--executor`` picks where the inputs run: ``local`` (a thread pool of ``--workers``
threads, the default), ``dask://HOST:PORT`` (a Dask scheduler), ``ray://HOST:PORT`` (a
Ray cluster's client server) or ``ray://local`` (a local Ray of ``--workers`` CPUs).
Workers other than local threads import the file's node functions by module name: the
file's folder must be importable there (a local Ray gets it on its ``PYTHONPATH``).

With ``--db URL`` every input runs on its own thread, ``PREFIX-LINE`` (``--thread-prefix``,
``batch`` by default), checkpointed after every step; running the same command again
resumes only the inputs whose threads did not finish.

Each line is written as soon as its input and every one before it finished, so a long
batch's results reach the output as it goes. Interrupted (Ctrl-C), it writes what finished
(in the order it finished after the first gap: each line names its input line) and exits
with 130. Exit codes are otherwise those of :mod:`graphnb.console`; a batch in which an
input failed still writes every line and exits with 1.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..console import (
    CommandError,
    ExitCode,
    compile_for,
    json_text,
    parse_json,
    reporting,
    shown,
    to_json,
)
from .output import cannot_write, same_file
from .run import graph_command, load_target

__all__ = ["read_inputs", "register"]

SCHEMES = ("local", "dask://HOST:PORT", "ray://HOST:PORT", "ray://local")


def read_inputs(path: str) -> list[tuple[int, dict[str, Any]]]:
    """The inputs of a JSON-lines file, each with its line number (blank lines skipped).

    Raises:
        CommandError: the file cannot be read (exit 3), or a line is not a JSON object
            (exit 2; the message names the line).
    """
    try:
        # JSON lines end at "\n" only: str.splitlines() also splits at U+2028 and the like,
        # which JSON strings may hold unescaped
        with open(path, encoding="utf-8", newline="") as file:
            lines = [line.removesuffix("\r") for line in file.read().split("\n")]
    except OSError as error:
        raise CommandError(f"cannot read {shown(path)}: {error.strerror}", ExitCode.LOAD) from None
    except UnicodeDecodeError as error:
        raise CommandError(
            f"{shown(path)} is not UTF-8 text: byte {error.start} is "
            f"{error.object[error.start]:#x}",
            ExitCode.USAGE,
        ) from None
    inputs: list[tuple[int, dict[str, Any]]] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        value = parse_json(text, f"{shown(path)} line {number}", line=True)
        if not isinstance(value, dict):
            raise CommandError(
                f"{shown(path)} line {number} must be a JSON object of state fields, got "
                f"{type(value).__name__}",
                ExitCode.USAGE,
            )
        inputs.append((number, value))
    return inputs


def _check_executor(value: str) -> tuple[str, str]:
    """``(scheme, address)`` of ``--executor``.

    >>> _check_executor("dask://127.0.0.1:8786")
    ('dask', '127.0.0.1:8786')
    >>> _check_executor("spark://x")
    Traceback (most recent call last):
    ...
    graphnb.console.CommandError: --executor 'spark://x': unknown scheme 'spark'; use local, dask://HOST:PORT, ray://HOST:PORT or ray://local
    """  # noqa: E501
    if value == "local":
        return "local", ""
    scheme, sep, address = value.partition("://")
    expected = f"use {', '.join(SCHEMES[:-1])} or {SCHEMES[-1]}"
    if not sep:
        raise CommandError(
            f"--executor {value!r} is not local nor a URL; {expected}", ExitCode.USAGE
        )
    if scheme not in ("dask", "ray"):
        raise CommandError(
            f"--executor {value!r}: unknown scheme {scheme!r}; {expected}", ExitCode.USAGE
        )
    if not address:
        raise CommandError(f"--executor {value!r} names no address; {expected}", ExitCode.USAGE)
    if scheme == "ray" and address == "local":
        return scheme, address
    host, colon, port = address.rpartition(":")
    if not (colon and host and "/" not in host and port.isdigit() and 0 < int(port) < 65536):
        raise CommandError(
            f"--executor {value!r}: {address!r} is not HOST:PORT (a port from 1 to 65535); "
            f"{expected}",
            ExitCode.USAGE,
        )
    return scheme, address


@contextmanager
def _executor(scheme: str, address: str, workers: int, folder: Path) -> Iterator[Executor | None]:
    """The executor ``--executor`` names, closed (or left) when the batch is done."""
    if scheme == "local":
        yield None
    elif scheme == "dask":
        try:
            import distributed
        except ImportError:
            raise CommandError(
                'dask:// needs Dask: pip install "graphnb[dask]"', ExitCode.USAGE
            ) from None
        connect: Any = distributed.Client
        try:
            client = connect(f"tcp://{address}", timeout=10)
        except OSError as error:
            raise CommandError(
                f"cannot reach the Dask scheduler at {address}: {error}", ExitCode.FAILED
            ) from None
        try:
            yield client.get_executor()
        finally:
            client.close()
    else:
        try:
            from ..ray_executor import RayExecutor

            path = os.pathsep.join(p for p in (str(folder), *sys.path) if p)
            env = {"env_vars": {"PYTHONPATH": path}}
            if address == "local":
                executor = RayExecutor(num_cpus=workers, runtime_env=env)
            else:
                executor = RayExecutor(address=f"ray://{address}")
        except ImportError as error:
            raise CommandError(str(error), ExitCode.USAGE) from None
        except (ConnectionError, ValueError) as error:
            # Ray's client raises ValueError without ray[client], ConnectionError when the
            # cluster does not answer
            raise CommandError(
                f"cannot reach the Ray cluster at {address}: {error}", ExitCode.FAILED
            ) from None
        try:
            yield executor
        finally:
            executor.shutdown()


def _result_line(number: int, thread_id: str | None, outcome: Any) -> str:
    document: dict[str, Any] = {"line": number, "thread_id": thread_id}
    if isinstance(outcome, BaseException):
        document["error"] = {"type": type(outcome).__name__, "message": str(outcome)}
    else:
        document["state"] = json.loads(to_json(outcome))
    return json_text(document)


def _batch(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise CommandError(f"--workers must be at least 1, got {args.workers}", ExitCode.USAGE)
    scheme, address = _check_executor(args.executor)
    inputs = read_inputs(args.input)
    file = Path(args.target if Path(args.target).exists() else args.target.rpartition(":")[0])
    _check_output(args.output, args.input, file)
    _, graph = load_target(args.target)
    compiled = compile_for(graph, args.db)
    if scheme != "local":
        from ..engine.batch import recipe_of

        recipe_of(compiled)  # a node workers cannot import is refused before connecting
    ids = [f"{args.thread_prefix}-{number}" for number, _ in inputs] if args.db else None
    progress: Any = False
    if not args.quiet:
        from ..progress import TextProgress

        progress = TextProgress(sys.stderr)
    results = _Results(args.output)
    failed: list[tuple[int, BaseException]] = []
    try:
        with _executor(scheme, address, args.workers, file.resolve().parent) as executor:
            for index, outcome in compiled.batch_as_completed(
                [values for _, values in inputs],
                executor=executor,
                max_concurrency=args.workers,
                thread_ids=ids,
                return_exceptions=True,
                progress=progress,
            ):
                number = inputs[index][0]
                results.add(index, _result_line(number, ids[index] if ids else None, outcome))
                if isinstance(outcome, Exception):
                    failed.append((number, outcome))
        results.finish()
    except KeyboardInterrupt:
        results.finish()  # what finished, out of order: each line names its input line
        resume = "; run the command again to resume the rest" if args.db else ""
        sys.stderr.write(
            f"interrupted: {results.written} of {len(inputs)} results written{resume}\n"
        )
        return ExitCode.INTERRUPTED
    finally:
        if args.db is not None:
            compiled.checkpointer.close()
        results.close()
    if failed:
        number, error = min(failed, key=lambda item: item[0])
        sys.stderr.write(
            f"error: {len(failed)} of {len(inputs)} inputs failed; first, line {number}: "
            f"{shown(error, keep=chr(10))}\n"
        )
        return ExitCode.FAILED
    return ExitCode.OK


class _Results:
    """The result lines, each written (and flushed) once every earlier input's is.

    So a batch's output is in input order, and a long batch's finished results are on
    disk as it goes: nothing is lost to an interruption. The file is opened at the first
    line; an unwritable one was refused before any input ran (:func:`_check_output`).
    """

    def __init__(self, output: str | None) -> None:
        self._output = None if output == "-" else output
        self._file: Any = None
        self._held: dict[int, str] = {}
        self._next = 0
        self.written = 0

    def add(self, index: int, line: str) -> None:
        """Take input ``index``'s line; write it and the held ones it was holding back."""
        self._held[index] = line
        while self._next in self._held:
            self._emit(self._held.pop(self._next))
            self._next += 1

    def finish(self) -> None:
        """Write the lines still held (after an interruption: past the first gap)."""
        for index in sorted(self._held):
            self._emit(self._held.pop(index))
        if self._file is None:
            self._open()  # an empty batch still leaves its (empty) output

    def close(self) -> None:
        if self._file is not None and self._file is not sys.stdout:
            self._file.close()

    def _emit(self, line: str) -> None:
        if self._file is None:
            self._open()
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as error:
            raise CommandError(cannot_write(self._output or "-", error), ExitCode.LOAD) from None
        self.written += 1

    def _open(self) -> None:
        if self._output is None:
            self._file = sys.stdout
            return
        try:
            self._file = open(self._output, "w", encoding="utf-8")  # noqa: SIM115 - see close
        except OSError as error:
            raise CommandError(cannot_write(self._output, error), ExitCode.LOAD) from None


def _check_output(output: str | None, inputs: str, file: Path) -> None:
    """Refuse, before any input runs, an output the results could not be written to.

    Found unwritable only at the first result line, a batch would run its first inputs
    for nothing. An output that is the input file or the graph's own file is refused too.
    """
    if output is None or output == "-":
        return
    for source, what in ((inputs, "the input file"), (file, "the file the graph is read from")):
        if same_file(output, source):
            raise CommandError(f"cannot write {output!r}: it is {what}", ExitCode.USAGE)
    if os.path.isdir(output):
        raise CommandError(f"cannot write {output!r}: it is a folder", ExitCode.LOAD)
    folder = os.path.dirname(output) or "."
    if not os.path.isdir(folder):
        missing = FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
        raise CommandError(cannot_write(output, missing), ExitCode.LOAD)
    if not os.access(output if os.path.exists(output) else folder, os.W_OK):
        denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        raise CommandError(cannot_write(output, denied), ExitCode.LOAD)


def batch(args: argparse.Namespace) -> int:
    """Run a graph over many inputs (JSON lines), locally, on Dask or on Ray.

    Run the graph FILE defines over every input of a JSON-lines file and write one JSON line
    per input (its state or its error), in input order. Progress goes to stderr.
    """
    return reporting(lambda: _batch(args), db=args.db)


def register(subparsers: Any) -> None:
    """Add ``batch`` to the command line."""
    command = graph_command(subparsers, "batch", batch)
    command.add_argument(
        "--input",
        "-i",
        required=True,
        metavar="PATH",
        help="the inputs, one JSON object a line",
    )
    command.add_argument(
        "--db",
        metavar="URL",
        help="keep each input's thread here (postgresql://..., mysql://..., sqlite:///...); "
        "a rerun resumes the unfinished ones",
    )
    command.add_argument(
        "--executor",
        default="local",
        metavar="WHERE",
        help="local (default), dask://HOST:PORT, ray://HOST:PORT or ray://local",
    )
    command.add_argument(
        "--workers",
        type=int,
        default=4,
        metavar="N",
        help="threads of local, CPUs of ray://local (default 4); a cluster has its own",
    )
    command.add_argument(
        "--output", "-o", metavar="PATH", help="write the results here (default: stdout)"
    )
    command.add_argument(
        "--thread-prefix",
        default="batch",
        metavar="PREFIX",
        help="thread ids are PREFIX-LINE (default: batch)",
    )
    command.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
