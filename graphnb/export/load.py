"""Load the graphs a Python file or a notebook defines.

A ``.py`` file is imported as a module (its directory first on ``sys.path``, as
``python file.py`` would have it) without running its ``if __name__ == "__main__"`` block.
A notebook's code cells run in order in a fresh module; lines that are IPython magics
(``%``, ``!``, ``%%`` cells) are skipped. The cells are registered with :mod:`linecache`
under one file name, so the functions and classes they define keep their source and can
be exported again.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import hashlib
import importlib.util
import inspect
import json
import keyword
import linecache
import os
import sys
import types
from pathlib import Path
from typing import Any

from ..engine.compiled import CompiledGraph
from ..graph import StateGraph
from ..spec import GraphSpec
from .errors import GraphLoadError, GraphNotFoundError

__all__ = ["load_graph", "load_graphs", "load_module", "split_target"]


def split_target(target: str) -> tuple[str, str | None]:
    """Split ``FILE[:GRAPH]`` into the file and the graph's name.

    >>> split_target("flows/agent.ipynb:react")
    ('flows/agent.ipynb', 'react')
    >>> split_target("agent.py")
    ('agent.py', None)
    """
    head, sep, tail = target.rpartition(":")
    if sep and head and tail.isidentifier():
        return head, tail
    return target, None


def load_module(path: str | os.PathLike[str]) -> types.ModuleType:
    """Run a ``.py`` file or a notebook and return the module holding what it defined.

    Raises:
        FileNotFoundError: the file does not exist.
        GraphLoadError: the file is neither ``.py`` nor ``.ipynb``, or raised while it ran.
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(2, "no such file", str(file))
    # What the file prints while loading is not the command's output.
    with contextlib.redirect_stdout(sys.stderr):
        if file.suffix == ".ipynb":
            return _load_notebook(file)
        if file.suffix == ".py":
            return _load_script(file)
    raise GraphLoadError(
        f"{str(file)!r} is neither a Python file (.py) nor a notebook (.ipynb)", path=str(file)
    )


def _module_name(file: Path, prefix: str) -> str:
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:8]
    stem = "".join(c if c.isalnum() else "_" for c in file.stem)
    return f"{prefix}{stem}_{digest}"


def _free_module_name(file: Path) -> str:
    """The file's stem, unless that would shadow a module by the same name."""
    stem = file.stem
    if stem.isidentifier() and not keyword.iskeyword(stem) and stem not in sys.modules:
        try:
            found = importlib.util.find_spec(stem)
        except (ImportError, ValueError):
            found = None
        origin = getattr(found, "origin", None)
        if found is None or (origin and Path(origin).resolve() == file.resolve()):
            return stem
    return _module_name(file, "graphnb_file_")


