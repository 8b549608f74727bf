"""The front end's modules (widgets/src) import each other without a cycle.

Issue 28: `GroupNode.tsx` and `nodes.tsx` imported each other. Every relative import
counts, type-only and dynamic ones too: a cycle hidden behind `import type` or `import()`
is still a cycle for a reader.
"""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx

SRC = Path(__file__).resolve().parents[2] / "widgets" / "src"
IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}/[^"']+)["']""")


def _resolve(module: Path, target: str) -> Path | None:
    base = (module.parent / target).resolve()
    for candidate in (base, *(base.with_name(base.name + ext) for ext in (".ts", ".tsx"))):
        if candidate.is_file():
            return candidate
    for index in ("index.ts", "index.tsx"):
        if (base / index).is_file():
            return base / index
    return None


def _import_graph() -> nx.DiGraph[str]:
    graph: nx.DiGraph[str] = nx.DiGraph()
    for module in sorted([*SRC.rglob("*.ts"), *SRC.rglob("*.tsx")]):
        name = str(module.relative_to(SRC))
        graph.add_node(name)
        for target in IMPORT.findall(module.read_text(encoding="utf-8")):
            resolved = _resolve(module, target)
            if resolved is not None and resolved.is_relative_to(SRC):
                graph.add_edge(name, str(resolved.relative_to(SRC)))
    return graph


def test_the_import_graph_is_read() -> None:
    graph = _import_graph()
    assert graph.has_edge("GroupNode.tsx", "canvasContext.ts")
    assert graph.number_of_edges() > 50


def test_no_module_of_the_front_end_imports_itself_back() -> None:
    cycles = sorted(sorted(c) for c in nx.simple_cycles(_import_graph()))
    assert cycles == [], f"import cycles in widgets/src: {cycles}"
