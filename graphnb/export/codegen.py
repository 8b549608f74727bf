"""Writing the generated parts of an export: the builder function, literals, imports.

Everything here lays code out the way ruff's formatter and isort would, so an export is
formatted even where ruff is not installed.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from ..spec import EdgeSpec, GraphSpec
from .parts import GraphParts

__all__ = [
    "builder_function",
    "call_text",
    "docstring_text",
    "example_input",
    "import_block",
    "string_literal",
]

_STDLIB = frozenset(sys.stdlib_module_names)


def docstring_text(text: str, *, quote: bool = True) -> str:
    """``text`` made safe inside a triple-quoted docstring (backslashes, quotes)."""
    text = text.replace("\\", "\\\\")
    return text.replace('"', '\\"') if quote else text.replace('"""', '\\"\\"\\"')


_SAMPLES: dict[str, Any] = {"str": "...", "int": 1, "float": 1.0, "bool": True}


def example_input(spec: GraphSpec) -> dict[str, Any]:
    """A small input for the docstring's example: required fields, else the first one."""
    fields = [f for f in spec.state.fields if f.required] or spec.state.fields[:1]
    example: dict[str, Any] = {}
    for field in fields:
        base = field.type.partition("[")[0].split(" ")[0]
        example[field.alias or field.name] = _SAMPLES.get(
            base, [] if base == "list" else {} if base == "dict" else None
        )
    return example


def builder_function(
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
    local: str = "graph",
) -> str:
    """The ``build_graph()`` function replaying the graph's construction.

    Args:
        spec: the graph.
        parts: its state options (``reducers=``, ``streaming=``).
        state: the state model's expression.
        nodes: each node's callable expression.
        routers: each router's callable expression, by source.
        reducers: each extra reducer's expression, by key.
        state_graph: the name ``StateGraph`` is bound to.
        markers: the names START and END are bound to.
        name: the function's name.
        local: the builder's variable in the function; it must not be a name the
            callables' expressions use, which it would shadow.
    """

    def endpoint(node: str) -> str:
        return markers.get(node) or string_literal(node)

    arguments = [state or "dict"]
    if reducers:
        items = ", ".join(f"{string_literal(key)}: {value}" for key, value in reducers.items())
        arguments.append(f"reducers={{{items}}}")
    if parts.streaming:
        arguments.append(f"streaming={string_literal(parts.streaming)}")
    arguments.append(f"name={string_literal(spec.name)}")
    lines = [
        f"def {name}() -> {state_graph}[{state or 'dict'}]:",
        f'    """Build the graph {docstring_text(repr(spec.name))} as it was drawn."""',
        call_text(f"    {local} = {state_graph}", arguments),
    ]
    for node in spec.nodes:
        call = [string_literal(node.id), nodes[node.id] or "None"]
        if node.label is not None:
            call.append(f"label={string_literal(node.label)}")
        if node.position is not None:
            call.append(f"position=({_float(node.position.x)}, {_float(node.position.y)})")
        lines.append(call_text(f"    {local}.add_node", call))
    joined: set[str] = set()
    routed: set[str] = set()
    for edge in spec.edges:
        if edge.kind == "direct":
            lines.append(
                call_text(f"    {local}.add_edge", [endpoint(edge.source), endpoint(edge.target)])
            )
        elif edge.kind == "join" and edge.target not in joined:
            joined.add(edge.target)
            sources = [e.source for e in spec.edges if e.kind == "join" and e.target == edge.target]
            listed = ", ".join(endpoint(source) for source in sources)
            lines.append(call_text(f"    {local}.add_edge", [f"[{listed}]", endpoint(edge.target)]))
        elif edge.kind == "conditional" and edge.source not in routed:
            routed.add(edge.source)
            lines.append(_conditional(edge, spec.edges, routers, endpoint, local))
    lines.append(f"    return {local}\n")
    return "\n".join(lines)


def _conditional(
    first: EdgeSpec,
    edges: list[EdgeSpec],
    routers: Mapping[str, str | None],
    endpoint: Any,
    local: str,
) -> str:
    routes = [e for e in edges if e.kind == "conditional" and e.source == first.source]
    router = routers.get(first.source) or "None"
    if all((e.route or e.target) == e.target for e in routes):
        mapping = "[" + ", ".join(endpoint(e.target) for e in routes) + "]"
    else:
        mapping = (
            "{"
            + ", ".join(
                f"{string_literal(e.route or e.target)}: {endpoint(e.target)}" for e in routes
            )
            + "}"
        )
    return call_text(
        f"    {local}.add_conditional_edges", [endpoint(first.source), router, mapping]
    )


def call_text(head: str, arguments: list[str], width: int = 88) -> str:
    """A call laid out as ruff's formatter would: one line, else arguments indented."""
    line = f"{head}({', '.join(arguments)})"
    if len(line) <= width:
        return line
    indent = " " * (len(head) - len(head.lstrip()) + 4)
    inner = indent + ", ".join(arguments)
    if len(inner) <= width:
        return f"{head}(\n{inner}\n{indent[4:]})"
    return f"{head}(\n" + "".join(f"{indent}{a},\n" for a in arguments) + f"{indent[4:]})"


def string_literal(text: str) -> str:
    """A string literal, double-quoted as formatters write it when that needs no escapes.

    >>> print(string_literal("it's"), string_literal('say "hi"'), string_literal("class"))
    "it's" 'say "hi"' "class"
    """
    literal = repr(text)
    if literal.startswith('"') or '"' in text:
        return literal
    return '"' + literal[1:-1].replace("\\'", "'") + '"'


def _float(value: float) -> str:
    text = repr(float(value))
    return text if text not in ("inf", "-inf", "nan") else f'float("{text}")'


def import_block(imports: Mapping[str, tuple[str, str | None]]) -> str:
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