def _load_script(file: Path) -> types.ModuleType:
    name = _free_module_name(file)
    directory = str(file.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:  # pragma: no cover - .py files always have one
        raise GraphLoadError(f"cannot load {str(file)!r} as a module", path=str(file))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise GraphLoadError(
            f"{str(file)!r} raised {type(error).__name__} while loading: {error}", path=str(file)
        ) from error
    return module


def _code_cells(file: Path) -> list[str]:
    """The sources of a notebook's code cells.

    Version 4 notebooks are read as the JSON they are: importing nbformat costs seconds
    (its schema validator compiles grammars), which every ``graphnb run`` would pay.
    Older formats go through nbformat, which converts them.
    """
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GraphLoadError(
            f"{str(file)!r} is not a readable notebook: {error}", path=str(file)
        ) from error
    if not isinstance(data, dict) or not isinstance(data.get("nbformat"), int):
        raise GraphLoadError(f"{str(file)!r} is not a Jupyter notebook", path=str(file))
    if data["nbformat"] < 4:
        from .nbformat_import import import_nbformat

        reader: Any = import_nbformat().read
        data = reader(file, as_version=4)
    sources = []
    for cell in data.get("cells", []):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            sources.append("".join(source) if isinstance(source, list) else str(source))
    return sources


def _load_notebook(file: Path) -> types.ModuleType:
    cells = _code_cells(file)
    sources = [_without_magics(source) for source in cells]
    filename = f"<notebook {file.resolve()}>"
    offsets = []
    lines: list[str] = []
    for source in sources:
        offsets.append(len(lines))
        lines.extend(line + "\n" for line in source.split("\n"))
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
    name = "__graphnb_notebook_" + _module_name(file, "")[:60] + "__"
    module = types.ModuleType(name)
    module.__file__ = filename
    module.__dict__["display"] = _display
    sys.modules[name] = module
    directory = str(file.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    # Cells may `await` at top level, as IPython allows; they share one event loop.
    loop = asyncio.new_event_loop()
    try:
        for index, (source, offset) in enumerate(zip(sources, offsets, strict=True), start=1):
            try:
                code = compile(
                    "\n" * offset + source,
                    filename,
                    "exec",
                    flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                )
                if code.co_flags & inspect.CO_COROUTINE:
                    loop.run_until_complete(eval(code, module.__dict__))
                else:
                    exec(code, module.__dict__)
            except Exception as error:
                raise GraphLoadError(
                    f"{str(file)!r}: code cell {index} raised {type(error).__name__}: {error}",
                    path=str(file),
                    cell=index,
                ) from error
    finally:
        loop.close()
    return module


def _without_magics(source: str) -> str:
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n" * (len(lines) - 1)
    kept = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            kept.append(line[: len(line) - len(stripped)] + "pass  # IPython magic")
        else:
            kept.append(line)
    return "\n".join(kept)


def _display(*objects: Any, **options: Any) -> None:
    """Stand-in for IPython's ``display`` when a notebook runs outside Jupyter."""


def _is_graph(value: Any) -> bool:
    if isinstance(value, StateGraph | CompiledGraph):
        return True
    if isinstance(value, type | types.ModuleType):
        return False
    try:
        return isinstance(getattr(value, "spec", None), GraphSpec)
    except Exception:  # a property of an unrelated object may raise anything
        return False


def load_graphs(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The graphs a ``.py`` file or notebook defines at top level, by variable name.

    Graphs are :class:`~graphnb.StateGraph` and :class:`~graphnb.CompiledGraph` objects
    and builders with a ``spec`` (the widget's).

    Raises:
        FileNotFoundError: the file does not exist.
        GraphLoadError: the file could not be run.
    """
    module = load_module(path)
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_") and _is_graph(value)
    }


def load_graph(target: str) -> tuple[str, Any]:
    """Load the graph ``FILE[:GRAPH]`` names; returns ``(variable name, graph)``.

    Without ``:GRAPH`` the file must define one graph, or a variable named ``graph``, or
    exactly one compiled graph.

    Raises:
        FileNotFoundError: the file does not exist.
        GraphLoadError: the file could not be run.
        GraphNotFoundError: no graph of that name, or several and none was named.
    """
    path, name = split_target(target)
    graphs = load_graphs(path)
    available = list(graphs)
    if name is not None:
        if name in graphs:
            return name, graphs[name]
        listed = ", ".join(available) or "none"
        raise GraphNotFoundError(
            f"{path!r} defines no graph named {name!r} (graphs: {listed})",
            path=path,
            name=name,
            available=available,
        )
    if not graphs:
        raise GraphNotFoundError(
            f"{path!r} defines no graph at top level", path=path, name=None, available=[]
        )
    compiled = [key for key, value in graphs.items() if isinstance(value, CompiledGraph)]
    for candidates in (available, ["graph"] if "graph" in graphs else [], compiled):
        if len(candidates) == 1:
            return candidates[0], graphs[candidates[0]]
    raise GraphNotFoundError(
        f"{path!r} defines several graphs ({', '.join(available)}); pick one with {path}:NAME",
        path=path,
        name=None,
        available=available,
    )
