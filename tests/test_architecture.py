"""The layers of docs/architecture.md hold, and the check that says so can fail."""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

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
            "diagram/model.py",
            "import graphnb.export.errors",
            "Faces are independent",
            "graphnb.diagram.model -> graphnb.export.errors",
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
