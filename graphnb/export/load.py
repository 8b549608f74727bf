"""Load the graphs a Python file or a notebook defines.

A ``.py`` file is imported as a module (its directory first on ``sys.path``, as
``python file.py`` would have it) without running its ``if __name__ == "__main__"`` block.
A notebook's code cells run in order in a fresh module; IPython magics (``%``, ``!``,
``%%`` cells) are skipped, and so are cells tagged :data:`SKIP_ON_LOAD`. IPython's own
input transformer decides what is a magic when IPython is installed (a ``%`` line inside
a triple-quoted string is text, not a magic); without IPython a line is a magic only
where a statement may start. The cells are registered with :mod:`linecache` under one
file name, so the functions and classes they define keep their source and can be
exported again.
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
import re
import sys
import tokenize
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..binding import LOADED_FILE_PREFIX
from ..engine.compiled import CompiledGraph
from ..graph import StateGraph
from ..spec import GraphSpec
from .errors import GraphLoadError, GraphNotFoundError

__all__ = [
    "NOTEBOOK_MODULE_PREFIX",
    "SKIP_ON_LOAD",
    "load_graph",
    "load_graphs",
    "load_module",
    "split_target",
]

SKIP_ON_LOAD = "graphnb-skip-on-load"
"""The tag of a notebook cell graphnb does not run when it loads the notebook for its
graphs (``graphnb run``, ``draw``, ``export``...): a cell that runs a graph on an example
input, like the last cell of an exported notebook. Jupyter runs it as any other cell."""

NOTEBOOK_MODULE_PREFIX = "__graphnb_notebook_"
"""How the name of the module a loaded notebook's cells run in starts: a name made up
here, which messages should call "the notebook"."""


def split_target(target: str) -> tuple[str, str | None]:
    """Split ``FILE[:GRAPH]`` into the file and the graph's name.

    >>> split_target("flows/agent.ipynb:react")
    ('flows/agent.ipynb', 'react')
    >>> split_target("agent.py")
    ('agent.py', None)

    Any ``GRAPH`` after an existing file is split off (``agent.py:graphs.main``), so that
    a name that is no variable's is reported as such, not as a missing file.
    """
    head, sep, tail = target.rpartition(":")
    if not (sep and head and tail):
        return target, None
    if tail.isidentifier() or (Path(head).is_file() and not Path(target).exists()):
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
    """The file's stem, unless that is no module name or would shadow a module by it.

    Such a file gets a name made up here, which only this process can import: see
    :func:`graphnb.binding.is_loaded_file`.
    """
    stem = file.stem
    if stem.isidentifier() and not keyword.iskeyword(stem) and stem not in sys.modules:
        try:
            found = importlib.util.find_spec(stem)
        except (ImportError, ValueError):
            found = None
        origin = getattr(found, "origin", None)
        if found is None or (origin and Path(origin).resolve() == file.resolve()):
            return stem
    return _module_name(file, LOADED_FILE_PREFIX)


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
    except KeyboardInterrupt:
        del sys.modules[name]
        raise
    except BaseException as error:  # SystemExit too: loading a file must not end the caller
        del sys.modules[name]
        raise GraphLoadError(
            f"{str(file)!r} {_raised(error, ' while loading')}", path=str(file)
        ) from error
    return module


def _raised(error: BaseException, during: str = "") -> str:
    """How a file or cell failed, in words: ``raised ValueError while loading: boom``."""
    if isinstance(error, SystemExit):
        return (
            f"exited with SystemExit({error.code!r}){during}; a file that defines graphs must "
            "not exit when loaded (keep that under `if __name__ == '__main__':`)"
        )
    return f"raised {type(error).__name__}{during}: {error}"


def _code_cells(file: Path) -> list[str]:
    """The sources of a notebook's code cells.

    Version 4 notebooks are read as the JSON they are: importing nbformat costs seconds
    (its schema validator compiles grammars), which every ``graphnb run`` would pay.
    Older formats go through nbformat, which validates and converts them. Either way a
    cell that is not an object, a source that is not text, or a code cell's metadata or
    tags not as nbformat has them, is a :class:`GraphLoadError`.
    """
    where = repr(str(file))
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GraphLoadError(
            f"{where} is not a readable notebook: {error}", path=str(file)
        ) from error
    version = data.get("nbformat") if isinstance(data, dict) else None
    if not isinstance(version, int) or isinstance(version, bool):
        raise GraphLoadError(f"{where} is not a Jupyter notebook", path=str(file))
    if version > 4:
        raise GraphLoadError(
            f"{where} is a version {version} notebook; graphnb reads versions up to 4",
            path=str(file),
        )
    if version < 4:
        data = _converted(file, version)
    cells = data.get("cells", [])
    if not isinstance(cells, list):
        raise GraphLoadError(
            f"{where}: 'cells' is {_kind(cells)}, expected a list of cells", path=str(file)
        )
    sources = []
    for index, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise GraphLoadError(
                f"{where}: cell {index} is {_kind(cell)}, expected an object", path=str(file)
            )
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise GraphLoadError(
                f"{where}: the source of cell {index} is {_kind(source)}, expected text "
                "or a list of lines",
                path=str(file),
            )
        # Kept as an empty cell, so that the others keep their numbers in messages.
        sources.append("" if SKIP_ON_LOAD in _tags(cell, file, index) else source)
    return sources


def _tags(cell: dict[str, Any], file: Path, index: int) -> list[str]:
    """A cell's tags; :class:`GraphLoadError` when its metadata is not as nbformat has it."""
    metadata = cell.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise GraphLoadError(
            f"{str(file)!r}: the metadata of cell {index} is {_kind(metadata)}, expected an object",
            path=str(file),
        )
    tags = metadata.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        # A string would be searched as text: "graphnb-skip-on-load-not" is no such tag.
        raise GraphLoadError(
            f"{str(file)!r}: the tags of cell {index} are {_kind(tags)}, expected a list of text",
            path=str(file),
        )
    return tags


