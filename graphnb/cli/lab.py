"""``graphnb lab [NOTEBOOK]``: open the visual builder in JupyterLab.

Without a notebook it opens the quickstart (``notebooks/01_quickstart.ipynb``). A notebook
that does not exist yet is created with one cell that shows an empty builder, whose
drawing is saved next to it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["QUICKSTART", "lab_command", "new_notebook", "register"]

QUICKSTART = Path("notebooks") / "01_quickstart.ipynb"
"""The notebook ``graphnb lab`` opens by default, relative to the current directory."""

_NEEDED = ("jupyterlab", "anywidget", "ipywidgets")


def _quickstart() -> Path | None:
    """The quickstart notebook: under the current directory, else beside the package."""
    here = Path.cwd() / QUICKSTART
    if here.is_file():
        return here
    beside = Path(__file__).resolve().parents[2] / QUICKSTART  # a source checkout
    return beside if beside.is_file() else None


def new_notebook(path: Path) -> None:
    """Write a notebook with one cell showing an empty builder saved beside it."""
    nbformat: Any = importlib.import_module("nbformat")  # untyped
    cell = (
        "from graphnb.widget import Builder\n\n"
        f'builder = Builder(path="{path.stem}.graph.json")\n'
        "builder"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)


def lab_command(notebook: Path, *, port: int | None = None, browser: bool = True) -> list[str]:
    """The command line that starts JupyterLab on ``notebook``."""
    command = [sys.executable, "-m", "jupyterlab", str(notebook)]
    if port is not None:
        command.append(f"--port={port}")
    if not browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI machines run as root
        command.append("--allow-root")
    return command


def run(args: argparse.Namespace) -> int:
    """Start JupyterLab on the notebook (blocks until JupyterLab stops)."""
    missing = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(
            f"graphnb lab needs {', '.join(missing)}: install them with "
            "`pip install 'graphnb[widget]'`",
            file=sys.stderr,
        )
        return 1
    if args.notebook is None:
        notebook = _quickstart()
        if notebook is None:
            print(
                f"no notebook given and {QUICKSTART} is not here; "
                "pass one: `graphnb lab my_graph.ipynb`",
                file=sys.stderr,
            )
            return 2
    else:
        notebook = Path(args.notebook)
        if notebook.suffix != ".ipynb":
            print(f"{notebook} is not a notebook (.ipynb)", file=sys.stderr)
            return 2
        if not notebook.exists():
            new_notebook(notebook)
            print(f"created {notebook}")
    command = lab_command(notebook, port=args.port, browser=not args.no_browser)
    return subprocess.call(command)


def register(subparsers: Any) -> None:
    """Add ``lab`` to the command line."""
    command = subparsers.add_parser(
        "lab",
        help="open the visual builder in JupyterLab (the quickstart notebook by default)",
        description="Start JupyterLab on a notebook; a new one is created with a builder.",
    )
    command.add_argument(
        "notebook", nargs="?", help=f"the notebook to open (default: {QUICKSTART})"
    )
    command.add_argument("--port", type=int, help="the port JupyterLab listens on")
    command.add_argument("--no-browser", action="store_true", help="do not open a browser window")
    command.set_defaults(handler=run)
