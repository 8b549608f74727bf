"""The builder's debugger requests, Python side: threads, history, show, fork, rerun."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


def debug_builder(notebook: dict[str, Any], tmp_path: Path) -> Builder:
    builder = Builder(
        notebook["graph"], namespace=notebook, checkpointer=f"sqlite:///{tmp_path / 't.db'}"
    )
    app = builder.compile()
    for index in range(3):
        app.invoke({"topic": f"topic-{index}"}, thread_id=f"thread-{index}")
    return builder


def ask(comm: Any, content: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = comm.receive(content)
    return reply


def test_threads_are_listed_newest_first_searched_and_paged(comm, notebook, tmp_path):
    debug_builder(notebook, tmp_path)
    request = {"type": "debug_threads", "search": "", "limit": 2, "after": None}
    first = ask(comm, request)
    assert first["error"] is None
    assert [item["thread_id"] for item in first["items"]] == ["thread-2", "thread-1"]
    assert first["items"][0]["status"] == "finished"
    assert first["after"] == "thread-1"
    second = ask(comm, {**request, "after": first["after"]})
    assert [item["thread_id"] for item in second["items"]] == ["thread-0"]
    assert second["after"] is None
    found = ask(comm, {**request, "search": "-1", "limit": 10})
    assert [item["thread_id"] for item in found["items"]] == ["thread-1"]


def test_history_shows_each_checkpoint_with_what_it_changed(comm, notebook, tmp_path):
    builder = debug_builder(notebook, tmp_path)
    request = {"type": "debug_history", "thread_id": "thread-0", "limit": 2}
    reply = ask(comm, {**request, "before": None})
    items = reply["items"]
    assert [(i["step"], i["ran"]) for i in items] == [(1, ["draft"]), (0, ["research"])]
    assert items[0]["changed"] == ["text"]
    assert items[1]["changed"] == ["notes"]
    assert reply["before"] == items[1]["checkpoint_id"]
    rest = ask(
        comm,
        {
            "type": "debug_history",
            "thread_id": "thread-0",
            "limit": 2,
            "before": reply["before"],
        },
    )
    assert [i["source"] for i in rest["items"]] == ["input"]
    assert rest["before"] is None

    comm.clear()
    comm.receive(
        {
            "type": "debug_show",
            "thread_id": "thread-0",
            "checkpoint_id": items[1]["checkpoint_id"],
        }
    )
    shown = builder.run_state
    assert shown["thread_id"] == "thread-0"
    assert shown["nodes"]["research"]["status"] == "done"
    assert shown["nodes"]["draft"]["status"] == "pending"
    assert shown["steps"][-1]["changed"] == ["notes"]


def test_editing_a_past_state_forks_and_a_bad_value_names_its_field(comm, notebook, tmp_path):
    builder = debug_builder(notebook, tmp_path)
    app = builder.compile()
    before = app.get_state_history("thread-1")
    past = before[1]  # after research
    bad = ask(
        comm,
        {
            "type": "debug_fork",
            "thread_id": "thread-1",
            "checkpoint_id": past.checkpoint_id,
            "values": {"notes": [1]},
            "as_node": None,
        },
    )
    assert bad["error"] is not None
    assert bad["field"] == "notes"
    assert len(app.get_state_history("thread-1")) == len(before)  # nothing written
    good = ask(
        comm,
        {
            "type": "debug_fork",
            "thread_id": "thread-1",
            "checkpoint_id": past.checkpoint_id,
            "values": {"topic": "edited"},
            "as_node": "research",
        },
    )
    assert good["error"] is None
    fork = app.get_state("thread-1")
    assert fork.checkpoint_id == good["checkpoint_id"]
    assert fork.parent_id == past.checkpoint_id
    assert fork.next == ("draft",)
    # The old branch is intact, row for row.
    after = {s.checkpoint_id: s for s in app.get_state_history("thread-1")}
    for old in before:
        assert after[old.checkpoint_id].values == old.values

    async def rerun() -> Any:
        comm.receive(
            {
                "type": "debug_rerun",
                "thread_id": "thread-1",
                "checkpoint_id": fork.checkpoint_id,
            }
        )
        return await builder._runner.task  # type: ignore[misc]

    final = run_async(rerun())
    assert final.text.startswith("edited-0")
    assert app.get_state("thread-1").parent_id == fork.checkpoint_id


def test_bad_debugger_requests_are_answered_with_their_error(comm, notebook, tmp_path):
    debug_builder(notebook, tmp_path)
    reply = ask(comm, {"type": "debug_threads", "search": "", "limit": 0, "after": None})
    assert "limit" in reply["error"]
    reply = ask(comm, {"type": "debug_history", "thread_id": 3})
    assert "thread_id" in reply["error"]
    without = Builder(notebook["graph"], namespace=notebook)
    reply = comm.receive({"type": "debug_threads", "search": "", "limit": 5, "after": None})
    assert "checkpointer" in reply["error"]
    assert without.saves_threads is False


def test_breakpoints_follow_a_renamed_node_and_go_with_a_deleted_one(comm, notebook, tmp_path):
    """A breakpoint left on a node that is gone made every run fail, with nothing on the
    canvas to clear it."""
    builder = debug_builder(notebook, tmp_path)
    for node, when in (("research", "before"), ("draft", "after")):
        on = {"type": "debug_breakpoint", "node": node, "when": when, "on": True}
        ask(comm, on)
    spec = builder.spec.to_dict()  # the front end's rename keeps the node's place
    spec["nodes"][0]["id"] = "first"
    for edge in spec["edges"]:
        edge["source"] = "first" if edge["source"] == "research" else edge["source"]
        edge["target"] = "first" if edge["target"] == "research" else edge["target"]
    comm.receive_update({"spec": spec})
    assert builder.breakpoints == {"first": ["before"], "draft": ["after"]}

    spec = builder.spec.to_dict()  # draft deleted, first joined to END
    spec["nodes"] = [node for node in spec["nodes"] if node["id"] != "draft"]
    spec["edges"] = [e for e in spec["edges"] if "draft" not in (e["source"], e["target"])]
    spec["edges"].append({"source": "first", "target": "__end__"})
    comm.receive_update({"spec": spec})
    assert builder.breakpoints == {"first": ["before"]}
    assert builder.problems == []

    async def run() -> None:
        await builder.run({"topic": "renamed"}, thread_id="bp")

    run_async(run())
    assert builder.paused["interrupts"][0]["node"] == "first"


def test_breakpoints_pause_runs_and_continue_and_step_resume_them(comm, notebook, tmp_path):
    builder = debug_builder(notebook, tmp_path)
    on = {"type": "debug_breakpoint", "node": "research", "when": "before"}
    on["on"] = True
    assert ask(comm, on)["breakpoints"] == {"research": ["before"]}
    assert builder.breakpoints == {"research": ["before"]}
    assert "not a node" in ask(comm, {**on, "node": "nope"})["error"]

    async def run(content: dict[str, Any] | None = None) -> Any:
        if content is None:
            task = builder.run({"topic": "paused"}, thread_id="bp")
        else:
            comm.receive(content)
            task = builder._runner.task
        await task  # type: ignore[misc]

    run_async(run())
    assert builder.paused["thread_id"] == "bp"
    assert builder.paused["interrupts"] == [
        {"node": "research", "when": "before", "value": None, "id": ""}
    ]
    app = builder.compile()
    assert app.get_state("bp").next == ("research",)

    # Step: one super-step (research), then it pauses again, after it.
    step = {"type": "debug_continue", "thread_id": "bp", "step": True}
    run_async(run(step))
    assert builder.paused["interrupts"] == [
        {"node": "research", "when": "after", "value": None, "id": ""}
    ]
    assert app.get_state("bp").values.notes == ["facts about paused"]
    assert app.get_state("bp").values.text == ""
    run_async(run({**step, "step": False}))  # Continue: to the end
    assert builder.paused == {}
    assert app.get_state("bp").next == ()
    assert app.get_state("bp").values.text.startswith("paused-0")

    off = {**on, "on": False}
    assert ask(comm, off)["breakpoints"] == {}
    run_async(run())
    assert builder.paused == {}


ASKING = """
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append, interrupt

