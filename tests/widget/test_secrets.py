"""A saver URL's password never leaves the kernel (issue 11, item 9).

It used to sit in the synced ``saver`` trait: shown in the run panel's text box, saved in
the notebook's widget state, and echoed in notices.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any
from urllib.parse import quote

import pytest

from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]

PASSWORD = "pw-8Kq@z/Tt"  # '@' and '/' as a careless user types them, unencoded
# The test database trusts local connections: the password is carried, not checked.
POSTGRES = f"postgresql://postgres:{quote(PASSWORD, safe='')}@127.0.0.1:5432/test"
MASKED = "postgresql://postgres:***@127.0.0.1:5432/test"
FORMS = (PASSWORD, quote(PASSWORD, safe=""), quote(PASSWORD))


def _leaks(text: str) -> list[str]:
    return [form for form in FORMS if form in text]


def _everything_sent(comm: Any) -> str:
    return json.dumps([comm.opened, comm.sent], default=str)


def test_the_widget_syncs_and_shows_the_saver_url_with_its_password_masked(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook, checkpointer=POSTGRES)
    assert builder.saver == MASKED
    assert builder.saves_threads is True
    # The kernel keeps the real URL: the saver connects with it.
    assert builder._checkpointer.url == POSTGRES  # type: ignore[union-attr]
    comm.receive({"type": "use_saver", "url": f"mysql://root:{PASSWORD}x@127.0.0.1:1/test"})
    assert builder.saver == "mysql://root:***@127.0.0.1:1/test"
    comm.receive({"type": "use_saver", "url": f"nosuch://app:{PASSWORD}@host/db"})
    assert builder.notice.startswith("use_saver failed: no saver for 'nosuch://app:***@host/db'")
    comm.receive({"type": "use_saver", "url": f"postgresql://h/db?user=app&password={PASSWORD}"})
    assert builder.saver == "postgresql://h/db?user=app&password=***"
    assert _leaks(_everything_sent(comm)) == []


def test_the_masked_url_given_back_means_the_saver_in_use(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook, checkpointer=POSTGRES)
    saver = builder._checkpointer
    comm.receive({"type": "use_saver", "url": MASKED})
    assert builder._checkpointer is saver
    assert builder.notice == ""
    # A masked password with anything else changed cannot be used: say so.
    comm.receive({"type": "use_saver", "url": MASKED.replace("/test", "/other")})
    assert builder._checkpointer is saver
    assert "shows the password masked (***); type the password itself" in builder.notice


def test_a_run_error_quoting_the_password_is_scrubbed(comm, notebook):
    from graphnb import END, START, StateGraph

    def leaky(state: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError(f"could not reach {POSTGRES} (password {PASSWORD})")

    graph = StateGraph(dict, name="leaky").add_node("leaky", leaky)
    builder = Builder(graph.add_edge(START, "leaky").add_edge("leaky", END), namespace={})
    builder.use_saver(POSTGRES)
    builder.use_saver("memory://")  # the password was seen; it stays secret

    async def main() -> Any:
        return await builder.run({})

    run_async(main())
    assert builder.run_state["status"] == "error"
    assert f"could not reach {MASKED}" in builder.run_state["error"]["message"]
    assert _leaks(_everything_sent(comm)) == []


NOTEBOOK_CELLS = [
    """
    import os
    from graphnb import END, START, StateGraph
    from graphnb.widget import Builder

    def note(state):
        return {"notes": state.get("notes", 0) + 1}

    graph = StateGraph(dict, name="secret").add_node("note", note)
    graph.add_edge(START, "note").add_edge("note", END)
    builder = Builder(graph, checkpointer=os.environ["GRAPHNB_TEST_SAVER_URL"])
    builder
    """,
    """
    import uuid
    final = await builder.run({"notes": 0}, thread_id=uuid.uuid4().hex)
    print(final, builder.last_run["error"])
    """,
    """
    # What the canvas sends when a URL is typed into the run panel's saver box.
    bad = "nosuch://app:" + os.environ["GRAPHNB_TEST_PASSWORD"] + "@host/db"
    reply = builder.answer({"type": "use_saver", "url": bad})
    print(builder.notice)
    print(reply["error"])
    """,
]


def test_a_saved_notebook_holds_no_password(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("GRAPHNB_TEST_SAVER_URL", POSTGRES)
    monkeypatch.setenv("GRAPHNB_TEST_PASSWORD", PASSWORD)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    notebook.cells = [nbformat.v4.new_code_cell(textwrap.dedent(c).strip()) for c in NOTEBOOK_CELLS]
    # nbclient stores the widget state in the notebook, as Jupyter does on save.
    client = nbclient.NotebookClient(
        notebook, kernel_name="python3", timeout=120, resources={"metadata": {"path": tmp_path}}
    )
    client.execute()
    path = tmp_path / "saved.ipynb"
    nbformat.write(notebook, path)
    text = path.read_text(encoding="utf-8")

    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    builders = [w["state"] for w in state.values() if "saver" in w.get("state", {})]
    assert [b["saver"] for b in builders] == [MASKED], "the widget state was saved"
    assert "{'notes': 1}" in text, "the run used the real URL"
    assert "no saver for 'nosuch://app:***@host/db'" in text
    assert _leaks(text) == []
