"""Threaded runs on every saver: checkpoints, resume, time travel, humans in the loop."""

from __future__ import annotations

import asyncio
import threading
from itertools import pairwise
from typing import Annotated, Any

import pytest

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.checkpoint import (
    BaseSaver,
    CheckpointConflictError,
    CheckpointLoadError,
    Command,
    Interrupt,
    MemorySaver,
    ThreadNotFoundError,
    ThreadRequiredError,
    UnstorableValueError,
    interrupt,
)
from graphnb.engine.events import Interrupted
from graphnb.errors import GraphRuntimeError, GraphSetupError, InvalidUpdateError


class Chat(GraphState):
    messages: Annotated[list[str], StateField(reducer=append)] = []
    visits: Annotated[list[str], StateField(reducer=append)] = []
    topic: str = ""


def visit(name: str) -> Any:
    def node(state: Chat) -> dict[str, Any]:
        return {"visits": [name]}

    node.__name__ = name
    return node


def chain(*names: str) -> StateGraph[Chat]:
    graph = StateGraph(Chat)
    for name in names:
        graph.add_node(name, visit(name))
    graph.add_edge(START, names[0])
    for source, target in pairwise(names):
        graph.add_edge(source, target)
    graph.add_edge(names[-1], END)
    return graph


def test_every_step_is_checkpointed_and_read_back_typed(saver: BaseSaver) -> None:
    app = chain("a", "b", "c").compile(checkpointer=saver)
    final = app.invoke({"topic": "x"}, thread_id="t")
    assert final.visits == ["a", "b", "c"]
    state = app.get_state("t")
    assert isinstance(state.values, Chat)
    assert state.values.visits == ["a", "b", "c"]
    assert state.next == ()
    assert state.step == 2
    assert state.ran == ("c",)
    assert state.interrupts == ()
    history = app.get_state_history("t")
    assert [(s.source, s.step, s.ran, s.next) for s in history] == [
        ("loop", 2, ("c",), ()),
        ("loop", 1, ("b",), ("c",)),
        ("loop", 0, ("a",), ("b",)),
        ("input", -1, (), ("a",)),
    ]
    assert history[-1].writes == (("__input__", {"topic": "x"}),)
    assert [s.values.visits for s in history] == [["a", "b", "c"], ["a", "b"], ["a"], []]
    assert app.list_threads() == ["t"]


def test_a_new_input_on_a_thread_merges_into_its_state(saver: BaseSaver) -> None:
    def reply(state: Chat) -> dict[str, Any]:
        return {"messages": [f"echo {state.messages[-1]} ({len(state.messages)})"]}

    graph = StateGraph(Chat).add_node("reply", reply)
    app = graph.add_edge(START, "reply").add_edge("reply", END).compile(checkpointer=saver)
    app.invoke({"messages": ["hi"]}, thread_id="chat")
    final = app.invoke({"messages": ["again"]}, thread_id="chat")
    assert final.messages == ["hi", "echo hi (1)", "again", "echo again (3)"]
    assert app.get_state("chat").step == 2  # input -1, reply 0, input 1, reply 2


def test_interrupt_before_stops_and_none_resumes(saver: BaseSaver) -> None:
    app = chain("a", "b", "c").compile(checkpointer=saver, interrupt_before=["b"])
    stopped = app.invoke({}, thread_id="t")
    assert stopped.visits == ["a"]
    state = app.get_state("t")
    assert state.next == ("b",)
    assert state.interrupts == (Interrupt("b", "before"),)
    final = app.invoke(None, thread_id="t")
    assert final.visits == ["a", "b", "c"]
    assert app.get_state("t").interrupts == ()


def test_interrupt_after_per_run_streams_an_interrupted_event(saver: BaseSaver) -> None:
    app = chain("a", "b", "c").compile(checkpointer=saver)
    events = list(app.stream({}, thread_id="t", interrupt_after=["a"]))
    assert isinstance(events[-1], Interrupted)
    assert events[-1].interrupts == (Interrupt("a", "after"),)
    assert events[-1].checkpoint_id == app.get_state("t").checkpoint_id
    updates = list(app.stream(None, thread_id="t", mode="updates"))
    assert updates == [{"b": {"visits": ["b"]}}, {"c": {"visits": ["c"]}}]


