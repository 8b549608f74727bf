"""The same workloads written for each engine, in that engine's own idiom.

One function per (engine, scenario) builds what runs once per timed call: a compiled
graph, a built pydantic-graph ``Graph``, a Burr ``Graph`` (an ``Application`` is built
per run from it, as Burr intends: an application holds one run's state). Each returns a
``Contender``: the call to time, how many units (node steps, checkpoints, invokes) one
call does, and how to turn its result into plain data that all engines must agree on.
"""

from __future__ import annotations

import asyncio
import itertools
import operator
import sqlite3
from collections.abc import Callable, Generator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, TypedDict

import burr.core as burr
import langgraph.graph as langgraph
import pydantic_graph as pg
from burr.core.graph import GraphBuilder as BurrGraphBuilder
from burr.core.parallelism import MapStates
from burr.core.persistence import InMemoryPersister, SQLitePersister
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver as LangGraphSqliteSaver
from pydantic import BaseModel

import graphnb
from graphnb.checkpoint import MemorySaver, SqliteSaver

CHAIN_LENGTH = 10
LOOP_STEPS = 1_000
FAN_OUT = 100
NAMES = [f"step{i}" for i in range(CHAIN_LENGTH)]
BRANCHES = [f"branch{i:03d}" for i in range(FAN_OUT)]


@dataclass(frozen=True, slots=True)
class Contender:
    """One engine's side of a scenario.

    Attributes:
        call: runs the workload once.
        units: how many of the scenario's units (node steps, checkpoints, ...) one call does.
        plain: turns ``call()``'s result into plain data compared across engines.
    """

    call: Callable[[], Any]
    units: int
    plain: Callable[[Any], Any]


def same(result: Any) -> Any:
    return result


def fresh_threads(prefix: str) -> Callable[[], str]:
    """A new thread (or app) id per call, so every run starts an empty thread."""
    counter = itertools.count()
    return lambda: f"{prefix}-{next(counter)}"


# -- graphnb and LangGraph: the same StateGraph API ------------------------------------------


class Counter(TypedDict):
    count: int


class CounterModel(BaseModel):
    """LangGraph's Pydantic state."""

    count: int = 0


class CounterState(graphnb.GraphState):
    """graphnb's Pydantic state."""

    count: int = 0


class Gathered(TypedDict):
    items: Annotated[list[str], operator.add]
    total: int


def increment(state: Counter) -> dict[str, int]:
    return {"count": state["count"] + 1}


def increment_model(state: CounterModel | CounterState) -> dict[str, int]:
    return {"count": state.count + 1}


def again(state: Counter) -> str:
    return "loop" if state["count"] < LOOP_STEPS else "__end__"


def gather(name: str) -> Callable[[Gathered], dict[str, list[str]]]:
    def node(state: Gathered) -> dict[str, list[str]]:
        return {"items": [name]}

    node.__name__ = name
    return node


def count_items(state: Gathered) -> dict[str, int]:
    return {"total": len(state["items"])}


@dataclass(frozen=True, slots=True)
class Api:
    """What building a graph needs from graphnb or LangGraph."""

    state_graph: Callable[..., Any]
    start: str
    end: str


LANGGRAPH = Api(langgraph.StateGraph, langgraph.START, langgraph.END)
GRAPHNB = Api(graphnb.StateGraph, graphnb.START, graphnb.END)


def state_chain(api: Api, state: type[Any], node: Callable[..., Any], **compile: Any) -> Any:
    """START -> step0 -> ... -> step9 -> END."""
    graph = api.state_graph(state)
    for name in NAMES:
        graph.add_node(name, node)
    graph.add_edge(api.start, NAMES[0])
    for source, target in pairwise(NAMES):
        graph.add_edge(source, target)
    graph.add_edge(NAMES[-1], api.end)
    return graph.compile(**compile)


def state_loop(api: Api) -> Any:
    """START -> loop, then loop -> loop or END as the router says."""
    graph = api.state_graph(Counter if api is LANGGRAPH else dict)
    graph.add_node("loop", increment)
    graph.add_edge(api.start, "loop")
    graph.add_conditional_edges("loop", again, ["loop", api.end])
    return graph.compile()