class Form(GraphState):
    answers: Annotated[list[str], StateField(reducer=append)] = []

def name(state: Form) -> dict:
    return {"answers": [f"name={interrupt({'question': 'your name?'})}"]}

def city(state: Form) -> dict:
    return {"answers": [f"city={interrupt('your city?')}"]}

form = (
    StateGraph(Form, name="form")
    .add_node("name", name)
    .add_node("city", city)
    .add_edge(START, "name")
    .add_edge(START, "city")
    .add_edge("name", END)
    .add_edge("city", END)
)
"""


def test_pending_interrupts_are_answered_one_by_one(comm, tmp_path):
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(ASKING, "asking.py", "exec", dont_inherit=True), namespace)
    builder = Builder(
        namespace["form"], namespace=namespace, checkpointer=f"sqlite:///{tmp_path / 'f.db'}"
    )

    async def run(content: dict[str, Any] | None = None) -> Any:
        if content is None:
            task = builder.run({}, thread_id="ask")
        else:
            comm.receive(content)
            task = builder._runner.task
        await task  # type: ignore[misc]

    run_async(run())
    pending = builder.paused["interrupts"]
    assert [(i["node"], i["when"], i["value"]) for i in pending] == [
        ("name", "during", {"question": "your name?"}),
        ("city", "during", "your city?"),
    ]
    answer = {"type": "debug_resume", "thread_id": "ask"}
    comm.clear()
    run_async(run({**answer, "answers": {pending[1]["id"]: "Paris"}}))
    left = builder.paused["interrupts"]
    assert [i["node"] for i in left] == ["name"]
    refused = comm.receive({**answer, "answers": {"nope": "x"}})
    assert "no pending interrupt 'nope'" in refused["error"]
    run_async(run({**answer, "answers": {left[0]["id"]: "Ada"}}))
    assert builder.paused == {}
    state = builder.compile().get_state("ask")
    assert sorted(state.values.answers) == ["city=Paris", "name=Ada"]


def test_a_run_started_from_code_is_drawn_live_when_watched(comm, notebook, tmp_path):
    builder = debug_builder(notebook, tmp_path)
    app = builder.compile()
    comm.clear()
    app.invoke({"topic": "unwatched"}, thread_id="quiet")
    assert comm.updates("run_state") == []  # nobody watches yet
    with builder.watch():
        app.invoke({"topic": "code"}, thread_id="from-code")
    pictures = comm.updates("run_state")
    assert pictures[0]["status"] == "running"
    assert pictures[0]["thread_id"] == "from-code"
    last = pictures[-1]
    assert last["status"] == "done"
    assert last["nodes"]["research"]["status"] == "done"
    assert last["nodes"]["draft"]["status"] == "done"
    assert last["chunks"].startswith("code-0 code-1")
    assert [m["run"] for m in comm.custom("chunks")] == [last["id"]] * len(comm.custom("chunks"))

    # A watch on one thread ignores the others.
    with builder.watch("watched"):
        comm.clear()
        app.invoke({"topic": "x"}, thread_id="other")
        assert comm.updates("run_state") == []
        app.invoke({"topic": "fine"}, thread_id="watched")
        assert comm.updates("run_state")[-1]["thread_id"] == "watched"
        assert comm.updates("run_state")[-1]["status"] == "done"


NESTED = """
from graphnb import END, START, StateGraph, interrupt


