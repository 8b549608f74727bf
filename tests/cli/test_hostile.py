"""Bad files, bad paths and hostile data: one ``error:`` line, the documented exit code.

These run ``main()`` in the test's process: an exception escaping it (a traceback) or a
``SystemExit`` from a loaded file fails the test by itself.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphnb.cli import main

CHAT = """
from typing import Annotated

from graphnb import END, START, GraphState, StateField, StateGraph, append


class Chat(GraphState):
    messages: Annotated[list[str], StateField(reducer=append)] = []


def reply(state: Chat) -> dict:
    return {"messages": [f"reply {len(state.messages) + 1}"]}


builder = StateGraph(Chat, name="chat")
builder.add_node("reply", reply).add_edge(START, "reply").add_edge("reply", END)
graph = builder.compile()
"""

DB = "sqlite:///threads.db"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run in ``tmp_path``, and forget the files loaded there afterwards."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(CHAT, encoding="utf-8")
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if str(getattr(sys.modules[name], "__file__", "") or "").startswith(
            (str(tmp_path), "<notebook")
        ):
            del sys.modules[name]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(err: str, *expected: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    for part in expected:
        assert part in lines[0], err


# -- item 16: files that cannot be loaded -----------------------------------------------

V4_HEADER = '"nbformat": 4, "nbformat_minor": 5, "metadata": {}'

BAD_FILES = {
    "exits.py": ("raise SystemExit(0)\n", "exited with SystemExit(0)"),
    "exits_in_cell.ipynb": (
        "{" + V4_HEADER + ', "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], '
        '"execution_count": null, "source": "import sys\\nsys.exit()"}]}',
        "code cell 1 exited with SystemExit(None)",
    ),
    "number_cell.ipynb": ("{" + V4_HEADER + ', "cells": [1]}', "cell 1 is a number (1)"),
    "number_source.ipynb": (
        "{" + V4_HEADER + ', "cells": [{"cell_type": "code", "source": 5}]}',
        "the source of cell 1 is a number (5)",
    ),
    "list_metadata.ipynb": (
        "{" + V4_HEADER + ', "cells": [{"cell_type": "code", "source": "", "metadata": [1]}]}',
        "the metadata of cell 1 is a list ([1]), expected an object",
    ),
    "number_tags.ipynb": (
        "{" + V4_HEADER + ', "cells": [{"cell_type": "code", "source": "", '
        '"metadata": {"tags": 5}}]}',
        "the tags of cell 1 are a number (5), expected a list of text",
    ),
    "text_tags.ipynb": (
        "{" + V4_HEADER + ', "cells": [{"cell_type": "code", "source": "", '
        '"metadata": {"tags": "graphnb-skip-on-load"}}]}',
        'the tags of cell 1 are a string ("graphnb-skip-on-load"), expected a list of text',
    ),
    "cells_object.ipynb": ("{" + V4_HEADER + ', "cells": {"a": 1}}', "'cells' is an object"),
    "bad_v3.ipynb": (
        '{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": "x"}',
        "is not a valid version 3 notebook",
    ),
    "future.ipynb": ('{"nbformat": 5, "cells": []}', "version 5 notebook"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["run", "draw", "export"])
def test_a_file_that_cannot_be_loaded_is_one_error_line_and_exit_code_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, command: str
) -> None:
    text, message = BAD_FILES[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = cli(capsys, command, name)
    assert code == 3
    assert out == ""
    assert_one_error_line(err, name, message)


@pytest.mark.parametrize("name", ["graphs.chat", "Holder.graph", "2nd", "chat graph"])
@pytest.mark.parametrize("command", ["run", "draw", "export"])
def test_a_graph_name_that_is_no_variable_name_is_an_unknown_graph_not_a_missing_file(
    capsys: pytest.CaptureFixture[str], command: str, name: str
) -> None:
    """`FILE:GRAPH` names a top-level variable; `chat.py:graphs.chat` is not the file
    `chat.py:graphs.chat`, which does not exist."""
    code, out, err = cli(capsys, command, f"chat.py:{name}")
    assert code == 2
    assert out == ""
    assert_one_error_line(
        err,
        f"'chat.py' defines no graph named {name!r} (graphs: builder, graph)",
        "GRAPH is the name of a top-level variable",
    )


# -- item 16: outputs into a folder that does not exist ----------------------------------


@pytest.mark.parametrize(
    ("command", "output"),
    [("draw", "out/flow.svg"), ("export", "out/flow.py"), ("export", "out/flow.ipynb")],
)
def test_writing_into_a_missing_folder_is_one_error_line_and_exit_code_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, output: str
) -> None:
    code, _, err = cli(capsys, command, "chat.py", "-o", output)
    assert code == 3
    assert_one_error_line(err, f"cannot write {output!r}: its folder 'out' does not exist")
    assert not (tmp_path / "out").exists()


def test_export_to_a_wrong_suffix_is_refused_before_loading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "exits.py").write_text("raise SystemExit(0)\n", encoding="utf-8")
    code, _, err = cli(capsys, "export", "exits.py", "-o", "out.txt")
    assert code == 2
    assert_one_error_line(err, "use a .py or .ipynb file")


# -- item 17: control characters in thread ids -------------------------------------------

HOSTILE_ID = "evil\nforged line\x1b[2J\x9b31m\u202e"
ESCAPED_ID = "evil\\nforged line\\x1b[2J\\x9b31m\\u202e"


def test_threads_escape_control_characters_in_ids_and_json_keeps_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(capsys, "run", "chat.py", "--thread", HOSTILE_ID, "--db", DB, "-q")[0] == 0
    code, out, _ = cli(capsys, "threads", "--db", DB)
    assert code == 0
    assert out.splitlines() == [ESCAPED_ID]
    code, out, _ = cli(capsys, "threads", "--db", DB, HOSTILE_ID)
    assert code == 0
    assert out.splitlines()[0] == f"thread {ESCAPED_ID}: 2 checkpoints"
    for line in out.splitlines():
        assert line.isprintable(), line
    code, out, _ = cli(capsys, "threads", "--db", DB, "--json")
    assert json.loads(out) == [HOSTILE_ID]
    assert out.isascii() or out.rstrip("\n").isprintable()


def test_threads_history_escapes_control_characters_in_written_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hostile = json.dumps({"messages": ["\x1b]0;owned\x07 hi \x9b"]})
    assert cli(capsys, "run", "chat.py", "--thread", "t", "--db", DB, "-q", "-i", hostile)[0] == 0
    code, out, _ = cli(capsys, "threads", "--db", DB, "t", "--graph", "chat.py")
    assert code == 0
    assert "\x1b" not in out
    assert "\x9b" not in out
    assert "\\x9b" in out or "\\u009b" in out


def test_run_progress_and_final_state_escape_control_characters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "evil.py").write_text(EVIL_GRAPH, encoding="utf-8")
    hostile = json.dumps({"text": "\x1b[2J\ud800 keep\nlines"})
    code, out, err = cli(capsys, "run", "evil.py", "-i", hostile)
    assert code == 0
    for line in err.splitlines():
        assert line.isprintable(), line
    assert "> a\\x1b[31mred\\nline\\x9b (step 0)" in err
    assert json.loads(out) == {"text": "\x1b[2J\ud800 keep\nlines"}
    assert "\x1b" not in out


EVIL_GRAPH = """
from graphnb import END, START, StateGraph