def state_fan_out(api: Api) -> Any:
    """START -> 100 nodes in parallel, each appending its name -> one join -> END."""
    graph = api.state_graph(Gathered)
    for name in BRANCHES:
        graph.add_node(name, gather(name))
        graph.add_edge(api.start, name)
    graph.add_node("join", count_items)
    graph.add_edge(BRANCHES, "join")
    graph.add_edge("join", api.end)
    return graph.compile()


def dump(result: Any) -> Any:
    """A state as plain data: models dumped, so the engines' states compare equal."""
    if isinstance(result, BaseModel):
        return result.model_dump()
    if isinstance(result, list):
        return [dump(item) for item in result]
    if isinstance(result, dict):
        return {key: dump(value) for key, value in result.items()}
    return result


START = {"count": 0}
EMPTY: dict[str, Any] = {"items": [], "total": 0}
LIMIT = LOOP_STEPS + 10


def graphnb_chain() -> Contender:
    app = state_chain(GRAPHNB, dict, increment)
    return Contender(lambda: app.invoke(START), CHAIN_LENGTH, dump)


def langgraph_chain() -> Contender:
    app = state_chain(LANGGRAPH, Counter, increment)
    return Contender(lambda: app.invoke(START), CHAIN_LENGTH, dump)


def graphnb_model() -> Contender:
    app = state_chain(GRAPHNB, CounterState, increment_model)
    return Contender(lambda: app.invoke(START), CHAIN_LENGTH, dump)


def langgraph_model() -> Contender:
    app = state_chain(LANGGRAPH, CounterModel, increment_model)
    return Contender(lambda: app.invoke(START), CHAIN_LENGTH, dump)


def graphnb_loop() -> Contender:
    app = state_loop(GRAPHNB)
    return Contender(lambda: app.invoke(START, recursion_limit=LIMIT), LOOP_STEPS, dump)


def langgraph_loop() -> Contender:
    app = state_loop(LANGGRAPH)
    return Contender(lambda: app.invoke(START, {"recursion_limit": LIMIT}), LOOP_STEPS, dump)


def fan_out_total(state: Any) -> Any:
    return {"items": sorted(state["items"]), "total": state["total"]}


def graphnb_fan_out() -> Contender:
    app = state_fan_out(GRAPHNB)
    return Contender(lambda: app.invoke(EMPTY), 1, fan_out_total)


def langgraph_fan_out() -> Contender:
    app = state_fan_out(LANGGRAPH)
    return Contender(lambda: app.invoke(EMPTY), 1, fan_out_total)


