from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

FLOW = """
from typing import Annotated

from graphnb import END, START, GraphState, StateField, StateGraph, append


class Chat(GraphState):
    messages: Annotated[list[str], StateField(reducer=append)] = []
    turns: int = 0


def reply(state: Chat) -> dict:
    return {"messages": [f"reply {state.turns + 1}"], "turns": state.turns + 1}


builder = StateGraph(Chat, name="chat")
builder.add_node("reply", reply).add_edge(START, "reply").add_edge("reply", END)
graph = builder.compile()
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
def chat(tmp_path: Path) -> Path:
    (tmp_path / "chat.py").write_text(FLOW, encoding="utf-8")
    return tmp_path


DB = "sqlite:///threads.db"


def test_runs_on_a_thread_continue_its_state_across_processes(chat: Path) -> None:
    first = graphnb("run", "chat.py", "--thread", "t1", "--db", DB, "-q", cwd=chat)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["messages"] == ["reply 1"]
    second = graphnb("run", "chat.py", "--thread", "t1", "--db", DB, "-q", "-i", "{}", cwd=chat)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == {"messages": ["reply 1", "reply 2"], "turns": 2}


def test_threads_lists_the_threads_of_a_database(chat: Path) -> None:
    for thread in ("b-thread", "a-thread"):
        assert graphnb("run", "chat.py", "--thread", thread, "--db", DB, cwd=chat).returncode == 0
    done = graphnb("threads", "--db", DB, cwd=chat)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["a-thread", "b-thread"]
    as_json = graphnb("threads", "--db", DB, "--json", cwd=chat)
    assert json.loads(as_json.stdout) == ["a-thread", "b-thread"]


def test_threads_shows_a_threads_history_and_state(chat: Path) -> None:
    assert graphnb("run", "chat.py", "--thread", "t", "--db", DB, cwd=chat).returncode == 0
    done = graphnb("threads", "--db", DB, "t", "--graph", "chat.py", "--json", cwd=chat)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [c["source"] for c in document["checkpoints"]] == ["input", "loop"]
    assert document["checkpoints"][1]["ran"] == ["reply"]
    assert document["checkpoints"][1]["writes"] == [
        ["reply", {"messages": ["reply 1"], "turns": 1}]
    ]
    assert document["state"] == {"messages": ["reply 1"], "turns": 1}
    text = graphnb("threads", "--db", DB, "t", cwd=chat)
    assert "thread t: 2 checkpoints" in text.stdout
    assert "reply: messages=" in text.stdout


def test_threads_shows_a_damaged_row_instead_of_failing(chat: Path) -> None:
    import sqlite3

    assert graphnb("run", "chat.py", "--thread", "t", "--db", DB, cwd=chat).returncode == 0
    with sqlite3.connect(chat / "threads.db") as conn:
        conn.execute("""UPDATE graphnb_checkpoints SET writes = '{"a": 1}', meta = '[]'""")
    conn.close()
    done = graphnb("threads", "--db", DB, "t", cwd=chat)
    assert done.returncode == 0, done.stderr
    assert 'malformed writes: {"a": 1}' in done.stdout
    assert "ran - -> next end" in done.stdout
    with_state = graphnb("threads", "--db", DB, "t", "--graph", "chat.py", cwd=chat)
    assert with_state.returncode == 1
    assert "has a malformed" in with_state.stderr


def test_a_seeded_thread_starts_from_its_seed(chat: Path) -> None:
    seed = json.dumps({"messages": ["from the CRM: VIP customer"], "turns": 10})
    seeded = graphnb("threads", "--db", DB, "s", "--seed", seed, "--graph", "chat.py", cwd=chat)
    assert seeded.returncode == 0, seeded.stderr
    assert "seeded thread s" in seeded.stdout
    ran = graphnb("run", "chat.py", "--thread", "s", "--db", DB, "-q", cwd=chat)
    assert json.loads(ran.stdout) == {
        "messages": ["from the CRM: VIP customer", "reply 11"],
        "turns": 11,
    }
    again = graphnb("threads", "--db", DB, "s", "--seed", seed, "--graph", "chat.py", cwd=chat)
    assert again.returncode == 1
    assert "thread 's' already has checkpoints" in again.stderr


def test_threads_errors_have_clear_messages_and_codes(chat: Path) -> None:
    assert graphnb("run", "chat.py", "--thread", "somebody", "--db", DB, cwd=chat).returncode == 0
    missing = graphnb("threads", "--db", DB, "nobody", cwd=chat)
    assert missing.returncode == 2
    assert "has no thread 'nobody'" in missing.stderr
    bad_url = graphnb("threads", "--db", "ftp://nowhere", cwd=chat)
    assert bad_url.returncode == 2
    assert "no saver for 'ftp://nowhere'" in bad_url.stderr
    bad_seed = graphnb("threads", "--db", DB, "x", "--seed", "{", "--graph", "chat.py", cwd=chat)
    assert bad_seed.returncode == 2
    assert "--seed is not valid JSON" in bad_seed.stderr
    no_graph = graphnb("threads", "--db", DB, "x", "--seed", "{}", cwd=chat)
    assert no_graph.returncode == 2
    assert "--seed needs a THREAD and --graph" in no_graph.stderr
    typo = graphnb("threads", "--db", "sqlite:///thraeds.db", cwd=chat)
    assert typo.returncode == 3
    assert "no such database: thraeds.db" in typo.stderr
    assert not (chat / "thraeds.db").exists()


def test_a_database_that_cannot_be_reached_is_an_error_that_hides_the_password(
    chat: Path,
) -> None:
    url = "postgresql://app:s3cret@127.0.0.1:1/test"  # nothing listens on port 1
    for command in (
        ["threads", "--db", url],
        ["run", "chat.py", "--thread", "t", "--db", url, "-i", "{}"],
        ["threads", "--db", url, "t", "--seed", "{}", "--graph", "chat.py"],
    ):
        done = graphnb(*command, cwd=chat)
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("error: --db postgresql://app:***@127.0.0.1:1/test: ")
        assert "Traceback" not in done.stderr
        assert "s3cret" not in done.stderr


def test_run_with_db_but_no_thread_is_a_usage_error(chat: Path) -> None:
    done = graphnb("run", "chat.py", "--db", DB, cwd=chat)
    assert done.returncode == 2
    assert "--db needs --thread" in done.stderr
    no_db = graphnb("run", "chat.py", "--thread", "t", cwd=chat)
    assert no_db.returncode == 2
    assert "compiled without a checkpointer" in no_db.stderr


def test_an_exported_module_runs_on_a_thread(chat: Path) -> None:
    assert graphnb("export", "chat.py", "-o", "chat_module.py", cwd=chat).returncode == 0
    for expected in (["reply 1"], ["reply 1", "reply 2"]):
        done = subprocess.run(
            [sys.executable, "chat_module.py", "-q", "-i", "{}", "--thread", "m", "--db", DB],
            capture_output=True,
            text=True,
            cwd=chat,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["messages"] == expected


def test_an_interrupted_run_says_so_and_resumes_without_input(chat: Path) -> None:
    with (chat / "chat.py").open("a", encoding="utf-8") as file:
        file.write("paused = builder.compile(interrupt_before=['reply'])\n")
    first = graphnb("run", "chat.py:paused", "--thread", "p", "--db", DB, "-i", "{}", cwd=chat)
    assert first.returncode == 0, first.stderr
    assert (
        "interrupted (before reply); run again with --thread p --db sqlite:///threads.db to resume"
    ) in first.stderr
    assert json.loads(first.stdout) == {"messages": [], "turns": 0}
    resumed = graphnb("run", "chat.py:paused", "--thread", "p", "--db", DB, "-q", cwd=chat)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == {"messages": ["reply 1"], "turns": 1}


ASKING = """
from graphnb import END, START, StateGraph, interrupt


