"""Harness for the browser tests: a real JupyterLab driven by headless Chromium.

The same harness drives Notebook 7 (``running_lab_server(base, app="notebook")``) and
Voila (``running_voila_server(base)``): a test module overrides the ``lab_server`` fixture
to pick its front end, and the ``lab`` page and its helpers follow.

One server and one Chromium per test module (a round trip costs seconds, so
each test opens one notebook and checks several things on it). The ``lab`` fixture gives
a fresh page whose JavaScript console errors fail the test, and whose screenshot is kept
in ``test-artifacts/browser/`` when the test fails.

Facts this is built on are in ``docs/browser-testing.md``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1400, "height": 1000}
ROOT_SELECTOR = '[data-testid="graphnb-builder"]'

# Console errors that JupyterLab itself prints on a healthy page. Everything else that
# reaches console.error or escapes as an uncaught exception fails the test.
# Each entry is (pattern, why it is harmless). JupyterLab 4.6 with the settings written
# by ``_write_lab_settings`` prints none; add an entry only for noise seen on a healthy
# page, never to hide the widget's own errors.
BENIGN_CONSOLE_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"reading 'schema'\)[\s\S]*/static/notebook/notebook_core\.", re.MULTILINE),
        "Notebook 7.6's own keyboard-shortcut settings transform throws once while a page "
        "loads (the stack is in notebook_core.js): seen on a notebook holding only `1+1`, "
        "with every third-party lab extension disabled, so neither graphnb nor a widget is "
        "involved; JupyterLab's page does not do it",
    ),
)

_BROWSER_DIR = Path(__file__).resolve().parent
_PHASE_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


def missing_requirement() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium; scripts/test does it)"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_requirement()
    for item in items:
        if _BROWSER_DIR not in Path(str(item.path)).parents:
            continue
        item.add_marker(pytest.mark.browser)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {reason}"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None] | pytest.TestReport:
    report: pytest.TestReport = yield
    item.stash.setdefault(_PHASE_REPORTS, {})[report.when] = report
    return report


# -- the JupyterLab server ---------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


FRONT_ENDS = ("lab", "notebook", "voila")


CONTRAST_JS = """(element) => {
    // Colours painted on a canvas: any CSS colour (rgb(), color(srgb ...) from color-mix),
    // the text's blended over its background, read back as 0-255 values.
    const context = document.createElement('canvas')
        .getContext('2d', { willReadFrequently: true });
    const paint = (...colours) => {
        context.clearRect(0, 0, 1, 1);
        for (const colour of colours) {
            context.fillStyle = colour;
            context.fillRect(0, 0, 1, 1);
        }
        return [...context.getImageData(0, 0, 1, 1).data];
    };
    let el = element, background = 'rgb(255, 255, 255)';
    while (el) {
        const colour = getComputedStyle(el).backgroundColor;
        if (paint(colour)[3] > 128) { background = colour; break; }
        el = el.parentElement;
    }
    const lum = (rgba) => {
        const [r, g, b] = rgba.slice(0, 3).map((v) => {
            v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const text = paint(background, getComputedStyle(element).color).slice(0, 3);
    const behind = paint(background).slice(0, 3);
    const ratio = (Math.max(lum(text), lum(behind)) + 0.05)
        / (Math.min(lum(text), lum(behind)) + 0.05);
    return { ratio, text, behind };
}"""
"""The WCAG contrast ratio between an element's text colour and the first painted
background behind it, with both colours (0-255 RGB): see :meth:`Lab.contrast`."""


@dataclass
class LabServer:
    """A running Jupyter server bound to the loopback interface.

    ``app`` says which front end it serves: ``lab`` (JupyterLab), ``notebook``
    (Notebook 7) or ``voila``.
    """

    url: str
    root_dir: Path
    runtime_dir: Path
    log_path: Path
    app: str = "lab"

    def notebook_url(self, name: str) -> str:
        """Where the front end shows ``name.ipynb`` of the root directory."""
        if self.app == "lab":
            # ?reset: no tab restored from an earlier page hides the notebook
            return f"{self.url}/lab/tree/{name}.ipynb?reset"
        if self.app == "notebook":
            return f"{self.url}/notebooks/{name}.ipynb"
        return f"{self.url}/voila/render/{name}.ipynb"

    def api(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}/api/{path}", timeout=5) as response:
            return json.loads(response.read())


def _write_lab_settings(settings_dir: Path) -> None:
    # No news toast over the bottom right corner of the page.
    notification = settings_dir / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True, exist_ok=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )


def _wait_until_up(
    url: str, process: subprocess.Popen[bytes], timeout: float, *, what: str = "jupyter lab"
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{what} did not answer at {url} within {timeout} s")


@contextlib.contextmanager
def _serving(
    command: list[str], env: dict[str, str], log_path: Path, probe: str, what: str
) -> Iterator[None]:
    """Run a server until the block ends; ``probe`` is a URL that answers once it is up."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            _wait_until_up(probe, process, timeout=60, what=what)
            yield
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _server_env(base: Path, runtime_dir: Path, settings_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "JUPYTER_RUNTIME_DIR": str(runtime_dir),
        "JUPYTERLAB_SETTINGS_DIR": str(settings_dir),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }


@contextlib.contextmanager
def running_lab_server(base: Path, *, app: str = "lab") -> Iterator[LabServer]:
    """Start JupyterLab (or Notebook 7: ``app="notebook"``) on a free loopback port.

    Its root, runtime, settings and workspace directories are under ``base``; the server is
    stopped when the block ends.
    """
    if app not in ("lab", "notebook"):
        raise ValueError(
            f"app must be 'lab' or 'notebook', not {app!r} (for Voila: running_voila_server)"
        )
    root_dir, runtime_dir, settings_dir = base / "root", base / "runtime", base / "settings"
    for directory in (root_dir, runtime_dir, settings_dir, base / "workspaces"):
        directory.mkdir(parents=True, exist_ok=True)
    _write_lab_settings(settings_dir)
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab" if app == "lab" else "notebook",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--allow-root",
        f"--ServerApp.root_dir={root_dir}",
    ]
    if app == "lab":
        command += [
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.expose_app_in_browser=True",
        ]
    else:
        # Notebook 7 is built from JupyterLab's parts: the same window.jupyterapp, shell,
        # commands and notebook panel, exposed by its own app's switch.
        command += ["--JupyterNotebookApp.expose_app_in_browser=True"]
    url = f"http://127.0.0.1:{port}"
    log_path = base / "server.log"
    env = _server_env(base, runtime_dir, settings_dir)
    what = "jupyter lab" if app == "lab" else "jupyter notebook"
    with _serving(command, env, log_path, f"{url}/api", what):
        yield LabServer(url, root_dir, runtime_dir, log_path, app)


# The lab extensions a Voila page needs for the widgets. Voila loads every lab extension
# installed by default, and some made for JupyterLab's full shell fail to activate in its
# page with console errors (seen here: Notebook 7's own ``@jupyter-notebook/lab-extension``,
# ``jupyterlab-jupytext``, ``ipylab``); the allowlist keeps the page to what it uses.
VOILA_EXTENSIONS = [
    "anywidget",
    "@jupyter-widgets/jupyterlab-manager",
    "@voila-dashboards/widgets-manager8",
    "jupyterlab_pygments",
]


VOILA_CDN_CSS = "https://cdn.jsdelivr.net/npm/@fortawesome/**"


def _empty_stylesheet(route: Any) -> None:
    route.fulfill(status=200, content_type="text/css", body="")


@contextlib.contextmanager
def running_voila_server(base: Path) -> Iterator[LabServer]:
    """Start Voila serving the folder ``base/root`` on a free loopback port; stop it after.

    Every page load of ``/voila/render/NAME.ipynb`` runs the notebook in a fresh kernel;
    kernel connection files go under ``base/runtime`` so a test can reach the kernel.
    """
    root_dir, runtime_dir, settings_dir = base / "root", base / "runtime", base / "settings"
    for directory in (root_dir, runtime_dir, settings_dir, base / "workspaces"):
        directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "voila",
        str(root_dir),
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        "--Voila.port_retries=0",
        f"--Voila.connection_dir_root={runtime_dir}",
        "--VoilaConfiguration.extension_allowlist=" + json.dumps(VOILA_EXTENSIONS),
        # a failing cell shows its error on the page (the tests read it), not a blank page
        "--VoilaConfiguration.show_tracebacks=True",
    ]
    url = f"http://127.0.0.1:{port}"
    log_path = base / "server.log"
    env = _server_env(base, runtime_dir, settings_dir)
    with _serving(command, env, log_path, f"{url}/", "voila"):
        yield LabServer(url, root_dir, runtime_dir, log_path, "voila")


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    with running_lab_server(tmp_path_factory.mktemp("lab")) as server:
        yield server


@pytest.fixture(scope="module")
def front_end(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LabServer]:
    """A server of the front end named by the test's parameter: lab, notebook or voila.

    Parametrize indirectly, at module scope, so each front end's server starts once:
    ``@pytest.mark.parametrize("front_end", ["notebook", "voila"], indirect=True,
    scope="module")``; a module whose ``lab_server`` fixture returns ``front_end`` then
    drives that front end with the ``lab`` page and its helpers.
    """
    app = getattr(request, "param", "lab")
    if app not in FRONT_ENDS:
        raise ValueError(f"front_end must be one of {FRONT_ENDS}, not {app!r}")
    base = tmp_path_factory.mktemp(app)
    if app == "voila":
        with running_voila_server(base) as server:
            yield server
    else:
        with running_lab_server(base, app=app) as server:
            yield server


# -- the browser --------------------------------------------------------------------------


@contextlib.contextmanager
def launched_chromium() -> Iterator[Any]:
    """The system Chromium, headless, driven by Playwright (never ``playwright install``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with launched_chromium() as browser:
        yield browser


# -- talking to the notebook's kernel directly --------------------------------------------


class KernelError(AssertionError):
    """Code sent to the kernel by the test raised."""


class Kernel:
    """A second client on the notebook's kernel: same namespace as the notebook's cells.

    The test reads the Python side back through it (``kernel.json("builder.spec")``)
    without adding cells to the notebook.
    """

    def __init__(self, connection_file: Path) -> None:
        from jupyter_client import BlockingKernelClient

        self._client = BlockingKernelClient(connection_file=str(connection_file))
        self._client.load_connection_file()
        self._client.start_channels()
        self._client.wait_for_ready(timeout=30)

    def run(self, code: str, *, timeout: float = 30) -> str:
        """Execute ``code`` in the notebook's namespace; return what it printed."""
        printed: list[str] = []
        errors: list[str] = []

        def collect(message: dict[str, Any]) -> None:
            kind, content = message["msg_type"], message["content"]
            if kind == "stream" and content["name"] == "stdout":
                printed.append(content["text"])
            elif kind == "error":
                errors.append("\n".join(content["traceback"]))

        reply = self._client.execute_interactive(
            textwrap.dedent(code), timeout=timeout, output_hook=collect, allow_stdin=False
        )
        if reply["content"]["status"] != "ok" or errors:
            detail = "\n".join(errors) or reply["content"].get("evalue", "")
            raise KernelError(f"kernel code failed:\n{code}\n{_strip_ansi(detail)}")
        return "".join(printed)

    def json(self, expression: str, *, timeout: float = 30) -> Any:
        """The value of a Python expression, passed through JSON.

        Pydantic models are dumped with ``model_dump(mode="json")``.
        """
        code = (
            "import json as _j\n"
            f"_v = ({expression})\n"
            "_v = _v.model_dump(mode='json') if hasattr(_v, 'model_dump') else _v\n"
            "print('\\x1e' + _j.dumps(_v, default=str))\n"
            "del _v, _j\n"
        )
        out = self.run(code, timeout=timeout)
        return json.loads(out.rsplit("\x1e", 1)[1])

    def close(self) -> None:
        self._client.stop_channels()
        self._client.context.destroy(linger=0)


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


# -- a JupyterLab page ------------------------------------------------------------------


@dataclass
class ConsoleLine:
    kind: str
    text: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.text}"