def test_interrupt_in_a_node_gets_its_answer_on_resume(saver: BaseSaver) -> None:
    calls: list[str] = []

    def ask(state: Chat) -> dict[str, Any]:
        calls.append("ask")
        topic = interrupt({"question": "topic?"})
        return {"topic": topic}

    graph = StateGraph(Chat).add_node("ask", ask).add_node("c", visit("c"))
    app = graph.add_edge(START, "ask").add_edge("ask", "c").add_edge("c", END)
    compiled = app.compile(checkpointer=saver)
    events = list(compiled.stream({}, thread_id="t", mode=["events", "updates"]))
    assert events[-1][0] == "updates"
    assert events[-1][1]["__interrupt__"][0].value == {"question": "topic?"}
    state = compiled.get_state("t")
    assert state.next == ("ask",)
    (pending,) = state.interrupts
    assert (pending.node, pending.when, pending.value) == ("ask", "during", {"question": "topic?"})
    final = compiled.invoke(Command(resume="cats"), thread_id="t")
    assert final.topic == "cats"
    assert final.visits == ["c"]
    assert calls == ["ask", "ask"]


def test_several_interrupts_in_one_node_are_answered_in_order(saver: BaseSaver) -> None:
    def form(state: Chat) -> dict[str, Any]:
        first = interrupt("first?")
        second = interrupt("second?")
        return {"messages": [first, second]}

    graph = StateGraph(Chat).add_node("form", form).add_edge(START, "form")
    app = graph.add_edge("form", END).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    app.invoke(Command(resume="one"), thread_id="t")
    assert app.get_state("t").interrupts[0].value == "second?"
    final = app.invoke(Command(resume="two"), thread_id="t")
    assert final.messages == ["one", "two"]


def test_an_interrupt_value_holding_a_reserved_key_is_refused_and_the_thread_stays_readable(
    saver: BaseSaver,
) -> None:
    def ask(state: Chat) -> dict[str, Any]:
        return {"topic": interrupt({"form": {"py/object": "shown to the user"}})}

    graph = StateGraph(Chat).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    app = graph.compile(checkpointer=saver)
    with pytest.raises(UnstorableValueError, match=r"`ask` passed to interrupt\(\)") as caught:
        app.invoke({"messages": ["hi"]}, thread_id="t")
    assert "['form']['py/object']" in str(caught.value)
    assert (caught.value.field, caught.value.thread_id) == ("interrupt", "t")
    # The interrupt's checkpoint was not stored; the failed step's error one was, as for
    # any failed step, and every checkpoint reads back.
    history = app.get_state_history("t")
    assert [state.source for state in history] == ["error", "input"]
    assert history[0].error is not None
    assert history[0].error["type"] == "UnstorableValueError"
    assert app.get_state("t").values.messages == ["hi"]


def test_an_answer_holding_a_reserved_key_is_refused_and_the_thread_stays_readable(
    saver: BaseSaver,
) -> None:
    def form(state: Chat) -> dict[str, Any]:
        first = interrupt("first?")
        second = interrupt("second?")  # the first answer would be stored while it waits
        return {"messages": [str(first), str(second)]}

    graph = StateGraph(Chat).add_node("form", form).add_edge(START, "form")
    app = graph.add_edge("form", END).compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    with pytest.raises(UnstorableValueError, match="the answer to `form`") as caught:
        app.invoke(Command(resume={"__class__": "typed by a user"}), thread_id="t")
    assert "['__class__']" in str(caught.value)
    assert (caught.value.field, caught.value.thread_id) == ("resume", "t")
    assert len(app.get_state_history("t")) == 2  # nothing written
    assert app.get_state("t").interrupts[0].value == "first?"
    app.invoke(Command(resume="one"), thread_id="t")
    assert app.invoke(Command(resume="two"), thread_id="t").messages == ["one", "two"]


def test_seeded_messages_and_the_input_reach_the_first_node_in_order(saver: BaseSaver) -> None:
    seen: list[list[str]] = []

    def agent(state: Chat) -> dict[str, Any]:
        seen.append(list(state.messages))
        return {"messages": [f"you said: {state.messages[-1]}"]}

    graph = StateGraph(Chat).add_node("greet", visit("greet")).add_node("agent", agent)
    graph.add_edge(START, "greet").add_edge("greet", "agent").add_edge("agent", END)
    app = graph.compile(checkpointer=saver)
    app.seed_thread(
        "s1",
        {"messages": ["My name is Zhang San.", "OK"], "topic": "intro"},
        start_at="agent",
    )
    seeded = app.get_state("s1")
    assert seeded.source == "seed"
    assert seeded.next == ("agent",)
    assert seeded.values.messages == ["My name is Zhang San.", "OK"]
    final = app.invoke({"messages": ["What is my name?"]}, thread_id="s1")
    assert seen == [["My name is Zhang San.", "OK", "What is my name?"]]
    assert final.topic == "intro"
    assert final.visits == []  # started at `agent`, not at `greet`
    with pytest.raises(CheckpointConflictError, match="already has checkpoints"):
        app.seed_thread("s1", {"messages": ["late"]})


