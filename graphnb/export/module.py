"""Export a graph as a standalone Python module.

The module holds the state model, the node and router callables' source, the imports they
need, a ``build_graph()`` function replaying the graph's construction (labels, positions
and routes kept), ``graph = build_graph().compile()`` and a ``main()`` that runs it from
the command line. It is standalone from the notebook, not from graphnb: it imports
graphnb's core (``pip install graphnb``, no extras) and nothing else of the session, no
notebook, no widget, no pickles.

A graph that can stop for a human (a node calling ``interrupt()``, or
``interrupt_before``/``interrupt_after``) needs a thread to stop on: its module compiles
with an in-memory checkpointer, and its command line keeps each run as a thread in a
SQLite file beside the working directory unless ``--db`` names another place, so the
command in its docstring runs and the command it prints to answer goes on.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..binding import resolve
from ..engine.policy import CachePolicy, RetryPolicy, is_unnamed
from ..graph import StateGraph
from ..reducers import Reducer, add, append, merge, replace
from ..spec import END, START, GraphSpec
from .codegen import (
    builder_function,
    call_text,
    destinations_argument,
    docstring_text,
    example_input,
    import_block,
    printable,
    schema_arguments,
    string_literal,
)
from .errors import ExportError, ExportProblem
from .formatting import format_source
from .parts import GraphParts, child_graph_of, graph_parts, identifier
from .resolver import Definition, Resolver

__all__ = ["ExportedCode", "export_code", "to_module", "write_module"]


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
        interrupts: the graph can stop for a human (``interrupt()`` in a callable, or
            ``interrupt_before``/``interrupt_after``), so it runs on a thread.
        threads: for such a graph, the ``--db`` its command line uses when given none.
        compile_line: ``graph = build_graph().compile(...)`` with the graph's options.
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
    interrupts: bool = False
    threads: str = ""
    compile_line: str = ""

    def import_block(self, *, module: bool = True) -> str:
        """The import statements; without ``run_cli`` (only ``main()`` uses it) for notebooks."""
        imports = dict(self.imports)
        if not module:
            imports.pop(self.run_cli, None)
        return import_block(imports)


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
    children: list[str] = []
    build_name, graph_name, builder, state = _builder(obj, parts, resolver, namespace, children)
    if resolver.problems:
        raise ExportError(resolver.problems, graph=spec.name)
    builder = "\n\n\n".join([*children, builder])  # child graphs are built first
    run_cli = resolver.scaffold("run_cli", "graphnb.export", "run_cli", _run_cli())
    main_name = resolver.fresh("main")
    options = [
        f"{key}=[{', '.join(map(string_literal, value))}]"
        if isinstance(value, list)
        else f"{key}={value!r}"
        for key, value in parts.compile_options.items()
    ]
    interrupts = _can_interrupt(parts, resolver)
    threads = ""
    cli_options = ""
    if interrupts:
        # interrupt() needs a thread: in memory for a caller of graph.invoke, in a file
        # for the command line, whose every run is a new process.
        options.append('checkpointer="memory://"')
        threads = f"sqlite:///{_file_stem(spec.name)}-threads.db"
        cli_options = f", db={string_literal(threads)}"
    compile_line = call_text(f"{graph_name} = {build_name}().compile", options)
    main = (
        compile_line + "\n\n\n"
        f"def {main_name}(argv: list[str] | None = None) -> int:\n"
        f'    """Run the graph from the command line (``--help`` lists the options)."""\n'
        f"    return {run_cli}({graph_name}, argv{cli_options})\n\n\n"
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
        example=example_input(spec),
        interrupts=interrupts,
        threads=threads,
        compile_line=compile_line,
    )


_INTERRUPT_CALL = re.compile(r"\binterrupt\s*\(")


def _can_interrupt(parts: GraphParts, resolver: Resolver) -> bool:
    """Whether a run may stop for a human: an ``interrupt(`` call or a compile option.

    Read from the exported text, so a callable that imports ``interrupt`` inside its body
    counts; a false alarm only makes runs keep a thread.
    """
    if parts.compile_options.get("interrupt_before") or parts.compile_options.get(
        "interrupt_after"
    ):
        return True
    if any(attribute == "interrupt" for _, attribute in resolver.imports.values()):
        return True
    return any(_INTERRUPT_CALL.search(d.text) for d in resolver.definitions)


def _file_stem(name: str) -> str:
    """A file name made of the graph's name (letters, digits, ``-`` and ``_``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:60] or "graph"


def _builder(
    obj: Any,
    parts: GraphParts,
    resolver: Resolver,
    namespace: Mapping[str, Any] | None,
    children: list[str],
    prefix: str = "",
) -> tuple[str, str, str, str | None]:
    """The ``build_...()`` function of one graph: ``(name, local, source, state)``.

    A subgraph node's child gets its own builder first (appended to ``children``), and
    the node is added as ``add_node(name, build_child(), inputs=..., outputs=...)``.
    """
    spec = parts.spec
    state = _state_expression(parts, resolver)
    nodes: dict[str, str | None] = {}
    extra: dict[str, list[str]] = {}
    for node in spec.nodes:
        fn = parts.callables.get(node.id)
        if node.subgraph is not None:
            child = child_graph_of(obj, node.id, node.subgraph)
            child_parts = graph_parts(child, namespace)
            child_name, _, child_source, _ = _builder(
                child, child_parts, resolver, namespace, children, f"{prefix}{node.id}_"
            )
            children.append(child_source)
            nodes[node.id] = f"{child_name}()"
            extra[node.id] = [
                f"{name}={value!r}"
                for name in ("inputs", "outputs", "writes")
                if (value := getattr(node, name)) is not None
            ]
            continue
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
        return "", "", "", state
    state_graph = resolver.scaffold("StateGraph", "graphnb", "StateGraph", StateGraph)
    ends = {endpoint for edge in spec.edges for endpoint in (edge.source, edge.target)}
    markers = {
        marker: resolver.scaffold(marker.strip("_").upper(), "graphnb", name, marker)
        for marker, name in ((START, "START"), (END, "END"))
        if marker in ends or marker in parts.routers
    }
    policies = _policy_arguments(spec, resolver, _retry_predicates(obj))
    for node_id, arguments in extra.items():
        policies.setdefault(node_id, []).extend(arguments)
    schemas = schema_arguments(obj, spec, namespace, resolver.reference)
    build_name = resolver.fresh(f"build_{identifier(prefix)}graph")
    local = resolver.fresh(f"{identifier(prefix)}graph")
    builder = builder_function(
        spec,
        parts,
        state=state,
        nodes=nodes,
        routers=routers,
        reducers=reducers,
        state_graph=state_graph,
        markers=markers,
        policies=policies,
        schemas=schemas,
        name=build_name,
        # No definition or import has the compiled graph's name; inside the function it
        # may shadow only that global, which the function does not read.
        local=local,
    )
    return build_name, local, builder, state


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
    replace_text(target, text)
    return target


def replace_text(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` (UTF-8) at once: a reader sees the old file or the new.

    Written beside it under a name of its own, then moved over it; an existing file keeps
    its permissions. Writing in place would leave an empty or half-written file for a
    moment, and for good if the process died then.
    """
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8") as file:
            file.write(text)
        if target.exists():
            os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# -- layout ----------------------------------------------------------------------------


def _module_text(code: ExportedCode, filename: str | None) -> str:
    # A file name that is not UTF-8 (a lone surrogate) is shown by its escapes, which
    # the docstring can hold.
    example = docstring_text(printable(json.dumps(code.example, ensure_ascii=False)), quote=False)
    program = docstring_text(printable(shlex.quote(filename or "this_file.py")), quote=False)
    command = f"python {program} --input '{example}'"
    if "'" in example:
        command = f"python {program} --input-file input.json"
    call = f"``{code.graph_name}.invoke({{...}})``"
    human = ""
    if code.interrupts:
        call = f'``{code.graph_name}.invoke({{...}}, thread_id="...")``'
        threads = docstring_text(code.threads, quote=False)
        human = (
            "The graph can stop for a human (interrupt): each run from the terminal is kept\n"
            f"as a thread in {threads} (--db URL for another place), and a\n"
            "run that stops prints the command that answers it and goes on\n"
            "(--thread ID --db URL --resume JSON).\n\n"
        )
    docstring = (
        f'"""The graph {docstring_text(repr(code.name))}, exported by graphnb.\n\n'
        "Run it from a terminal, with the input state as JSON:\n\n"
        f"    {command}\n\n"
        f"or import it and call {call}.\n\n"
        f"{human}"
        "It needs graphnb's core (pip install graphnb, no extras) and what the code below\n"
        "imports; nothing of the notebook or session it was exported from.\n"
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


def _run_cli() -> Any:
    from .script import run_cli

    return run_cli


def _retry_predicates(obj: Any) -> dict[str, Any]:
    """The ``retry_on`` of each node of a graph given in code (what a spec cannot name)."""
    found: dict[str, Any] = {}
    policies = getattr(obj, "policies", None)
    if isinstance(policies, Mapping):  # a StateGraph
        found = {name: retry.retry_on for name, (retry, _, _) in policies.items() if retry}
    elif isinstance(getattr(obj, "nodes", None), Mapping):  # a compiled graph: its wrappers
        for name, node in obj.nodes.items():
            retry = getattr(getattr(node, "fn", None), "graphnb_retry", None)
            if retry is not None:
                found[name] = retry.retry_on
    return found


def _retry_on_name(
    binding: str, node: str, resolver: Resolver, predicates: Mapping[str, Any]
) -> str | None:
    """The expression for one ``retry_on`` entry (``None`` after noting a problem)."""
    import builtins

    who = f"retry_on of {node!r}"
    if isinstance(getattr(builtins, binding, None), type):
        return binding
    if is_unnamed(binding):
        predicate = predicates.get(node)
        if callable(predicate) and not isinstance(predicate, (type, tuple)):
            return resolver.reference(predicate, who)  # its source, or a problem saying why
        resolver.problems.append(
            ExportProblem(
                f"the retry policy of node {node!r}",
                f"it retries on {binding}, a lambda or a closure that no module can import; "
                "define the predicate as a module-level function and pass that",
            )
        )
        return None
    return resolver.reference(resolve(binding), who)


def _policy_arguments(
    spec: GraphSpec, resolver: Resolver, predicates: Mapping[str, Any]
) -> dict[str, list[str]]:
    """``retry=RetryPolicy(...)``, ``timeout=...``, ``cache=...``, ``destinations=...`` per node."""
    out: dict[str, list[str]] = {}
    for node in spec.nodes:
        arguments = []
        if node.retry is not None:
            retry = resolver.scaffold("RetryPolicy", "graphnb", "RetryPolicy", RetryPolicy)
            fields = node.retry.model_dump(exclude_defaults=True, exclude={"retry_on"})
            items = [f"{key}={value!r}" for key, value in fields.items()]
            if node.retry.retry_on is not None:
                names = [
                    _retry_on_name(binding, node.id, resolver, predicates)
                    for binding in node.retry.retry_on
                ]
                listed = ", ".join(str(name) for name in names)
                items.append(f"retry_on={names[0]}" if len(names) == 1 else f"retry_on=({listed},)")
            arguments.append(f"retry={retry}({', '.join(items)})")
        if node.timeout is not None:
            arguments.append(f"timeout={node.timeout!r}")
        if node.cache is not None:
            cache = resolver.scaffold("CachePolicy", "graphnb", "CachePolicy", CachePolicy)
            fields = node.cache.model_dump(exclude_defaults=True)
            if "fields" in fields:
                fields["fields"] = tuple(fields["fields"])
            items = [f"{key}={value!r}" for key, value in fields.items()]
            arguments.append(f"cache={cache}({', '.join(items)})")
        if node.destinations is not None:
            arguments.append(destinations_argument(node.destinations))
        if node.defer:
            arguments.append("defer=True")
        if node.input_schema is not None:
            who = f"input_schema of {node.id!r}"
            arguments.append(f"input_schema={resolver.reference(resolve(node.input_schema), who)}")
        if arguments:
            out[node.id] = arguments
    return out