def updates(events: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """``updates`` events (``{node: {"count": n}}``) as (node, count) pairs."""
    return [(node, update["count"]) for event in events for node, update in event.items()]


def graphnb_stream() -> Contender:
    app = state_chain(GRAPHNB, dict, increment)
    return Contender(lambda: list(app.stream(START, mode="updates")), CHAIN_LENGTH, updates)


def langgraph_stream() -> Contender:
    app = state_chain(LANGGRAPH, Counter, increment)
    return Contender(lambda: list(app.stream(START, stream_mode="updates")), CHAIN_LENGTH, updates)


# Checkpoints: a fresh thread per run of the chain, each checkpoint committed before the
# next step starts. Counted in the databases: graphnb writes one for the input and one per
# step (11 a run), LangGraph an empty one first as well (12), Burr one per step (10).
GRAPHNB_CHECKPOINTS = CHAIN_LENGTH + 1
LANGGRAPH_CHECKPOINTS = CHAIN_LENGTH + 2
BURR_CHECKPOINTS = CHAIN_LENGTH


def graphnb_checkpointed(saver: Any) -> Contender:
    app = state_chain(GRAPHNB, dict, increment, checkpointer=saver)
    thread = fresh_threads("graphnb")
    return Contender(lambda: app.invoke(START, thread_id=thread()), GRAPHNB_CHECKPOINTS, dump)


def langgraph_checkpointed(saver: Any) -> Contender:
    app = state_chain(LANGGRAPH, Counter, increment, checkpointer=saver)
    thread = fresh_threads("langgraph")
    return Contender(
        lambda: app.invoke(START, {"configurable": {"thread_id": thread()}}, durability="sync"),
        LANGGRAPH_CHECKPOINTS,
        dump,
    )


def wal(path: Path) -> sqlite3.Connection:
    """A connection in WAL mode with ``synchronous=NORMAL``: what graphnb's saver uses."""
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def graphnb_sqlite(folder: Path) -> Contender:
    return graphnb_checkpointed(SqliteSaver(folder / "graphnb.db", synchronous="NORMAL"))


def langgraph_sqlite(folder: Path) -> Contender:
    return langgraph_checkpointed(LangGraphSqliteSaver(wal(folder / "langgraph.db")))


def graphnb_memory() -> Contender:
    return graphnb_checkpointed(MemorySaver())


def langgraph_memory() -> Contender:
    return langgraph_checkpointed(InMemorySaver())


# -- pydantic-graph: async steps on a mutable dataclass state --------------------------------


@dataclass
class Count:
    count: int = 0


async def pg_increment(ctx: pg.StepContext[Count, None, None]) -> None:
    ctx.state.count += 1


def pg_chain_graph() -> pg.Graph[Count, None, None, None]:
    builder = pg.GraphBuilder(state_type=Count)
    steps = [builder.step(pg_increment, node_id=name) for name in NAMES]
    builder.add(builder.edge_from(builder.start_node).to(steps[0]))
    for source, target in pairwise(steps):
        builder.add(builder.edge_from(source).to(target))
    builder.add(builder.edge_from(steps[-1]).to(builder.end_node))
    return builder.build()


def pydantic_graph_chain() -> Contender:
    graph = pg_chain_graph()

    def run() -> dict[str, int]:
        state = Count()
        graph.run_sync(state=state)
        return {"count": state.count}

    return Contender(run, CHAIN_LENGTH, same)


@dataclass
class Loop(pg.BaseNode[Count, None, int]):
    """pydantic-graph's looping idiom: a node that returns itself until done."""

    async def run(self, ctx: pg.GraphRunContext[Count, None]) -> Loop | pg.End[int]:
        ctx.state.count += 1
        return Loop() if ctx.state.count < LOOP_STEPS else pg.End(ctx.state.count)


def pydantic_graph_loop() -> Contender:
    builder = pg.GraphBuilder(state_type=Count, output_type=int)
    builder.add(builder.node(Loop), builder.edge_from(builder.start_node).to(Loop))
    graph = builder.build()

    def run() -> dict[str, int]:
        state = Count()
        graph.run_sync(state=state, inputs=Loop())
        return {"count": state.count}

    return Contender(run, LOOP_STEPS, same)


def pg_branch(name: str) -> Callable[[pg.StepContext[None, None, None]], Any]:
    async def branch(ctx: pg.StepContext[None, None, None]) -> str:
        return name

    return branch


async def pg_count(ctx: pg.StepContext[None, None, list[str]]) -> dict[str, Any]:
    return {"items": ctx.inputs, "total": len(ctx.inputs)}


def pydantic_graph_fan_out() -> Contender:
    builder = pg.GraphBuilder(output_type=dict[str, Any])
    branches = [builder.step(pg_branch(name), node_id=name) for name in BRANCHES]
    collect = builder.join(pg.reduce_list_append, initial_factory=list[str], node_id="collect")
    join = builder.step(pg_count, node_id="join")
    builder.add(builder.edge_from(builder.start_node).to(*branches))
    for branch in branches:
        builder.add(builder.edge_from(branch).to(collect))
    builder.add(builder.edge_from(collect).to(join), builder.edge_from(join).to(builder.end_node))
    graph = builder.build()
    return Contender(lambda: graph.run_sync(), 1, fan_out_total)


def pydantic_graph_stream() -> Contender:
    graph = pg_chain_graph()

    async def events() -> list[tuple[str, int]]:
        state = Count()
        seen = []
        async with graph.iter(state=state) as run:
            async for event in run:
                if not isinstance(event, pg.EndMarker):  # the tasks about to run
                    seen += [(task.node_id, state.count + 1) for task in event]
        return [item for item in seen if item[0] in NAMES]

    loop = asyncio.new_event_loop()
    return Contender(lambda: loop.run_until_complete(events()), CHAIN_LENGTH, same)


# -- Burr: actions reading and writing an immutable State, a graph built once ----------------


@burr.action(reads=["count"], writes=["count"])
def burr_increment(state: burr.State) -> burr.State:
    return state.update(count=state["count"] + 1)


def burr_chain_graph() -> Any:
    return (
        BurrGraphBuilder()
        .with_actions(**dict.fromkeys(NAMES, burr_increment))
        .with_transitions(*pairwise(NAMES))
        .build()
    )


def burr_application(graph: Any, entrypoint: str, **state: Any) -> burr.ApplicationBuilder:
    return (
        burr.ApplicationBuilder().with_graph(graph).with_entrypoint(entrypoint).with_state(**state)
    )


def burr_chain() -> Contender:
    graph = burr_chain_graph()

    def run() -> dict[str, int]:
        app = burr_application(graph, NAMES[0], count=0).build()
        _, _, state = app.run(halt_after=[NAMES[-1]])
        return {"count": state["count"]}

    return Contender(run, CHAIN_LENGTH, same)


def burr_loop() -> Contender:
    graph = (
        BurrGraphBuilder()
        .with_actions(loop=burr_increment, done=burr_increment)
        .with_transitions(
            ("loop", "loop", burr.expr(f"count < {LOOP_STEPS}")), ("loop", "done", burr.default)
        )
        .build()
    )

    def run() -> dict[str, int]:
        app = burr_application(graph, "loop", count=0).build()
        _, _, state = app.run(halt_before=["done"])
        return {"count": state["count"]}

    return Contender(run, LOOP_STEPS, same)


@burr.action(reads=["name"], writes=["items"])
def burr_gather(state: burr.State) -> burr.State:
    return state.update(items=[state["name"]])


class BurrFanOut(MapStates):  # type: ignore[misc]
    """Burr's fan-out: one action mapped over 100 states, reduced into one list."""

    def action(self, state: burr.State, inputs: dict[str, Any]) -> Any:
        return burr_gather

    def states(
        self, state: burr.State, context: Any, inputs: dict[str, Any]
    ) -> Generator[burr.State, None, None]:
        for name in BRANCHES:
            yield state.update(name=name)

    def reduce(self, state: burr.State, states: Any) -> burr.State:
        return state.update(items=[item for branch in states for item in branch["items"]])

    @property
    def reads(self) -> list[str]:
        return ["items"]

    @property
    def writes(self) -> list[str]:
        return ["items"]


@burr.action(reads=["items"], writes=["total"])
def burr_count(state: burr.State) -> burr.State:
    return state.update(total=len(state["items"]))


def burr_fan_out() -> Contender:
    graph = (
        BurrGraphBuilder()
        .with_actions(fan_out=BurrFanOut(), join=burr_count)
        .with_transitions(("fan_out", "join"))
        .build()
    )

    def run() -> dict[str, Any]:
        app = burr_application(graph, "fan_out", items=[], total=0).build()
        _, _, state = app.run(halt_after=["join"])
        return {"items": state["items"], "total": state["total"]}

    return Contender(run, 1, fan_out_total)


def burr_stream() -> Contender:
    graph = burr_chain_graph()

    def run() -> list[tuple[str, int]]:
        app = burr_application(graph, NAMES[0], count=0).build()
        return [
            (step.name, state["count"]) for step, _, state in app.iterate(halt_after=[NAMES[-1]])
        ]

    return Contender(run, CHAIN_LENGTH, same)


def burr_checkpointed(persister: Any) -> Contender:
    graph = burr_chain_graph()
    app_id = fresh_threads("burr")

    def run() -> dict[str, int]:
        app = (
            burr_application(graph, NAMES[0], count=0)
            .with_identifiers(app_id=app_id())
            .with_state_persister(persister)
            .build()
        )
        _, _, state = app.run(halt_after=[NAMES[-1]])
        return {"count": state["count"]}

    return Contender(run, BURR_CHECKPOINTS, same)


def burr_sqlite(folder: Path) -> Contender:
    path = folder / "burr.db"
    persister = SQLitePersister(db_path=str(path), connection=wal(path))
    persister.initialize()
    return burr_checkpointed(persister)


def burr_memory() -> Contender:
    return burr_checkpointed(InMemoryPersister())
