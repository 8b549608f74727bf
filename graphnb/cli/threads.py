"""``graphnb threads --db URL``: list persisted threads, show a thread's history, seed one.

- ``graphnb threads --db URL``: the thread ids, one per line.
- ``graphnb threads --db URL THREAD``: the thread's checkpoints, oldest first: step, why
  it was written, the nodes that ran, the nodes next, and the fields each node wrote.
  With ``--graph FILE[:GRAPH]`` the thread's current state follows, as JSON.
- ``graphnb threads --db URL THREAD --seed JSON --graph FILE[:GRAPH]``: put initial
  values into a new thread before its first run (the graph's state model checks them).

- ``graphnb threads prune --db URL --keep-last N --older-than AGE``: remove old
  checkpoints of every thread (``--thread ID``, repeatable: of those only), keeping the
  newest N of each and every checkpoint a kept one is rebuilt from; ``AGE`` is seconds or
  a number with ``s``, ``m``, ``h`` or ``d``. A checkpoint stores what changed since the
  last snapshot, so the older ones the kept ones are rebuilt from stay, and the command
  says how many; with ``--graph FILE[:GRAPH]`` the graph's state model rebuilds snapshots
  and only the checkpoints asked for stay. Without ``--keep-last`` or ``--older-than``
  it is a usage error (a thread named ``prune`` is shown as any other).

- ``graphnb threads import --from URL --db URL``: copy the threads of a LangGraph
  checkpointer (``sqlite:///lg.db`` or ``postgresql://...``; ``--thread ID``, repeatable:
  those only) into the graphnb saver of ``--db``, history included, checkpoint ids kept.
  With ``--graph FILE[:GRAPH]`` the graph's state model checks every value; without it
  the values are stored as plain data, read through the graph's model when it runs.
  A payload that would construct an object or unpickle code is refused (exit 1), naming
  the type, the thread and the checkpoint, and nothing is written.

``--json`` prints machine-readable JSON instead of text.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import shlex
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from ..console import (
    CommandError,
    ExitCode,
    compile_for,
    database_errors,
    json_text,
    open_saver,
    parse_json,
    redacted,
    reporting,
    shown,
    to_json,
)
from ..records import is_child_thread
from . import subcommand
from .run import load_target

__all__ = ["register"]


def threads(args: argparse.Namespace) -> int:
    """List persisted threads, show a thread's history, seed a new thread, prune old
    checkpoints, import LangGraph threads.

    graphnb threads --db URL                      list the threads of --db
    graphnb threads --db URL THREAD               show a thread's checkpoints
    graphnb threads --db URL THREAD --seed JSON --graph FILE
                                                  seed a new thread
    graphnb threads prune --db URL --keep-last N [--older-than AGE] [--graph FILE]
                                                  remove old checkpoints (with
                                                  --graph, only those asked for stay)
    graphnb threads import --from URL --db URL    copy LangGraph threads into --db
    """  # noqa: D205 (the summary is the help line, too long for one line here)
    if args.thread == "prune" and (args.keep_last is not None or args.older_than is not None):
        return reporting(lambda: _prune(args), db=args.db)
    if args.thread == "prune" and args.seed is None:
        return reporting(lambda: _prune_or_history(args), db=args.db)
    if args.thread == "import" and args.source is not None:
        return reporting(lambda: _import(args), db=args.db)
    if args.seed is not None:
        return reporting(lambda: _seed(args), db=args.db)
    if args.thread is None:
        return reporting(lambda: _list(args), db=args.db)
    return reporting(lambda: _history(args), db=args.db)


def _saver(url: str) -> Any:
    """The saver of ``url``, for reading; ``None`` for a SQLite file without its tables.

    Reading must not leave an empty database behind a mistyped path, so a SQLite file
    must already exist; nor change another application's database, so a file without
    graphnb's tables is left as it is (the saver would create them on first use).
    """
    from ..checkpoint import SqliteSaver

    scheme, _, rest = url.partition("://")
    path = rest[1:] if rest.startswith("/") else rest
    is_file = scheme.split("+")[0].lower() == "sqlite" and path not in ("", ":memory:")
    if is_file and not Path(path).exists():
        raise CommandError(f"no such database: {shown(path)}", ExitCode.LOAD)
    saver = open_saver(url)
    if isinstance(saver, SqliteSaver) and is_file and not _has_table(Path(path), saver.table):
        saver.close()
        return None
    return saver


def _has_table(path: Path, table: str) -> bool:
    """Whether the SQLite file holds ``table``, read with a connection that cannot write."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        )
        return found.fetchone() is not None