def test_a_seed_without_start_at_starts_at_the_entry(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    app.seed_thread("s", {"topic": "business context"})
    final = app.invoke(None, thread_id="s")
    assert (final.topic, final.visits) == ("business context", ["a", "b"])


def test_an_edited_seed_still_starts_where_the_seed_said(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    app.seed_thread("at-b", {"messages": ["seeded"]}, start_at="b")
    app.update_state("at-b", {"messages": ["edited"]})
    assert app.get_state("at-b").next == ("b",)
    final = app.invoke({"messages": ["input"]}, thread_id="at-b")
    assert (final.messages, final.visits) == (["seeded", "edited", "input"], ["b"])
    app.seed_thread("at-entry", {"topic": "business context"})
    app.update_state("at-entry", {"messages": ["edited"]})
    final = app.invoke(None, thread_id="at-entry")  # runs, as the seed alone would
    assert (final.messages, final.visits) == (["edited"], ["a", "b"])


def test_a_state_of_another_model_is_refused_naming_both_models() -> None:
    class Elsewhere(GraphState):
        topic: str = "elsewhere"

    app = chain("a").compile(checkpointer=MemorySaver())
    expected = "got a Elsewhere, expected a mapping or a Chat"
    with pytest.raises(InvalidUpdateError, match=expected):
        app.seed_thread("t", Elsewhere())
    with pytest.raises(InvalidUpdateError, match=expected):
        app.invoke(Elsewhere(), thread_id="t")
    app.invoke({}, thread_id="t")
    with pytest.raises(InvalidUpdateError, match=expected) as caught:
        app.update_state("t", Elsewhere())
    assert caught.value.field is None
    assert app.get_state("t").source == "loop"  # nothing was written


def test_update_state_goes_through_reducers_as_the_node(saver: BaseSaver) -> None:
    app = chain("a", "b", "c").compile(checkpointer=saver, interrupt_before=["b"])
    app.invoke({"messages": ["m0"]}, thread_id="t")
    app.update_state("t", {"messages": ["edited"]})
    state = app.get_state("t")
    assert state.values.messages == ["m0", "edited"]
    assert state.next == ("b",)
    assert state.source == "update"
    app.update_state("t", {"visits": ["b (by hand)"]}, as_node="b")
    state = app.get_state("t")
    assert state.next == ("c",)
    assert state.ran == ("b",)
    final = app.invoke(None, thread_id="t")
    assert final.visits == ["a", "b (by hand)", "c"]
    listed = r"`nope` is not a node .* \(its nodes: `a`, `b`, `c`\)"
    with pytest.raises(GraphSetupError, match=listed):
        app.update_state("t", {}, as_node="nope")


def test_running_from_a_past_checkpoint_forks_and_keeps_history(saver: BaseSaver) -> None:
    app = chain("a", "b", "c").compile(checkpointer=saver)
    app.invoke({"topic": "first"}, thread_id="t")
    original = app.get_state_history("t")
    after_a = next(s for s in original if s.ran == ("a",))
    forked = app.invoke(None, thread_id="t", checkpoint_id=after_a.checkpoint_id)
    assert forked.visits == ["a", "b", "c"]
    history = app.get_state_history("t")
    assert len(history) == len(original) + 2
    assert {s.checkpoint_id for s in original} <= {s.checkpoint_id for s in history}
    assert history[1].parent_id == after_a.checkpoint_id
    again = app.get_state("t", original[0].checkpoint_id)
    assert again.values.visits == ["a", "b", "c"]
    edited = app.update_state("t", {"topic": "second"}, checkpoint_id=after_a.checkpoint_id)
    assert app.get_state("t").checkpoint_id == edited
    assert app.invoke(None, thread_id="t").topic == "second"


def test_join_progress_survives_a_stop(saver: BaseSaver) -> None:
    graph = StateGraph(Chat)
    for name in ("a", "b", "c", "d", "e"):
        graph.add_node(name, visit(name))
    graph.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("c", "d")
    graph.add_edge(["b", "d"], "e").add_edge("e", END)
    app = graph.compile(checkpointer=saver, interrupt_after=["c"])
    app.invoke({}, thread_id="t")
    state = app.get_state("t")
    assert state.next == ("d",)
    final = app.invoke(None, thread_id="t")
    assert final.visits == ["a", "b", "c", "d", "e"]


def test_async_runs_checkpoint_and_resume(saver: BaseSaver) -> None:
    async def ask(state: Chat) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"topic": interrupt("topic?")}

    graph = StateGraph(Chat).add_node("ask", ask).add_node("b", visit("b"))
    app = graph.add_edge(START, "ask").add_edge("ask", "b").add_edge("b", END)
    compiled = app.compile(checkpointer=saver)

    async def scenario() -> Chat:
        events = [e async for e in compiled.astream({}, thread_id="t")]
        assert isinstance(events[-1], Interrupted)
        state = await compiled.aget_state("t")
        assert state.interrupts[0].value == "topic?"
        return await compiled.ainvoke(Command(resume="dogs"), thread_id="t")

    final = asyncio.run(scenario())
    assert (final.topic, final.visits) == ("dogs", ["b"])
    assert len(asyncio.run(compiled.aget_state_history("t"))) == 4


def test_async_edits_and_seeds_wait_for_a_running_thread_and_land(saver: BaseSaver) -> None:
    started, release = threading.Event(), threading.Event()

    def slow(state: Chat) -> dict[str, Any]:
        started.set()
        release.wait(30)
        return {"visits": ["slow"]}

    graph = StateGraph(Chat).add_node("slow", slow).add_edge(START, "slow")
    compiled = graph.add_edge("slow", END).compile(checkpointer=saver)

    async def scenario() -> None:
        running = asyncio.create_task(compiled.ainvoke({}, thread_id="t"))
        await asyncio.to_thread(started.wait, 30)
        edit = asyncio.create_task(compiled.aupdate_state("t", {"topic": "cats"}))
        await asyncio.sleep(0.05)
        assert not edit.done(), "the edit waits for the run holding the thread"
        release.set()
        await running
        await edit
        await compiled.aseed_thread("new", {"topic": "owls"}, start_at="slow")

    asyncio.run(scenario())
    state = compiled.get_state("t")
    assert (state.values.topic, state.values.visits) == ("cats", ["slow"])
    assert compiled.get_state("new").next == ("slow",)


def test_an_unstorable_write_fails_the_run_and_keeps_the_last_good_step(
    saver: BaseSaver,
) -> None:
    class Loose(GraphState):
        payload: Any = None
        done: bool = False

    def bad(state: Loose) -> dict[str, Any]:
        return {"payload": threading.Lock()}

    graph = StateGraph(Loose).add_node("ok", lambda s: {"done": True}).add_node("bad", bad)
    app = graph.add_edge(START, "ok").add_edge("ok", "bad").add_edge("bad", END)
    compiled = app.compile(checkpointer=saver)
    with pytest.raises(UnstorableValueError, match="field 'payload'") as caught:
        compiled.invoke({}, thread_id="t")
    assert caught.value.field == "payload"
    state = compiled.get_state("t")
    assert state.ran == ("ok",)
    assert state.next == ("bad",)


def test_threads_are_listed_and_deleted(saver: BaseSaver) -> None:
    app = chain("a").compile(checkpointer=saver)
    app.invoke({}, thread_id="one")
    app.invoke({}, thread_id="two")
    assert app.list_threads() == ["one", "two"]
    assert app.delete_thread("one") == 3 - 1
    assert app.list_threads() == ["two"]
    with pytest.raises(ThreadNotFoundError, match="'one' has no checkpoint"):
        app.get_state("one")


def test_an_edit_while_a_run_holds_the_thread_is_refused_not_interleaved(
    saver: BaseSaver,
) -> None:
    saver.on_busy_thread = "fail"  # the run holds the thread's lock: the edit fails at once
    entered, release = threading.Event(), threading.Event()

    def slow(state: Chat) -> dict[str, Any]:
        entered.set()
        assert release.wait(10)
        return {"visits": ["slow"]}

    graph = StateGraph(Chat).add_node("slow", slow).add_edge(START, "slow")
    app = graph.add_edge("slow", END).compile(checkpointer=saver)
    app.seed_thread("t", {"topic": "race"})
    failures: list[BaseException] = []

    def run() -> None:
        try:
            app.invoke(None, thread_id="t")
        except BaseException as error:
            failures.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    try:
        assert entered.wait(10)
        with pytest.raises(CheckpointConflictError, match="'t' is busy"):
            app.update_state("t", {"messages": ["the other writer"]})
    finally:
        release.set()
        worker.join(10)
    assert failures == []
    history = app.get_state_history("t")
    assert [s.source for s in history] == ["loop", "input", "seed"]
    assert history[0].values.visits == ["slow"]
    assert history[0].values.messages == []


def test_runs_need_a_thread_when_there_is_a_checkpointer() -> None:
    app = chain("a").compile(checkpointer=MemorySaver())
    with pytest.raises(ThreadRequiredError, match="pass thread_id"):
        app.invoke({})
    plain = chain("a").compile()
    with pytest.raises(ThreadRequiredError, match="has no checkpointer"):
        plain.invoke({}, thread_id="t")
    with pytest.raises(GraphSetupError, match="`zz`"):
        chain("a").compile(checkpointer=MemorySaver(), interrupt_before=["zz"])


def test_interrupt_outside_a_threaded_run_explains_itself() -> None:
    def ask(state: Chat) -> dict[str, Any]:
        return {"topic": interrupt("?")}

    app = (
        StateGraph(Chat).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END).compile()
    )
    with pytest.raises(GraphRuntimeError, match="only inside a node of a run that has a thread"):
        app.invoke({})


