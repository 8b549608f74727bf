"""Subgraphs under a checkpointer: each child on its own thread, on every saver.

An interrupt inside a child resumes inside it, a crashed child resumes where it stopped,
``get_state(subgraphs=True)`` shows the child, and a child's checkpoint can be travelled
back to.
"""

from __future__ import annotations

import asyncio
import importlib.util
import operator
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphnb import END, START, Command, Send, StateGraph, interrupt
from graphnb.checkpoint import BaseSaver

WORKER = Path(__file__).with_name("subgraph_worker.py")


class State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


class Runs:
    """Counts how often each node started."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()

    def note(self, name: str) -> Any:
        def run(state: State) -> dict[str, Any]:
            self.count[name] += 1
            return {"notes": [name]}

        return run

    def ask(self, name: str) -> Any:
        def run(state: State) -> dict[str, Any]:
            self.count[name] += 1
            return {"notes": [f"{name}={interrupt(f'{name}?')}"]}

        return run


def child_graph(runs: Runs, *, name: str = "research") -> StateGraph[State]:
    """first -> (ask | side) -> last: a finished branch next to an interrupted one."""
    graph = StateGraph(State, name=name).add_node("first", runs.note("first"))
    graph.add_node("ask", runs.ask("ask")).add_node("side", runs.note("side"))
    graph.add_node("last", runs.note("last")).add_edge(START, "first")
    graph.add_edge("first", "ask").add_edge("first", "side")
    graph.add_edge(["ask", "side"], "last")
    return graph.add_edge("last", END)


def parent_graph(runs: Runs, child: Any) -> StateGraph[State]:
    graph = StateGraph(State, name="outer").add_node("begin", runs.note("begin"))
    graph.add_node("research", child).add_node("write", runs.note("write"))
    graph.add_edge(START, "begin").add_edge("begin", "research")
    return graph.add_edge("research", "write").add_edge("write", END)


def test_an_interrupt_inside_a_subgraph_resumes_inside_it(saver: BaseSaver) -> None:
    runs = Runs()
    app = parent_graph(runs, child_graph(runs)).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    (pending,) = app.get_state("t").interrupts
    assert (pending.node, pending.id, pending.value) == ("research", "research/ask:0", "ask?")
    result = app.invoke(Command(resume="yes"), thread_id="t")
    assert result["notes"] == ["begin", "first", "ask=yes", "side", "last", "write"]
    # the child's finished nodes did not run again; only the asking node did
    assert runs.count == {"begin": 1, "first": 1, "side": 1, "ask": 2, "last": 1, "write": 1}


def test_get_state_with_subgraphs_returns_the_childs_state(saver: BaseSaver) -> None:
    runs = Runs()
    app = parent_graph(runs, child_graph(runs)).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    parent = app.get_state("t", subgraphs=True)
    assert parent.next == ("research",)
    child = parent.subgraphs["research"]
    assert child.values["notes"] == ["begin", "first"]
    assert child.next == ("ask", "side")
    assert [i.id for i in child.interrupts] == ["ask:0"]
    assert child.thread_id.startswith("t|research@")
    assert app.get_state("t").subgraphs == {}  # only when asked
    # the child's thread reads back through the child's model, and stays out of listings
    assert app.get_state(child.thread_id).checkpoint_id == child.checkpoint_id
    assert app.list_threads() == ["t"]
    app.invoke({}, thread_id="u")
    assert [info.thread_id for info in app.threads_info(limit=1)] == ["u"]
    assert [info.thread_id for info in app.threads_info(limit=1, after="u")] == ["t"]
    assert [info.status for info in app.threads_info()] == ["interrupted", "interrupted"]
    # the store's own delete takes the subgraphs' threads too, as delete_thread does
    own = [t for t in saver.threads() if t == "u" or t.startswith("u|")]
    rows = sum(len(saver.history(t)) for t in own)
    assert len(own) > 1
    assert app.threads.delete("u") == rows
    assert [t for t in saver.threads() if t.startswith("u")] == []
    app.invoke(Command(resume="no"), thread_id="t")
    assert app.get_state("t", subgraphs=True).subgraphs == {}  # nothing runs next
    assert app.delete_thread("t") > len(app.get_state_history("t") or [0])
    assert saver.threads() == []


def test_nested_interrupts_resume_level_by_level(saver: BaseSaver) -> None:
    runs = Runs()
    middle = StateGraph(State, name="middle").add_node("inner", child_graph(runs, name="inner"))
    middle.add_node("after", runs.note("after")).add_edge(START, "inner")
    middle.add_edge("inner", "after").add_edge("after", END)
    app = parent_graph(runs, middle).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    (pending,) = app.get_state("t").interrupts
    assert pending.id == "research/inner/ask:0"
    inner = app.get_state("t", subgraphs=True).subgraphs["research"].subgraphs["inner"]
    assert inner.next == ("ask", "side")
    result = app.invoke(Command(resume={pending.id: "deep"}), thread_id="t")
    assert result["notes"] == ["begin", "first", "ask=deep", "side", "last", "after", "write"]
    assert runs.count["first"] == runs.count["side"] == runs.count["begin"] == 1


def test_two_interrupts_in_one_child_are_answered_by_id(saver: BaseSaver) -> None:
    runs = Runs()
    child = StateGraph(State, name="pair").add_node("x", runs.ask("x")).add_node("y", runs.ask("y"))
    child.add_edge(START, "x").add_edge(START, "y").add_edge(["x", "y"], END)
    app = parent_graph(runs, child).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    assert [i.id for i in app.get_state("t").interrupts] == ["research/x:0", "research/y:0"]
    app.invoke(Command(resume={"research/y:0": "Y"}), thread_id="t")  # one of two
    assert [i.id for i in app.get_state("t").interrupts] == ["research/x:0"]
    result = app.invoke(Command(resume="X"), thread_id="t")
    assert result["notes"] == ["begin", "x=X", "y=Y", "write"]
    assert runs.count["y"] == 2  # asked, then answered; not run a third time


def test_async_runs_resume_inside_the_subgraph_too(saver: BaseSaver) -> None:
    runs = Runs()
    app = parent_graph(runs, child_graph(runs)).compile(checkpointer=saver)
    asyncio.run(app.ainvoke({}, thread_id="t"))
    result = asyncio.run(app.ainvoke(Command(resume="yes"), thread_id="t"))
    assert result["notes"] == ["begin", "first", "ask=yes", "side", "last", "write"]
    assert runs.count["first"] == 1


def test_time_travel_to_a_checkpoint_inside_a_subgraph(saver: BaseSaver) -> None:
    runs = Runs()
    child = StateGraph(State, name="research").add_node("a", runs.note("a"))
    child.add_node("b", runs.note("b")).add_edge(START, "a").add_edge("a", "b")
    app = parent_graph(runs, child.add_edge("b", END)).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    (before,) = [s for s in app.get_state_history("t") if s.next == ("research",)]
    child_thread = (
        app.get_state("t", before.checkpoint_id, subgraphs=True).subgraphs["research"].thread_id
    )
    (after_a,) = [s for s in app.get_state_history(child_thread) if s.next == ("b",)]
    assert after_a.values["notes"] == ["begin", "a"]
    result = app.invoke(None, thread_id=child_thread, checkpoint_id=after_a.checkpoint_id)
    assert result["notes"] == ["begin", "a", "b", "write"]
    assert runs.count == {"begin": 1, "a": 1, "b": 2, "write": 2}
    assert len(app.get_state_history("t")) > len(app.get_state_history(child_thread)) - 1
    assert app.get_state("t").values["notes"] == ["begin", "a", "b", "write"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_run_killed_inside_a_subgraph_resumes_without_losing_or_repeating(
    tmp_path: Path,
) -> None:
    url, log = f"sqlite:///{tmp_path / 'crash.db'}", tmp_path / "runs.log"
    done = subprocess.run(
        [sys.executable, str(WORKER), url, "job", str(log)], capture_output=True, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert log.read_text().split() == ["begin", "a", "b"]
    spec = importlib.util.spec_from_file_location("graphnb_subgraph_worker", WORKER)
    assert spec is not None
    assert spec.loader is not None
    worker = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = worker  # the TypedDict's string annotations resolve there
    spec.loader.exec_module(worker)
    app = worker.composed(log).compile(checkpointer=url)
    stopped = app.get_state("job", subgraphs=True)
    assert stopped.next == ("research",)
    assert stopped.subgraphs["research"].next == ("b",)  # `a` was checkpointed in the child
    final = app.invoke(None, thread_id="job")
    assert final["notes"] == ["begin", "a", "b", "c", "write"]  # none lost, none twice
    # `b` starts again (it was in flight); nothing that finished runs again
    assert log.read_text().split() == ["begin", "a", "b", "b", "c", "write"]


def test_send_instances_of_a_subgraph_each_resume_on_their_own_thread(
    saver: BaseSaver,
) -> None:
    runs = Runs()

    class Item(TypedDict, total=False):
        topic: str
        notes: Annotated[list[str], operator.add]

    def review(state: Item) -> dict[str, Any]:
        runs.count[state["topic"]] += 1
        return {"notes": [f"{state['topic']}={interrupt(state['topic'])}"]}

    child = StateGraph(Item, name="reviewer").add_node("review", review)
    child.add_edge(START, "review").add_edge("review", END)

    def fan(state: Item) -> list[Send]:
        return [Send("each", {"topic": topic}) for topic in ("owls", "crows")]

    graph = StateGraph(Item, name="outer").add_node("split", runs.note("split"))
    graph.add_node("each", child).add_edge(START, "split")
    graph.add_conditional_edges("split", fan, sends=["each"]).add_edge("each", END)
    app = graph.compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    state = app.get_state("t", subgraphs=True)
    assert [i.id for i in state.interrupts] == ["each[0]/review:0", "each[1]/review:0"]
    assert sorted(state.subgraphs) == ["each[0]", "each[1]"]
    assert state.subgraphs["each[1]"].values["topic"] == "crows"
    result = app.invoke(
        Command(resume={"each[0]/review:0": "hoot", "each[1]/review:0": "caw"}), thread_id="t"
    )
    assert result["notes"] == ["split", "owls=hoot", "crows=caw"]
    assert runs.count["owls"] == runs.count["crows"] == 2


class Topic(TypedDict, total=False):
    topic: str
    found: str


def test_an_edit_before_a_finished_subgraph_step_runs_the_child_on_the_edited_state(
    saver: BaseSaver,
) -> None:
    def search(state: Topic) -> dict[str, Any]:
        return {"found": f"facts on {state['topic']}"}

    child = StateGraph(Topic, name="lookup").add_node("search", search)
    child.add_edge(START, "search").add_edge("search", END)
    graph = StateGraph(Topic, name="outer").add_node("research", child)
    app = graph.add_edge(START, "research").add_edge("research", END).compile(checkpointer=saver)
    app.invoke({"topic": "owls"}, thread_id="t")
    (before,) = [s for s in app.get_state_history("t") if s.next == ("research",)]
    # a fork: edit the checkpoint before the subgraph step, then run it again
    app.update_state("t", {"topic": "cats"}, checkpoint_id=before.checkpoint_id)
    result = app.invoke(None, thread_id="t")
    # the child ran on the edit; its earlier end (on "owls") was not taken back as it was
    assert result == {"topic": "cats", "found": "facts on cats"}


class Lookup(TypedDict, total=False):
    query: str
    hits: int


def test_update_state_on_a_childs_thread_edits_it_in_the_childs_model(saver: BaseSaver) -> None:
    def search(state: Lookup) -> dict[str, Any]:
        return {"hits": 1}

    def ask(state: Lookup) -> dict[str, Any]:
        return {"query": f"{state['query']} ({state['hits']} hits): {interrupt('more?')}"}

    child = StateGraph(Lookup, name="lookup").add_node("search", search).add_node("ask", ask)
    child.add_edge(START, "search").add_edge("search", "ask").add_edge("ask", END)
    graph = StateGraph(Topic, name="outer")
    graph.add_node("research", child, inputs={"topic": "query"}, outputs={"query": "found"})
    app = graph.add_edge(START, "research").add_edge("research", END).compile(checkpointer=saver)
    app.invoke({"topic": "owls"}, thread_id="t")
    inner = app.get_state("t", subgraphs=True).subgraphs["research"]
    app.update_state(inner.thread_id, {"hits": 5})  # a field only the child has
    edited = app.get_state(inner.thread_id)
    assert edited.values == {"query": "owls", "hits": 5}
    assert [i.id for i in edited.interrupts] == ["ask:0"]  # still waiting for its answer
    result = app.invoke(Command(resume="no"), thread_id="t")
    assert result == {"topic": "owls", "found": "owls (5 hits): no"}
    # as_node names a node of the child, whose edges give the next nodes
    fork = app.update_state(inner.thread_id, {"hits": 7}, as_node="search")
    assert app.get_state(inner.thread_id, fork).next == ("ask",)


def test_time_travel_into_a_child_with_a_foreign_checkpoint_writes_nothing(
    saver: BaseSaver,
) -> None:
    # Issue 29, item 6: the parent's thread turned failed and lost its pending interrupt.
    from graphnb.checkpoint import ResumeError, ThreadNotFoundError, ThreadRequiredError

    runs = Runs()
    app = parent_graph(runs, child_graph(runs)).compile(checkpointer=saver)
    app.invoke({}, thread_id="b")
    app.invoke({}, thread_id="other")
    child = app.get_state("b", subgraphs=True).subgraphs["research"].thread_id
    foreign = app.get_state("other").checkpoint_id
    before = {t: len(saver.history(t)) for t in saver.threads()}
    forged = child.replace("@", "@" + "0" * 32)[: len(child)]  # a step base b never had
    for thread, checkpoint in [
        (child, foreign),  # another thread's checkpoint
        (child, "f" * 32),  # no checkpoint at all
        (forged, None),  # a child thread b's history never named
        (f"{child}|nowhere@{'e' * 32}", None),  # a level the child graph does not have
    ]:
        with pytest.raises(ThreadNotFoundError, match=r"has no checkpoint|not a subgraph"):
            app.invoke(None, thread_id=thread, checkpoint_id=checkpoint)
        with pytest.raises(ThreadNotFoundError):
            asyncio.run(app.ainvoke(None, thread_id=thread, checkpoint_id=checkpoint))
    # a node that is no subgraph: not a child's thread, and not an id a user may take
    with pytest.raises(ThreadRequiredError, match="subgraphs' own threads"):
        app.invoke(None, thread_id=f"b|write@{child.rpartition('@')[2]}")
    assert {t: len(saver.history(t)) for t in saver.threads()} == before
    assert [(i.thread_id, i.status) for i in app.threads_info()] == [
        ("other", "interrupted"),
        ("b", "interrupted"),
    ]
    result = app.invoke(Command(resume="yes"), thread_id="b")  # no ResumeError
    assert result["notes"][-1] == "write"
    with pytest.raises(ResumeError):
        app.invoke(Command(resume="again"), thread_id="b")


def test_a_users_thread_id_in_the_shape_of_a_childs_is_refused_everywhere(
    saver: BaseSaver,
) -> None:
    # Issue 29, item 7: such a thread vanished from the listings, and deleting its
    # "parent" deleted it.
    import uuid

    from graphnb.checkpoint import ThreadRequiredError

    runs = Runs()
    app = parent_graph(runs, child_graph(runs)).compile(checkpointer=saver)
    app.invoke({}, thread_id="acme")
    taken = f"acme|alice@{uuid.uuid4().hex}"
    also = f"x|y@{uuid.uuid4().hex}|z"
    for thread in (taken, also):
        for attempt in (
            lambda thread=thread: app.invoke({}, thread_id=thread),
            lambda thread=thread: list(app.stream({}, thread_id=thread)),
            lambda thread=thread: asyncio.run(app.ainvoke({}, thread_id=thread)),
            lambda thread=thread: app.seed_thread(thread, {"notes": ["hi"]}),
            lambda thread=thread: app.update_state(thread, {"notes": ["hi"]}),
            lambda thread=thread: app.batch([{}], thread_ids=[thread]),
        ):
            with pytest.raises(ThreadRequiredError, match="subgraphs' own threads"):
                attempt()
    assert saver.threads() == sorted(saver.threads())
    assert [t for t in saver.threads() if not t.startswith("acme|research@")] == ["acme"]
    # an id with '|' but not the reserved shape is the user's own, listed as any other
    app.invoke({}, thread_id="acme|alice")
    assert app.list_threads() == ["acme", "acme|alice"]
    assert sorted(i.thread_id for i in app.threads_info()) == ["acme", "acme|alice"]
    # a child's own thread is still seeded by nobody, but updated and read as before
    child = app.get_state("acme", subgraphs=True).subgraphs["research"].thread_id
    with pytest.raises(ThreadRequiredError):
        app.seed_thread(child, {"notes": []})
    app.update_state(child, {"notes": ["edited"]})
    assert app.get_state(child).values["notes"][-1] == "edited"
