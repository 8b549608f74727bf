"""Export a graph as a standalone Python module.

The module holds the state model, the node and router callables' source, the imports they
need, a ``build_graph()`` function replaying the graph's construction (labels, positions
and routes kept), ``graph = build_graph().compile()`` and a ``main()`` that runs it from
the command line. Only graphnb's core is needed to run it: no notebook, no widget, no
pickles.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..reducers import Reducer, add, append, merge, replace
from ..spec import END, START, EdgeSpec, GraphSpec
from .errors import ExportError, ExportProblem
from .parts import GraphParts, graph_parts
from .resolver import Definition, Resolver

__all__ = ["ExportedCode", "export_code", "format_source", "to_module", "write_module"]

_STDLIB = frozenset(sys.stdlib_module_names)


@dataclass(frozen=True, slots=True)
class ExportedCode:
    """The pieces of an exported graph, before they are laid out as a module or notebook.

    Attributes:
        name: the graph's name.
        future: ``from __future__ import annotations`` is needed.
        imports: each imported local name -> ``(module, attribute)``; see
            :meth:`import_block`.
        definitions: constants, the state model and the callables, dependencies first.
        state: the name (or expression) of the state model; ``dict`` for dict states.
        builder: the ``build_graph()`` function.
        build_name: the name the builder function got (``build_graph`` unless taken).
        graph_name: the name the compiled graph gets (``graph`` unless taken).
        main: ``graph = ...``, ``main()`` and the ``__main__`` guard.
        run_cli: the name ``main()`` calls to run the graph.
        example: an input for the docstring's example command.
    """

    name: str
    future: bool
    imports: Mapping[str, tuple[str, str | None]]
    definitions: tuple[Definition, ...]
    state: str
    builder: str
    build_name: str
    graph_name: str
    main: str
    run_cli: str
    example: dict[str, Any]

    def import_block(self, *, module: bool = True) -> str:
        """The import statements; without ``run_cli`` (only ``main()`` uses it) for notebooks."""
        imports = dict(self.imports)
        if not module:
            imports.pop(self.run_cli, None)
        return _import_block(imports)


def export_code(obj: Any, *, namespace: Mapping[str, Any] | None = None) -> ExportedCode:
    """Work out everything an export of ``obj`` contains.

    Args:
        obj: a StateGraph, CompiledGraph, GraphSpec, or an object with a ``spec``.
        namespace: where the graph's notebook names live (``obj.namespace`` or
            ``__main__`` when omitted).

    Raises:
        ExportError: listing every callable or name that cannot be exported, and why.
    """
    parts = graph_parts(obj, namespace)
    if namespace is None and isinstance(getattr(obj, "namespace", None), Mapping):
        namespace = obj.namespace
    resolver = Resolver(namespace)
    spec = parts.spec
    state = _state_expression(parts, resolver)
    nodes = {}
    for node in spec.nodes:
        fn = parts.callables.get(node.id)
        if fn is None:
            resolver.problems.append(ExportProblem(f"node {node.id!r}", "it has no callable"))
            continue
        nodes[node.id] = resolver.reference(fn, f"node {node.id!r}")
    routers = {}
    for source, router in parts.routers.items():
        if router is None:
            resolver.problems.append(ExportProblem(f"router of {source!r}", "it has no callable"))
            continue
        routers[source] = resolver.reference(router, f"router of {source!r}")
    reducers = {
        key: _reducer_expression(reducer, key, resolver) for key, reducer in parts.reducers.items()
    }
    if resolver.problems:
        raise ExportError(resolver.problems, graph=spec.name)
    import graphnb

    state_graph = resolver.scaffold("StateGraph", "graphnb", "StateGraph", graphnb.StateGraph)
    ends = {endpoint for edge in spec.edges for endpoint in (edge.source, edge.target)}
    markers = {
        marker: resolver.scaffold(marker.strip("_").upper(), "graphnb", name, marker)
        for marker, name in ((START, "START"), (END, "END"))
        if marker in ends or marker in parts.routers
    }
    run_cli = resolver.scaffold("run_cli", "graphnb.export", "run_cli", _run_cli())
    build_name = resolver.fresh("build_graph")
    graph_name = resolver.fresh("graph")
    main_name = resolver.fresh("main")
    builder = _builder(
        spec,
        parts,
        state=state,
        nodes=nodes,
        routers=routers,
        reducers=reducers,
        state_graph=state_graph,
        markers=markers,
        name=build_name,
    )
    main = (
        f"{graph_name} = {build_name}().compile()\n\n\n"
        f"def {main_name}(argv: list[str] | None = None) -> int:\n"
        f'    """Run the graph from the command line (``--help`` lists the options)."""\n'
        f"    return {run_cli}({graph_name}, argv)\n\n\n"
        f'if __name__ == "__main__":\n'
        f"    raise SystemExit({main_name}())\n"
    )
    return ExportedCode(
        name=spec.name,
        future=resolver.future_annotations,
        imports=dict(resolver.imports),
        definitions=tuple(resolver.definitions),
        state=state or "dict",
        builder=builder,
        build_name=build_name,
        graph_name=graph_name,
        main=main,
        run_cli=run_cli,
        example=_example_input(spec),
    )


def to_module(
    obj: Any,
    *,
    namespace: Mapping[str, Any] | None = None,
    ruff: bool | None = None,
    filename: str | None = None,
) -> str:
    """Export a graph as the source of a standalone Python module.

    Args:
        obj: a StateGraph, CompiledGraph, GraphSpec, or an object with a ``spec`` (the
            widget's builder) and a ``namespace`` or ``callables`` mapping.
        namespace: where the graph's notebook names live, when ``obj`` does not say.
        ruff: format the module with ruff; ``None`` formats it when ruff is installed.
            The module is valid and readable without it.
        filename: the file's name, for the example command in the module's docstring.

    Returns:
        The module's text; the same graph (and filename) always gives the same text.

    Raises:
        ExportError: listing every callable or name that cannot be exported, and why.

    Example:
        >>> from graphnb.cli.demo import build
        >>> text = to_module(build(), ruff=False)
        >>> print(text.splitlines()[0])
        \"\"\"The graph 'demo', exported by graphnb.
        >>> "from graphnb.cli.demo import DemoState, outline, write" in text
        True
    """
    code = export_code(obj, namespace=namespace)
    text = _module_text(code, filename)
    return format_source(text) if ruff is not False else text


def write_module(
    obj: Any,
    path: str | os.PathLike[str],
    *,
    namespace: Mapping[str, Any] | None = None,
    ruff: bool | None = None,
) -> Path:
    """Export a graph as a module and write it to ``path`` (UTF-8); returns the path."""
    target = Path(path)
    text = to_module(obj, namespace=namespace, ruff=ruff, filename=target.name)
    target.write_text(text, encoding="utf-8")
    return target


# -- layout ----------------------------------------------------------------------------


def _module_text(code: ExportedCode, filename: str | None) -> str:
    example = _docstring_text(json.dumps(code.example, ensure_ascii=False), quote=False)
    program = _docstring_text(shlex.quote(filename or "this_file.py"), quote=False)
    command = f"python {program} --input '{example}'"
    if "'" in example:
        command = f"python {program} --input-file input.json"
    docstring = (
        f'"""The graph {_docstring_text(repr(code.name))}, exported by graphnb.\n\n'
        "Run it from a terminal, with the input state as JSON:\n\n"
        f"    {command}\n\n"
        f"or import it and call ``{code.graph_name}.invoke({{...}})``.\n"
        '"""\n'
    )
    blocks = [docstring]
    if code.future:
        blocks.append("from __future__ import annotations\n")
    blocks.append(code.import_block())
    body = [definition.text.rstrip() + "\n" for definition in code.definitions]
    body.append(code.builder)
    body.append(code.main)
    return "\n".join(blocks) + "\n\n" + "\n\n".join(body)


