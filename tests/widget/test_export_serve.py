"""Export for serving: the builder writes the module and the command that serves it.

The command the reply gives is run as it is (with a free port), and the served graph is
called with LangGraph's own client.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("langgraph_sdk")

from langgraph_sdk import get_sync_client

from graphnb.cli import demo
from graphnb.widget import Builder
from graphnb.widget.builder import serve_command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_command_names_the_module_its_graph_and_a_threads_file_beside_it(
    tmp_path: Path,
) -> None:
    module = tmp_path / "my flows" / "story.py"
    words = shlex.split(serve_command(module))
    assert words == [
        "graphnb",
        "serve",
        f"{module}:graph",
        "--db",
        f"sqlite:///{tmp_path / 'my flows' / 'story-threads.db'}",
    ]


def test_the_serve_export_writes_a_module_that_the_command_serves(
    comm: Any, tmp_path: Path
) -> None:
    graph = demo.build()
    builder = Builder(graph, namespace={}, path=tmp_path / "story.json")
    reply = comm.receive({"type": "export", "serve": True})
    assert reply["error"] is None
    written = Path(reply["written"])
    assert written.is_file()
    assert reply["command"] == serve_command(written)
    assert builder.export_status == reply["command"]

    port = _free_port()
    words = shlex.split(reply["command"])
    assert words[0] == "graphnb"
    command = [sys.executable, "-m", "graphnb", *words[1:], "--port", str(port)]
    url = f"http://127.0.0.1:{port}"
    root = str(Path(__file__).parents[2])
    env = os.environ | {"PYTHONPATH": root}
    with subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ) as server:
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                try:
                    if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "graphnb serve did not answer"
                time.sleep(0.1)
            with get_sync_client(url=url, api_key=None) as client:
                assert [a["graph_id"] for a in client.assistants.search()] == ["graph"]
                values = client.runs.wait(None, "graph", input={"question": "Why serve?"})
            assert values["question"] == "Why serve?"
            assert values["plan"], "the served graph ran its nodes"
            assert values["answer"]
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert written.with_name(f"{written.stem}-threads.db").is_file(), "threads beside it"