def ask(state: dict) -> dict:
    return {"answer": interrupt({"question": "ship it?"})}


def both(state: dict) -> dict:
    return {"answer": interrupt("first?"), "other": interrupt("second?")}


graph = StateGraph(dict).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
twice = StateGraph(dict).add_node("both", both).add_edge(START, "both").add_edge("both", END)


def left(state: dict) -> dict:
    return {"left": interrupt("left?")}


def right(state: dict) -> dict:
    return {"right": interrupt("right?")}


side_by_side = StateGraph(dict).add_node("left", left).add_node("right", right)
side_by_side.add_edge(START, "left").add_edge(START, "right")
side_by_side.add_edge("left", END).add_edge("right", END)
"""


def test_an_interrupt_shows_its_question_and_resume_answers_it(tmp_path: Path) -> None:
    (tmp_path / "asking.py").write_text(ASKING, encoding="utf-8")
    first = graphnb("run", "asking.py", "--thread", "q", "--db", DB, "-i", "{}", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert 'ask asks: {"question": "ship it?"}' in first.stderr
    hint = "run again with --thread q --db sqlite:///threads.db --resume JSON to answer"
    assert hint in first.stderr
    again = graphnb("run", "asking.py", "--thread", "q", "--db", DB, "-q", cwd=tmp_path)
    assert json.loads(again.stdout) == {}, "without an answer the node asks again"
    answered = graphnb(
        "run", "asking.py", "--thread", "q", "--db", DB, "-q", "--resume", '"yes"', cwd=tmp_path
    )
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout) == {"answer": "yes"}
    # A node asking twice is answered in order, one run each.
    args = ("run", "asking.py:twice", "--thread", "w", "--db", DB, "-q")
    graphnb(*args, "-i", "{}", cwd=tmp_path)
    assert json.loads(graphnb(*args, "--resume", "1", cwd=tmp_path).stdout) == {}
    done = graphnb(*args, "--resume", "[2]", cwd=tmp_path)
    assert json.loads(done.stdout) == {"answer": 1, "other": [2]}


def test_interrupts_of_one_step_are_listed_with_their_ids_and_answered_together(
    tmp_path: Path,
) -> None:
    (tmp_path / "asking.py").write_text(ASKING, encoding="utf-8")
    args = ("run", "asking.py:side_by_side", "--thread", "s", "--db", DB)
    first = graphnb(*args, "-i", "{}", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert 'left asks (left:0): "left?"' in first.stderr
    assert 'right asks (right:0): "right?"' in first.stderr
    assert "--resume '{\"<id>\": JSON, ...}' to answer each" in first.stderr
    answered = graphnb(*args, "-q", "--resume", '{"left:0": 1, "right:0": 2}', cwd=tmp_path)
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout) == {"left": 1, "right": 2}


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--resume", "yes", "--thread", "q", "--db", DB], "--resume is not valid JSON"),
        (["--resume", "1"], "--resume needs --thread ID"),
        (["--resume", "1", "-i", "{}", "--thread", "q"], "not allowed with argument"),
    ],
)
def test_a_bad_resume_is_a_usage_error(tmp_path: Path, options: list[str], expected: str) -> None:
    (tmp_path / "asking.py").write_text(ASKING, encoding="utf-8")
    done = graphnb("run", "asking.py", *options, cwd=tmp_path)
    assert done.returncode == 2
    assert expected in done.stderr


def test_threads_prune_keeps_the_newest_and_the_state(chat: Path) -> None:
    # 30 runs: 60 checkpoints, past the snapshot written every 50, so rows can go
    fill = (
        "import chat; app = chat.builder.compile(checkpointer='sqlite:///threads.db')\n"
        "for _ in range(30): app.invoke({}, thread_id='t')\napp.checkpointer.close()"
    )
    subprocess.run([sys.executable, "-c", fill], cwd=chat, check=True, timeout=120)
    before = json.loads(graphnb("threads", "--db", DB, "t", "--json", cwd=chat).stdout)
    pruned = graphnb("threads", "prune", "--db", DB, "--keep-last", "2", "--json", cwd=chat)
    assert pruned.returncode == 0, pruned.stderr
    removed = json.loads(pruned.stdout)["removed"]
    assert removed > 0
    after = json.loads(graphnb("threads", "--db", DB, "t", "--json", cwd=chat).stdout)
    assert len(json.dumps(after)) < len(json.dumps(before))
    again = graphnb("run", "chat.py", "--thread", "t", "--db", DB, "-q", "-i", "{}", cwd=chat)
    assert json.loads(again.stdout)["turns"] == 31  # the thread goes on from its state
    text = graphnb("threads", "prune", "--db", DB, "--older-than", "1d", cwd=chat)
    assert text.stdout.strip() == "removed 0 checkpoints"
    bad = graphnb("threads", "prune", "--db", DB, "--older-than", "soon", cwd=chat)
    assert bad.returncode != 0
    assert "--older-than takes seconds" in bad.stderr


def test_threads_lists_what_list_threads_lists_without_subgraphs_threads(tmp_path: Path) -> None:
    # Issue 29, item 7: the command listed subgraphs' own threads, which the Python API
    # and the widget leave out.
    from graphnb import END, START, StateGraph

    def note(state: dict[str, Any]) -> dict[str, Any]:
        return {"n": state.get("n", 0) + 1}

    child = StateGraph(dict, name="child").add_node("note", note)
    child.add_edge(START, "note").add_edge("note", END)
    parent = StateGraph(dict, name="parent").add_node("inner", child)
    parent.add_edge(START, "inner").add_edge("inner", END)
    app = parent.compile(checkpointer=f"sqlite:///{tmp_path / 'threads.db'}")
    app.invoke({}, thread_id="t")
    (kept,) = [t for t in app.checkpointer.threads() if t != "t"]
    app.checkpointer.close()
    listed = graphnb("threads", "--db", DB, "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == app.list_threads() == ["t"]
    shown = graphnb("threads", "--db", DB, kept, cwd=tmp_path)  # named, it still shows
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"thread {kept}: ")


def test_threads_prune_says_what_it_kept_and_prunes_all_with_the_graph(chat: Path) -> None:
    # Issue 29, item 18: "removed 0 checkpoints" without the reason; "prune" without an
    # option was read as a thread's name; --help did not list prune or import.
    fill = (
        "import chat; app = chat.builder.compile(checkpointer='sqlite:///threads.db')\n"
        "for _ in range(5): app.invoke({}, thread_id='t')\napp.checkpointer.close()"
    )
    subprocess.run([sys.executable, "-c", fill], cwd=chat, check=True, timeout=120)
    kept = graphnb("threads", "prune", "--db", DB, "--keep-last", "2", cwd=chat)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == (
        "removed 0 checkpoints; kept 8 older checkpoints that the kept ones are rebuilt from "
        "(a checkpoint stores what changed since the last snapshot); prune through the "
        "graph's state model to rebuild snapshots and remove them too: pass "
        "--graph FILE[:GRAPH]\n"
    )
    pruned = graphnb(
        "threads", "prune", "--db", DB, "--keep-last", "2", "--graph", "chat.py", "--json",
        cwd=chat,
    )  # fmt: skip
    assert pruned.returncode == 0, pruned.stderr
    assert json.loads(pruned.stdout) == {"removed": 8, "kept_ancestors": 0}
    shown = json.loads(
        graphnb("threads", "--db", DB, "t", "--json", "--graph", "chat.py", cwd=chat).stdout
    )
    assert len(shown["checkpoints"]) == 2
    assert shown["state"]["turns"] == 5
    bare = graphnb("threads", "prune", "--db", DB, cwd=chat)
    assert bare.returncode == 2
    assert bare.stderr.startswith(
        "error: graphnb threads prune needs --keep-last N, --older-than AGE"
    )
    nowhere = graphnb("threads", "prune", "--db", "sqlite:///nowhere.db", cwd=chat)
    assert (nowhere.returncode, nowhere.stderr) == (2, bare.stderr)
    # a thread that is named "prune" is shown as any other
    assert graphnb("run", "chat.py", "--thread", "prune", "--db", DB, cwd=chat).returncode == 0
    named = graphnb("threads", "prune", "--db", DB, cwd=chat)
    assert named.returncode == 0, named.stderr
    assert named.stdout.startswith("thread prune: 2 checkpoints")
    helped = graphnb("threads", "--help", cwd=chat)
    assert "graphnb threads prune --db URL" in helped.stdout
    assert "graphnb threads import --from URL" in helped.stdout
