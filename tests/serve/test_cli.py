"""``graphnb serve FILE[:GRAPH] ...``: the real command, in a subprocess when it serves."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("langgraph_sdk")

from langgraph_sdk import get_sync_client

from graphnb.cli import main

GRAPHS = Path(__file__).with_name("graphs.py")


def test_refuses_to_bind_beyond_loopback_without_a_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRAPHNB_SERVE_TOKEN", raising=False)
    assert main(["serve", f"{GRAPHS}:chain", "--host", "0.0.0.0"]) == 2
    error = capsys.readouterr().err
    assert "refusing to serve on '0.0.0.0' without a token" in error
    assert "--auth-token" in error


def test_refuses_a_database_it_does_not_serve(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", f"{GRAPHS}:chain", "--db", "mysql://u:pw@db/x"]) == 2
    error = capsys.readouterr().err
    assert "--db takes sqlite:///FILE or postgresql://..., got 'mysql://u:***@db/x'" in error
    assert "pw" not in error


def test_an_unreachable_postgresql_is_one_error_line_without_its_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["serve", f"{GRAPHS}:chain", "--db", "postgresql://u:pw@no-such-host.invalid/x"])
    assert code != 0
    error = capsys.readouterr().err
    assert error.startswith("error: --db postgresql://u:***@no-such-host.invalid/x: ")
    assert error.count("\n") == 1, error
    assert "pw" not in error


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_a_broker_needs_postgresql_and_a_redis_url(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    on_sqlite = [command, f"{GRAPHS}:chain", "--db", "sqlite:///x.db", "--broker", "redis://h"]
    assert main(on_sqlite) == 2
    assert "--db must be postgresql://..., got 'sqlite:///x.db'" in capsys.readouterr().err
    not_redis = [command, f"{GRAPHS}:chain", "--db", "postgresql://h/x"]
    assert main([*not_redis, "--broker", "amqp://u:pw@h"]) == 2
    error = capsys.readouterr().err
    assert "--broker takes redis://HOST:PORT[/DB], got 'amqp://u:***@h'" in error
    assert "pw" not in error


def test_a_worker_needs_a_broker_and_a_job(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["worker", f"{GRAPHS}:chain", "--db", "postgresql://h/x"])
    assert "--broker" in capsys.readouterr().err
    command = ["worker", f"{GRAPHS}:chain", "--db", "postgresql://h/x", "--broker", "redis://h"]
    assert main([*command, "--jobs", "0"]) == 2
    assert "--jobs must be 1 or more, got 0" in capsys.readouterr().err


@pytest.mark.db
@pytest.mark.parametrize("command", ["serve", "worker"])
def test_an_unreachable_broker_is_one_error_line_before_any_user_code_runs(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    marker = tmp_path / "loaded"
    app = tmp_path / "app.py"
    app.write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).touch()\n"
        "from graphnb import START, StateGraph\n"
        "graph = StateGraph(dict).add_node('a', lambda s: s).add_edge(START, 'a')\n"
    )
    where = ["--db", "postgresql://postgres@127.0.0.1:5432/postgres"]
    assert main([command, str(app), *where, "--broker", "redis://127.0.0.1:1/0"]) == 1
    error = capsys.readouterr().err
    assert error.startswith("error: cannot reach Redis at redis://127.0.0.1:1/0")
    assert error.count("\n") == 1, error
    assert not marker.exists(), "the file was loaded before the broker was checked"


def test_a_missing_file_is_a_load_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "no_such_file.py"]) == 3
    assert "no such file: no_such_file.py" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow
def test_serves_the_files_graphs_to_the_sdk(tmp_path: Path) -> None:
    port = _free_port()
    db = f"sqlite:///{tmp_path / 'served.db'}"
    command = [sys.executable, "-m", "graphnb", "serve", f"{GRAPHS}:chain", f"{GRAPHS}:asker"]
    command += ["--port", str(port), "--db", db, "--auth-token", "tok"]
    server = subprocess.Popen(
        command, cwd=tmp_path, env=os.environ.copy(), stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/ok", headers={"x-api-key": "tok"}).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            assert time.monotonic() < deadline, "graphnb serve did not start in 30 s"
            time.sleep(0.1)
        with get_sync_client(url=url, api_key="tok") as client:
            assert sorted(a["graph_id"] for a in client.assistants.search()) == ["asker", "chain"]
            thread_id = client.threads.create()["thread_id"]
            assert client.runs.wait(thread_id, "chain", input={"count": 1})["count"] == 4
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stderr:
            server.stderr.close()
    # the threads outlive the server, in the file --db names
    assert main(["threads", "--db", db]) == 0


def test_an_auth_hook_is_an_auth_setting_loaded_after_the_checks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRAPHNB_SERVE_TOKEN", raising=False)
    beyond = ["serve", f"{GRAPHS}:chain", "--host", "0.0.0.0"]
    assert main([*beyond, "--auth", "no_such_module_here:user"]) == 2
    error = capsys.readouterr().err
    assert "refusing" not in error
    assert "--auth no_such_module_here:user: cannot import no_such_module_here" in error
    assert main([*beyond, "--auth", "graphnb:no_such_function"]) == 2
    assert "graphnb has no function 'no_such_function'" in capsys.readouterr().err
    assert main([*beyond, "--auth", "x:y", "--auth-token", "t"]) == 2
    assert "not both" in capsys.readouterr().err


def test_serves_with_the_auth_hook_a_module_names(tmp_path: Path) -> None:
    (tmp_path / "house_auth.py").write_text(
        "def user(headers):\n"
        "    name = headers.get('x-user')\n"
        "    if not name:\n"
        "        raise LookupError('who are you? send x-user')\n"
        "    return name\n"
    )
    port = _free_port()
    db = f"sqlite:///{tmp_path / 'served.db'}"
    command = [sys.executable, "-m", "graphnb", "serve", f"{GRAPHS}:chain"]
    command += ["--port", str(port), "--db", db, "--auth", "house_auth:user"]
    server = subprocess.Popen(
        command, cwd=tmp_path, env=os.environ.copy(), stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/ok", headers={"x-user": "ada"}).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            assert time.monotonic() < deadline, "graphnb serve did not start in 30 s"
            time.sleep(0.1)
        refused = httpx.get(f"{url}/ok")
        assert refused.status_code == 401
        assert refused.json() == {"detail": "unauthorized: who are you? send x-user"}
        with (
            get_sync_client(url=url, api_key=None, headers={"x-user": "ada"}) as ada,
            get_sync_client(url=url, api_key=None, headers={"x-user": "bob"}) as bob,
        ):
            thread = ada.threads.create()
            assert thread["metadata"] == {"owner": "ada"}
            assert bob.threads.search() == []
            assert [t["thread_id"] for t in ada.threads.search()] == [thread["thread_id"]]
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stderr:
            server.stderr.close()


def test_import_graphnb_loads_no_server() -> None:
    probe = "import sys, graphnb; print(sorted(m for m in sys.modules if m.split('.')[0] in "
    probe += "('starlette', 'uvicorn') or m.startswith('graphnb.serve')))"
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "[]"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_only_loopback_serves_without_a_token(host: str, loopback: bool) -> None:
    from graphnb.serve import InsecureBindError, check_bind

    check_bind(host, "a token")  # with a token, any address
    if loopback:
        check_bind(host, None)
    else:
        with pytest.raises(InsecureBindError, match=f"refusing to serve on '{host}'"):
            check_bind(host, None)


def test_the_run_store_commits_as_the_saver_does(tmp_path: Path) -> None:
    from graphnb.serve.store import Store

    store = Store(str(tmp_path / "serve.db"))
    try:
        # NORMAL (1) in WAL: no fsync per commit on the event loop, as SqliteSaver
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 1
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        store.close()


def test_runs_left_running_by_a_stopped_server_are_errors_at_the_next_start(
    tmp_path: Path,
) -> None:
    from graphnb.serve.runs import Runner
    from graphnb.serve.store import Store

    path = str(tmp_path / "serve.db")
    store = Store(path)
    store.add_thread("t", {}, "chain")
    for run_id, status in (("r1", "running"), ("r2", "pending"), ("r3", "success")):
        store.add_run(
            {
                "run_id": run_id,
                "thread_id": "t",
                "assistant_id": "a",
                "status": status,
                "metadata": {},
                "multitask_strategy": "reject",
                "created_at": 1.0,
                "updated_at": 1.0,
            }
        )
    store.close()
    reopened = Store(path)
    Runner(reopened)  # the in-process runner: what it finds unfinished, no process runs
    try:
        statuses = {
            r["run_id"]: r["status"] for r in reopened.runs("t", limit=10, offset=0, status=None)
        }
        assert statuses == {"r1": "error", "r2": "error", "r3": "success"}
    finally:
        reopened.close()