def side_tab(page: Any, name: str) -> Any:
    """Open the side panel's tab ``name`` (node, run, state, threads) with a click."""
    page.get_by_test_id(f"side-tab-{name}").click()
    panel = page.get_by_test_id(f"side-tabpanel-{name}")
    panel.wait_for()
    return panel


def side(element: Any) -> Any:
    """Bring ``element`` of the side panel into view as a user would: open the tab that holds
    it (unless it is in the panel's fixed head), then scroll that tab, and nothing else, so
    the element is near its top. Returns ``element``."""
    tab = element.evaluate(
        """(e) => e.closest('[role="tabpanel"]')?.dataset.testid
            ?.replace('side-tabpanel-', '') ?? null"""
    )
    page = element.page
    selected = tab and page.get_by_test_id(f"side-tab-{tab}").get_attribute("aria-selected")
    if tab is not None and selected != "true":
        side_tab(page, tab)
    element.evaluate(
        """(e) => {
            const side = e.closest('.graphnb-side-scroll');
            if (side) side.scrollTop += e.getBoundingClientRect().top
                - side.getBoundingClientRect().top - 20;
        }"""
    )
    return element


@dataclass
class Lab:
    """A JupyterLab page in a fresh browser context, with helpers to drive notebooks."""

    server: LabServer = field(repr=False)
    page: Any = field(repr=False)
    artifact_stem: str
    console: list[ConsoleLine] = field(default_factory=list, repr=False)
    _kernels: list[Kernel] = field(default_factory=list, repr=False)

    # console ---------------------------------------------------------------------------

    def _on_console(self, message: Any) -> None:
        self.console.append(ConsoleLine(message.type, message.text))

    def _on_page_error(self, error: Any) -> None:
        self.console.append(ConsoleLine("pageerror", f"{error}\n{getattr(error, 'stack', '')}"))

    def js_errors(self) -> list[str]:
        """Console errors and uncaught exceptions, minus JupyterLab's known noise."""
        return [
            str(line)
            for line in self.console
            if line.kind in ("error", "pageerror")
            and not any(pattern.search(line.text) for pattern, _ in BENIGN_CONSOLE_ERRORS)
        ]

    def assert_no_js_errors(self) -> None:
        errors = self.js_errors()
        assert not errors, "JavaScript errors in the page:\n" + "\n".join(errors)

    # notebooks ---------------------------------------------------------------------------

    def write_notebook(self, name: str, cells: Sequence[str]) -> Path:
        import nbformat

        notebook = nbformat.v4.new_notebook()
        notebook.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        notebook.cells = [nbformat.v4.new_code_cell(textwrap.dedent(c).strip()) for c in cells]
        path = self.server.root_dir / f"{name}.ipynb"
        nbformat.write(notebook, path)
        return path

    def open_notebook(
        self, name: str, cells: Sequence[str], *, run: bool = True, timeout: float = 90
    ) -> Kernel:
        """Write a notebook, open it, run every cell; return a client on its kernel."""
        self.write_notebook(name, cells)
        return self.open(name, run=run, timeout=timeout)

    def open(self, name: str, *, run: bool = True, timeout: float = 90) -> Kernel:
        """Open ``name.ipynb`` of the server's root; run every cell unless ``run=False``.

        In Voila the page itself runs every cell (``run`` is ignored): the page has loaded
        once they all have.
        """
        if self.server.app == "voila":
            # Voila's page template links Font Awesome's CSS from jsDelivr; with no network
            # the request fails with a console error. Answer it with an empty stylesheet
            # (the page only loses button icons, which no test looks at).
            self.page.route(VOILA_CDN_CSS, _empty_stylesheet)
            self.page.goto(self.server.notebook_url(name), timeout=timeout * 1000)
            return self.kernel()
        self.page.goto(self.server.notebook_url(name))
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
            " && window.jupyterapp.shell.currentWidget.sessionContext",
            timeout=timeout * 1000,
        )
        # More room and a cleaner screenshot: the file browser is of no use here
        # (Notebook 7's shell has no left panel open on a notebook page).
        self.page.evaluate(
            "() => { const shell = window.jupyterapp.shell;"
            " if (shell.collapseLeft) shell.collapseLeft(); }"
        )
        self.wait_for_kernel_idle(timeout=timeout)
        kernel = self.kernel()
        if run:
            self.run_all_cells(timeout=timeout)
        return kernel

    def wait_for_kernel_idle(self, *, timeout: float = 60) -> None:
        self.page.wait_for_function(
            """() => {
                const ctx = window.jupyterapp.shell.currentWidget.sessionContext;
                const kernel = ctx && ctx.session && ctx.session.kernel;
                return !!kernel && kernel.status === 'idle'
                    && kernel.connectionStatus === 'connected';
            }""",
            timeout=timeout * 1000,
        )

    def prompts(self) -> list[str]:
        """The input prompts of the open notebook's code cells: '[ ]:', '[*]:', '[3]:'."""
        return self.page.evaluate(
            """() => Array.from(document.querySelectorAll(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt'))
                .map(p => p.textContent.trim())"""
        )

    def run_all_cells(self, *, timeout: float = 90) -> None:
        """Run every cell and wait until all have finished.

        The kernel looks idle before it really listens, so a first request can be
        dropped: ask again until the prompts show the request was accepted.
        """
        deadline = time.monotonic() + timeout
        for _attempt in range(5):
            # Not awaited: the command resolves only when every cell has finished.
            self.page.evaluate(
                "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }"
            )
            accepted = time.monotonic() + 5
            while time.monotonic() < accepted:
                if any(p != "[ ]:" for p in self.prompts()):
                    break
                time.sleep(0.1)
            else:
                continue
            break
        else:
            raise AssertionError("JupyterLab never started running the notebook's cells")
        while time.monotonic() < deadline:
            prompts = self.prompts()
            if prompts and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts):
                return
            time.sleep(0.1)
        raise AssertionError(f"cells did not finish within {timeout} s: prompts {self.prompts()}")

    def run_cells(self, indices: Sequence[int], *, timeout: float = 90) -> None:
        """Run these cells (indices among all cells, Markdown included), one after another."""
        for index in indices:
            for _attempt in range(5):
                before = self._prompt_of(index)
                self.page.evaluate(
                    """(index) => {
                        const app = window.jupyterapp;
                        app.shell.currentWidget.content.activeCellIndex = index;
                        app.commands.execute('notebook:run-cell');
                    }""",
                    index,
                )
                # Accepted once the prompt changes; a request sent too early is dropped.
                accepted = time.monotonic() + 5
                while time.monotonic() < accepted and self._prompt_of(index) == before:
                    time.sleep(0.1)
                if self._prompt_of(index) != before:
                    break
            else:
                raise AssertionError(f"JupyterLab never ran cell {index}")
            deadline = time.monotonic() + timeout
            while not re.fullmatch(r"\[\d+\]:", self._prompt_of(index)):
                if time.monotonic() > deadline:
                    raise AssertionError(f"cell {index} did not finish within {timeout} s")
                time.sleep(0.1)

    def _prompt_of(self, index: int) -> str:
        return self.page.evaluate(
            """(index) => {
                const cell = window.jupyterapp.shell.currentWidget.content.widgets[index];
                const prompt = cell.node.querySelector('.jp-InputPrompt');
                return prompt ? prompt.textContent.trim() : '';
            }""",
            index,
        )

    def run_new_cell(self, code: str) -> float:
        """Append a cell with ``code`` and start it; returns the page clock when it started.

        Not awaited: wait for what the cell should show.
        """
        return self.page.evaluate(
            """(code) => {
                const app = window.jupyterapp;
                const notebook = app.shell.currentWidget.content;
                notebook.activeCellIndex = notebook.widgets.length - 1;
                app.commands.execute('notebook:insert-cell-below');
                notebook.activeCell.model.sharedModel.setSource(code);
                const started = performance.now();
                app.commands.execute('notebook:run-cell');
                return started;
            }""",
            textwrap.dedent(code).strip(),
        )

    def count_comm_messages(self) -> None:
        """Count comm messages on the kernel connection from now on (see comm_messages)."""
        self.page.evaluate(
            """() => {
                const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
                window.__graphnb_counts = { send: 0, recv: 0 };
                kernel.anyMessage.connect((_, { msg, direction }) => {
                    if (msg.header.msg_type === 'comm_msg') window.__graphnb_counts[direction] += 1;
                });
            }"""
        )

    def comm_messages(self, *, reset: bool = False) -> dict[str, int]:
        """Comm messages counted so far: ``send`` (page to kernel) and ``recv``."""
        return self.page.evaluate(
            """(reset) => {
                const counts = { ...window.__graphnb_counts };
                if (reset) window.__graphnb_counts = { send: 0, recv: 0 };
                return counts;
            }""",
            reset,
        )

    def notebook_errors(self) -> list[str]:
        """Tracebacks shown in the notebook's outputs."""
        return self.page.evaluate(
            """() => Array.from(document.querySelectorAll(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedText[data-mime-type='
                    + '"application/vnd.jupyter.stderr"]'))
                .map(e => e.textContent)"""
        )

    def kernel(self) -> Kernel:
        if self.server.app == "voila":
            # Voila names the page's kernel in its page config, and writes the connection
            # file in a folder of its own under the runtime directory.
            kernel_id = self.page.evaluate(
                "() => JSON.parse(document.getElementById('jupyter-config-data')"
                ".textContent).kernelId"
            )
            found = list(self.server.runtime_dir.rglob(f"kernel-{kernel_id}.json"))
            assert found, f"no connection file for Voila's kernel {kernel_id}"
            connection_file = found[0]
        else:
            kernel_id = self.page.evaluate(
                "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"
            )
            connection_file = self.server.runtime_dir / f"kernel-{kernel_id}.json"
        kernel = Kernel(connection_file)
        self._kernels.append(kernel)
        return kernel

    # widgets -----------------------------------------------------------------------------

    def builder(self, *, timeout: float = 30) -> Any:
        """The builder widget's root element, once it is on the page."""
        # The visible one: after a page reload the output can also hold a hidden view of the
        # same model (seen with the bundle loader; see the closing note of issues 12/13).
        root = self.page.locator(f"{ROOT_SELECTOR}:visible").first
        root.wait_for(state="visible", timeout=timeout * 1000)
        # Mouse events go to viewport coordinates: bring the whole widget on screen.
        root.evaluate("(e) => e.scrollIntoView({ block: 'start' })")
        self.wait_for_canvas_still()
        return root

    def wait_for_canvas_still(self, *, timeout: float = 10) -> None:
        """Wait until the canvas stops moving (fit view animates after the first render)."""
        self.page.wait_for_function(
            """() => {
                const viewport = document.querySelector('.react-flow__viewport');
                if (!viewport) return false;
                const now = viewport.style.transform + '|' + window.scrollY;
                const seen = window.__graphnb_canvas_seen || [];
                seen.push(now);
                window.__graphnb_canvas_seen = seen.slice(-4);
                return seen.length >= 4 && seen.slice(-4).every((t) => t === now);
            }""",
            polling=100,
            timeout=timeout * 1000,
        )

    def contrast(self, element: Any) -> dict[str, Any]:
        """``ratio`` (WCAG) of ``element``'s text against what is painted behind it, and
        the ``text`` and ``behind`` colours as RGB."""
        return dict(element.evaluate(CONTRAST_JS))

    def zoom(self) -> float:
        """The canvas zoom: the scale of React Flow's viewport transform."""
        return float(
            self.page.evaluate(
                """() => new DOMMatrix(getComputedStyle(
                    document.querySelector('.react-flow__viewport')).transform).a"""
            )
        )

    def side_tab(self, name: str) -> Any:
        """Open the side panel's tab ``name`` (node, run, state, threads) with a click."""
        return side_tab(self.page, name)

    def side(self, element: Any) -> Any:
        """Bring ``element`` of the side panel into view (see ``side``)."""
        return side(element)

    def show_widget_of(self, element: Any) -> None:
        """Scroll the notebook so the widget holding ``element`` is on screen.

        Never scroll the element itself into view: that also scrolls React Flow's own
        overflow-hidden containers, which snap back a moment later, so a click computed in
        between lands beside its target.
        """
        element.evaluate(
            """(e) => e.closest('[data-testid="graphnb-builder"]')
                .scrollIntoView({ block: 'start' })"""
        )

    def node(self, node_id: str) -> Any:
        """A node of the canvas (React Flow's wrapper element)."""
        return self.page.locator(f'.react-flow__node[data-id="{node_id}"]')

    def wait_until_still(self, target: Any, timeout: float = 3.0) -> None:
        """Wait until ``target``'s box is the same in two looks 100 ms apart."""
        deadline = time.monotonic() + timeout
        box = target.bounding_box()
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            now = target.bounding_box()
            if now == box:
                return
            box = now

    def start_rename(self, node_id: str) -> Any:
        """Double-click a node's label, once, and return its rename field.

        One plain double-click, as a user gives: it must open the field the first time,
        whether the builder's cell is active or not (issue 13).
        """
        self.page.get_by_test_id(f"node-label-{node_id}").dblclick()
        rename = self.page.get_by_test_id("node-rename-input")
        rename.wait_for(timeout=5_000)
        return rename

    def node_ids(self) -> list[str]:
        return self.page.evaluate(
            """() => Array.from(document.querySelectorAll('.react-flow__node'))
                .map(n => n.getAttribute('data-id'))"""
        )

    def edge(self, source: str, target: str) -> Any:
        """An edge of the canvas, found by React Flow's default accessible label."""
        return self.page.locator(f'.react-flow__edge[aria-label="Edge from {source} to {target}"]')

    def edge_pairs(self) -> list[tuple[str, str]]:
        labels = self.page.evaluate(
            """() => Array.from(document.querySelectorAll('.react-flow__edge'))
                .map(e => e.getAttribute('aria-label') || '')"""
        )
        found = (re.fullmatch(r"Edge from (.+) to (.+)", label) for label in labels)
        return [(m[1], m[2]) for m in found if m]

    def connect(self, source: str, target: str) -> None:
        """Drag from ``source``'s output handle to ``target``'s input handle, as a user does.

        Both nodes are first left to settle: a canvas that is still fitting its view after
        an edit would move the handles between reading them and dropping.
        """
        self.show_widget_of(self.node(source))
        self.wait_until_still(self.node(source))
        self.wait_until_still(self.node(target))
        handles = (
            self.node(source).locator(".react-flow__handle.source").first,
            self.node(target).locator(".react-flow__handle.target").first,
        )
        if not all(self._can_be_hit(handle) for handle in handles):
            # A handle outside the canvas or under the side panel cannot take the mouse:
            # fit the graph in view first, as a user would.
            self.page.get_by_test_id("toolbar-fit").click()
            self.wait_until_still(self.node(target))
        start, end = (handle.bounding_box() for handle in handles)
        assert start, f"the output handle of {source} is not on screen"
        assert end, f"the input handle of {target} is not on screen"
        mouse = self.page.mouse
        mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
        mouse.down()
        mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
        mouse.up()

    def _can_be_hit(self, element: Any) -> bool:
        """Whether a click at the middle of ``element`` reaches it (nothing covers it)."""
        return bool(
            element.evaluate(
                """(e) => {
                    const box = e.getBoundingClientRect();
                    const hit = document.elementFromPoint(
                        box.x + box.width / 2, box.y + box.height / 2);
                    return hit !== null && (hit === e || e.contains(hit));
                }"""
            )
        )

    def drag_node(self, node_id: str, dx: float, dy: float, *, steps: int = 15) -> None:
        """Drag a node by its middle, in ``steps`` mouse moves."""
        node = self.node(node_id)
        self.show_widget_of(node)
        box = node.bounding_box()
        assert box, f"{node_id} is not on screen"
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mouse = self.page.mouse
        mouse.move(x, y)
        mouse.down()
        mouse.move(x + dx, y + dy, steps=steps)
        mouse.up()

    def click_edge(self, source: str, target: str) -> None:
        """Click the middle of an edge's drawn path (its bounding box may miss the line)."""
        edge = self.edge(source, target)
        edge.wait_for(state="attached")
        self.show_widget_of(edge)
        point = edge.evaluate(
            """(e) => {
                const path = e.querySelector('path.react-flow__edge-path')
                    || e.querySelector('path');
                const p = path.getPointAtLength(path.getTotalLength() / 2);
                const m = path.getScreenCTM();
                return { x: p.x * m.a + p.y * m.c + m.e, y: p.x * m.b + p.y * m.d + m.f };
            }"""
        )
        self.page.mouse.click(point["x"], point["y"])

    def screenshot(self, name: str, element: Any = None) -> Path:
        """Keep a PNG of the page (or of one element) in the artifacts folder."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        (element or self.page).screenshot(path=str(path))
        return path

    def wait_until(
        self,
        predicate: Callable[[], Any],
        *,
        timeout: float = 10,
        message: str | Callable[[], str] = "",
    ) -> Any:
        """Poll a Python-side predicate (e.g. reading the kernel) until it is truthy.

        ``message`` may be a callable, to describe the state at the time of failure.
        """
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                text = message() if callable(message) else message
                raise AssertionError(text or f"condition not met within {timeout} s")
            time.sleep(0.1)

    def close(self) -> None:
        for kernel in self._kernels:
            kernel.close()


def _artifact_stem(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.split("::", 1)[-1])[:120]


@contextlib.contextmanager
def lab_page(server: LabServer, browser: Any, artifact_stem: str) -> Iterator[Lab]:
    """A fresh browser context and page on ``server`` that records the console."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    lab = Lab(server, page, artifact_stem)
    page.on("console", lab._on_console)
    page.on("pageerror", lab._on_page_error)
    try:
        yield lab
    finally:
        lab.close()
        context.close()


@pytest.fixture
def lab(lab_server: LabServer, chromium: Any, request: pytest.FixtureRequest) -> Iterator[Lab]:
    """A JupyterLab page; JavaScript errors fail the test, failures keep a screenshot."""
    stem = _artifact_stem(request.node.nodeid)
    for stale in ARTIFACTS.glob(f"{stem}.*"):
        stale.unlink()
    with lab_page(lab_server, chromium, stem) as lab:
        yield lab
        reports = request.node.stash.get(_PHASE_REPORTS, {})
        errors = lab.js_errors()
        if errors or any(report.failed for report in reports.values()):
            _keep_artifacts(lab, lab_server)
    if errors:
        pytest.fail("JavaScript errors in the page:\n" + "\n".join(errors), pytrace=False)


def _keep_artifacts(lab: Lab, server: LabServer) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stem = lab.artifact_stem
    with contextlib.suppress(Exception):
        lab.page.screenshot(path=str(ARTIFACTS / f"{stem}.png"))
    (ARTIFACTS / f"{stem}.console.txt").write_text("\n".join(map(str, lab.console)))
    with contextlib.suppress(OSError):
        shutil.copyfile(server.log_path, ARTIFACTS / f"{stem}.server.log")