def test_the_recursion_limit_counts_from_where_a_run_resumes() -> None:
    app = chain("a", "b", "c").compile(checkpointer=MemorySaver(), interrupt_after="*")
    app.invoke({}, thread_id="t", recursion_limit=1)  # input None only resumes
    for _ in range(2):
        app.invoke(None, thread_id="t", recursion_limit=1)
    assert app.get_state("t").values.visits == ["a", "b", "c"]


def test_a_checkpointer_can_be_given_as_a_url(tmp_path: Any) -> None:
    app = chain("a").compile(checkpointer=f"sqlite:///{tmp_path}/threads.db")
    app.invoke({}, thread_id="t")
    assert (tmp_path / "threads.db").exists()
    reopened = chain("a").compile(checkpointer=f"sqlite:///{tmp_path}/threads.db")
    assert reopened.get_state("t").values.visits == ["a"]


def test_nodes_that_finished_beside_an_interrupt_do_not_run_again(saver: BaseSaver) -> None:
    calls: list[str] = []

    def fetch(state: Chat) -> dict[str, Any]:
        calls.append("fetch")
        return {"messages": ["fetched"]}

    def approve(state: Chat) -> dict[str, Any]:
        calls.append("approve")
        return {"topic": interrupt("approve?")}

    def ask_name(state: Chat) -> dict[str, Any]:
        calls.append("ask_name")
        return {"visits": [interrupt("name?")]}

    graph = StateGraph(Chat).add_node("fetch", fetch).add_node("approve", approve)
    graph.add_node("ask_name", ask_name).add_node("done", visit("done"))
    for name in ("fetch", "approve", "ask_name"):
        graph.add_edge(START, name)
    graph.add_edge(["fetch", "approve", "ask_name"], "done").add_edge("done", END)
    app = graph.compile(checkpointer=saver)
    app.invoke({}, thread_id="t")
    state = app.get_state("t")
    assert [(i.node, i.value) for i in state.interrupts] == [
        ("approve", "approve?"),
        ("ask_name", "name?"),
    ]
    assert state.values.messages == []  # nothing merged until the whole step completes
    answers = {i.id: f"answer to {i.node}" for i in state.interrupts}
    final = app.invoke(Command(resume=answers), thread_id="t")
    assert final.messages == ["fetched"]
    assert final.topic == "answer to approve"
    assert final.visits == ["answer to ask_name", "done"]
    assert sorted(calls) == ["approve", "approve", "ask_name", "ask_name", "fetch"]


