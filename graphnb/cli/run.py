"""``graphnb run FILE[:GRAPH]``: run a graph from a file or notebook, streaming its progress.

How a run is read from the options and printed lives in :mod:`graphnb.console`, shared
with exported modules. How the other commands load their ``FILE[:GRAPH]`` lives here
(:func:`load_target`, :func:`graph_command`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..console import CommandError, ExitCode, add_run_options, reporting, run_loaded
from . import subcommand

__all__ = ["graph_command", "load_target", "register"]


def load_target(target: str, *, langgraph_as_is: bool = False) -> tuple[str, Any]:
    """Load ``FILE[:GRAPH]``, turning load failures into :class:`CommandError`.

    A LangGraph ``StateGraph`` or compiled graph (when the file defines no graphnb graph,
    or ``GRAPH`` names it) is imported as ``from_langgraph`` does, a compiled one with its
    compile options, unless ``langgraph_as_is``.

    Raises:
        CommandError: the file is missing or could not be loaded (exit 3), names no such
            graph (exit 2).
        UnmappedFeatureError: the LangGraph graph uses features graphnb cannot map.
    """
    from ..export import GraphLoadError, GraphNotFoundError, load_graph

    try:
        name, graph = load_graph(target, foreign=_langgraph_kind)
    except FileNotFoundError as error:
        raise CommandError(f"no such file: {error.filename}", ExitCode.LOAD) from None
    except GraphLoadError as error:
        raise CommandError(str(error), ExitCode.LOAD) from None
    except GraphNotFoundError as error:
        raise CommandError(str(error), ExitCode.USAGE) from None
    if langgraph_as_is or _langgraph_kind(graph) is None:
        return name, graph
    from ..interop import UnmappedFeatureError, import_langgraph

    imported = import_langgraph(graph)
    if imported.unmapped:
        raise UnmappedFeatureError(imported.unmapped, graph=name)
    return name, imported.compile() if _langgraph_kind(graph) == "compiled" else imported.graph


def graph_command(
    subparsers: Any,
    name: str,
    handler: Callable[[argparse.Namespace], int],
    *,
    many: bool = False,
) -> argparse.ArgumentParser:
    """Add the subcommand ``name`` whose first argument is a graph to load: ``FILE[:GRAPH]``.

    ``handler`` runs it and its docstring is its help, as for every :func:`~graphnb.cli.subcommand`.
    With ``many`` the argument is ``targets``, one or more of them; else ``target``, one.
    """
    command = subcommand(subparsers, name, handler)
    command.add_argument(
        "targets" if many else "target",
        nargs="+" if many else None,
        metavar="FILE[:GRAPH]",
        help="a .py file or .ipynb notebook",
    )
    return command


def _langgraph_kind(value: Any) -> str | None:
    """``"compiled"`` or ``"builder"`` for a LangGraph state graph, else ``None``.

    Read without importing LangGraph: a file that uses it has imported it already.
    """
    import sys

    state = sys.modules.get("langgraph.graph.state")
    if state is None:
        return None
    if isinstance(value, state.CompiledStateGraph):
        return "compiled"
    return "builder" if isinstance(value, state.StateGraph) else None


def run(args: argparse.Namespace) -> int:
    """Run a graph from a .py file or notebook, streaming its progress.

    Run the graph FILE defines (FILE:GRAPH picks one of several). Progress goes to stderr,
    the final state to stdout as JSON.
    """
    return reporting(lambda: run_loaded(load_target(args.target)[1], args))


def register(subparsers: Any) -> None:
    """Add ``run`` to the command line."""
    add_run_options(graph_command(subparsers, "run", run))
