"""``graphnb threads import``: LangGraph threads into a graphnb database, from the shell."""

from __future__ import annotations

import json
import pickle
import runpy
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

FLOW = """
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from graphnb.interop import from_langgraph


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def model(state: Chat) -> dict[str, Any]:
    last = state["messages"][-1]
    turn = sum(1 for m in state["messages"] if m.type == "human")
    if last.type == "tool":
        return {"messages": [AIMessage(content=f"it is {last.content}", id=f"a{turn}b")]}
    call = {"name": "clock", "args": {}, "id": f"c{turn}"}
    return {"messages": [AIMessage(content="", tool_calls=[call], id=f"a{turn}a")]}


def tools(state: Chat) -> dict[str, Any]:
    call = state["messages"][-1].tool_calls[0]
    return {"messages": [ToolMessage(content="noon", tool_call_id=call["id"], id="t" + call["id"])]}


def wants_tool(state: Chat) -> Literal["tools", "__end__"]:
    return "tools" if state["messages"][-1].tool_calls else END


def builder() -> StateGraph:
    graph = StateGraph(Chat)
    graph.add_node("model", model)
    graph.add_node("tools", tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", wants_tool)
    graph.add_edge("tools", "model")
    return graph


graph = from_langgraph(builder())
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
def langgraph_db(tmp_path: Path) -> Path:
    """A LangGraph SQLite checkpointer file holding thread ``t`` (4 steps) and ``u``."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    (tmp_path / "flow.py").write_text(FLOW, encoding="utf-8")
    flow: dict[str, Any] = runpy.run_path(str(tmp_path / "flow.py"))
    path = tmp_path / "lg.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    compiled = flow["builder"]().compile(checkpointer=SqliteSaver(conn))
    for thread in ("t", "u"):
        config = {"configurable": {"thread_id": thread}}
        compiled.invoke({"messages": [HumanMessage("time?", id="h1")]}, config)
    conn.close()
    return path