def test_one_answer_for_several_interrupts_is_refused() -> None:
    from graphnb.checkpoint import ResumeError

    graph = StateGraph(Chat)
    graph.add_node("x", lambda s: {"topic": interrupt("x?")})
    graph.add_node("y", lambda s: {"messages": [interrupt("y?")]})
    graph.add_edge(START, "x").add_edge(START, "y").add_edge("x", END).add_edge("y", END)
    app = graph.compile(checkpointer=MemorySaver())
    app.invoke({}, thread_id="t")
    with pytest.raises(ResumeError, match="2 pending interrupts"):
        app.invoke(Command(resume="which?"), thread_id="t")


def test_an_answer_with_no_interrupt_pending_is_refused_not_dropped() -> None:
    from graphnb.checkpoint import ResumeError

    graph = StateGraph(Chat).add_node("x", lambda s: {"topic": interrupt("x?")})
    app = graph.add_edge(START, "x").add_edge("x", END).compile(checkpointer=MemorySaver())
    app.invoke({}, thread_id="t")
    assert app.invoke(Command(resume="first"), thread_id="t").topic == "first"
    with pytest.raises(ResumeError, match=r"'t' has no pending interrupt to answer .*finished"):
        app.invoke(Command(resume="second"), thread_id="t")
    assert app.get_state("t").values.topic == "first"
    assert len(app.get_state_history("t")) == 3, "nothing was written"
    assert app.invoke(Command(), thread_id="t").topic == "first", "no answer: nothing to drop"
    # A static stop is still resumed with a Command, its answer unused.
    static = StateGraph(Chat).add_node("a", visit("a")).add_node("b", visit("b"))
    static.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    paused = static.compile(checkpointer=MemorySaver(), interrupt_after=["a"])
    paused.invoke({}, thread_id="s")
    assert paused.invoke(Command(resume="ok"), thread_id="s").visits == ["a", "b"]


