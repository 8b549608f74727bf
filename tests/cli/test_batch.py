"""``graphnb batch``: JSON lines in, JSON lines out, locally and on a Dask cluster."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"

FLOW = """
import os

from graphnb import END, START, StateGraph


def double(state):
    if state["x"] < 0:
        raise ValueError(f"negative input {state['x']}")
    return {"x": state["x"] * 2, "pid": os.getpid()}


builder = StateGraph(dict).add_node("double", double)
graph = builder.add_edge(START, "double").add_edge("double", END).compile()
"""


def graphnb(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from graphnb.cli import main; raise SystemExit(main())", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.fixture
def flow(tmp_path: Path) -> Path:
    # a module name of its own: workers import the nodes by it
    path = tmp_path / f"batch_flow_{uuid.uuid4().hex[:8]}.py"
    path.write_text(FLOW, encoding="utf-8")
    (tmp_path / "in.jsonl").write_text('{"x": 1}\n\n{"x": -2}\n{"x": 3}\n', encoding="utf-8")
    return path


def read_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def without_pid(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for line in lines:
        line.get("state", {}).pop("pid", None)
    return lines


def test_local_batch_writes_one_line_per_input_in_order(flow: Path) -> None:
    done = graphnb("batch", flow.name, "--input", "in.jsonl", cwd=flow.parent)
    assert done.returncode == 1, done.stderr  # an input failed
    lines = without_pid(read_lines(done.stdout))
    assert lines == [
        {"line": 1, "thread_id": None, "state": {"x": 2}},
        {
            "line": 3,
            "thread_id": None,
            "error": {
                "type": "NodeError",
                "message": "node `double` failed at step 0: ValueError: negative input -2",
            },
        },
        {"line": 4, "thread_id": None, "state": {"x": 6}},
    ]
    assert done.stderr.splitlines()[-1] == (
        "error: 1 of 3 inputs failed; first, line 3: node `double` failed at step 0: "
        "ValueError: negative input -2"
    )
    assert "batch [" in done.stderr  # the progress bar
    assert "3/3 done 2 failed 1" in done.stderr


def test_all_inputs_done_exits_0_and_output_file_and_threads(flow: Path) -> None:
    (flow.parent / "ok.jsonl").write_text('{"x": 5}\n{"x": 6}\n', encoding="utf-8")
    args = [flow.name, "-i", "ok.jsonl", "--db", "sqlite:///t.db", "-o", "out.jsonl", "-q"]
    done = graphnb("batch", *args, "--thread-prefix", "run", cwd=flow.parent)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    lines = without_pid(read_lines((flow.parent / "out.jsonl").read_text(encoding="utf-8")))
    assert lines == [
        {"line": 1, "thread_id": "run-1", "state": {"x": 10}},
        {"line": 2, "thread_id": "run-2", "state": {"x": 12}},
    ]
    listed = graphnb("threads", "--db", "sqlite:///t.db", cwd=flow.parent)
    assert listed.stdout.split() == ["run-1", "run-2"]


def test_a_bad_jsonl_line_is_named(flow: Path) -> None:
    (flow.parent / "bad.jsonl").write_text('{"x": 1}\n{"x": \n', encoding="utf-8")
    done = graphnb("batch", flow.name, "--input", "bad.jsonl", cwd=flow.parent)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: bad.jsonl line 2 is not valid JSON: Expecting value at column 7\n"
    (flow.parent / "list.jsonl").write_text('{"x": 1}\n[1]\n', encoding="utf-8")
    done = graphnb("batch", flow.name, "--input", "list.jsonl", cwd=flow.parent)
    assert done.returncode == 2
    assert done.stderr == (
        "error: list.jsonl line 2 must be a JSON object of state fields, got list\n"
    )


def test_lines_end_at_newlines_only(flow: Path) -> None:
    # U+2028 may stand unescaped in a JSON string; a Windows file ends its lines with \r\n
    line = json.dumps({"x": 1, "text": "one\u2028two\x85three"}, ensure_ascii=False)
    (flow.parent / "wide.jsonl").write_bytes(f'{line}\r\n{{"x": 3}}\n'.encode())
    done = graphnb("batch", flow.name, "--input", "wide.jsonl", "-q", cwd=flow.parent)
    assert (done.returncode, done.stderr) == (0, "")
    assert without_pid(read_lines(done.stdout)) == [
        {"line": 1, "thread_id": None, "state": {"x": 2, "text": "one\u2028two\x85three"}},
        {"line": 2, "thread_id": None, "state": {"x": 6}},
    ]


SLOW = """
import time

from graphnb import END, START, StateGraph


def work(state):
    time.sleep(0 if state["x"] == 0 else 3)  # input 0 finishes at once, the others take long
    return {"x": state["x"] + 1}