def test_import_then_continue_the_thread_with_graphnb_run(langgraph_db, tmp_path):
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    done = graphnb(
        "threads", "import", "--from", f"sqlite:///{langgraph_db}", "--db", db,
        "--graph", "flow.py", "--thread", "t", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "imported thread t (4 checkpoints)\n"
    listed = graphnb("threads", "--db", db, cwd=tmp_path)
    assert listed.stdout.split() == ["t"]
    shown = graphnb("threads", "--db", db, "t", "--json", cwd=tmp_path)
    steps = [(c["step"], c["source"], c["ran"]) for c in json.loads(shown.stdout)["checkpoints"]]
    assert steps == [
        (-1, "input", []),
        (0, "loop", ["model"]),
        (1, "loop", ["tools"]),
        (2, "loop", ["model"]),
    ]

    question = json.dumps({"messages": [{"type": "human", "content": "and now?", "id": "h2"}]})
    ran = graphnb(
        "run", "flow.py", "--thread", "t", "--db", db, "--input", question, "-q", cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stderr
    messages = json.loads(ran.stdout)["messages"]
    assert [m["id"] for m in messages] == ["h1", "a1a", "tc1", "a1b", "h2", "a2a", "tc2", "a2b"]


def test_a_pickle_row_is_refused_naming_it_and_nothing_is_written(langgraph_db, tmp_path):
    conn = sqlite3.connect(langgraph_db)
    (checkpoint_id,) = conn.execute(
        "SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'u' ORDER BY checkpoint_id DESC"
    ).fetchone()
    conn.execute(
        "UPDATE checkpoints SET type = 'pickle', checkpoint = ? WHERE checkpoint_id = ?",
        (pickle.dumps(print), checkpoint_id),
    )
    conn.commit()
    conn.close()
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    done = graphnb(
        "threads", "import", "--from", f"sqlite:///{langgraph_db}", "--db", db, cwd=tmp_path
    )
    assert done.returncode == 1
    assert "pickle" in done.stderr
    assert "thread 'u'" in done.stderr
    assert repr(checkpoint_id) in done.stderr
    assert done.stdout == ""
    assert graphnb("threads", "--db", db, cwd=tmp_path).stdout == ""


def test_bad_sources_and_threads_exit_with_their_codes(langgraph_db, tmp_path):
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    missing = graphnb("threads", "import", "--from", "sqlite:///nope.db", "--db", db, cwd=tmp_path)
    assert missing.returncode == 3
    assert "no such LangGraph SQLite database: 'nope.db'" in missing.stderr
    scheme = graphnb("threads", "import", "--from", "redis://x", "--db", db, cwd=tmp_path)
    assert scheme.returncode == 2
    assert "sqlite:///path.db or postgresql://" in scheme.stderr
    source = f"sqlite:///{langgraph_db}"
    unknown = graphnb(
        "threads", "import", "--from", source, "--db", db, "--thread", "zz", cwd=tmp_path
    )
    assert unknown.returncode == 2
    assert "no thread 'zz'" in unknown.stderr
    twice = [
        graphnb("threads", "import", "--from", source, "--db", db, "--json", cwd=tmp_path)
        for _ in range(2)
    ]
    assert twice[0].returncode == 0
    assert json.loads(twice[0].stdout) == [
        {"thread": "t", "checkpoints": 4},
        {"thread": "u", "checkpoints": 4},
    ]
    assert twice[1].returncode == 1
    assert "already has a thread 't'" in twice[1].stderr


def sqlite_tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return [name for (name,) in rows]


def test_the_source_is_read_without_writing_to_it(langgraph_db, tmp_path):
    before = langgraph_db.read_bytes()
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    done = graphnb(
        "threads", "import", "--from", f"sqlite:///{langgraph_db}", "--db", db, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert langgraph_db.read_bytes() == before


def test_a_source_without_langgraph_tables_is_named_and_left_as_it_was(tmp_path):
    app = tmp_path / "app.db"
    with sqlite3.connect(app) as conn:
        conn.execute("CREATE TABLE users (id INTEGER)")
    before = app.read_bytes()
    done = graphnb(
        "threads", "import", "--from", "sqlite:///app.db", "--db", "sqlite:///dest.db", cwd=tmp_path
    )
    assert done.returncode == 3
    assert done.stderr.startswith("error: --from sqlite:///app.db: ")
    assert "no LangGraph checkpoints" in done.stderr
    assert sqlite_tables(app) == ["users"]
    assert app.read_bytes() == before


def test_a_source_that_is_not_a_database_is_named_as_the_source(tmp_path):
    (tmp_path / "junk.db").write_text("not a db\n", encoding="utf-8")
    done = graphnb(
        "threads", "import", "--from", "sqlite:///junk.db", "--db", "sqlite:///dest.db",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("error: --from sqlite:///junk.db: "), done.stderr
    assert "--db" not in done.stderr
    assert (tmp_path / "junk.db").read_text(encoding="utf-8") == "not a db\n"


def test_a_source_from_before_task_path_is_read_as_it_is(langgraph_db, tmp_path):
    with sqlite3.connect(langgraph_db) as conn:
        conn.execute("ALTER TABLE writes DROP COLUMN task_path")
    before = langgraph_db.read_bytes()
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    done = graphnb(
        "threads", "import", "--from", f"sqlite:///{langgraph_db}", "--db", db, "--thread", "t",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "imported thread t (4 checkpoints)\n"
    assert langgraph_db.read_bytes() == before


def test_a_langgraph_source_without_threads_says_nothing_was_imported(tmp_path):
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(tmp_path / "empty.db") as conn:
        SqliteSaver(conn).setup()
    done = graphnb(
        "threads", "import", "--from", "sqlite:///empty.db", "--db", "sqlite:///dest.db",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "--from sqlite:///empty.db holds no LangGraph threads: nothing imported" in done.stderr


def test_a_thread_id_in_the_shape_of_a_subgraphs_is_refused_and_nothing_written(tmp_path):
    # Issue 29, item 7: such a thread vanished from the listings once imported.
    import uuid

    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    (tmp_path / "flow.py").write_text(FLOW, encoding="utf-8")
    flow: dict[str, Any] = runpy.run_path(str(tmp_path / "flow.py"))
    conn = sqlite3.connect(tmp_path / "lg.db", check_same_thread=False)
    compiled = flow["builder"]().compile(checkpointer=SqliteSaver(conn))
    taken = f"acme|alice@{uuid.uuid4().hex}"
    for thread in ("acme", taken):
        compiled.invoke(
            {"messages": [HumanMessage("time?", id="h1")]}, {"configurable": {"thread_id": thread}}
        )
    conn.close()
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    done = graphnb(
        "threads", "import", "--from", f"sqlite:///{tmp_path / 'lg.db'}", "--db", db, cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr  # as the other refusals of a source's thread
    assert done.stderr.startswith("error: ")
    assert taken in done.stderr
    assert "subgraphs' own threads" in done.stderr
    assert "Traceback" not in done.stderr


# -- damaged LangGraph files: one error line naming the checkpoint, nothing written ------

DEEP = "[" * 100_000 + "]" * 100_000


def _checkpoint_json(checkpoint_id: str, channel_values: Any) -> bytes:
    checkpoint = {
        "v": 4,
        "id": checkpoint_id,
        "ts": "2026-01-01T00:00:00+00:00",
        "channel_values": channel_values,
        "channel_versions": {},
        "versions_seen": {},
    }
    return json.dumps(checkpoint).encode()


def _overflowing_timedelta(data: bytes) -> bytes:
    """The real msgpack checkpoint with a timedelta LangGraph would write, but too large."""
    import msgpack

    checkpoint = msgpack.unpackb(data, raw=False, strict_map_key=False)
    days = msgpack.packb(["datetime", "timedelta", [10**12, 0, 0]])
    checkpoint["channel_values"]["messages"] = msgpack.ExtType(1, days)
    return msgpack.packb(checkpoint)  # type: ignore[no-any-return]


DAMAGE = {
    "metadata not JSON": ("metadata = ?", lambda cid, data: b"{not json", "metadata"),
    "metadata a list": ("metadata = ?", lambda cid, data: b"[1, 2]", "metadata"),
    "metadata nested 100,000 deep": ("metadata = ?", lambda cid, data: DEEP.encode(), "metadata"),
    "step not a number": (
        "metadata = ?",
        lambda cid, data: b'{"source": "loop", "step": "abc"}',
        "step",
    ),
    "step NaN": ("metadata = ?", lambda cid, data: b'{"source": "loop", "step": NaN}', "step"),
    "checkpoint an int": ("type = 'json', checkpoint = ?", lambda cid, data: b"5", "checkpoint"),
    "channel values a list": (
        "type = 'json', checkpoint = ?",
        lambda cid, data: _checkpoint_json(cid, [1, 2]),
        "channel_values",
    ),
    "checkpoint nested 100,000 deep": (
        "type = 'json', checkpoint = ?",
        lambda cid, data: _checkpoint_json(cid, {"messages": "@"}).replace(b'"@"', DEEP.encode()),
        "deep",
    ),
    "timedelta overflow": (
        "checkpoint = ?",
        lambda cid, data: _overflowing_timedelta(data),
        "timedelta",
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_langgraph_row_is_one_error_line_and_nothing_is_written(
    damage, langgraph_db, tmp_path
):
    assignment, make, said = DAMAGE[damage]
    with sqlite3.connect(langgraph_db) as conn:
        checkpoint_id, data = conn.execute(
            "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = 'u' "
            "AND CAST(metadata AS TEXT) LIKE '%\"loop\"%' ORDER BY checkpoint_id DESC"
        ).fetchone()
        conn.execute(
            f"UPDATE checkpoints SET {assignment} WHERE checkpoint_id = ?",
            (make(checkpoint_id, data), checkpoint_id),
        )
    db = f"sqlite:///{tmp_path / 'graphnb.db'}"
    done = graphnb(
        "threads", "import", "--from", f"sqlite:///{langgraph_db}", "--db", db, cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "thread 'u'" in done.stderr
    assert repr(checkpoint_id) in done.stderr
    assert said in done.stderr
    assert "nothing was imported" in done.stderr
    assert done.stdout == ""
    assert graphnb("threads", "--db", db, cwd=tmp_path).stdout == ""


BLOCKED = """
import sys


class Missing:
    # Acts as if the langgraph extra's package were not installed.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == sys.argv[1] or name == sys.argv[1]:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Missing())
from graphnb.cli import main

raise SystemExit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(
    ("blocked", "named"),
    [
        ("msgpack", "msgpack"),
        ("langgraph", "langgraph"),
        ("langgraph.checkpoint.sqlite", "langgraph-checkpoint-sqlite"),
    ],
)
def test_import_without_its_extra_is_one_error_line_saying_what_to_install(
    blocked, named, langgraph_db, tmp_path
):
    done = subprocess.run(
        [
            sys.executable, "-c", BLOCKED, blocked, "threads", "import",
            "--from", f"sqlite:///{langgraph_db}", "--db", "sqlite:///graphnb.db",
        ],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: LangGraph interop needs the "), done.stderr
    assert done.stderr.endswith(" package: pip install 'graphnb[langgraph]'\n")
    assert named in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "graphnb.db").exists()