def test_the_run_context_can_interrupt_too() -> None:
    from graphnb import RunContext

    def ask(state: Chat, context: RunContext) -> dict[str, Any]:
        return {"topic": context.interrupt(f"topic for {context.thread_id}?")}

    graph = StateGraph(Chat).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    app = graph.compile(checkpointer=MemorySaver())
    app.invoke({}, thread_id="t9")
    assert app.get_state("t9").interrupts[0].value == "topic for t9?"
    assert app.invoke(Command(resume="owls"), thread_id="t9").topic == "owls"


def test_an_async_node_interrupts_from_invoke_inside_a_running_loop() -> None:
    """As in a notebook cell: ``invoke`` runs the async node on a helper thread."""

    async def ask(state: Chat) -> dict[str, Any]:
        return {"topic": interrupt("topic?")}

    graph = StateGraph(Chat).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
    app = graph.compile(checkpointer=MemorySaver())

    async def cell() -> Any:
        app.invoke({}, thread_id="t")
        (pending,) = app.get_state("t").interrupts
        assert (pending.node, pending.value) == ("ask", "topic?")
        return app.invoke(Command(resume="owls"), thread_id="t")

    assert asyncio.run(cell()).topic == "owls"


def test_an_async_generator_node_interrupts_from_invoke() -> None:
    async def ask(state: dict[str, Any]) -> Any:
        yield f"about {interrupt('topic?')}"

    graph = StateGraph(dict, streaming="topic").add_node("ask", ask)
    app = graph.add_edge(START, "ask").add_edge("ask", END).compile(checkpointer=MemorySaver())
    app.invoke({}, thread_id="t")
    assert [i.value for i in app.get_state("t").interrupts] == ["topic?"]
    assert app.invoke(Command(resume="owls"), thread_id="t")["topic"] == "about owls"


def test_async_runs_stop_before_a_node_and_resume() -> None:
    app = chain("a", "b").compile(checkpointer=MemorySaver())

    async def scenario() -> tuple[list[str], list[str]]:
        first = await app.ainvoke({}, thread_id="t", interrupt_before=["b"])
        updates = [u async for u in app.astream(None, thread_id="t", mode="updates")]
        return first.visits, [next(iter(u)) for u in updates]

    visits, resumed = asyncio.run(scenario())
    assert visits == ["a"]
    assert resumed == ["b"]
    assert app.get_state("t").values.visits == ["a", "b"]


