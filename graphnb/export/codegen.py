"""Writing the generated parts of an export: the builder function, literals, imports.

Everything here lays code out the way ruff's formatter and isort would, so an export is
formatted even where ruff is not installed.
"""

from __future__ import annotations

import ast
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..binding import resolve
from ..spec import EdgeSpec, GraphSpec
from .parts import GraphParts

__all__ = [
    "builder_function",
    "call_text",
    "context_schema_of",
    "schema_arguments",
    "schema_of",
    "destinations_argument",
    "docstring_text",
    "example_input",
    "import_block",
    "call_openers",
    "join_call",
    "printable",
    "python_literal",
    "string_literal",
    "UnwritableValue",
]

_STDLIB = frozenset(sys.stdlib_module_names)


def printable(text: str) -> str:
    r"""``text`` with each character that is not printable written as its escape.

    >>> print(printable("a\nb\x1b[31m\ud800"))
    a\nb\x1b[31m\ud800
    """
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


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
    policies: Mapping[str, list[str]] | None = None,
    schemas: Sequence[str] = (),
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
        policies: each node's policy arguments (``retry=RetryPolicy(...)`` ...).
        schemas: ``context_schema=...``, ``input_schema=...`` ... arguments of StateGraph.
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
    arguments.extend(schemas)
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
        call.extend((policies or {}).get(node.id, ()))  # retry=..., timeout=..., cache=...
        call.extend(_kept_data(node.metadata))
        lines.append(call_text(f"    {local}.add_node", call))
    for edge in call_openers(spec.edges):
        if edge.kind == "direct":
            call = [endpoint(edge.source), endpoint(edge.target), *_kept_data(edge.metadata)]
            if edge.label is not None:
                call.insert(2, f"label={string_literal(edge.label)}")
            lines.append(call_text(f"    {local}.add_edge", call))
        elif edge.kind == "join":
            lines.append(join_call(spec.edges, edge.target, endpoint, local))
        else:
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
    arguments = [endpoint(first.source), router, mapping]
    sends = [e.target for e in edges if e.kind == "send" and e.source == first.source]
    if sends:
        arguments.append("sends=[" + ", ".join(endpoint(target) for target in sends) + "]")
    return call_text(f"    {local}.add_conditional_edges", arguments)


def call_openers(edges: Sequence[EdgeSpec]) -> Iterator[EdgeSpec]:
    """The edge that opens each ``add_edge`` or ``add_conditional_edges`` call, in order.

    A direct edge is a call of its own; the join edges into one target make one call, and
    the conditional and send edges out of one source make another.
    """
    joined: set[str] = set()
    routed: set[str] = set()
    for edge in edges:
        if edge.kind == "join":
            if edge.target not in joined:
                joined.add(edge.target)
                yield edge
        elif edge.kind in ("conditional", "send"):
            if edge.source not in routed:
                routed.add(edge.source)
                yield edge
        else:
            yield edge


def join_call(edges: list[EdgeSpec], target: str, endpoint: Any, local: str) -> str:
    """``local.add_edge([...], target)``: every ``join`` edge into ``target`` as one call."""
    sources = [e.source for e in edges if e.kind == "join" and e.target == target]
    listed = ", ".join(endpoint(source) for source in sources)
    return call_text(f"    {local}.add_edge", [f"[{listed}]", endpoint(target)])


def _kept_data(metadata: Mapping[str, Any]) -> list[str]:
    """``metadata={...}`` for a node's or edge's free JSON data, or nothing when empty."""
    if not metadata:
        return []
    text = python_literal(dict(metadata))
    assert text is not None, "spec metadata is JSON, and JSON is a Python literal"
    return [f"metadata={text}"]


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


class UnwritableValue(ValueError):
    """A value of a literal type that cannot be written as Python source; says why."""


_SCALARS = (bool, int, str, bytes, type(None))
_MAX_DEPTH = 20


