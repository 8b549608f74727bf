"""``graphnb lab [NOTEBOOK]``: open the visual builder in JupyterLab.

Without a notebook it opens the quickstart (``notebooks/01_quickstart.ipynb``). A notebook
that does not exist yet is created with one cell that shows an empty builder, whose
drawing is saved next to it.

The quickstart is opened as a working copy: the teaching notebooks, the modules they
import and the course are copied once into ``~/graphnb-notebooks`` (see
:func:`workdir`; an existing copy is kept, with your edits)
so running them never touches a checkout. JupyterLab's own URL (the one it prints, and
opens when there is a display) lands on the notebook itself, not on the Launcher. A
notebook opened by path that git filters through nbstripout (the teaching notebooks, see
``.gitattributes``) gets the filter configured in its checkout first, so what git
commits stays free of outputs and widget state.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..console import shown
from . import subcommand
from .process import run_tree

__all__ = [
    "QUICKSTART",
    "configure_output_filter",
    "has_display",
    "installed_kernel",
    "lab_command",
    "new_notebook",
    "register",
    "workdir",
    "working_copy",
]

QUICKSTART = Path("notebooks") / "01_quickstart.ipynb"
"""The notebook ``graphnb lab`` opens by default, relative to the current directory."""

WORKDIR_ENV = "GRAPHNB_NOTEBOOKS"
"""Environment variable naming the folder of the working copies (default below)."""


def workdir() -> Path:
    """Where ``graphnb lab`` keeps its working copies of the teaching notebooks."""
    return Path(os.environ.get(WORKDIR_ENV) or Path.home() / "graphnb-notebooks")


_NOT_COPIED = {"__pycache__", ".ipynb_checkpoints", ".git"}
"""Folders of a checkout's notebooks that are caches, not what the notebooks need."""


def working_copy(quickstart: Path) -> Path:
    """Copy the teaching notebooks beside ``quickstart`` to :func:`workdir` (once each).

    Everything the notebooks use comes along: the notebooks, the modules they import
    (``batch_flow.py`` of notebook 08) and the course in ``course/``, folders included;
    hidden files, caches and thread databases (``*.db``) stay behind. Files already
    there are kept as they are: they hold the learner's work. Each notebook copied names
    the kernel installed here exactly as JupyterLab does (see :func:`installed_kernel`),
    so it does not open as modified.

    Returns:
        The working copy of the quickstart.
    """
    target = workdir()
    target.mkdir(parents=True, exist_ok=True)
    source = quickstart.parent
    kernel = installed_kernel()
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if not path.is_file() or any(
            part.startswith(".") or part in _NOT_COPIED for part in relative.parts
        ):
            continue
        if path.suffix in (".pyc", ".db") or path.name.endswith((".db-wal", ".db-shm")):
            continue
        copy = target / relative
        if copy.exists():
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".ipynb" and kernel:
            _copy_notebook(path, copy, kernel)
        else:
            shutil.copyfile(path, copy)
    return target / quickstart.name


def installed_kernel(name: str = "python3") -> dict[str, Any]:
    """The notebook metadata JupyterLab writes for kernel ``name`` once it has started.

    On opening a notebook JupyterLab writes the running kernel's ``kernelspec`` (its
    installed display name, "Python 3 (ipykernel)", where the committed notebooks say
    "Python 3") and ``language_info`` into the notebook, and a notebook whose metadata
    changed shows as modified before anything was done. Empty when the kernel is not
    installed (the notebook is then copied as it is).
    """
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    except ImportError:
        return {}
    try:
        spec = KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        return {}
    metadata: dict[str, Any] = {
        "kernelspec": {"display_name": spec.display_name, "language": spec.language, "name": name}
    }
    try:  # what ipykernel answers to kernel_info, when this Python runs the kernel
        from ipykernel.ipkernel import IPythonKernel
    except ImportError:
        return metadata
    runs_here = spec.argv[:1] in (["python"], ["python3"], [sys.executable])
    if runs_here and isinstance(IPythonKernel.language_info, dict):
        metadata["language_info"] = dict(IPythonKernel.language_info)
    return metadata


def _copy_notebook(path: Path, copy: Path, kernel: dict[str, Any]) -> None:
    """Copy a notebook with the installed kernel's metadata; as it is when unreadable."""
    import json

    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        metadata = notebook.setdefault("metadata", {})
        if metadata.get("kernelspec", {}).get("name", "python3") != kernel["kernelspec"]["name"]:
            raise ValueError("another kernel")  # a notebook for another kernel keeps its own
        metadata.update(kernel)
        text = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    except (ValueError, AttributeError, UnicodeDecodeError):
        shutil.copyfile(path, copy)
        return
    copy.write_text(text, encoding="utf-8")


_NEEDED = ("jupyterlab", "anywidget", "ipywidgets", "nbstripout")


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
    # A literal for any file name: quotes, backslashes, a lone surrogate as its escape.
    saved = repr(f"{path.stem}.graph.json")
    cell = f"from graphnb.widget import Builder\n\nbuilder = Builder(path={saved})\nbuilder"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata.update(installed_kernel())  # so it does not open as modified
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)