def _converted(file: Path, version: int) -> dict[str, Any]:
    """An old notebook read, validated and converted to version 4 by nbformat."""
    from .nbformat_import import import_nbformat

    reader: Any = import_nbformat().read
    try:
        converted = reader(file, as_version=4)
    except Exception as error:  # nbformat raises ValidationError, NBFormatError, KeyError...
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
        raise GraphLoadError(
            f"{str(file)!r} is not a valid version {version} notebook: {reason}", path=str(file)
        ) from error
    return dict(converted)


def _kind(value: Any) -> str:
    """``value`` described for a message: its JSON type and, when short, itself."""
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    kind = kinds.get(type(value)) or ("null" if value is None else "a number")
    shown = json.dumps(value, ensure_ascii=False, default=repr)
    return f"{kind} ({shown})" if len(shown) <= 40 else kind


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
    name = NOTEBOOK_MODULE_PREFIX + _module_name(file, "")[:60] + "__"
    module = types.ModuleType(name)
    module.__file__ = filename
    module.__dict__["display"] = _display
    module.__dict__["get_ipython"] = _NoShell
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
            except KeyboardInterrupt:
                raise
            except SyntaxError as error:  # its line counts from the notebook's first cell
                line = f" at line {error.lineno - offset}" if error.lineno else ""
                raise GraphLoadError(
                    f"{str(file)!r}: code cell {index} has a syntax error{line}: {error.msg}",
                    path=str(file),
                    cell=index,
                ) from error
            except BaseException as error:
                raise GraphLoadError(
                    f"{str(file)!r}: code cell {index} {_raised(error)}",
                    path=str(file),
                    cell=index,
                ) from error
    finally:
        loop.close()
    return module


def _without_magics(source: str) -> str:
    """``source`` as plain Python, each IPython magic turned into a call that does nothing."""
    if not _may_have_magics(source):
        return source  # the common case; importing IPython costs a second or two
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return _strip_magic_lines(source)
    manager: Any = TransformerManager
    transformed: str = manager().transform_cell(source)
    return transformed


def _may_have_magics(source: str) -> bool:
    for line in source.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("%", "!")) or stripped.endswith("?"):
            return True
        if _ASSIGNED_MAGIC.match(line):  # `files = !ls`, `home = %env HOME`
            return True
    return False