def _docstring_text(text: str, *, quote: bool = True) -> str:
    """``text`` made safe inside a triple-quoted docstring (backslashes, quotes)."""
    text = text.replace("\\", "\\\\")
    return text.replace('"', '\\"') if quote else text.replace('"""', '\\"\\"\\"')


_SAMPLES: dict[str, Any] = {"str": "...", "int": 1, "float": 1.0, "bool": True}


def _example_input(spec: GraphSpec) -> dict[str, Any]:
    """A small input for the docstring's example: required fields, else the first one."""
    fields = [f for f in spec.state.fields if f.required] or spec.state.fields[:1]
    example: dict[str, Any] = {}
    for field in fields:
        base = field.type.partition("[")[0].split(" ")[0]
        example[field.alias or field.name] = _SAMPLES.get(
            base, [] if base == "list" else {} if base == "dict" else None
        )
    return example


def _state_expression(parts: GraphParts, resolver: Resolver) -> str | None:
    if parts.state_type is dict:
        return "dict"
    return resolver.reference(parts.state_type, "state")


def _reducer_expression(reducer: Reducer, key: str, resolver: Resolver) -> str | None:
    for builtin in (replace, append, add, merge):
        if reducer is builtin:
            return resolver.scaffold(builtin.name, "graphnb", builtin.name, builtin)
    merge_fn = getattr(reducer, "_merge", reducer)
    return resolver.reference(merge_fn, f"reducer of {key!r}")