def has_display() -> bool:
    """Whether a browser window can be opened here (Linux needs X11 or Wayland)."""
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _git(folder: Path, *args: str) -> str | None:
    """Run git in ``folder``; its output, or None when git fails or is missing."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=folder, capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def configure_output_filter(notebook: Path) -> bool:
    """Configure the nbstripout clean filter when ``.gitattributes`` asks for it.

    Git strips outputs and widget state from a notebook whose attributes say
    ``filter=nbstripout``, but only once the filter is defined in the checkout's git
    configuration, which a clone does not carry. This defines it (local config, once).

    Returns:
        Whether the filter was configured now (False when not needed or already there).
    """
    folder = notebook.resolve().parent
    wanted = _git(folder, "check-attr", "filter", "--", notebook.name)
    if wanted is None or not wanted.endswith(": nbstripout"):
        return False
    if _git(folder, "config", "--get", "filter.nbstripout.clean"):
        return False
    python = shlex.quote(sys.executable)
    for key, value in (
        ("filter.nbstripout.clean", f"{python} -m nbstripout --keep-id"),
        ("filter.nbstripout.smudge", "cat"),
        # JupyterLab records the kernel's version here on every save: not worth a diff.
        # A builder keeps its drawing in its cell's metadata (restored after a kernel
        # restart): widget state too, so stripped like it.
        ("filter.nbstripout.extrakeys", "metadata.language_info cell.metadata.graphnb"),
        ("diff.ipynb.textconv", f"{python} -m nbstripout --keep-id -t"),
    ):
        if _git(folder, "config", "--local", key, value) is None:
            return False
    return True


def lab_command(notebook: Path, *, port: int | None = None, browser: bool = True) -> list[str]:
    """The command line that starts JupyterLab on ``notebook``.

    JupyterLab serves the notebook's folder (the current directory when the notebook is
    under it) and its default URL is the notebook's own page, so the URL it prints and
    opens lands on the notebook rather than on the Launcher.
    """
    notebook = notebook.resolve()
    root = Path.cwd().resolve()
    if not notebook.is_relative_to(root):
        root = notebook.parent
    page = "/lab/tree/" + quote(notebook.relative_to(root).as_posix())
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.default_url={page}",
    ]
    if port is not None:
        command.append(f"--port={port}")
    if not browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI machines run as root
        command.append("--allow-root")
    return command


def run(args: argparse.Namespace) -> int:
    """Open the visual builder in JupyterLab (the quickstart notebook by default).

    Start JupyterLab on a notebook; a new one is created with a builder.
    """
    missing = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(
            f"error: graphnb lab needs {', '.join(missing)}: install them with `{_install_hint()}`",
            file=sys.stderr,
        )
        return 1
    if args.notebook is None:
        notebook = _quickstart()
        if notebook is None:
            print(
                f"error: no notebook given and {QUICKSTART} is not here; "
                "pass one: `graphnb lab my_graph.ipynb`",
                file=sys.stderr,
            )
            return 2
        notebook = working_copy(notebook)
        print(f"opening your working copy {notebook} (the checkout stays as it is)")
    else:
        notebook = Path(args.notebook)
        if notebook.suffix != ".ipynb":
            print(f"error: {shown(notebook)} is not a notebook (.ipynb)", file=sys.stderr)
            return 2
        if not notebook.exists():
            new_notebook(notebook)
            print(f"created {notebook}")
    if configure_output_filter(notebook):
        print("configured git to strip notebook outputs on commit (nbstripout, .gitattributes)")
    browser = not args.no_browser and has_display()
    if not args.no_browser and not browser:
        print(f"no display here: open the URL JupyterLab prints below to reach {notebook.name}")
    command = lab_command(notebook, port=args.port, browser=browser)
    # Blocks until JupyterLab stops. Ctrl-C, SIGTERM and SIGHUP end JupyterLab and its
    # kernels too (see .process).
    return run_tree(command, what="JupyterLab and its kernels")


def _install_hint() -> str:
    """How to install the widget extra: from the checkout when running from one."""
    checkout = Path(__file__).resolve().parents[2]
    project = checkout / "pyproject.toml"
    if project.is_file() and 'name = "graphnb"' in project.read_text(encoding="utf-8"):
        where = "." if checkout == Path.cwd().resolve() else str(checkout)
        return f'pip install -e "{where}[widget]"'
    return "pip install 'graphnb[widget]'"


def register(subparsers: Any) -> None:
    """Add ``lab`` to the command line."""
    command = subcommand(subparsers, "lab", run)
    command.add_argument(
        "notebook", nargs="?", help=f"the notebook to open (default: {QUICKSTART})"
    )
    command.add_argument("--port", type=int, help="the port JupyterLab listens on")
    command.add_argument("--no-browser", action="store_true", help="do not open a browser window")