def python_literal(value: Any) -> str | None:
    """Python source for a literal constant; ``None`` when ``value`` is not one.

    Literals are ``None``, booleans, numbers (finite floats), strings, bytes, and lists,
    tuples, sets and dicts of literals. Sets are written sorted, so the same value gives
    the same text whatever the hash seed; dicts keep their order.

    >>> print(python_literal({"flag": True, "x": None, "tags": {"b", "a"}}))
    {'flag': True, 'x': None, 'tags': {'a', 'b'}}

    Raises:
        UnwritableValue: ``value`` is literal but Python cannot read it back from
            source (an int longer than the interpreter's digit limit).
    """
    try:
        text = _literal_text(value, 0)
    except _NotLiteral:
        return None
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        same = False
    return text if same else None


class _NotLiteral(Exception):
    pass


def _literal_text(value: Any, depth: int) -> str:
    if depth > _MAX_DEPTH:
        raise _NotLiteral
    kind = type(value)
    if kind is int:
        return _int_text(value)
    if kind in _SCALARS:
        return repr(value)
    if kind is float:
        if not math.isfinite(value):
            raise _NotLiteral
        return repr(value)
    if kind is list:
        return "[" + ", ".join(_literal_text(item, depth + 1) for item in value) + "]"
    if kind is tuple:
        items = [_literal_text(item, depth + 1) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if kind is set:
        if not value:
            return "set()"
        items = [_literal_text(item, depth + 1) for item in _sorted(value)]
        return "{" + ", ".join(items) + "}"
    if kind is dict:
        pairs = (
            f"{_literal_text(k, depth + 1)}: {_literal_text(v, depth + 1)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(pairs) + "}"
    raise _NotLiteral


def _sorted(items: set[Any]) -> list[Any]:
    """A set's items in an order that does not depend on hashing."""
    try:
        return sorted(items)
    except TypeError:  # items of types that do not compare (1 and "a")
        return sorted(items, key=lambda item: (type(item).__name__, _literal_text(item, 0)))


def _int_text(value: int) -> str:
    try:
        return repr(value)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        digits = int(value.bit_length() * math.log10(2)) + 1
        raise UnwritableValue(
            f"an int of about {digits} digits, more than Python reads back from source "
            f"(sys.get_int_max_str_digits() is {sys.get_int_max_str_digits()}); compute it "
            "in the code instead (for example 10**5000)"
        ) from None


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


def destinations_argument(destinations: Mapping[str, str | None]) -> str:
    """``destinations=(...)`` (names) or ``destinations={...}`` (labels), as both libraries take."""
    if any(label is not None for label in destinations.values()):
        labelled = {target: label or target for target, label in destinations.items()}
        return f"destinations={labelled!r}"
    return f"destinations={tuple(destinations)!r}"


def context_schema_of(
    obj: Any, spec: GraphSpec, namespace: Mapping[str, Any] | None
) -> type[Any] | None:
    """The run context's type of a graph: the live class, or its spec binding resolved."""
    return schema_of(obj, spec, namespace, "context_schema")


def schema_of(
    obj: Any, spec: GraphSpec, namespace: Mapping[str, Any] | None, which: str
) -> type[Any] | None:
    """A graph's ``context_schema``, ``input_schema`` or ``output_schema`` class, if any."""
    found = getattr(obj, which, None)
    if isinstance(found, type):
        return found
    binding = getattr(spec, which)
    if binding:
        resolved = resolve(binding, namespace)
        return resolved if isinstance(resolved, type) else None
    return None


def schema_arguments(
    obj: Any,
    spec: GraphSpec,
    namespace: Mapping[str, Any] | None,
    reference: Any,
) -> list[str]:
    """``context_schema=...``, ``input_schema=...``, ``output_schema=...`` for StateGraph(...).

    ``reference(value, who)`` names a class in the generated code (a resolver's).
    """
    arguments = []
    for which in ("context_schema", "input_schema", "output_schema"):
        found = schema_of(obj, spec, namespace, which)
        if found is not None:
            arguments.append(f"{which}={reference(found, which)}")
    return arguments