def _builder(
    spec: GraphSpec,
    parts: GraphParts,
    *,
    state: str | None,
    nodes: Mapping[str, str | None],
    routers: Mapping[str, str | None],
    reducers: Mapping[str, str | None],
    state_graph: str,
    markers: Mapping[str, str],
    name: str,
) -> str:
    def endpoint(node: str) -> str:
        return markers.get(node) or _string(node)

    arguments = [state or "dict"]
    if reducers:
        items = ", ".join(f"{_string(key)}: {value}" for key, value in reducers.items())
        arguments.append(f"reducers={{{items}}}")
    if parts.streaming:
        arguments.append(f"streaming={_string(parts.streaming)}")
    arguments.append(f"name={_string(spec.name)}")
    lines = [
        f"def {name}() -> {state_graph}[{state or 'dict'}]:",
        f'    """Build the graph {_docstring_text(repr(spec.name))} as it was drawn."""',
        _call(f"    graph = {state_graph}", arguments),
    ]
    for node in spec.nodes:
        call = [_string(node.id), nodes[node.id] or "None"]
        if node.label is not None:
            call.append(f"label={_string(node.label)}")
        if node.position is not None:
            call.append(f"position=({_float(node.position.x)}, {_float(node.position.y)})")
        lines.append(_call("    graph.add_node", call))
    joined: set[str] = set()
    routed: set[str] = set()
    for edge in spec.edges:
        if edge.kind == "direct":
            lines.append(
                _call("    graph.add_edge", [endpoint(edge.source), endpoint(edge.target)])
            )
        elif edge.kind == "join" and edge.target not in joined:
            joined.add(edge.target)
            sources = [e.source for e in spec.edges if e.kind == "join" and e.target == edge.target]
            listed = ", ".join(endpoint(source) for source in sources)
            lines.append(_call("    graph.add_edge", [f"[{listed}]", endpoint(edge.target)]))
        elif edge.kind == "conditional" and edge.source not in routed:
            routed.add(edge.source)
            lines.append(_conditional(edge, spec.edges, routers, endpoint))
    lines.append("    return graph\n")
    return "\n".join(lines)


def _conditional(
    first: EdgeSpec, edges: list[EdgeSpec], routers: Mapping[str, str | None], endpoint: Any
) -> str:
    routes = [e for e in edges if e.kind == "conditional" and e.source == first.source]
    router = routers.get(first.source) or "None"
    if all((e.route or e.target) == e.target for e in routes):
        mapping = "[" + ", ".join(endpoint(e.target) for e in routes) + "]"
    else:
        mapping = (
            "{"
            + ", ".join(f"{_string(e.route or e.target)}: {endpoint(e.target)}" for e in routes)
            + "}"
        )
    return _call("    graph.add_conditional_edges", [endpoint(first.source), router, mapping])