def _list(args: argparse.Namespace) -> int:
    saver = _saver(args.db)
    if saver is None:
        print(f"no graphnb threads in {redacted(args.db)}", file=sys.stderr)
        ids = []
    else:
        with saver:
            # the threads list_threads() and the widget show: subgraphs' own threads are
            # listed with their parent's (graphnb threads --db URL PARENT|NODE@ID shows one)
            ids = [t for t in saver.threads() if not is_child_thread(t)]
    if args.json:
        print(json_text(ids))
    else:
        for thread_id in ids:
            print(shown(thread_id))
    return ExitCode.OK


def _history(args: argparse.Namespace) -> int:
    state = None
    saver = _saver(args.db)
    if saver is None:
        raise CommandError(f"{redacted(args.db)} has no thread {args.thread!r}", ExitCode.USAGE)
    with saver:
        rows = saver.history(args.thread)
        if not rows:
            raise CommandError(f"{redacted(args.db)} has no thread {args.thread!r}", ExitCode.USAGE)
        if args.graph is not None:
            _, graph = load_target(args.graph)
            state = compile_for(graph, saver).get_state(args.thread).values
    if args.json:
        entries = [
            {
                "checkpoint_id": row.checkpoint_id,
                "parent_id": row.parent_id,
                "step": row.step,
                "source": row.source,
                "created_at": row.created_at,
                "ran": _names(row.meta, "ran"),
                "next": _names(row.meta, "next"),
                "writes": row.writes,
            }
            for row in rows
        ]
        document: dict[str, Any] = {"thread": args.thread, "checkpoints": entries}
        if state is not None:
            document["state"] = json.loads(to_json(state))
        print(json_text(document, indent=2))
        return ExitCode.OK
    count = f"{len(rows)} checkpoint{'s' if len(rows) != 1 else ''}"
    print(f"thread {shown(args.thread)}: {count}")
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row.created_at))
        ran = ", ".join(_names(row.meta, "ran")) or "-"
        following = ", ".join(_names(row.meta, "next")) or "end"
        line = f"  step {row.step:>3}  {row.source:<7} {when}  ran {ran} -> next {following}"
        print(shown(line))
        for write in _write_lines(row.writes):
            print(f"           {shown(write)}")
    if state is not None:
        print(to_json(state))
    return ExitCode.OK


def _names(meta: Any, key: str) -> list[str]:
    """``meta[key]`` as node names; a damaged row (the thing to inspect) shows none."""
    names = meta.get(key) if isinstance(meta, dict) else None
    return [str(name) for name in names] if isinstance(names, list) else []


def _write_lines(writes: Any) -> list[str]:
    """One line per node's update; a damaged writes column is shown as it is."""
    try:
        return [
            f"{node}: " + ", ".join(f"{key}={_short(value)}" for key, value in update.items())
            for node, update in writes
        ]
    except (TypeError, ValueError, AttributeError):
        return [f"malformed writes: {_short(writes)}"]


def _short(value: Any, width: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= width else text[: width - 3] + "..."


def _seed(args: argparse.Namespace) -> int:
    from ..checkpoint import CheckpointConflictError

    if args.thread is None or args.graph is None:
        raise CommandError("--seed needs a THREAD and --graph FILE[:GRAPH]", ExitCode.USAGE)
    values = parse_json(args.seed, "--seed")
    if not isinstance(values, dict):
        raise CommandError("--seed must be a JSON object of state fields", ExitCode.USAGE)
    _, graph = load_target(args.graph)
    compiled = compile_for(graph, args.db)
    try:
        checkpoint = compiled.seed_thread(args.thread, values, start_at=args.start_at or None)
    except CheckpointConflictError:
        # The engine's message points to Python's update_state; say it in commands.
        thread = shown(shlex.quote(args.thread))
        raise CommandError(
            f"thread {args.thread!r} already has checkpoints, and a seed goes into a new "
            "thread: seed a new id (graphnb threads NEW_ID --db URL --graph FILE --seed "
            f"JSON), or continue this one (graphnb run FILE --thread {thread} --db URL "
            "--input JSON)",
            ExitCode.FAILED,
        ) from None
    finally:
        compiled.checkpointer.close()
    if args.json:
        print(json_text({"thread": args.thread, "checkpoint_id": checkpoint}))
    else:
        print(f"seeded thread {shown(args.thread)} (checkpoint {shown(checkpoint)})")
    return ExitCode.OK


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _age(text: str) -> float:
    """Seconds of ``--older-than``: ``90``, ``90s``, ``15m``, ``12h``, ``7d``."""
    number, unit = (text[:-1], text[-1]) if text[-1:] in _UNITS else (text, "s")
    try:
        seconds = float(number) * _UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--older-than takes seconds or a number with s, m, h or d (7d), got {text!r}"
        ) from None
    if not math.isfinite(seconds):
        raise argparse.ArgumentTypeError(f"--older-than must be a finite number, got {text!r}")
    if seconds < 0:
        raise argparse.ArgumentTypeError(f"--older-than must not be negative, got {text!r}")
    return seconds