def _strip_magic_lines(source: str) -> str:
    """Without IPython: replace each magic line, but never a line inside a string."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n" * (len(lines) - 1)
    kept: list[str] = []
    for line in lines:
        stripped = line.lstrip()
        assigned = _ASSIGNED_MAGIC.match(line)
        magic = stripped.startswith(("%", "!")) or _HELP.match(line)
        if not (magic or assigned) or _continues("\n".join(kept)):
            kept.append(line)
        elif assigned:  # `files = !ls`: the name is bound, to None
            kept.append(f"{assigned.group(1)} = None  # IPython magic")
        else:
            kept.append(line[: len(line) - len(stripped)] + "pass  # IPython magic")
    return "\n".join(kept)


_ASSIGNED_MAGIC = re.compile(r"^(\s*[A-Za-z_][\w.]*)\s*=\s*[%!]")
_HELP = re.compile(r"^\s*(\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*$")  # `name?`, `??name`


def _continues(text: str) -> bool:
    """Whether a line after ``text`` continues a string, a bracket or a backslash line.

    Such a line is not where a statement (and so a magic) starts, as for IPython.
    """
    lines = iter((text + "\n").splitlines(keepends=True))
    try:
        for _ in tokenize.generate_tokens(lambda: next(lines, "")):
            pass
    except tokenize.TokenError:  # "EOF in multi-line string" or "... statement"
        return True
    except (SyntaxError, ValueError):  # bad indentation, invalid characters: not our call
        return False
    return False


class _NoShell:
    """What ``get_ipython()`` returns outside Jupyter: every magic does nothing."""

    def run_line_magic(self, *args: Any, **kwargs: Any) -> None:
        """Skip a ``%`` line."""

    def run_cell_magic(self, *args: Any, **kwargs: Any) -> None:
        """Skip a ``%%`` cell."""

    def system(self, *args: Any, **kwargs: Any) -> None:
        """Skip a ``!`` line."""

    def getoutput(self, *args: Any, **kwargs: Any) -> None:
        """Skip ``x = !command``."""


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


def _foreign_kind(foreign: Callable[[Any], str | None], value: Any) -> str | None:
    """``foreign(value)``; an object whose attributes raise is no graph."""
    if isinstance(value, type | types.ModuleType):
        return None
    try:
        return foreign(value)
    except Exception:  # a property of an unrelated object may raise anything
        return None


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


def load_graph(
    target: str, *, foreign: Callable[[Any], str | None] | None = None
) -> tuple[str, Any]:
    """Load the graph ``FILE[:GRAPH]`` names; returns ``(variable name, graph)``.

    Without ``:GRAPH`` the file must define one graph, or a variable named ``graph``, or
    exactly one compiled graph.

    Args:
        target: ``FILE`` or ``FILE:GRAPH``.
        foreign: recognises graphs of another library (LangGraph's, for the command
            line): ``"compiled"`` or ``"builder"`` for such an object, else ``None``.
            They count when ``GRAPH`` names one, or when the file defines no graphnb
            graph; the caller converts the one returned.

    Raises:
        FileNotFoundError: the file does not exist.
        GraphLoadError: the file could not be run.
        GraphNotFoundError: no graph of that name, or several and none was named.
    """
    path, name = split_target(target)
    variables = {
        key: value for key, value in vars(load_module(path)).items() if not key.startswith("_")
    }
    graphs = {key: value for key, value in variables.items() if _is_graph(value)}
    others = {
        key: kind
        for key, value in variables.items()
        if foreign is not None and key not in graphs and (kind := _foreign_kind(foreign, value))
    }
    compiled = [key for key, value in graphs.items() if isinstance(value, CompiledGraph)]
    if name is not None and name in others:
        return name, variables[name]
    if not graphs and others:
        graphs = {key: variables[key] for key in others}
        compiled = [key for key, kind in others.items() if kind == "compiled"]
    available = list(graphs)
    if name is not None:
        if name in graphs:
            return name, graphs[name]
        listed = ", ".join(available) or "none"
        hint = "" if name.isidentifier() else "; GRAPH is the name of a top-level variable"
        raise GraphNotFoundError(
            f"{path!r} defines no graph named {name!r} (graphs: {listed}){hint}",
            path=path,
            name=name,
            available=available,
        )
    if not graphs:
        raise GraphNotFoundError(
            f"{path!r} defines no graph at top level", path=path, name=None, available=[]
        )
    for candidates in (available, ["graph"] if "graph" in graphs else [], compiled):
        if len(candidates) == 1:
            return candidates[0], graphs[candidates[0]]
    raise GraphNotFoundError(
        f"{path!r} defines several graphs ({', '.join(available)}); pick one with {path}:NAME",
        path=path,
        name=None,
        available=available,
    )