graph = StateGraph(dict).add_node("work", work).add_edge(START, "work").add_edge("work", END)
"""


def test_results_reach_the_output_as_they_finish_and_ctrl_c_keeps_them(tmp_path: Path) -> None:
    import signal
    import time

    (tmp_path / "slow.py").write_text(SLOW, encoding="utf-8")
    lines = "".join(json.dumps({"x": x}) + "\n" for x in range(6))
    (tmp_path / "in.jsonl").write_text(lines, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    command = "from graphnb.cli import main; raise SystemExit(main())"
    args = ["batch", "slow.py", "-i", "in.jsonl", "-o", str(out), "--workers", "2", "-q"]
    process = subprocess.Popen(
        [sys.executable, "-c", command, *args],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (out.exists() and out.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert read_lines(out.read_text()) == [{"line": 1, "thread_id": None, "state": {"x": 1}}]
    process.send_signal(signal.SIGINT)  # Ctrl-C while input 1 runs and 2-5 wait
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted: 1 of 6 results written" in stderr
    assert read_lines(out.read_text()) == [{"line": 1, "thread_id": None, "state": {"x": 1}}]


def test_missing_input_file_exits_3(flow: Path) -> None:
    done = graphnb("batch", flow.name, "--input", "nope.jsonl", cwd=flow.parent)
    assert done.returncode == 3
    assert done.stderr == "error: cannot read nope.jsonl: No such file or directory\n"


PORT = " (a port from 1 to 65535)"


@pytest.mark.parametrize(
    ("executor", "message"),
    [
        ("spark://h:1", "--executor 'spark://h:1': unknown scheme 'spark'"),
        ("threads", "--executor 'threads' is not local nor a URL"),
        ("dask://", "--executor 'dask://' names no address"),
        (
            "dask://127.0.0.1:notaport",
            "--executor 'dask://127.0.0.1:notaport': '127.0.0.1:notaport' is not HOST:PORT" + PORT,
        ),
        ("dask://:", "--executor 'dask://:': ':' is not HOST:PORT" + PORT),
        ("dask://h:0", "--executor 'dask://h:0': 'h:0' is not HOST:PORT" + PORT),
        ("dask://tcp://h:1", "--executor 'dask://tcp://h:1': 'tcp://h:1' is not HOST:PORT" + PORT),
        ("ray://nothere", "--executor 'ray://nothere': 'nothere' is not HOST:PORT" + PORT),
    ],
)
def test_an_unknown_executor_is_named(flow: Path, executor: str, message: str) -> None:
    done = graphnb("batch", flow.name, "-i", "in.jsonl", "--executor", executor, cwd=flow.parent)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {message}; use local, dask://HOST:PORT, ")
    assert len(done.stderr.splitlines()) == 1


def test_a_ray_cluster_that_cannot_be_reached_is_one_error_line(flow: Path) -> None:
    pytest.importorskip("ray")
    done = graphnb(
        "batch", flow.name, "-i", "in.jsonl", "--executor", "ray://127.0.0.1:1", cwd=flow.parent
    )
    assert (done.returncode, done.stdout) == (1, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: cannot reach the Ray cluster at 127.0.0.1:1: "), line


def test_workers_must_be_positive(flow: Path) -> None:
    done = graphnb("batch", flow.name, "-i", "in.jsonl", "--workers", "0", cwd=flow.parent)
    assert (done.returncode, done.stderr) == (2, "error: --workers must be at least 1, got 0\n")


@pytest.mark.parametrize("executor", ["dask://127.0.0.1:9", "ray://local"])
def test_workers_refuse_up_front_a_file_whose_name_is_no_module_name(
    flow: Path, executor: str
) -> None:
    flow.rename(flow.parent / "my-batch.py")
    done = graphnb(
        "batch", "my-batch.py", "-i", "in.jsonl", "--executor", executor, cwd=flow.parent
    )
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: node 'double' cannot travel to workers"), line
    assert "my-batch.py" in line
    assert "rename" in line


@pytest.fixture
def dask_cluster(flow: Path) -> Iterator[Any]:
    """A Dask LocalCluster whose spawned workers can import the flow's module."""
    distributed = pytest.importorskip("distributed")
    sys.path.insert(0, str(flow.parent))
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        host="127.0.0.1",
    )
    try:
        yield cluster
    finally:
        cluster.close()
        sys.path.remove(str(flow.parent))


@pytest.mark.slow
@pytest.mark.db
def test_dask_batch_on_postgres_matches_a_local_one(flow: Path, dask_cluster: Any) -> None:
    address = dask_cluster.scheduler_address.removeprefix("tcp://")
    prefix = f"cli-{uuid.uuid4().hex[:8]}"
    inputs = "".join(json.dumps({"x": i if i % 7 else -i - 1}) + "\n" for i in range(30))
    (flow.parent / "many.jsonl").write_text(inputs, encoding="utf-8")
    remote = graphnb(
        "batch",
        flow.name,
        *("-i", "many.jsonl", "--db", POSTGRES_URL, "--executor", f"dask://{address}"),
        *("--thread-prefix", prefix, "-o", "remote.jsonl"),
        cwd=flow.parent,
    )
    local = graphnb("batch", flow.name, "-i", "many.jsonl", "-q", cwd=flow.parent)
    assert remote.returncode == local.returncode == 1, remote.stderr
    got = read_lines((flow.parent / "remote.jsonl").read_text(encoding="utf-8"))
    pids = {line["state"]["pid"] for line in got if "state" in line}
    assert len(pids) == 2  # both workers, neither of them the command's process
    want = without_pid(read_lines(local.stdout))
    for line in want:
        line["thread_id"] = f"{prefix}-{line['line']}"
    assert without_pid(got) == want
    assert remote.stderr.splitlines()[-1].startswith("error: 5 of 30 inputs failed; first, line 1")
    listed = graphnb("threads", "--db", POSTGRES_URL, f"{prefix}-2", cwd=flow.parent)
    assert listed.returncode == 0
    assert listed.stdout.startswith(f"thread {prefix}-2: 2 checkpoints")
    # clean up the threads this test wrote
    from graphnb.checkpoint import saver_from_url

    with saver_from_url(POSTGRES_URL) as saver:
        for number in range(1, 31):
            saver.delete_thread(f"{prefix}-{number}")
