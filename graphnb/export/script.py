"""The command line of an exported module: ``python module.py --input '{...}'``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["run_cli"]


def run_cli(
    graph: Any,
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    db: str | None = None,
) -> int:
    """Run ``graph`` with options read from ``argv``, streaming progress; returns the exit code.

    Exported modules call this from their ``main()``. The options are those of
    ``graphnb run`` (``--input``, ``--input-file``, ``--resume``, ``--thread``, ``--db``,
    ``--quiet``).

    Args:
        graph: the graph, compiled or not.
        argv: the arguments (``sys.argv[1:]`` when omitted).
        prog: the program's name in the usage line.
        db: where threads are kept when the command line gives no ``--db``; with it, a
            run without ``--thread`` gets a new thread of its own. An exported graph
            that can stop for a human passes a SQLite file, since ``interrupt()`` needs
            a thread that outlives the process to be answered.
    """
    import argparse
    import uuid

    from ..console import add_run_options, run_loaded

    parser = argparse.ArgumentParser(prog=prog, description=f"Run the graph {graph_name(graph)!r}.")
    add_run_options(parser)
    args = parser.parse_args(argv)
    if db is not None:
        if args.db is None:
            args.db = db
        if args.thread is None and args.resume is None:  # --resume still names its thread
            args.thread = f"run-{uuid.uuid4().hex[:8]}"
    return run_loaded(graph, args)


def graph_name(graph: Any) -> str:
    """The name of a graph, compiled or not."""
    spec = getattr(graph, "spec", None)
    return str(getattr(spec, "name", "graph"))