def f(state: dict) -> dict:
    return {}


NODE = "a\\x1b[31mred\\nline\\x9b"
graph = StateGraph(dict, name="ev\\x1bil")
graph.add_node(NODE, f, label="lab\\x9bel").add_edge(START, NODE).add_edge(NODE, END)
"""


@pytest.mark.parametrize("form", ["mermaid", "dot"])
def test_diagrams_printed_to_the_terminal_escape_control_characters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str
) -> None:
    (tmp_path / "evil.py").write_text(EVIL_GRAPH, encoding="utf-8")
    code, out, _ = cli(capsys, "draw", "evil.py", "--format", form)
    assert code == 0
    for line in out.splitlines():
        assert line.isprintable(), line
    assert "\\x9b" in out or "\\u009b" in out


# -- item 15: a --db password is never printed -----------------------------------------

BAD_URLS = {
    "unknown scheme": "postgress://app:s3cr%40et@db.example/runs",
    "no scheme": "app:s3cr%40et@db.example/runs",
    "malformed PostgreSQL": "postgresql://app:s3cr%40et@[::1/runs",
    "bad PostgreSQL percent escape": "postgresql://app:s3cr%40et@db.example/runs%",
    "PostgreSQL bad port": "postgresql://app:s3cr%40et@127.0.0.1:port/runs",
    "MySQL bad port": "mysql://root:s3cr%40et@127.0.0.1:notaport/test",
}


@pytest.mark.parametrize("url", BAD_URLS.values(), ids=BAD_URLS.keys())
@pytest.mark.parametrize("command", ["run", "threads", "seed"])
def test_a_bad_db_url_is_one_usage_error_line_without_the_password(
    capsys: pytest.CaptureFixture[str], url: str, command: str
) -> None:
    arguments = {
        "run": ["run", "chat.py", "--thread", "t", "--db", url],
        "threads": ["threads", "--db", url],
        "seed": ["threads", "--db", url, "t", "--graph", "chat.py", "--seed", "{}"],
    }[command]
    code, out, err = cli(capsys, *arguments)
    assert code == 2
    assert out == ""
    assert_one_error_line(err, ":***@")
    assert "s3cr" not in err


def test_a_database_that_refuses_is_one_line_without_the_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "postgresql://app:s3cr%40et@127.0.0.1:1/runs"  # nothing listens on port 1
    code, _, err = cli(capsys, "run", "chat.py", "--thread", "t", "--db", url)
    assert code == 1
    assert_one_error_line(err, "--db postgresql://app:***@127.0.0.1:1/runs")
    assert "s3cr" not in err


@pytest.mark.parametrize(
    "url",
    ["postgresql://app:s3cret@[::1/db", "mysql://root:p@ss/w:rd@[::1:x/db", "x:y@", "://", "@:@"],
)
def test_redaction_never_raises_and_hides_the_password(url: str) -> None:
    from graphnb.console import redacted

    shown = redacted(url)
    for secret in ("s3cret", "p@ss/w:rd"):
        assert secret not in shown


# -- issue 12 item 7: small things ------------------------------------------------------


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    import graphnb

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"graphnb {graphnb.__version__} ")


def test_demo_escapes_control_characters_in_the_question(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = cli(capsys, "demo", "--question", "\x1b[2Jwhy?")
    assert code == 0
    assert "\x1b" not in out
    assert "Q: \\x1b[2Jwhy?" in out


def test_demo_help_describes_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "built-in example graph" in help_text
    assert "--question" in help_text


def test_run_on_a_seeded_thread_numbers_steps_as_the_thread_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed = ["threads", "--db", DB, "s", "--graph", "chat.py", "--seed", '{"messages": ["crm"]}']
    assert cli(capsys, *seed)[0] == 0
    code, _, err = cli(capsys, "run", "chat.py", "--thread", "s", "--db", DB, "-i", "{}")
    assert code == 0
    code, out, _ = cli(capsys, "threads", "--db", DB, "s", "--json")
    ran = [c["step"] for c in json.loads(out)["checkpoints"] if c["ran"] == ["reply"]]
    assert len(ran) == 1
    assert f"> reply (step {ran[0]})" in err
    # One node ran, in one step: the seed and the input are checkpoints, not steps run.
    assert "done: 1 step in " in err


def test_seeding_an_existing_thread_points_to_the_commands_not_to_python(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(capsys, "run", "chat.py", "--thread", "t", "--db", DB, "-q")[0] == 0
    code, _, err = cli(
        capsys, "threads", "--db", DB, "t", "--graph", "chat.py", "--seed", '{"messages": []}'
    )
    assert code == 1
    assert_one_error_line(err, "already has checkpoints", "graphnb threads NEW_ID")
    assert "update_state" not in err


# -- hunt: a lone surrogate in a drawn name, an output that is its own input -------------

SURROGATE_GRAPH = """
from graphnb import END, START, StateGraph


