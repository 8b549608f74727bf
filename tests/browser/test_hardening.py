"""The builder under hostile or careless use, in a real JupyterLab page (issue 11, items 7-11).

A node that calls ``sys.exit()``, a node that blocks for seconds, a password typed into the
saver box, an export over an existing file: what the page shows, what the kernel does,
what the saved notebook holds.
"""

from __future__ import annotations

import json
import time
from urllib.parse import quote

HEADER = """
import sys, time
from graphnb import END, START, StateGraph
from graphnb.widget import Builder
"""

EXITING = (
    HEADER
    + '''
import argparse

def prepare(state):
    return {"ready": True}

def cli(state):
    """A script's main(), pasted into a node: argparse exits on a bad option."""
    argparse.ArgumentParser(prog="tool").parse_args(["--no-such-option"])
    return {}

graph = (
    StateGraph(dict, name="exiting")
    .add_node("prepare", prepare).add_node("cli", cli)
    .add_edge(START, "prepare").add_edge("prepare", "cli").add_edge("cli", END)
)
builder = Builder(graph)
builder
'''
)


def _status_is(lab, word: str, timeout: float = 15) -> None:
    lab.page.wait_for_function(
        """(word) => {
            const status = document.querySelector('[data-testid="run-status"]');
            return status && new RegExp(word, 'i').test(status.textContent);
        }""",
        arg=word,
        timeout=timeout * 1000,
    )


def test_a_node_calling_sys_exit_fails_at_the_node_and_the_kernel_lives_on(lab):
    kernel = lab.open_notebook("exiting", [EXITING])
    lab.builder()
    page = lab.page
    page.get_by_test_id("toolbar-run").click()
    _status_is(lab, "error")
    cli = page.get_by_test_id("node-cli")
    assert cli.get_attribute("data-status") == "error"
    assert "SystemExit: 2" in (cli.get_attribute("title") or "")
    assert page.get_by_test_id("node-prepare").get_attribute("data-status") == "done"
    assert "SystemExit: 2" in page.get_by_test_id("run-error").inner_text()
    assert "kernel goes on" in page.get_by_test_id("run-error").inner_text()

    # The kernel is alive: a new cell runs and prints, and the builder runs again.
    lab.run_new_cell("print('alive', 6 * 7)")
    page.get_by_text("alive 42").wait_for(timeout=30_000)
    status = page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
    )
    assert status in ("idle", "busy")
    assert kernel.json("builder.last_run['status']") == "error"
    kernel.run("builder.spec = builder.spec.model_copy(update={'name': 'exiting'})")
    page.get_by_test_id("toolbar-run").click()
    _status_is(lab, "error")
    assert kernel.json("6 * 7") == 42
    lab.assert_no_js_errors()


BLOCKING = (
    HEADER
    + '''
def blocking(state):
    """A two-second blocking call: a model, a database."""
    time.sleep(2)
    return {"after": True}

graph = StateGraph(dict, name="slow").add_node("block", blocking)
graph.add_edge(START, "block").add_edge("block", END)
builder = Builder(graph)

# When the Stop message arrived, and when the run panel said "stopped" (kernel clock).
stamps = {}

def _spy(widget, content, buffers):  # requests come as anywidget commands
    if content.get("kind") == "anywidget-command" and content["msg"].get("type") == "stop":
        stamps.setdefault("stop", time.monotonic())

def _watch(change):
    if change["new"]["status"] == "stopped":
        stamps.setdefault("stopped", time.monotonic())

builder.on_msg(_spy)
builder.observe(_watch, "run_state")
builder
'''
)


def test_stop_during_a_blocking_node_is_honoured_within_a_fifth_of_a_second(lab):
    kernel = lab.open_notebook("blocking", [BLOCKING])
    lab.builder()
    page = lab.page
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="node-block"]').dataset.status
            === 'running'""",
        timeout=15_000,
    )
    started = time.monotonic()
    # The kernel answers while the node blocks: its event loop is free.
    assert kernel.json("builder.last_run['nodes']['block']['status']") == "running"
    answered = time.monotonic() - started
    assert answered < 1.0, f"the kernel took {answered:.2f} s to answer during the node"

    page.get_by_test_id("toolbar-stop").click()
    _status_is(lab, "stopped", timeout=10)
    shown = time.monotonic() - started
    stamps = kernel.json("stamps")
    assert set(stamps) == {"stop", "stopped"}, stamps
    took = stamps["stopped"] - stamps["stop"]
    assert took < 0.2, f"Stop was handled {took:.3f} s after its message arrived"
    assert shown < 1.9, f"the page said stopped only {shown:.2f} s later: after the node"
    assert kernel.json("builder._runner.task.cancelled()") is True
    assert page.get_by_test_id("node-block").get_attribute("data-status") == "idle"
    lab.assert_no_js_errors()


PASSWORD = "pw-8Kq@z/Tt"
SECRET_URL = f"postgresql://postgres:{quote(PASSWORD, safe='')}@127.0.0.1:5432/test"
MASKED = "postgresql://postgres:***@127.0.0.1:5432/test"

SAVER = (
    HEADER
    + """
from pathlib import Path

def note(state):
    return {"notes": state.get("notes", 0) + 1}

