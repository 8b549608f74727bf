"""Export a graph as a notebook, one idea per cell.

The notebook has an introduction, then the state, the callables, the graph, its diagram
and a run.

Loading the graphs a notebook defines is :func:`graphnb.export.load_graphs`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .codegen import UnwritableValue, python_literal
from .errors import ExportError, ExportProblem
from .formatting import format_source
from .load import SKIP_ON_LOAD
from .markdown import inline_code, markdown_text
from .module import ExportedCode, export_code, replace_text
from .nbformat_import import import_nbformat

__all__ = ["to_notebook", "write_notebook"]


def to_notebook(
    obj: Any,
    *,
    namespace: Mapping[str, Any] | None = None,
    input: Mapping[str, Any] | None = None,
    ruff: bool | None = None,
) -> Any:
    """Export a graph as an ``nbformat`` v4 notebook (without outputs).

    Args:
        obj: a StateGraph, CompiledGraph, GraphSpec, or an object with a ``spec``.
        namespace: where the graph's notebook names live, when ``obj`` does not say.
        input: the input state of the run cell, written as a Python literal (numbers,
            strings, ``True``, ``None``, and lists, tuples, sets and dicts of them);
            ``{}`` when omitted.
        ruff: format each code cell with ruff; ``None`` formats when ruff is installed.

    Raises:
        ExportError: listing every callable or name that cannot be exported, and why,
            or ``input`` is not a literal.
    """
    nbformat = import_nbformat()
    code = export_code(obj, namespace=namespace)
    arguments = _input_literal(input, code.name)
    v4: Any = nbformat.v4

    def cell(text: str, *, imports: bool = False) -> Any:
        text = text.strip() + "\n"
        if ruff is not False:
            text = format_source(text, sort_imports=imports)
        return v4.new_code_cell(text.rstrip("\n"))

    def markdown(text: str) -> Any:
        return v4.new_markdown_cell(text.strip())

    spec = getattr(obj, "spec", obj)
    cells = [markdown(_introduction(code, spec))]
    imports = code.import_block(module=False)
    if code.future:
        imports = "from __future__ import annotations\n\n" + imports
    cells.append(cell(imports, imports=True))
    state_index = next((i for i, d in enumerate(code.definitions) if d.name == code.state), -1)
    if state_index >= 0:
        cells.append(
            markdown(
                "## The state\n\nEvery node reads this state and returns the fields it "
                "changes; each field's reducer says how a write merges."
            )
        )
        cells.extend(cell(d.text) for d in code.definitions[: state_index + 1])
    rest = code.definitions[state_index + 1 :]
    if rest:
        cells.append(markdown("## Nodes and routers\n\nThe callables the graph's nodes run."))
        cells.extend(cell(d.text) for d in rest)
    cells.append(
        markdown(
            "## The graph\n\nThe nodes and edges as they were drawn, labels and positions kept."
        )
    )
    cells.append(cell(f"{code.builder}\n\n{code.compile_line}"))
    cells.append(markdown("## Diagram"))
    cells.append(cell(code.graph_name))
    if code.interrupts:
        # interrupt() needs a thread: the run cell names one (the graph keeps it in
        # memory), so the notebook runs top to bottom and stops where a human answers.
        thread = '"run-1"'
        cells.append(
            markdown(
                "## Run\n\nThe graph can stop for a human (a node calls `interrupt()`), so "
                "it runs on a thread. `invoke` runs it to its end or to its first stop and "
                "returns the state; the next cell shows what the run waits for. Answer with "
                f"`{code.graph_name}.invoke(Command(resume=...), thread_id={thread})` "
                "(`from graphnb import Command`)."
            )
        )
        run = cell(f"final = {code.graph_name}.invoke({arguments}, thread_id={thread})\nfinal")
        waiting = cell(f"{code.graph_name}.get_state({thread}).interrupts")
        waiting.metadata["tags"] = [SKIP_ON_LOAD]
        run.metadata["tags"] = [SKIP_ON_LOAD]
        cells.extend([run, waiting])
    else:
        cells.append(
            markdown("## Run\n\n`invoke` runs the graph to its end and returns the final state.")
        )
        run = cell(f"final = {code.graph_name}.invoke({arguments})\nfinal")
        run.metadata["tags"] = [SKIP_ON_LOAD]  # loading the notebook for its graph runs nothing
        cells.append(run)
    notebook = v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    notebook.metadata["language_info"] = {"name": "python"}
    # Cell ids are random by default; number them so the same graph gives the same file.
    for index, each in enumerate(notebook.cells):
        each["id"] = f"cell-{index}"
    return notebook


def write_notebook(
    obj: Any,
    path: str | os.PathLike[str],
    *,
    namespace: Mapping[str, Any] | None = None,
    input: Mapping[str, Any] | None = None,
    ruff: bool | None = None,
) -> Path:
    """Export a graph as a notebook and write it to ``path``; returns the path."""
    nbformat = import_nbformat()
    target = Path(path)
    notebook = to_notebook(obj, namespace=namespace, input=input, ruff=ruff)
    writes: Any = nbformat.writes
    text: str = writes(notebook)
    replace_text(target, text if text.endswith("\n") else text + "\n")  # as nbformat.write
    return target


def _input_literal(values: Mapping[str, Any] | None, graph: str) -> str:
    """The run cell's input as Python source (``True``, not JSON's ``true``)."""
    given = dict(values or {})
    problems = []
    for key, value in given.items():
        try:
            if python_literal(value) is None:
                problems.append(
                    ExportProblem(
                        f"input {key!r}",
                        f"{value!r} is not a Python literal (numbers, strings, True, False, "
                        "None, and lists, tuples, sets and dicts of them)",
                    )
                )
        except UnwritableValue as error:
            problems.append(ExportProblem(f"input {key!r}", f"it is {error}"))
    text = None if problems else python_literal(given)
    if text is None:
        problems = problems or [
            ExportProblem("input", f"its keys {list(given)!r} are not literals")
        ]
        raise ExportError(problems, graph=graph)
    return text


def _introduction(code: ExportedCode, spec: Any) -> str:
    nodes = getattr(spec, "nodes", [])
    names = ", ".join(inline_code(node.id) for node in nodes) or "none"
    state = "a plain dict" if code.state == "dict" else inline_code(code.state)
    name = markdown_text(code.name)
    return (
        f"# {name}\n\n"
        f"This notebook was exported by graphnb from the graph **{name}**. "
        f"It has {len(nodes)} node{'s' if len(nodes) != 1 else ''} ({names}) and runs on "
        f"{state}.\n\n"
        "Run the cells from the top: they define the state and the callables, build the "
        "graph, draw it, and run it once."
    )