def node(state: dict) -> dict:
    return {"out": "x"}


flow = StateGraph(dict).add_node("n\\ud800", node)
flow.add_edge(START, "n\\ud800").add_edge("n\\ud800", END)
"""


@pytest.mark.parametrize("suffix", [".mmd", ".mermaid", ".dot", ".gv", ".svg"])
def test_draw_writes_a_lone_surrogate_as_its_escape_over_an_existing_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    (tmp_path / "s.py").write_text(SURROGATE_GRAPH, encoding="utf-8")
    output = tmp_path / f"d{suffix}"
    output.write_text("my old diagram\n", encoding="utf-8")
    code, _, err = cli(capsys, "draw", "s.py", "-o", output.name)
    assert code == 0, err
    text = output.read_text(encoding="utf-8")
    assert "my old diagram" not in text
    assert "\\ud800" in text


@pytest.mark.parametrize(
    ("source", "output"),
    [
        ("chat.py", "chat.py"),
        ("chat.py", "./chat.py"),
        ("chat.py:graph", "chat.py"),
        ("nb.ipynb", "nb.ipynb"),
        ("chat.py", "link.py"),  # a symbolic link to the source
    ],
)
def test_export_refuses_to_write_over_its_own_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str, output: str
) -> None:
    from graphnb.export import load_graph, write_notebook

    (tmp_path / "link.py").symlink_to(tmp_path / "chat.py")
    write_notebook(load_graph("chat.py:graph")[1], tmp_path / "nb.ipynb")
    before = {name: (tmp_path / name).read_bytes() for name in ("chat.py", "nb.ipynb")}
    capsys.readouterr()
    code, out, err = cli(capsys, "export", source, "-o", output)
    assert code == 2
    assert out == ""
    assert_one_error_line(err, f"{output!r}", "is the file the graph is read from")
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


def test_export_to_langgraph_refuses_to_write_over_its_own_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = (tmp_path / "chat.py").read_bytes()
    code, _, err = cli(capsys, "export", "chat.py", "--to", "langgraph", "-o", "chat.py")
    assert code == 2
    assert_one_error_line(err, "'chat.py'", "is the file the graph is read from")
    assert (tmp_path / "chat.py").read_bytes() == before


# -- hunt: a batch output that cannot be written is found before any input runs ----------

CHARGING = """
from graphnb import END, START, StateGraph


