"""``graphnb lab`` stopped by a signal ends JupyterLab and its kernels with it (issue 29, item 22).

A real JupyterLab is started (no browser, a free port, a token of the test's own), a
kernel is started through its REST API, and the signal goes to the ``graphnb`` process
as a service manager, a closed terminal or Ctrl-C would send it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jupyterlab")
psutil = pytest.importorskip("psutil")

TOKEN = "graphnb-test-token"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def request(port: int, path: str, method: str = "GET", body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    call = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method,
        headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(call, timeout=10) as answer:
        return json.loads(answer.read() or b"null")


def command_lines(processes: list[Any]) -> list[str]:
    """The processes' command lines, leaving out those already gone.

    JupyterLab starts short-lived helpers; one that ended but is not reaped yet is a
    zombie, whose command line psutil cannot read (a CI run failed on one).
    """
    lines = []
    for process in processes:
        try:
            lines.append(" ".join(process.cmdline()))
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue
    return lines


def answers(port: int) -> bool:
    try:
        request(port, "/api")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False
    return True


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_graphnb_lab_ends_jupyterlab_and_its_kernel(
    stop: signal.Signals, tmp_path: Path
) -> None:
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY",)}
    env.update(
        GRAPHNB_NOTEBOOKS=str(tmp_path / "notebooks"),
        JUPYTER_TOKEN=TOKEN,
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
    )
    lab = subprocess.Popen(
        [sys.executable, "-m", "graphnb", "lab", "t.ipynb", "--no-browser", f"--port={port}"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    tree: list[Any] = []
    try:
        deadline = time.monotonic() + 120
        while not answers(port):
            assert lab.poll() is None, lab.stderr.read() if lab.stderr else ""
            assert time.monotonic() < deadline, "JupyterLab did not answer in 120 s"
            time.sleep(0.5)
        kernel = request(port, "/api/kernels", "POST", {"name": "python3"})
        assert kernel["id"]
        tree = psutil.Process(lab.pid).children(recursive=True)
        commands = command_lines(tree)
        assert any("jupyterlab" in command for command in commands), commands
        assert any("ipykernel" in command for command in commands), commands

        lab.send_signal(stop)
        code = lab.wait(timeout=60)
        _, alive = psutil.wait_procs(tree, timeout=15)
        assert command_lines(alive) == [], "a process of the tree outlived graphnb lab"
        assert not answers(port)
        assert code == 128 + stop, "as a shell reports a command a signal stopped"
        assert f"{stop.name}: stopping JupyterLab and its kernels" in (lab.stderr.read() or "")
    finally:
        for child in [*tree, psutil.Process(lab.pid) if lab.poll() is None else None]:
            if child is not None and child.is_running():
                child.kill()
        lab.wait(timeout=30)
        if lab.stderr:
            lab.stderr.close()


STUBBORN = """
import signal, subprocess, sys, time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
# In a session of its own, as Jupyter starts its kernels.
subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
print("ready", flush=True)
time.sleep(600)
"""

RUNNER = """
import sys

from graphnb.cli.process import run_tree

raise SystemExit(run_tree([sys.executable, "-c", sys.argv[1]], what="the tree", grace=1.0))
"""


def test_a_tree_that_ignores_sigterm_is_killed_after_the_grace_period() -> None:
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, STUBBORN], stdout=subprocess.PIPE, text=True
    )
    tree: list[Any] = []
    try:
        assert runner.stdout is not None
        assert runner.stdout.readline() == "ready\n"
        tree = psutil.Process(runner.pid).children(recursive=True)
        assert len(tree) == 2
        started = time.monotonic()
        runner.send_signal(signal.SIGTERM)
        assert runner.wait(timeout=30) == 128 + signal.SIGTERM
        _, alive = psutil.wait_procs(tree, timeout=5)
        assert alive == []
        assert time.monotonic() - started < 10, "killed once the grace period was over"
    finally:
        for child in tree:
            if child.is_running():
                child.kill()
        if runner.poll() is None:
            runner.kill()
        runner.wait(timeout=30)
        if runner.stdout:
            runner.stdout.close()