def ask(state: dict) -> dict:
    return {"answer": interrupt("approve?")}


def finish(state: dict) -> dict:
    return {"done": True}


child = StateGraph(dict, name="research").add_node("ask", ask)
child.add_edge(START, "ask").add_edge("ask", END)
graph = StateGraph(dict, name="outer").add_node("research", child).add_node("finish", finish)
graph.add_edge(START, "research").add_edge("research", "finish").add_edge("finish", END)
"""


def test_rerun_of_a_childs_thread_from_a_foreign_checkpoint_leaves_the_parent_as_it_was(
    comm, tmp_path
):
    # Issue 29, item 6: the parent thread turned failed and lost its pending interrupt.
    cell = tmp_path / "nested.py"
    cell.write_text(NESTED)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(NESTED, str(cell), "exec", dont_inherit=True), namespace)
    builder = Builder(
        namespace["graph"], namespace=namespace, checkpointer=f"sqlite:///{tmp_path / 't.db'}"
    )
    app = builder.compile()
    app.invoke({}, thread_id="b")
    app.invoke({}, thread_id="other")
    child = app.get_state("b", subgraphs=True).subgraphs["research"].thread_id
    before = app.get_state_history("b")

    async def rerun() -> Any:
        comm.receive(
            {
                "type": "debug_rerun",
                "thread_id": child,
                "checkpoint_id": app.get_state("other").checkpoint_id,
            }
        )
        task = builder._runner.task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    run_async(rerun())
    assert [s.checkpoint_id for s in app.get_state_history("b")] == [
        s.checkpoint_id for s in before
    ]
    [info] = [i for i in app.threads_info() if i.thread_id == "b"]
    assert info.status == "interrupted"
    assert [i.id for i in app.get_state("b").interrupts] == ["research/ask:0"]