def _call(head: str, arguments: list[str], width: int = 88) -> str:
    """A call laid out as ruff's formatter would: one line, else arguments indented."""
    line = f"{head}({', '.join(arguments)})"
    if len(line) <= width:
        return line
    indent = " " * (len(head) - len(head.lstrip()) + 4)
    inner = indent + ", ".join(arguments)
    if len(inner) <= width:
        return f"{head}(\n{inner}\n{indent[4:]})"
    return f"{head}(\n" + "".join(f"{indent}{a},\n" for a in arguments) + f"{indent[4:]})"


def _string(text: str) -> str:
    """A string literal, double-quoted as formatters write it when that needs no escapes.

    >>> print(_string("it's"), _string('say "hi"'), _string("class"))
    "it's" 'say "hi"' "class"
    """
    literal = repr(text)
    if literal.startswith('"') or '"' in text:
        return literal
    return '"' + literal[1:-1].replace("\\'", "'") + '"'


def _float(value: float) -> str:
    text = repr(float(value))
    return text if text not in ("inf", "-inf", "nan") else f'float("{text}")'


def _import_block(imports: Mapping[str, tuple[str, str | None]]) -> str:
    """Imports grouped and sorted as isort (and ruff's ``I`` rules) lay them out."""
    plain: dict[str, set[str]] = {}
    members: dict[str, set[str]] = {}
    for local, (module, attribute) in imports.items():
        if attribute is None:
            plain.setdefault(module, set()).add(module)
        elif attribute == "":
            plain.setdefault(module, set()).add(f"{module} as {local}")
        else:
            member = attribute if attribute == local else f"{attribute} as {local}"
            members.setdefault(module, set()).add(member)
    sections: dict[int, list[str]] = {0: [], 1: []}
    for module in sorted(plain, key=str.lower):
        for line in sorted(plain[module]):
            sections[_section(module)].append(f"import {line}")
    for module in sorted(members, key=str.lower):
        names = sorted(members[module], key=_member_key)
        line = f"from {module} import {', '.join(names)}"
        if len(line) > 88:
            line = f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"
        sections[_section(module)].append(line)
    ordered = [_sort_section(lines) for lines in sections.values() if lines]
    return "\n\n".join("\n".join(lines) for lines in ordered) + "\n"


def _sort_section(lines: list[str]) -> list[str]:
    plain = [line for line in lines if line.startswith("import ")]
    froms = [line for line in lines if line.startswith("from ")]
    return plain + froms


def _section(module: str) -> int:
    return 0 if module.partition(".")[0] in _STDLIB else 1


def _member_key(name: str) -> tuple[int, str]:
    bare = name.split(" ")[0]
    if len(bare) > 1 and bare.isupper():
        return (0, bare.lower())
    if bare[:1].isupper():
        return (1, bare.lower())
    return (2, bare.lower())


def _run_cli() -> Any:
    from .script import run_cli

    return run_cli


# -- formatting ------------------------------------------------------------------------


def _ruff_binary() -> str | None:
    found = shutil.which("ruff")
    if found:
        return found
    candidate = Path(sysconfig.get_path("scripts")) / "ruff"
    return str(candidate) if candidate.exists() else None


def format_source(text: str, *, sort_imports: bool = True) -> str:
    """Sort imports and format ``text`` with ruff when it is installed; else return it as is.

    Ruff runs isolated from any project configuration, so the result does not depend on
    the directory the export is made in.
    """
    ruff = _ruff_binary()
    if ruff is None:
        return text
    commands = [["format", "--isolated", "--quiet"]]
    if sort_imports:
        commands.insert(
            0, ["check", "--isolated", "--select", "I", "--fix", "--exit-zero", "--quiet"]
        )
    for command in commands:
        done = subprocess.run(
            [ruff, *command, "--stdin-filename", "graph.py", "-"],
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        if done.returncode != 0 or not done.stdout:
            return text
        text = done.stdout
    return text