graph = StateGraph(dict, name="saved").add_node("note", note)
graph.add_edge(START, "note").add_edge("note", END)
# The URL comes from a file: the notebook's own source holds no password.
builder = Builder(graph, checkpointer=Path("saver-url.txt").read_text())
builder
"""
)


def _save_widget_state(lab) -> None:
    """Make JupyterLab save widget state with the notebook, as a user may choose to."""
    settings = lab.server.root_dir.parent / "settings" / "@jupyter-widgets" / "jupyterlab-manager"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"saveState": True}))


def test_the_saver_box_shows_the_password_masked_and_the_saved_notebook_holds_none(lab):
    _save_widget_state(lab)
    (lab.server.root_dir / "saver-url.txt").write_text(SECRET_URL)
    kernel = lab.open_notebook("saver", [SAVER])
    lab.builder()
    page = lab.page
    box = page.get_by_test_id("run-saver")
    assert box.input_value() == MASKED

    # A URL typed into the box: on screen while typed, masked once applied.
    typed = f"mysql://root:{PASSWORD}@127.0.0.1:3306/test"
    box.click()
    box.fill(typed)
    assert box.input_value() == typed
    box.press("Enter")
    page.get_by_test_id("run-start").focus()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="run-saver"]').value
            === 'mysql://root:***@127.0.0.1:3306/test'""",
        timeout=10_000,
    )
    # The box masks the password itself; the kernel takes the URL a moment later.
    lab.wait_until(
        lambda: kernel.json("builder.saver") == "mysql://root:***@127.0.0.1:3306/test",
        message="the typed saver URL never reached the kernel",
    )
    # A URL that names no saver: the notice says so, without the password.
    box.click()
    box.fill(f"nosuch://app:{PASSWORD}@host/db")
    box.press("Enter")
    notice = page.get_by_test_id("notice")
    notice.wait_for(timeout=10_000)
    assert "no saver for 'nosuch://app:***@host/db'" in notice.inner_text()
    page.get_by_test_id("run-start").focus()
    assert PASSWORD not in box.input_value()

    # Save in JupyterLab; the file on disk holds the widget state, and no password.
    path = lab.server.root_dir / "saver.ipynb"
    before = path.stat().st_mtime
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    lab.wait_until(lambda: path.stat().st_mtime != before, timeout=15)
    text = path.read_text(encoding="utf-8")
    widgets = json.loads(text)["metadata"]["widgets"]
    state = widgets["application/vnd.jupyter.widget-state+json"]["state"]
    savers = [w["state"]["saver"] for w in state.values() if "saver" in w.get("state", {})]
    assert savers == ["mysql://root:***@127.0.0.1:3306/test"]
    for form in (PASSWORD, quote(PASSWORD, safe=""), quote(PASSWORD)):
        assert form not in text
    lab.assert_no_js_errors()


EXPORT = (
    HEADER
    + """
def step(state):
    return {"done": True}

graph = StateGraph(dict, name="flow").add_node("step", step)
graph.add_edge(START, "step").add_edge("step", END)
builder = Builder(graph)
builder
"""
)


def test_export_asks_before_replacing_a_file_and_refuses_a_module_name(lab):
    kernel = lab.open_notebook("export_guard", [EXPORT])
    lab.builder()
    page = lab.page
    written = lab.server.root_dir / "flow.py"
    status = page.get_by_test_id("export-status")
    page.get_by_test_id("toolbar-export").click()
    status.get_by_text("flow.py").wait_for(timeout=10_000)
    edited = written.read_text() + "# edited by hand\n"
    written.write_text(edited)

    # Export again: the page asks; Cancel leaves the file alone.
    page.get_by_test_id("toolbar-export").click()
    confirm = page.get_by_test_id("export-confirm")
    confirm.wait_for(timeout=10_000)
    assert "flow.py exists; replace it?" in confirm.inner_text()
    page.get_by_test_id("export-cancel").click()
    confirm.wait_for(state="detached")
    assert written.read_text() == edited
    # Overwrite replaces it.
    page.get_by_test_id("toolbar-export").click()
    confirm.wait_for(timeout=10_000)
    page.get_by_test_id("export-overwrite").click()
    status.get_by_text("flow.py").wait_for(timeout=10_000)
    lab.wait_until(lambda: "# edited by hand" not in written.read_text())
    assert "exported by graphnb" in written.read_text()
    # The refusal's notice clears once the overwrite's answer arrives, not before.
    page.get_by_test_id("notice").wait_for(state="detached", timeout=10_000)

    # The user's own module next to the notebook is never replaced, even when asked.
    (lab.server.root_dir / "helpers.py").write_text("def helper():\n    return 1\n")
    name = page.get_by_test_id("graph-name")
    name.fill("helpers")
    name.press("Enter")
    lab.wait_until(lambda: kernel.json("builder.spec.name") == "helpers")
    page.get_by_test_id("toolbar-export").click()
    notice = page.get_by_test_id("notice")
    notice.wait_for(timeout=10_000)
    assert "`helpers` is an importable module" in (notice.get_attribute("title") or "")
    assert (lab.server.root_dir / "helpers.py").read_text().startswith("def helper")

    # A graph named after a standard-library module is refused, and the page says why.
    name.fill("json")
    name.press("Enter")
    lab.wait_until(lambda: kernel.json("builder.spec.name") == "json")
    page.get_by_test_id("toolbar-export").click()
    page.wait_for_function(
        """() => (document.querySelector('[data-testid="notice"]') || {}).title
            ?.includes("`json` is a module of Python's standard library")""",
        timeout=10_000,
    )
    assert not (lab.server.root_dir / "json.py").exists()
    lab.assert_no_js_errors()