def work(state: dict) -> dict:
    with open("charged.log", "a", encoding="utf-8") as log:
        log.write(f"charged {state['x']}\\n")
    return {"done": True}


graph = StateGraph(dict).add_node("work", work)
graph.add_edge(START, "work").add_edge("work", END)
"""


@pytest.mark.parametrize(
    ("output", "code", "message"),
    [
        ("missing/results.jsonl", 3, "its folder 'missing' does not exist"),
        ("folder", 3, "is a folder"),
        ("in.jsonl", 2, "is the input file"),
        ("fx.py", 2, "is the file the graph is read from"),
    ],
)
def test_batch_checks_its_output_before_running_any_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, output: str, code: int, message: str
) -> None:
    (tmp_path / "fx.py").write_text(CHARGING, encoding="utf-8")
    (tmp_path / "in.jsonl").write_text('{"x": 1}\n{"x": 2}\n', encoding="utf-8")
    (tmp_path / "folder").mkdir()
    before = {name: (tmp_path / name).read_bytes() for name in ("fx.py", "in.jsonl")}
    done, out, err = cli(capsys, "batch", "fx.py", "-i", "in.jsonl", "-o", output, "-q")
    assert done == code
    assert out == ""
    assert_one_error_line(err, f"cannot write {output!r}", message)
    assert not (tmp_path / "charged.log").exists()
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


# -- hunt: read-only thread commands leave another application's database as it was -----


def tables(path: Path) -> list[str]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return [name for (name,) in rows]


@pytest.fixture
def app_db(tmp_path: Path) -> Path:
    """The SQLite database of some other application: one table, no graphnb ones."""
    import sqlite3

    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER)")
    return path


@pytest.mark.parametrize(
    ("args", "code", "expected_out", "message"),
    [
        ((), 0, "", "no graphnb threads in sqlite:///app.db"),
        (("--json",), 0, "[]\n", "no graphnb threads in sqlite:///app.db"),
        (("t1",), 2, "", "sqlite:///app.db has no thread 't1'"),
        (("prune", "--keep-last", "1"), 0, "removed 0 checkpoints\n", None),
    ],
)
def test_reading_threads_of_a_database_without_graphnb_tables_changes_nothing(
    capsys: pytest.CaptureFixture[str],
    app_db: Path,
    args: tuple[str, ...],
    code: int,
    expected_out: str,
    message: str | None,
) -> None:
    before = app_db.read_bytes()
    done, out, err = cli(capsys, "threads", "--db", "sqlite:///app.db", *args)
    assert done == code, err
    assert out == expected_out
    if message is not None:
        assert message in err
    assert tables(app_db) == ["users"]
    assert app_db.read_bytes() == before


@pytest.mark.parametrize("age", ["nan", "inf", "-inf", "infd", "NaNh"])
def test_prune_refuses_an_age_that_is_not_a_finite_number(
    capsys: pytest.CaptureFixture[str], age: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["threads", "prune", "--db", DB, f"--older-than={age}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--older-than" in err
    assert repr(age) in err


# -- issue 29 item 12: JSON Python's reader refuses is bad input, not a traceback ----------

DEEP = "[" * 100_000 + "]" * 100_000
LONG = "1" * 5_000

UNREADABLE = {
    "nested 100,000 deep": (DEEP, "nested more than 200 levels deep"),
    # Python reads it, but a state that deep can be neither printed nor stored as JSON.
    "nested 300 deep": ("[" * 300 + "]" * 300, "nested more than 200 levels deep"),
    "5,000 digits": (LONG, "digits"),
}


@pytest.mark.parametrize("value", UNREADABLE.values(), ids=UNREADABLE.keys())
@pytest.mark.parametrize("option", ["--input", "--resume", "--input-file", "--seed", "batch"])
def test_json_too_deep_or_too_long_to_read_is_a_usage_error_naming_where(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, value: tuple[str, str]
) -> None:
    text, said = value
    document = '{"messages": ' + text + "}"
    if option == "batch":
        (tmp_path / "in.jsonl").write_text('{"messages": []}\n' + document + "\n", "utf-8")
        args, where = ["batch", "chat.py", "--input", "in.jsonl"], "in.jsonl line 2"
    elif option == "--input-file":
        (tmp_path / "in.json").write_text(document, encoding="utf-8")
        args, where = ["run", "chat.py", "--input-file", "in.json"], "in.json"
    elif option == "--resume":
        args, where = ["run", "chat.py", "--thread", "t", "--db", DB, "--resume", text], option
    elif option == "--seed":
        args = ["threads", "t", "--db", DB, "--graph", "chat.py", "--seed", document]
        where = option
    else:
        args, where = ["run", "chat.py", option, document], option
    code, out, err = cli(capsys, *args)
    assert code == 2, err
    assert_one_error_line(err, f"error: {where} ", said)
    assert out == ""


# -- issue 29 item 23: rough edges --------------------------------------------------------


def test_dash_capital_v_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    import graphnb

    with pytest.raises(SystemExit) as exited:
        main(["-V"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"graphnb {graphnb.__version__} ")


def test_a_misspelt_option_is_told_with_the_commands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "chat.py", "--inptu", "{}"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: graphnb run "), err
    assert "--input JSON" in err, "run's usage lists the option meant"
    assert "graphnb run: error: unrecognized arguments: --inptu {}" in err
    with pytest.raises(SystemExit):
        main(["--inptu", "run", "chat.py"])
    assert capsys.readouterr().err.startswith("usage: graphnb [-h]"), "before the command"


def test_lab_on_a_file_that_is_no_notebook_is_an_error_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "lab", "notes.txt")
    assert out == ""
    assert code == 2
    assert_one_error_line(err, "notes.txt is not a notebook (.ipynb)")
    assert not Path("notes.txt").exists()


def test_json_input_as_deep_as_graphnb_takes_runs_and_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("keep.py").write_text(KEEP, encoding="utf-8")
    deep = "[" * 199 + "]" * 199  # inside the input object: 200 levels
    code, out, err = cli(capsys, "run", "keep.py", "-q", "--input", '{"data": ' + deep + "}")
    assert code == 0, err
    assert json.loads(out) == {"data": json.loads(deep), "seen": True}


KEEP = """
from graphnb import END, START, StateGraph


def look(state: dict) -> dict:
    return {"seen": True}


graph = StateGraph(dict).add_node("look", look)
graph.add_edge(START, "look").add_edge("look", END)
"""
