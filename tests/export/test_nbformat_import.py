"""nbformat is imported without jsonschema's IRI checker, and still validates notebooks."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def run_fresh(code: str, tmp_path: Path) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it prints one JSON object, returned here."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_fresh_export_skips_the_grammar_compiling_checker(tmp_path: Path) -> None:
    pytest.importorskip("rfc3987_syntax")
    result = run_fresh(
        """
        import json, sys
        from graphnb.cli.demo import build
        from graphnb.export import write_notebook
        path = write_notebook(build(), "out.ipynb", ruff=False)
        import nbformat
        nbformat.validate(nbformat.read(path, as_version=4))
        print(json.dumps({"checker": "rfc3987_syntax" in sys.modules}))
        """,
        tmp_path,
    )
    assert result == {"checker": False}


def test_the_checker_still_imports_after_nbformat(tmp_path: Path) -> None:
    pytest.importorskip("rfc3987_syntax")
    result = run_fresh(
        """
        import json
        from graphnb.export.nbformat_import import import_nbformat
        import_nbformat()
        import rfc3987_syntax
        print(json.dumps({"valid": rfc3987_syntax.is_valid_syntax("iri", "https://x.org/a")}))
        """,
        tmp_path,
    )
    assert result == {"valid": True}


def test_an_invalid_notebook_is_still_rejected(tmp_path: Path) -> None:
    result = run_fresh(
        """
        import json
        from graphnb.export.nbformat_import import import_nbformat
        nbformat = import_nbformat()
        notebook = nbformat.v4.new_notebook()
        notebook.cells.append({"cell_type": "code", "source": 3})
        try:
            nbformat.validate(notebook)
        except nbformat.ValidationError:
            print(json.dumps({"rejected": True}))
        else:
            print(json.dumps({"rejected": False}))
        """,
        tmp_path,
    )
    assert result == {"rejected": True}


def test_an_nbformat_already_imported_is_returned_as_it_is() -> None:
    import nbformat

    from graphnb.export.nbformat_import import import_nbformat

    assert import_nbformat() is nbformat