def _prune_or_history(args: argparse.Namespace) -> int:
    """``threads prune`` without a pruning option: a thread named so, or a usage error."""
    try:
        saver = _saver(args.db)
    except CommandError:  # no such file: no thread named "prune" either
        saver = None
    if saver is not None:
        with saver:
            named = bool(saver.history("prune"))
        if named:
            return _history(args)
    raise CommandError(
        "graphnb threads prune needs --keep-last N, --older-than AGE or both (e.g. "
        "graphnb threads prune --db URL --keep-last 10 --graph FILE)",
        ExitCode.USAGE,
    )


def _prune(args: argparse.Namespace) -> int:
    from ..checkpoint.prune import PruneResult

    saver = _saver(args.db)
    if saver is None:
        result = PruneResult(0)
    else:
        with saver:
            options: dict[str, Any] = {
                "older_than": args.older_than,
                "keep_last": args.keep_last,
                "thread_ids": args.only or None,
                "batch_size": args.batch_size,
            }
            if args.graph is not None:  # its state model rebuilds snapshots: all can go
                _, graph = load_target(args.graph)
                result = compile_for(graph, saver).threads.prune(**options)
            else:
                result = saver.prune(**options)
    if args.json:
        print(json_text({"removed": int(result), "kept_ancestors": result.kept_ancestors}))
    else:
        print(result.summary("pass --graph FILE[:GRAPH]"))
    return ExitCode.OK


def _import(args: argparse.Namespace) -> int:
    from ..checkpoint import ThreadNotFoundError
    from ..interop.langgraph_threads import import_langgraph_threads, langgraph_checkpointer

    graph = load_target(args.graph, langgraph_as_is=True)[1] if args.graph is not None else None
    source = redacted(args.source)
    try:
        reader = langgraph_checkpointer(args.source)
    except ValueError as error:  # a file missing or not LangGraph's is a file problem
        reason = str(error)
        code = ExitCode.LOAD if "no such" in reason or "no LangGraph" in reason else ExitCode.USAGE
        raise CommandError(f"--from {source}: {reason}", code) from None
    except database_errors() as error:
        reason = " ".join(str(error).split())
        raise CommandError(f"--from {source}: {reason}", ExitCode.FAILED) from None
    try:
        with open_saver(args.db) as saver:
            copied = import_langgraph_threads(reader, saver, graph=graph, thread_ids=args.only)
    except ThreadNotFoundError as error:
        raise CommandError(f"--from {source}: {error}", ExitCode.USAGE) from None
    finally:
        reader.close()
    if not copied:
        print(f"--from {source} holds no LangGraph threads: nothing imported", file=sys.stderr)
    if args.json:
        print(json_text([{"thread": t.thread_id, "checkpoints": t.checkpoints} for t in copied]))
    else:
        for thread in copied:
            count = f"{thread.checkpoints} checkpoint{'s' if thread.checkpoints != 1 else ''}"
            print(f"imported thread {shown(thread.thread_id)} ({count})")
    return ExitCode.OK


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def register(subparsers: Any) -> None:
    """Add ``threads`` to the command line."""
    # The description is a usage table: its lines stay as the docstring writes them.
    command = subcommand(
        subparsers, "threads", threads, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    command.add_argument("thread", nargs="?", metavar="THREAD", help="a thread id")
    command.add_argument(
        "--db", metavar="URL", required=True, help="sqlite:///runs.db, postgresql://..., ..."
    )
    command.add_argument(
        "--graph",
        metavar="FILE[:GRAPH]",
        help="the graph the thread runs; needed to seed, to show the current state, and "
        "for prune to remove every checkpoint not asked for",
    )
    command.add_argument("--seed", metavar="JSON", help="initial values of a new thread")
    command.add_argument(
        "--start-at", metavar="NODE", action="append", help="where the seeded thread starts"
    )
    command.add_argument("--json", action="store_true", help="print JSON instead of text")
    command.add_argument(
        "--from",
        dest="source",
        metavar="URL",
        help="graphnb threads import --from URL: a LangGraph checkpointer (sqlite:///lg.db, "
        "postgresql://...) whose threads are copied into --db",
    )
    prune = command.add_argument_group("pruning (graphnb threads prune --db URL ...)")
    prune.add_argument(
        "--keep-last", type=_positive, metavar="N", help="keep each thread's newest N checkpoints"
    )
    prune.add_argument(
        "--older-than", type=_age, metavar="AGE", help="remove only checkpoints older (7d, 12h)"
    )
    prune.add_argument(
        "--thread",
        dest="only",
        action="append",
        metavar="ID",
        help="prune (or import) this thread only",
    )
    prune.add_argument(
        "--batch-size", type=_positive, default=500, metavar="N", help="rows per delete"
    )
