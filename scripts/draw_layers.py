"""Draw graphnb's packages and the imports between them as docs/architecture.svg.

graphnb draws itself: the import graph is read from the source (every ``import``, lazy
and type-only ones included, as import-linter counts them), grouped into the units of the
layers contract, reduced to the arrows no longer path implies, and rendered by
:func:`graphnb.diagram.to_svg`.

Usage: ``python scripts/draw_layers.py`` rewrites the SVG; ``--check`` exits with 1 when
the committed file is stale. tests/test_architecture.py runs the check.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from graphnb.diagram import to_svg
from graphnb.spec import EdgeSpec, GraphSpec, NodeSpec

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "graphnb"
TARGET = ROOT / "docs" / "architecture.svg"

DATA = (
    "spec",
    "draft",
    "state",
    "reducers",
    "errors",
    "binding",
    "schema",
    "validate",
    "records",
    "checkpoint_meta",
    "checkpoint_errors",
    "human",
    "version",
)
"""Bottom modules, drawn as one box: plain data and the state's rules."""
LABELS = {
    "data": "data: spec, state, records",
    "engine": "engine: every run",
    "checkpoint": "checkpoint: savers",
    "graph": "graph: StateGraph",
    "console": "console: run and print",
}


def unit(module: str) -> str | None:
    """The box ``module`` (a dotted name inside graphnb) is drawn in, if any."""
    parts = module.removesuffix(".__init__").split(".")
    if parts[0] != "graphnb" or len(parts) == 1 or parts[1] == "__main__":
        return None  # the façade and `python -m graphnb` sit above every layer
    return "data" if parts[1] in DATA else parts[1]


def imported(path: Path) -> set[str]:
    """The graphnb modules ``path`` imports, anywhere in its body."""
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    package = package.removesuffix(".__init__")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("graphnb")}


def package_imports() -> dict[str, set[str]]:
    """Each box and the boxes it imports."""
    edges: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = unit(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if source is None:
            continue
        targets = edges.setdefault(source, set())
        for name in imported(path):
            target = unit(name)
            if target is not None and target != source:
                targets.add(target)
    return edges


def reduced(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """``edges`` without the arrows a longer path already implies (the graph is acyclic)."""

    def reach(start: str, skip: str) -> set[str]:
        seen: set[str] = set()
        todo = [t for t in edges.get(start, ()) if t != skip]
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(edges.get(node, ()))
        return seen

    return {
        source: {target for target in targets if target not in reach(source, target)}
        for source, targets in edges.items()
    }


def layer_spec() -> GraphSpec:
    """The packages as a graph spec: a node per box, an edge per import kept."""
    edges = reduced(package_imports())
    names = sorted(set(edges) | {t for targets in edges.values() for t in targets})
    return GraphSpec(
        name="graphnb layers",
        nodes=[NodeSpec(id=name, label=LABELS.get(name)) for name in names],
        edges=[
            EdgeSpec(source=source, target=target)
            for source in names
            for target in sorted(edges.get(source, ()))
        ],
    )


def main(argv: list[str]) -> int:
    """Write the SVG, or with ``--check`` report whether the committed one is current."""
    svg = to_svg(layer_spec())
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != svg:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python scripts/draw_layers.py")
            return 1
        return 0
    TARGET.write_text(svg, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
