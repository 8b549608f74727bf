"""Running graphs: super-steps, merging, routing, streaming, errors."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated

import pytest

from graphnb import (
    END,
    START,
    Chunk,
    ConflictingUpdateError,
    GraphRecursionError,
    GraphSetupError,
    GraphState,
    InvalidUpdateError,
    NodeError,
    NodeFailed,
    NodeFinished,
    NodeStarted,
    RouteError,
    RunContext,
    StateField,
    StateGraph,
    StepFinished,
    Streamed,
    append,
)
from graphnb.checkpoint import MemorySaver, ThreadRequiredError


class ChatState(GraphState):
    messages: Annotated[list[str], StateField(reducer=append, streaming=True)] = []
    current_step: str | None = None
    input: str = ""


class Log(GraphState):
    log: Annotated[list[str], StateField(reducer=append)] = []
    winner: str = ""
    count: int = 0


def chain(state_type, *fns, **compile_options):
    graph = StateGraph(state_type)
    names = []
    for fn in fns:
        graph.add_node(fn.__name__, fn)
        names.append(fn.__name__)
    for a, b in zip([START, *names], [*names, END], strict=True):
        graph.add_edge(a, b)
    return graph.compile(**compile_options)


# -- the examples ------------------------------------------------------------------


def test_readme_example_streams_then_lands_in_the_streaming_field():
    def reply(state: ChatState):
        yield from ("Hello, ", state.input, "!")

    graph = StateGraph(ChatState).add_node("reply", reply)
    graph.add_edge(START, "reply").add_edge("reply", END)
    compiled = graph.compile()
    assert compiled.invoke({"input": "Ada"}).messages == ["Hello, Ada!"]
    chunks = [c.value for c in compiled.stream({"input": "Ada"}, mode="chunks")]
    assert chunks == ["Hello, ", "Ada", "!"]


def test_seed_before_map_state_with_string_keys():
    graph = StateGraph(dict, reducers={"messages": append})

    def chat_node(state: dict) -> dict:
        response = f"echo: {state['input']}"
        return {"messages": [response], "currentStep": "completed"}

    graph.add_node("chatNode", chat_node).add_edge(START, "chatNode").add_edge("chatNode", END)
    result = graph.compile().invoke({"input": "你好"})
    assert result == {"input": "你好", "messages": ["echo: 你好"], "currentStep": "completed"}


def test_seed_after_typed_state_mutated_and_returned():
    def chat_node(state: ChatState) -> ChatState:
        state.messages.append(f"echo: {state.input}")
        state.current_step = "completed"
        return state

    result = chain(ChatState, chat_node).invoke({"input": "你好", "messages": ["earlier"]})
    assert result.messages == ["earlier", "echo: 你好"]
    assert result.current_step == "completed"


def test_streamed_result_with_state_update_like_the_seeds_of_streaming():
    def node(state: ChatState) -> Streamed:
        return Streamed(iter(["a", "b", "c"]), update={"current_step": "streaming"})

    events = list(chain(ChatState, node).stream({"input": "x"}))
    chunks = [e.value for e in events if isinstance(e, Chunk)]
    final = [e for e in events if isinstance(e, StepFinished)][-1].state
    assert chunks == ["a", "b", "c"]
    assert final.messages == ["abc"]
    assert final.current_step == "streaming"


def test_stream_of_non_strings_is_collected_or_aggregated():
    class Numbers(GraphState):
        values: Annotated[list[int], StateField(streaming=True)] = []
        total: int = 0

    def collect(state: Numbers) -> Streamed:
        return Streamed(iter([1, 2, 3]))

    assert chain(Numbers, collect).invoke().values == [1, 2, 3]

    def summed(state: Numbers) -> Streamed:
        return Streamed(iter([1, 2, 3]), aggregate=sum, field="total")

    assert chain(Numbers, summed).invoke().total == 6


def test_chunks_are_emitted_the_moment_they_are_produced():
    produced: list[float] = []

    def slow(state: ChatState):
        for word in ("one", "two"):
            produced.append(time.perf_counter())
            yield word
            time.sleep(0.05)

    seen = []
    for _ in chain(ChatState, slow).stream(mode="chunks"):
        seen.append(time.perf_counter())
    assert len(seen) == 2
    assert seen[0] < produced[1]  # the first chunk arrived before the second was made


def test_async_generator_node_streams_live_in_a_sync_stream():
    produced: list[float] = []

    async def slow(state: ChatState):
        for word in ("one", "two"):
            produced.append(time.perf_counter())
            yield word
            await asyncio.sleep(0.05)

    seen = [time.perf_counter() for _ in chain(ChatState, slow).stream(mode="chunks")]
    assert len(seen) == 2
    assert seen[0] < produced[1]  # the first chunk arrived before the second was made
    assert chain(ChatState, slow).invoke().messages == ["onetwo"]


def test_async_generator_failing_mid_stream_in_a_sync_run_names_the_node():
    async def broken(state: ChatState):
        yield "partial"
        raise ValueError("upstream closed")

    with pytest.raises(NodeError, match="node `broken` failed at step 0: ValueError") as caught:
        list(chain(ChatState, broken).stream())
    assert isinstance(caught.value.__cause__, ValueError)


def test_async_generator_node_streams_in_astream():
    async def talk(state: ChatState):
        for word in ("hi", " there"):
            await asyncio.sleep(0)
            yield word

    async def main():
        return [e async for e in chain(ChatState, talk).astream(mode=["chunks", "values"])]

    items = asyncio.run(main())
    assert [item.value for mode, item in items if mode == "chunks"] == ["hi", " there"]
    assert [item for mode, item in items if mode == "values"][-1].messages == ["hi there"]


def test_stream_without_streaming_field_is_an_error_naming_the_node():
    def gen(state: Log):
        yield "x"

    with pytest.raises(NodeError, match=r"node `gen`.*declares no streaming field"):
        chain(Log, gen).invoke()


# -- merging -------------------------------------------------------------------------------


def fan_out(state_type, names, fn_for, join="join", join_fn=None):
    graph = StateGraph(state_type)
    for name in names:
        graph.add_node(name, fn_for(name)).add_edge(START, name)
    graph.add_node(join, join_fn or (lambda s: None))
    graph.add_edge(list(names), join).add_edge(join, END)
    return graph.compile()


def test_parallel_appends_merge_in_node_order_not_finish_order():
    def writer(name):
        def write(state: Log) -> dict:
            time.sleep(0.02 if name == "a" else 0)  # a finishes last
            return {"log": [name]}

        return write

    result = fan_out(Log, ["a", "b", "c"], writer).invoke()
    assert result.log == ["a", "b", "c"]


def test_parallel_replace_writes_conflict_naming_field_and_nodes():
    graph = fan_out(Log, ["left", "right"], lambda name: lambda s: {"winner": name})
    with pytest.raises(ConflictingUpdateError) as caught:
        graph.invoke()
    assert caught.value.field == "winner"
    assert caught.value.nodes == ("left", "right")
    assert "`left` and `right` both wrote field 'winner' in step 0" in str(caught.value)


def test_join_runs_once_after_all_its_sources():
    runs = []

    graph = StateGraph(Log)
    graph.add_node("a", lambda s: {"log": ["a"]}).add_node("b1", lambda s: {"log": ["b1"]})
    graph.add_node("b2", lambda s: {"log": ["b2"]})
    graph.add_node("join", lambda s: runs.append(list(s.log)))
    graph.add_edge(START, "a").add_edge(START, "b1").add_edge("b1", "b2")
    graph.add_edge(["a", "b2"], "join").add_edge("join", END)
    graph.compile().invoke()
    assert runs == [["a", "b1", "b2"]]


def test_mutated_and_returned_state_merges_like_a_partial_dict():
    def mutate(name):
        def node(state: Log) -> Log:
            state.log.append(name)
            state.count = state.count  # untouched replace field: no conflict
            return state

        return node

    result = fan_out(Log, ["x", "y"], mutate).invoke({"log": ["start"]})
    assert result.log == ["start", "x", "y"]


def test_a_nodes_mutations_never_leak_into_other_nodes_view():
    seen = []

    def mutator(state: Log) -> None:
        state.log.append("leak")
        state.count = 99

    def reader(state: Log) -> None:
        time.sleep(0.01)
        seen.append((list(state.log), state.count))

    graph = StateGraph(Log)
    graph.add_node("mutator", mutator).add_node("reader", reader)
    graph.add_edge(START, "mutator").add_edge(START, "reader")
    graph.add_edge("mutator", END).add_edge("reader", END)
    result = graph.compile().invoke()
    assert seen == [([], 0)]
    assert result.log == []  # returning None writes nothing
    assert result.count == 0


def test_nested_values_are_isolated_too():
    class Nested(GraphState):
        table: dict[str, list[int]] = {"a": [1]}
        rows: list[dict[str, int]] = [{"n": 1}]

    def mutate(state: Nested) -> None:
        state.table["a"].append(2)
        state.rows[0]["n"] = 99

    result = chain(Nested, mutate).invoke()
    assert result.table == {"a": [1]}
    assert result.rows == [{"n": 1}]


def test_operator_add_on_a_list_field_validates_each_write():
    class Items(GraphState):
        items: Annotated[list[int], operator.add] = []

    assert chain(Items, lambda s: {"items": [1, "2"]}).invoke().items == [1, 2]
    with pytest.raises(InvalidUpdateError, match="'items' expects list"):
        chain(Items, lambda s: {"items": ["x"]}).invoke()


def test_removing_items_from_an_append_field_is_a_clear_error():
    def shrink(state: Log) -> Log:
        state.log.pop()
        return state

    with pytest.raises(InvalidUpdateError, match=r"'log' .*append.*removed") as caught:
        chain(Log, shrink).invoke({"log": ["a"]})
    assert caught.value.node == "shrink"


def test_bad_write_is_rejected_and_not_applied():
    def good(state: Log) -> dict:
        return {"count": 1}

    def bad(state: Log) -> dict:
        return {"count": "many", "log": ["never"]}

    graph = StateGraph(Log).add_node("good", good).add_node("bad", bad)
    graph.add_edge(START, "good").add_edge("good", "bad").add_edge("bad", END)
    events = []

    def consume():
        for event in graph.compile().stream():
            events.append(event)

    with pytest.raises(InvalidUpdateError) as caught:
        consume()
    error = caught.value
    assert (error.node, error.field, error.value) == ("bad", "count", "many")
    assert "node `bad` at step 1" in str(error)
    assert "field 'count' expects int, got 'many'" in str(error)
    failed = [e for e in events if isinstance(e, NodeFailed)]
    assert [f.node for f in failed] == ["bad"]
    last_state = [e for e in events if isinstance(e, StepFinished)][-1].state
    assert last_state.count == 1
    assert last_state.log == []


def test_unknown_field_in_update_is_rejected():
    with pytest.raises(InvalidUpdateError, match="Log has no field 'nope'"):
        chain(Log, lambda s: {"nope": 1}).invoke()


def test_wrong_return_type_names_node_and_expected_shapes():
    def odd(state: Log) -> int:
        return 5

    with pytest.raises(
        InvalidUpdateError, match=r"node `odd`.*returned 5; a node returns a partial dict"
    ):
        chain(Log, odd).invoke()


# -- routing and limits --------------------------------------------------------------------


def test_router_loops_until_done():
    def inc(state: Log) -> dict:
        return {"count": state.count + 1}

    graph = StateGraph(Log).add_node("inc", inc).add_edge(START, "inc")
    graph.add_conditional_edges("inc", lambda s: "inc" if s.count < 5 else END, ["inc", END])
    assert graph.compile().invoke().count == 5


def test_router_fan_out_to_several_targets():
    graph = StateGraph(Log)
    graph.add_node("split", lambda s: None)
    for name in ("x", "y", "z"):
        graph.add_node(name, lambda s, name=name: {"log": [name]}).add_edge(name, END)
    graph.add_edge(START, "split")
    graph.add_conditional_edges("split", lambda s: ["z", "x"], ["x", "y", "z"])
    assert graph.compile().invoke().log == ["x", "z"]


def test_router_with_a_route_map():
    graph = StateGraph(Log).add_node("a", lambda s: None).add_node("b", lambda s: {"winner": "b"})
    graph.add_edge(START, "a").add_edge("b", END)
    graph.add_conditional_edges("a", lambda s: "yes", {"yes": "b", "no": END})
    assert graph.compile().invoke().winner == "b"


def test_undeclared_route_is_an_error_listing_the_routes():
    graph = StateGraph(Log).add_node("a", lambda s: None).add_edge(START, "a")
    graph.add_conditional_edges("a", lambda s: "elsewhere", ["a", END])
    with pytest.raises(
        RouteError, match="returned 'elsewhere' at step 0; its declared routes are 'a', '__end__'"
    ):
        graph.compile().invoke()


def test_recursion_limit_stops_an_endless_loop():
    graph = StateGraph(Log).add_node("spin", lambda s: {"count": s.count + 1})
    graph.add_edge(START, "spin")
    graph.add_conditional_edges("spin", lambda s: "spin", ["spin", END])
    compiled = graph.compile(recursion_limit=10)
    with pytest.raises(GraphRecursionError, match="recursion limit of 10") as caught:
        compiled.invoke()
    assert caught.value.limit == 10
    with pytest.raises(GraphRecursionError, match="limit of 3"):
        compiled.invoke(recursion_limit=3)


def test_node_exception_names_node_and_step_with_cause_chained():
    def ok(state: Log) -> None:
        return None

    def boom(state: Log) -> None:
        raise KeyError("missing")

    with pytest.raises(NodeError, match="node `boom` failed at step 1: KeyError") as caught:
        chain(Log, ok, boom).invoke()
    assert (caught.value.node, caught.value.step) == ("boom", 1)
    assert isinstance(caught.value.__cause__, KeyError)


# -- concurrency ---------------------------------------------------------------------------


def test_sync_nodes_of_one_step_run_concurrently_on_threads():
    barrier = threading.Barrier(3, timeout=5)

    def waiter(name):
        def wait(state: Log) -> dict:
            barrier.wait()  # only returns once all three are running at the same time
            return {"log": [name]}

        return wait

    assert fan_out(Log, ["a", "b", "c"], waiter).invoke().log == ["a", "b", "c"]


def test_a_lone_sync_node_runs_inline():
    threads = []
    chain(Log, lambda s: threads.append(threading.current_thread())).invoke()
    assert threads == [threading.current_thread()]


def test_a_lone_sync_node_of_an_async_run_never_blocks_the_event_loop():
    import contextvars

    user = contextvars.ContextVar("user", default="nobody")

    def blocking(state: Log) -> dict:
        time.sleep(0.3)  # blocking I/O, say
        return {"log": [user.get()]}

    async def scenario() -> tuple[int, Log]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0)
        user.set("ada")
        final = await chain(Log, blocking).ainvoke()
        ticker.cancel()
        return ticks, final

    ticks, final = asyncio.run(scenario())
    assert ticks > 5, "the loop kept running other tasks while the node blocked"
    assert final.log == ["ada"], "the node saw the caller's context variables"


def test_async_nodes_of_one_step_run_concurrently_on_the_loop():
    def waiter(name):
        async def wait(state: Log) -> dict:
            await asyncio.sleep(0.1)
            return {"log": [name]}

        return wait

    graph = fan_out(Log, [f"n{i}" for i in range(10)], waiter)
    started = time.perf_counter()
    result = asyncio.run(graph.ainvoke())
    assert time.perf_counter() - started < 0.5  # ten 100 ms sleeps overlapped
    assert result.log == [f"n{i}" for i in range(10)]


def test_cancelling_an_async_run_leaves_no_task_behind():
    started = asyncio.Event()

    async def slow(state: Log) -> dict:
        started.set()
        await asyncio.sleep(10)
        return {"winner": "never"}

    async def main() -> set[asyncio.Task]:
        run = asyncio.ensure_future(chain(Log, slow).ainvoke())
        await started.wait()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        await asyncio.sleep(0)
        return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}

    assert asyncio.run(main()) == set()


def test_closing_a_stream_mid_step_starts_no_further_node_of_the_step():
    from graphnb.checkpoint import MemorySaver

    started, finished = [], []
    closing = threading.Event()

    def worker(name):
        def work(state: Log) -> dict:
            started.append(name)
            if name == "n0":
                assert closing.wait(30)
                time.sleep(0.05)  # still running when a close that does not wait returns
            finished.append(name)
            return {"log": [name]}

        return work

    names = [f"n{i}" for i in range(4)]
    graph = StateGraph(Log)
    for name in names:
        graph.add_node(name, worker(name)).add_edge(START, name).add_edge(name, END)
    app = graph.compile(checkpointer=MemorySaver(on_busy_thread="fail"), max_concurrency=1)
    stream = app.stream({}, thread_id="t")
    for event in stream:
        if isinstance(event, NodeStarted):
            break  # n0 runs; n1..n3 wait for the one worker of max_concurrency=1
    closing.set()
    stream.close()
    assert (started, finished) == (["n0"], ["n0"])
    assert app.get_state("t").next == tuple(names)  # the step did not complete
    assert app.invoke(None, thread_id="t").log == names  # and runs again, whole
    assert sorted(started) == ["n0", "n0", "n1", "n2", "n3"]


def test_async_node_in_a_sync_run():
    async def fetch(state: Log) -> dict:
        await asyncio.sleep(0)
        return {"winner": "async"}

    assert chain(Log, fetch).invoke().winner == "async"


def test_batch_runs_many_inputs_in_order_with_bounded_concurrency():
    active = 0
    peak = 0
    lock = threading.Lock()

    def work(state: Log) -> dict:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.01)
        with lock:
            active -= 1
        return {"count": state.count * 2}

    results = chain(Log, work).batch([{"count": i} for i in range(12)], max_concurrency=3)
    assert [r.count for r in results] == [i * 2 for i in range(12)]
    assert peak <= 3


def test_abatch_collects_exceptions_when_asked():
    def work(state: Log) -> dict:
        if state.count == 2:
            raise ValueError("two")
        return {"count": state.count + 1}

    async def main():
        return await chain(Log, work).abatch(
            [{"count": i} for i in range(4)], max_concurrency=2, return_exceptions=True
        )

    results = asyncio.run(main())
    assert [r.count for r in results if not isinstance(r, Exception)] == [1, 2, 4]
    assert isinstance(results[2], NodeError)


# -- events and context --------------------------------------------------------------------


def test_event_stream_order_and_modes():
    def first(state: Log) -> dict:
        return {"log": ["1"]}

    def second(state: Log) -> dict:
        return {"count": 2}

    graph = chain(Log, first, second)
    kinds = [(e.kind, getattr(e, "node", None)) for e in graph.stream()]
    assert kinds == [
        ("step_finished", None),
        ("node_started", "first"),
        ("node_finished", "first"),
        ("step_finished", None),
        ("node_started", "second"),
        ("node_finished", "second"),
        ("step_finished", None),
    ]
    assert list(graph.stream(mode="updates")) == [
        {"first": {"log": ["1"]}},
        {"second": {"count": 2}},
    ]
    values = list(graph.stream(mode="values"))
    assert [v.count for v in values] == [0, 0, 2]
    finished = [e for e in graph.stream() if isinstance(e, NodeFinished)]
    assert all(e.duration >= 0 for e in finished)
    with pytest.raises(ValueError, match="unknown stream mode"):
        list(graph.stream(mode="everything"))


def test_run_context_carries_ids_step_and_a_writer():
    seen = []

    def node(state: Log, context: RunContext) -> None:
        seen.append((context.node, context.step, context.data["user"], len(context.run_id)))
        context.write({"progress": 0.5})

    graph = chain(Log, node)
    custom = list(graph.stream(mode="custom", context={"user": "ada"}))
    assert custom == [{"progress": 0.5}]
    assert seen == [("node", 0, "ada", 32)]
    starts = [e for e in graph.stream(context={"user": "x"}) if isinstance(e, NodeStarted)]
    assert len(starts) == 1


def test_a_keyword_only_context_parameter_receives_the_context():
    def node(state: Log, *, context: RunContext) -> dict[str, int]:
        return {"count": context.step + 7}

    async def anode(state: Log, *, context: RunContext) -> dict[str, int]:
        return {"count": state.count + context.step + 1}

    def route(state: Log, *, context: RunContext) -> str:
        return END if context.node == "node" else "node"

    assert chain(Log, node).invoke().count == 7
    assert asyncio.run(chain(Log, anode).ainvoke()).count == 1
    looped = StateGraph(Log).add_node("node", node)
    looped.add_edge(START, "node").add_conditional_edges("node", route, ["node", END])
    assert looped.compile().invoke().count == 7


@pytest.mark.parametrize("limit", [0, -1])
def test_a_recursion_limit_below_one_is_refused_not_replaced_by_the_default(limit):
    graph = chain(Log, lambda s: {"count": 1})
    with pytest.raises(ValueError, match=f"recursion_limit must be at least 1, got {limit}"):
        graph.invoke(recursion_limit=limit)
    with pytest.raises(ValueError, match="recursion_limit must be at least 1"):
        list(graph.stream(recursion_limit=limit))
    builder = StateGraph(Log).add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
    with pytest.raises(ValueError, match="recursion_limit must be at least 1"):
        builder.compile(recursion_limit=limit)


@pytest.mark.parametrize("workers", [0, -2])
def test_max_concurrency_below_one_is_refused_rather_than_running_no_node(workers):
    builder = StateGraph(Log)
    for name in ("a", "b"):
        builder.add_node(name, lambda s, name=name: {"log": [name]})
        builder.add_edge(START, name).add_edge(name, END)
    with pytest.raises(ValueError, match=f"max_concurrency must be at least 1, got {workers}"):
        builder.compile(max_concurrency=workers)
    assert builder.compile(max_concurrency=1).invoke().log == ["a", "b"]


@pytest.mark.parametrize("limit", [True, 2.0, "3"])
def test_a_count_that_is_not_a_whole_number_is_refused_by_name(limit):
    with pytest.raises(TypeError, match="recursion_limit must be a whole number, got"):
        chain(Log, lambda s: {"count": 1}).invoke(recursion_limit=limit)
    builder = StateGraph(Log).add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
    with pytest.raises(TypeError, match="max_concurrency must be a whole number, got"):
        builder.compile(max_concurrency=limit)


@pytest.mark.parametrize("names", [5, [5], ["a", None]])
def test_interrupt_options_that_are_not_node_names_are_refused_by_name(names):
    builder = StateGraph(Log).add_node("a", lambda s: {}).add_edge(START, "a").add_edge("a", END)
    expected = "interrupt_before takes a node's name, a list of names or '\\*', got"
    with pytest.raises(GraphSetupError, match=expected):
        builder.compile(interrupt_before=names)
    graph = builder.compile(checkpointer=MemorySaver())
    with pytest.raises(GraphSetupError, match=expected.replace("before", "after")):
        graph.invoke(thread_id="t", interrupt_after=names)


def test_a_thread_id_that_is_not_a_string_is_refused_by_every_thread_call():
    graph = chain(Log, lambda s: {"count": 1}, checkpointer=MemorySaver())
    graph.invoke({}, thread_id="5")
    calls = {
        "invoke": lambda: graph.invoke({}, thread_id=5),
        "stream": lambda: list(graph.stream({}, thread_id=5)),
        "ainvoke": lambda: asyncio.run(graph.ainvoke({}, thread_id=5)),
        "get_state": lambda: graph.get_state(5),
        "get_state_history": lambda: graph.get_state_history(5),
        "delete_thread": lambda: graph.delete_thread(5),
    }
    for name, call in calls.items():
        with pytest.raises(ThreadRequiredError, match=r"thread_id is a string .*, got 5"):
            call()
        assert graph.get_state("5").values.count == 1, name


def test_a_context_that_is_not_a_mapping_is_refused_before_any_node_runs():
    ran = []
    graph = chain(Log, lambda s: ran.append(1) or {"count": 1})
    with pytest.raises(TypeError, match=r"context is a mapping .*, got 5"):
        graph.invoke(context=5)
    assert ran == []
    assert graph.invoke(context={"user": "ada"}).count == 1


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_max_concurrency_limits_ainvoke_as_it_limits_invoke(kind):
    """Six nodes in one step, at most two at once, whichever way the run is driven."""
    running, peak, lock = [0], [0], threading.Lock()

    def enter():
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])

    def leave():
        with lock:
            running[0] -= 1

    def sync_node(state):
        enter()
        time.sleep(0.05)
        leave()
        return {}

    async def async_node(state):
        enter()
        await asyncio.sleep(0.05)
        leave()
        return {}

    builder = StateGraph(Log)
    for name in "abcdef":
        builder.add_node(name, sync_node if kind == "sync" else async_node)
        builder.add_edge(START, name).add_edge(name, END)
    app = builder.compile(max_concurrency=2)
    if kind == "sync":
        app.invoke()
        assert peak[0] == 2
        peak[0] = 0
    asyncio.run(app.ainvoke())
    assert peak[0] == 2


def test_a_router_does_not_see_what_a_sibling_wrote_in_the_same_step():
    """As in LangGraph: `a` routes on the state before the step plus its own writes."""
    builder = StateGraph(dict, reducers={"log": operator.add})
    builder.add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"flag": True})
    builder.add_node("yes", lambda s: {"log": ["yes"]}).add_node("no", lambda s: {"log": ["no"]})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("b", END)
    builder.add_conditional_edges("a", lambda s: "yes" if s.get("flag") else "no", ["yes", "no"])
    app = builder.add_edge("yes", END).add_edge("no", END).compile()
    assert app.invoke({"flag": False})["log"] == ["a", "no"]
    assert asyncio.run(app.ainvoke({"flag": False}))["log"] == ["a", "no"]
    assert app.invoke({"flag": True})["log"] == ["a", "yes"]


def test_a_failing_reducer_is_an_invalid_update_naming_node_field_and_cause():
    def strict_sum(current: int, update: int) -> int:
        if update < 0:
            raise ArithmeticError("no negative updates")
        return current + update

    class Total(GraphState):
        total: Annotated[int, StateField(reducer=strict_sum)] = 0

    def subtract(state: Total) -> dict[str, int]:
        return {"total": -1}

    graph = chain(Total, subtract)
    with pytest.raises(InvalidUpdateError, match=r"node `subtract`.*strict_sum.*'total'") as caught:
        graph.invoke({"total": 2})
    assert (caught.value.node, caught.value.field, caught.value.value) == ("subtract", "total", -1)
    assert isinstance(caught.value.__cause__, ArithmeticError)
    with pytest.raises(InvalidUpdateError, match="invalid input") as caught:
        graph.invoke({"total": -5})
    assert caught.value.field == "total"
    assert isinstance(caught.value.__cause__, ArithmeticError)


def test_a_list_of_modes_pairs_the_same_items_each_mode_streams_alone():
    def talk(state: ChatState, context: RunContext):
        context.write({"progress": 0.5})
        yield "hel"
        yield "lo"

    def note(state: ChatState) -> dict:
        return {"current_step": "note"}

    app = chain(ChatState, talk, note)
    modes = ["events", "values", "updates", "chunks", "custom"]
    pairs = list(app.stream(mode=modes))
    assert {mode for mode, _ in pairs} == set(modes)
    for mode in modes:
        alone = list(app.stream(mode=mode))
        together = [item for paired, item in pairs if paired == mode]
        if mode in ("events", "chunks"):  # fresh event objects: compare what they hold
            alone = [(type(e).__name__, getattr(e, "node", None)) for e in alone]
            together = [(type(e).__name__, getattr(e, "node", None)) for e in together]
        assert together == alone, mode
    assert list(app.stream(mode="custom")) == [{"progress": 0.5}]
    assert list(app.stream(mode="updates"))[-1] == {"note": {"current_step": "note"}}


def test_a_node_that_writes_nothing_streams_none_and_its_step_adds_no_state() -> None:
    # As LangGraph streams them: {node: None} in updates; no values item for the step.
    from typing import TypedDict

    from graphnb import END, START, StateGraph, StepFinished

    class Count(TypedDict, total=False):
        n: int

    def look(state: Count) -> None:
        return None

    def bump(state: Count) -> dict[str, int]:
        return {"n": state["n"] + 1}

    graph = StateGraph(Count).add_node("look", look).add_node("bump", bump)
    app = graph.add_edge(START, "look").add_edge("look", "bump").add_edge("bump", END).compile()
    assert list(app.stream({"n": 1}, mode="updates")) == [{"look": None}, {"bump": {"n": 2}}]
    assert list(app.stream({"n": 1}, mode="values")) == [{"n": 1}, {"n": 2}]
    steps = [e for e in app.stream({"n": 1}) if isinstance(e, StepFinished)]
    assert [(e.nodes, e.wrote) for e in steps] == [
        (("__start__",), True),
        (("look",), False),
        (("bump",), True),
    ]
