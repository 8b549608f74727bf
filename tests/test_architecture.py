"""The layers of docs/architecture.md hold, and the check that says so can fail."""

from __future__ import annotations

import ast
import os
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
# `lint-imports` itself, run by this interpreter (its console script may not be on PATH)
_LINT = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run ``lint-imports`` on the package under ``root``, with ``root``'s contracts."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", _LINT, "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def copy_of_the_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    shutil.copytree(
        ROOT / "graphnb", root / "graphnb", ignore=shutil.ignore_patterns("__pycache__", "static")
    )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_package_keeps_its_import_contracts() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def add_import(module: Path, line: str) -> str:
    before = module.read_text(encoding="utf-8")
    head, marker, rest = before.partition("from __future__ import annotations\n")
    assert marker, f"{module} has no __future__ import to add after"
    module.write_text(f"{head}{marker}\n{line}\n{rest}", encoding="utf-8")
    return before


@pytest.mark.parametrize(
    ("module", "line", "contract", "named"),
    [
        (
            "checkpoint/base.py",
            "import graphnb.engine.compiled",
            "Layers point one way",
            "graphnb.checkpoint.base -> graphnb.engine.compiled",
        ),
        (
            "engine/run.py",
            "import graphnb.checkpoint.sqlite",
            "Layers point one way",
            "graphnb.engine.run -> graphnb.checkpoint.sqlite",
        ),
        (
            "machine/machine.py",
            "import graphnb.export.errors",
            "Faces are independent",
            "graphnb.machine.machine -> graphnb.export.errors",
        ),
        (
            "diagram/model.py",
            "import graphnb.machine",
            "Layers point one way",
            "graphnb.diagram.model -> graphnb.machine",
        ),
        (
            "checkpoint/prune.py",
            "import graphnb",
            "The package facade is the top",
            "graphnb.checkpoint.prune -> graphnb",
        ),
        (
            "engine/node.py",
            "import networkx",
            "The core runs in a plain Python process",
            "graphnb.engine.node -> networkx",
        ),
    ],
)
def test_a_back_import_breaks_the_contract_that_forbids_it(
    copy_of_the_package: Path, module: str, line: str, contract: str, named: str
) -> None:
    path = copy_of_the_package / "graphnb" / module
    before = add_import(path, line)
    try:
        result = lint_imports(copy_of_the_package)
    finally:
        path.write_text(before, encoding="utf-8")
    assert result.returncode == 1, result.stdout + result.stderr
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken
    assert named in broken


def test_the_layer_picture_in_the_docs_is_current() -> None:
    """docs/architecture.svg is what scripts/draw_layers.py draws from today's imports."""
    drawing = runpy.run_path(str(ROOT / "scripts" / "draw_layers.py"))
    assert drawing["main"](["--check"]) == 0, "run: python scripts/draw_layers.py"
    layers = drawing["layer_spec"]()
    arrows = {(edge.source, edge.target) for edge in layers.edges}
    # the picture shows the layering the contracts enforce
    assert ("engine", "data") in arrows
    assert ("checkpoint", "data") in arrows
    assert not {("engine", "checkpoint"), ("checkpoint", "engine")} & arrows
    assert ("export", "console") in arrows
    # the command line reaches export directly, or through interop (which writes with it)
    assert ("cli", "export") in arrows or {("cli", "interop"), ("interop", "export")} <= arrows


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports() -> nx.DiGraph[str]:
    """Every graphnb module and the graphnb modules it imports, anywhere in its body.

    Deferred (function-level) and type-only imports count: an import moved into a function
    to dodge a cycle still makes the two modules need each other.
    """
    modules = {_module_name(path): path for path in (ROOT / "graphnb").rglob("*.py")}

    def module_of(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: nx.DiGraph[str] = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, node.module] if node.module else parts)
                for alias in node.names:  # `from . import x`: the submodule x, if it is one
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in modules else base)
            for target in targets:
                found = module_of(target) if target.startswith("graphnb") else None
                if found is not None and found != name:
                    graph.add_edge(name, found)
    return graph


def test_the_module_import_graph_is_read_with_deferred_imports() -> None:
    graph = module_imports()
    assert graph.has_edge("graphnb.engine.driver", "graphnb.records")
    # a function-level import: CompiledGraph.update_state imports editing when called
    assert graph.has_edge("graphnb.engine.compiled", "graphnb.engine.editing")
    assert graph.number_of_edges() > 300


def test_no_import_cycle_in_the_package() -> None:
    cycles = [
        sorted(group)
        for group in nx.strongly_connected_components(module_imports())
        if len(group) > 1
    ]
    assert cycles == [], "import cycles (deferred and type-only imports count)"


def test_the_cycle_check_sees_a_type_only_import_back_up() -> None:
    graph = module_imports()
    graph.add_edge("graphnb.engine.run", "graphnb.engine.compiled")  # as it once was
    assert any(len(group) > 1 for group in nx.strongly_connected_components(graph))


def test_the_architecture_page_names_every_module() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    package = ROOT / "graphnb"
    top = [
        f"`{path.name}`" if path.is_file() else f"`{path.name}/`"
        for path in package.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py")
        or (path.is_dir() and (path / "__init__.py").exists())
    ]
    inner = [
        f"`{path.name}`"
        for folder in ("engine", "checkpoint")
        for path in (package / folder).glob("*.py")
        if path.name != "__init__.py"
    ]
    missing = [name for name in [*top, *inner] if name not in text]
    assert missing == [], f"docs/architecture.md does not name {missing}"


def private_imports(package: Path) -> list[str]:
    """``from module import _name`` in ``package``: one module reaching into another."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names if a.name.startswith("_")]
                found += [
                    f"{path.relative_to(package.parent)}: {node.module}.{name}"
                    for name in names
                    if not name.startswith("__")
                ]
    return found


def test_no_module_imports_another_modules_private_names(tmp_path: Path) -> None:
    """What a module shares is public; a private name is its own to change."""
    assert private_imports(ROOT / "graphnb") == []
    reaching = tmp_path / "pkg"
    reaching.mkdir()
    (reaching / "a.py").write_text("from .b import _helper, public\n")
    assert private_imports(reaching) == ["pkg/a.py: b._helper"], "the check can fail"


def front_end_imports(source: Path) -> nx.DiGraph[str]:
    """The front end's modules (``widgets/src``) and the local modules each one imports."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    pattern = re.compile(r'^(?:import|export)[^;]*?from "(\.{1,2}/[^"]+)"', re.MULTILINE)
    for path in sorted([*source.rglob("*.ts"), *source.rglob("*.tsx")]):
        name = path.relative_to(source).as_posix()
        graph.add_node(name)
        for found in pattern.finditer(path.read_text(encoding="utf-8")):
            target = (path.parent / found[1]).resolve()
            # "./spec.generated" is spec.generated.ts: add the suffix, do not replace one
            for candidate in (Path(f"{target}.ts"), Path(f"{target}.tsx")):
                if candidate.is_file():
                    graph.add_edge(name, candidate.relative_to(source.resolve()).as_posix())
    return graph


def test_no_import_cycle_in_the_front_end(tmp_path: Path) -> None:
    graph = front_end_imports((ROOT / "widgets" / "src").resolve())
    assert graph.has_edge("Builder.tsx", "protocol.ts"), "the imports were read"
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == []
    (tmp_path / "a.ts").write_text('import { b } from "./b";\n')
    (tmp_path / "b.tsx").write_text('import type {\n  a,\n} from "./a";\n')
    looped = front_end_imports(tmp_path.resolve())
    assert nx.number_strongly_connected_components(looped) == 1, "the check can fail"