def test_thread_ids_are_checked_before_any_database_work() -> None:
    app = chain("a").compile(checkpointer=MemorySaver())
    with pytest.raises(ThreadRequiredError, match="non-empty string"):
        app.invoke({}, thread_id="")
    with pytest.raises(ThreadRequiredError, match="at most 255"):
        app.get_state("x" * 256)
    for unportable in ("a\x00b", "\ud800"):  # PostgreSQL cannot hold NUL, SQLite surrogates
        with pytest.raises(ThreadRequiredError, match="without NUL characters or lone"):
            app.invoke({}, thread_id=unportable)
        with pytest.raises(ThreadRequiredError, match="without NUL characters or lone"):
            app.get_state_history(unportable)
        with pytest.raises(ThreadRequiredError, match="without NUL characters or lone"):
            app.delete_thread(unportable)


def test_thread_ids_with_quotes_unicode_and_sql_round_trip(saver: BaseSaver) -> None:
    app = chain("a").compile(checkpointer=saver)
    odd = ['it\'s "quoted"; DROP TABLE graphnb_checkpoints;--', "ünï cödé 🎉", "é" * 255]
    for thread_id in odd:
        app.invoke({"topic": thread_id}, thread_id=thread_id)
    assert saver.threads() == sorted(odd)
    for thread_id in odd:
        assert app.get_state(thread_id).values.topic == thread_id


def test_bad_input_to_a_threaded_run_names_every_accepted_shape() -> None:
    from graphnb import InvalidUpdateError

    app = chain("a").compile(checkpointer=MemorySaver())
    with pytest.raises(InvalidUpdateError, match=r"None or Command\(resume=\.\.\.\), got \[1\]"):
        app.invoke([1], thread_id="t")
    with pytest.raises(InvalidUpdateError, match="invalid input: field 'visits'"):
        app.invoke({"visits": 5}, thread_id="t")
    assert app.get_state_history("t") == []  # nothing was written


def test_resuming_a_thread_that_does_not_exist_raises_and_creates_nothing(
    saver: BaseSaver,
) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    calls = {
        "invoke": lambda: app.invoke(None, thread_id="typo"),
        "stream": lambda: list(app.stream(None, thread_id="typo")),
        "ainvoke": lambda: asyncio.run(app.ainvoke(None, thread_id="typo")),
    }
    for name, call in calls.items():
        with pytest.raises(ThreadNotFoundError, match="thread 'typo' has nothing to resume"):
            call()
        assert saver.threads() == [], name
    app.seed_thread("seeded", {"topic": "x"})  # a seeded thread starts with input None
    assert app.invoke(None, thread_id="seeded").visits == ["a", "b"]
    assert app.invoke({"topic": "y"}, thread_id="new").visits == ["a", "b"]


def _forge_next(saver: BaseSaver, thread: str, **meta: Any) -> str:
    """Append a copy of the thread's last checkpoint whose meta says otherwise."""
    from dataclasses import replace

    row = saver.history(thread)[-1]
    forged = replace(
        row,
        seq=row.seq + 1,
        checkpoint_id="forged",
        parent_id=row.checkpoint_id,
        parent_seq=row.seq,
        meta={**row.meta, **meta},
    )
    saver.put(forged)
    return forged.checkpoint_id


@pytest.mark.parametrize(
    "meta",
    [
        {"next": ["ghost"]},
        {"next": ["b"], "pending": [["ghost", {}]]},
        {"next": ["b"], "interrupts": [{"node": "ghost", "when": "during", "value": 1, "id": "i"}]},
    ],
    ids=["next", "pending", "interrupt"],
)
def test_resuming_a_checkpoint_that_names_an_unknown_node_is_a_load_error(
    saver: BaseSaver, meta: dict[str, Any]
) -> None:
    app = chain("a", "b").compile(checkpointer=saver, interrupt_before=["b"])
    app.invoke({"topic": "x"}, thread_id="t")
    forged = _forge_next(saver, "t", **meta)
    assert app.get_state("t").checkpoint_id == forged  # reading it is fine
    for given in (None, Command(resume="yes")):
        with pytest.raises(CheckpointLoadError, match="'ghost'") as caught:
            app.invoke(given, thread_id="t")
        assert (caught.value.thread_id, caught.value.checkpoint_id) == ("t", forged)
    assert saver.history("t")[-1].checkpoint_id == forged  # nothing written


def test_a_seeded_start_at_naming_an_unknown_node_is_a_load_error(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    app.seed_thread("s", {"topic": "x"}, start_at="b")
    forged = _forge_next(saver, "s", start_at=["ghost"])
    with pytest.raises(CheckpointLoadError, match="'ghost'") as caught:
        app.invoke({"topic": "y"}, thread_id="s")
    assert caught.value.checkpoint_id == forged
