"""``graphnb lab`` started for real: the URL it prints (and opens) is the quickstart's page."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"http://127\.0\.0\.1:\d+/\S+")
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(tmp_path: Path, display: str) -> tuple[subprocess.Popen[str], Path]:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"  # a "browser" that notes what it was asked to open
    browser.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    browser.chmod(0o755)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "GRAPHNB_NOTEBOOKS": str(tmp_path / "copies"),
        "DISPLAY": display,
        "BROWSER": str(browser),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    env.pop("WAYLAND_DISPLAY", None)
    command = [
        sys.executable,
        "-c",
        "import sys; from graphnb.cli import main; sys.exit(main())",
        "lab",
        f"--port={_free_port()}",
    ]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    return process, opened


def _fetch(url: str, deadline: float) -> bytes:
    """The body at ``url``, retried while the server is still binding its port."""
    while True:
        try:
            with DIRECT.open(url, timeout=30) as answer:
                assert answer.status == 200
                return bytes(answer.read())
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.25)


def _printed_url(process: subprocess.Popen[str], deadline: float) -> tuple[str, str]:
    assert process.stdout is not None
    seen = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = URL.search(line)
        if found:
            return found.group(0), "".join(seen)
    raise AssertionError("graphnb lab printed no 127.0.0.1 URL:\n" + "".join(seen))


@pytest.mark.slow
@pytest.mark.parametrize("display", [":99", ""], ids=["display", "no-display"])
def test_the_printed_url_lands_on_the_quickstart(tmp_path: Path, display: str) -> None:
    process, opened = _start(tmp_path, display)
    try:
        url, output = _printed_url(process, time.monotonic() + 120)
        parts = urlsplit(url)
        assert parts.path == "/lab/tree/01_quickstart.ipynb", output
        assert "JupyterLab" in _fetch(url, time.monotonic() + 60).decode()
        contents = f"{parts.scheme}://{parts.netloc}/api/contents/01_quickstart.ipynb?{parts.query}"
        model = json.loads(_fetch(contents, time.monotonic() + 60))
        assert model["type"] == "notebook"
        assert model["path"] == "01_quickstart.ipynb"
        assert (tmp_path / "copies" / "01_quickstart.ipynb").is_file()
        if display:
            for _ in range(100):
                if opened.exists():
                    break
                time.sleep(0.1)
            target = opened.read_text().strip()
            page_opened = (
                Path(urlsplit(target).path).read_text() if target.startswith("file:") else target
            )
            assert "/lab/tree/01_quickstart.ipynb" in page_opened
        else:
            assert "no display here" in output
            assert not opened.exists()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
