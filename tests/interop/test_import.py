"""Reading LangGraph graphs into graphnb: what maps, and what is reported unmapped."""

from __future__ import annotations

import asyncio
import collections
import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import END, START
from langgraph.graph import StateGraph as LGStateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime
from langgraph.types import CachePolicy, Command, RetryPolicy, Send, StreamWriter, interrupt
from pydantic import BaseModel

import graphnb
from graphnb import StateGraph
from graphnb.checkpoint import MemorySaver
from graphnb.interop import UnmappedFeatureError, from_langgraph, import_langgraph


class Counter(TypedDict):
    items: Annotated[list[int], operator.add]
    n: int


def bump(state: Counter) -> dict[str, Any]:
    return {"items": [state["n"]], "n": state["n"] + 1}


def check(state: Counter) -> dict[str, Any]:
    return {"items": [-1]}


def again(state: Counter) -> Literal["bump", "__end__"]:
    return "bump" if state["n"] < 3 else END


def loop() -> LGStateGraph:
    graph = LGStateGraph(Counter)
    graph.add_node("bump", bump)
    graph.add_node(check)
    graph.add_edge(START, "bump")
    graph.add_edge(["bump"], "check")
    graph.add_conditional_edges("check", again, {"bump": "bump", "__end__": END})
    return graph


def test_nodes_edges_joins_and_path_maps_are_mapped():
    graph = from_langgraph(loop())
    spec = graph.spec
    assert [node.id for node in spec.nodes] == ["bump", "check"]
    assert graph.callables == {"bump": bump, "check": check}
    edges = {(e.source, e.target, e.kind, e.route) for e in spec.edges}
    assert edges == {
        (START, "bump", "direct", None),
        ("bump", "check", "direct", None),
        ("check", "bump", "conditional", "bump"),
        ("check", END, "conditional", "__end__"),
    }
    assert graph.routers == {"check": again}
    assert graph.compile().invoke({"n": 0}) == loop().compile().invoke({"n": 0})


def test_a_join_of_several_sources_stays_a_join():
    graph = LGStateGraph(Counter)
    for name in ("a", "b", "c"):
        graph.add_node(name, check)
    graph.add_edge(START, "a")
    graph.add_edge(START, "b")
    graph.add_edge(["a", "b"], "c")
    graph.add_edge("c", END)
    joins = [(e.source, e.target) for e in from_langgraph(graph).spec.edges if e.kind == "join"]
    assert sorted(joins) == [("a", "c"), ("b", "c")]


def test_operator_add_becomes_graphnb_add_and_add_messages_stays_a_callable():
    class Chat(TypedDict):
        messages: Annotated[list, add_messages]
        log: Annotated[list[str], operator.add]

    graph = LGStateGraph(Chat)
    graph.add_node("say", lambda state: {"messages": [("ai", "hi")], "log": ["said"]})
    graph.add_edge(START, "say")
    imported = from_langgraph(graph)
    fields = imported.schema.fields
    assert fields["log"].reducer is graphnb.add
    assert fields["messages"].reducer.name == "_add_messages"
    result = imported.compile().invoke({"messages": [("user", "hello")]})
    assert [m.content for m in result["messages"]] == ["hello", "hi"]
    assert result["log"] == ["said"]


@dataclass
class DataState:
    n: int = 0
    seen: Annotated[list[int], operator.add] = field(default_factory=list)


class ModelState(BaseModel):
    n: int = 0
    seen: Annotated[list[int], operator.add] = []


def step(state: Any) -> dict[str, Any]:
    return {"n": state.n + 1, "seen": [state.n]}


@pytest.mark.parametrize("schema", [DataState, ModelState])
def test_dataclass_and_pydantic_states_become_graph_states_with_their_reducers(schema):
    graph = LGStateGraph(schema)
    graph.add_node("step", step)
    graph.add_edge(START, "step")
    graph.add_edge("step", "step_again")
    graph.add_node("step_again", step)
    imported = from_langgraph(graph)
    assert issubclass(imported.schema.state_type, graphnb.GraphState)
    assert imported.schema.state_type.__langgraph_state__ is schema
    assert imported.schema.fields["seen"].reducer is graphnb.add
    result = imported.compile().invoke({"n": 5})
    assert dict(result) == graph.compile().invoke({"n": 5}) == {"n": 7, "seen": [5, 6]}


def test_in_memory_saver_and_static_interrupts_become_compile_options():
    compiled = loop().compile(checkpointer=InMemorySaver(), interrupt_before=["check"])
    imported = import_langgraph(compiled)
    assert imported.unmapped == []
    assert imported.compile_options["interrupt_before"] == ["check"]
    assert isinstance(imported.compile_options["checkpointer"], MemorySaver)
    app = imported.compile()
    app.invoke({"n": 0}, thread_id="t")
    assert app.get_state("t").next == ("check",)


def test_from_langgraph_of_a_compiled_graph_compiles_with_its_options():
    # The mapping table says "the same compile options": from_langgraph(app).compile() used
    # to drop interrupt_before and the checkpointer without a word.
    compiled = loop().compile(checkpointer=InMemorySaver(), interrupt_before=["check"])
    app = from_langgraph(compiled).compile()
    assert isinstance(app.checkpointer, MemorySaver)
    assert app.interrupt_before == {"check"}
    app.invoke({"n": 0}, thread_id="t")
    assert app.get_state("t").next == ("check",)
    plain = from_langgraph(compiled).compile(checkpointer=None, interrupt_before=())
    assert plain.checkpointer is None, "an option passed to compile wins"
    assert from_langgraph(loop()).compile().checkpointer is None


# -- what is not mapped: every feature named, with its reason ------------------------


def unmapped_of(graph: Any) -> list[tuple[str, str]]:
    with pytest.raises(UnmappedFeatureError) as caught:
        from_langgraph(graph)
    message = str(caught.value)
    for item in caught.value.unmapped:
        assert str(item) in message
    return [(item.feature, item.where) for item in caught.value.unmapped]


def one_node(**options: Any) -> LGStateGraph:
    graph = LGStateGraph(Counter)
    graph.add_node("bump", bump, **options)
    graph.add_edge(START, "bump")
    return graph


def test_retry_timeout_cache_and_metadata_map_to_graphnb_policies():
    attempts: list[int] = []

    def flaky(state: Counter) -> dict[str, Any]:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("down")
        return {"n": state["n"] + 1}

    async def double(state: Counter) -> dict[str, Any]:
        return {"n": state["n"] * 2}

    graph = LGStateGraph(Counter)
    retry = RetryPolicy(initial_interval=0.001, backoff_factor=3.0, max_attempts=4, jitter=False)
    graph.add_node("flaky", flaky, retry_policy=retry, metadata={"owner": "ada", "n": [1]})
    graph.add_node("double", double, timeout=2.5, cache_policy=CachePolicy(ttl=30))
    graph.add_edge(START, "flaky").add_edge("flaky", "double")
    imported = from_langgraph(graph)
    flaky_spec, double_spec = (imported.spec.node(name) for name in ("flaky", "double"))
    assert flaky_spec.retry is not None
    assert (flaky_spec.retry.max_attempts, flaky_spec.retry.backoff_factor) == (4, 3.0)
    # LangGraph's default predicate itself: it retries a ConnectionError, not a ValueError
    assert flaky_spec.retry.retry_on == ["langgraph._internal._retry:default_retry_on"]
    assert flaky_spec.metadata == {"owner": "ada", "n": [1]}
    assert double_spec.timeout == 2.5
    assert double_spec.cache is not None
    assert double_spec.cache.ttl == 30
    app = imported.compile()
    assert asyncio.run(app.ainvoke({"n": 1, "items": []}))["n"] == 4
    assert len(attempts) == 3, "retried twice, as on LangGraph"


def test_a_cache_policy_maps_only_where_langgraph_would_cache():
    from langgraph.cache.memory import InMemoryCache

    graph = one_node(cache_policy=CachePolicy(ttl=5))
    assert import_langgraph(graph.compile()).graph.spec.nodes[0].cache is None
    compiled = graph.compile(cache=InMemoryCache())
    cache = import_langgraph(compiled).graph.spec.nodes[0].cache
    assert cache is not None
    assert cache.ttl == 5


def test_node_options_graphnb_cannot_keep_are_reported_with_the_reason():
    from langgraph.types import TimeoutPolicy

    graph = one_node(
        retry_policy=[RetryPolicy(), RetryPolicy(max_attempts=5)],
        cache_policy=CachePolicy(key_func=lambda state: "one key"),
        metadata={"client": object()},
    )

    async def wait(state: Counter) -> dict[str, Any]:
        return {}

    graph.add_node("wait", wait, timeout=TimeoutPolicy(idle_timeout=3))
    graph.add_edge("bump", "wait")
    assert unmapped_of(graph) == [
        ("several RetryPolicy", "node 'bump'"),
        ("cache key_func", "node 'bump'"),
        ("node metadata", "node 'bump'"),
        ("idle_timeout", "node 'wait'"),
    ]


def test_policies_graphnb_refuses_are_named_like_every_other_refusal():
    # LangGraph takes max_attempts=0 and ttl=0; graphnb's policies refuse them. The import
    # used to raise a bare ValueError naming neither the node nor the import.
    from langgraph.cache.memory import InMemoryCache

    graph = one_node(retry_policy=RetryPolicy(max_attempts=0), cache_policy=CachePolicy(ttl=0))
    with pytest.raises(UnmappedFeatureError) as caught:
        from_langgraph(graph.compile(cache=InMemoryCache()))
    found = [item.feature for item in caught.value.unmapped if item.where == "node 'bump'"]
    assert found == ["RetryPolicy", "CachePolicy"]
    message = str(caught.value)
    assert "max_attempts" in message
    assert "got 0" in message
    assert "ttl" in message
    imported = import_langgraph(one_node(cache_policy=CachePolicy(ttl=-5)))
    assert [item.feature for item in imported.unmapped] == ["CachePolicy"]
    assert imported.graph.spec.nodes[0].cache is None


def test_a_retry_policy_field_graphnb_lacks_is_reported_not_dropped():
    # A later LangGraph's RetryPolicy may carry a field graphnb's has not; the import used
    # to copy the fields it knew and drop the rest without a word.
    later = collections.namedtuple(
        "RetryPolicy", [*RetryPolicy._fields, "give_up_after"], defaults=[*RetryPolicy(), 60.0]
    )
    imported = import_langgraph(one_node(retry_policy=later(max_attempts=2)))
    [unmapped] = imported.unmapped
    assert (unmapped.feature, unmapped.where) == ("RetryPolicy", "node 'bump'")
    assert "give_up_after" in unmapped.reason
    assert imported.graph.spec.nodes[0].retry is None
    kept = import_langgraph(one_node(retry_policy=RetryPolicy(max_attempts=2, jitter=False)))
    assert kept.unmapped == []
    retry = kept.graph.spec.nodes[0].retry
    assert retry is not None
    assert (retry.max_attempts, retry.jitter) == (2, False)


def test_a_deferred_node_runs_once_after_the_longest_branch_as_on_langgraph():
    def step(name: str) -> Any:
        def node(state: Counter) -> dict[str, Any]:
            return {"items": [len(name)]}

        return node

    def build() -> LGStateGraph:
        graph = LGStateGraph(Counter)
        for name in ("a", "bb", "ccc", "dddd"):
            graph.add_node(name, step(name))
        graph.add_node("end", step("end_"), defer=True)
        graph.add_edge(START, "a").add_edge(START, "bb").add_edge("bb", "ccc")
        graph.add_edge("ccc", "dddd").add_edge("a", "end").add_edge("dddd", "end")
        return graph

    imported = from_langgraph(build())
    assert imported.spec.node("end").defer
    expected = list(build().compile().stream({"n": 0}, stream_mode="updates"))
    assert list(imported.compile().stream({"n": 0}, mode="updates")) == expected
    assert expected[-1] == {"end": {"items": [4]}}  # once, last


def handoff() -> LGStateGraph:
    def go(state: Counter) -> Command[Literal["bump", "__end__"]]:
        if state["n"] >= 3:
            return Command(goto=END, update={"items": [-1]})
        return Command(goto="bump", update={"items": [state["n"]]})

    graph = one_node()
    graph.add_node("go", go)
    graph.add_edge("bump", "go")
    return graph


def test_a_node_returning_command_writes_its_update_and_goes_where_it_says():
    imported = from_langgraph(handoff())
    go = next(node for node in imported.spec.nodes if node.id == "go")
    assert go.destinations is not None
    assert set(go.destinations) == {"bump", END}
    expected = handoff().compile().invoke({"n": 0})
    assert imported.compile().invoke({"n": 0}) == expected
    assert expected["items"] == [0, 1, 1, 2, 2, -1]
    updates = list(handoff().compile().stream({"n": 0}, stream_mode="updates"))
    assert list(imported.compile().stream({"n": 0}, mode="updates")) == updates


def test_a_command_to_the_parent_graph_and_a_command_beside_a_router_run_as_on_langgraph():
    def up(state: Counter) -> Command:
        return Command(graph=Command.PARENT, goto="bump", update={"items": [-5]})

    child = LGStateGraph(Counter)
    child.add_node("up", up)
    child.add_edge(START, "up")

    def build() -> LGStateGraph:
        graph = one_node()
        graph.add_node("child", child.compile(), destinations=("bump",))
        graph.add_conditional_edges("bump", lambda s: "child" if s["n"] < 2 else END)
        return graph

    assert import_langgraph(build()).unmapped == []
    expected = build().compile().invoke({"n": 0})
    assert from_langgraph(build()).compile().invoke({"n": 0}) == expected

    def routed() -> LGStateGraph:
        graph = handoff()
        graph.add_conditional_edges("go", lambda state: "bump" if state["n"] < 1 else END)
        return graph

    assert import_langgraph(routed()).unmapped == []
    expected = routed().compile().invoke({"n": 0})
    assert from_langgraph(routed()).compile().invoke({"n": 0}) == expected


def test_a_path_map_keyed_by_booleans_routes_by_the_routers_answer():
    def more(state: Counter) -> bool:
        return state["n"] < 2

    graph = one_node()
    graph.add_conditional_edges("bump", more, {True: "bump", False: END})
    imported = from_langgraph(graph)
    routes = sorted((e.label, e.target) for e in imported.spec.edges if e.kind == "conditional")
    assert routes == [("False", END), ("True", "bump")]
    assert imported.compile().invoke({"n": 0})["n"] == graph.compile().invoke({"n": 0})["n"] == 2


def test_a_path_map_keyed_by_other_non_strings_is_reported_naming_the_router():
    def how_many(state: Counter) -> int:
        return state["n"]

    graph = one_node()
    graph.add_conditional_edges("bump", how_many, {1: "bump", 2: END})
    assert unmapped_of(graph) == [
        ("a path map keyed by non-strings", "router 'how_many' from 'bump'")
    ]


def test_send_in_a_router_maps_to_graphnb_send():
    def fan_out(state: Counter) -> list[Send]:
        return [Send("bump", {"n": n}) for n in range(3)]

    def seen(state: Counter) -> dict[str, Any]:
        return {"items": [state["n"]]}

    graph = LGStateGraph(Counter)
    graph.add_node("bump", seen)
    graph.add_conditional_edges(START, fan_out, ["bump"])
    imported = import_langgraph(graph)
    assert imported.unmapped == []
    sends = [(e.source, e.target) for e in imported.graph.spec.edges if e.kind == "send"]
    assert sends == [(START, "bump")]
    router = imported.graph.routers[START]
    assert router.__langgraph_router__ is fan_out
    assert [type(send).__module__ for send in router({"n": 0})] == ["graphnb.engine.send"] * 3
    result = imported.graph.compile().invoke({"n": 0})
    assert sorted(result["items"]) == [0, 1, 2]


def sends_for(count: int) -> list[Send]:
    """A helper of the module that builds the packets: the router only calls it."""
    return [Send("bump", {"n": n}) for n in range(count)]


def test_send_built_by_a_helper_of_the_router_maps_to_graphnb_send():
    def fan_out(state: Counter) -> list[Send]:
        return sends_for(3)

    def seen(state: Counter) -> dict[str, Any]:
        return {"items": [state["n"]]}

    graph = LGStateGraph(Counter)
    graph.add_node("bump", seen)
    graph.add_conditional_edges(START, fan_out, ["bump"])
    imported = import_langgraph(graph)
    assert imported.unmapped == []
    assert [e.target for e in imported.graph.spec.edges if e.kind == "send"] == ["bump"]
    assert sorted(imported.graph.compile().invoke({"n": 0})["items"]) == [0, 1, 2]


def test_subgraph_node_maps_to_a_graphnb_subgraph():
    graph = LGStateGraph(Counter)
    graph.add_node("inner", loop().compile())
    graph.add_edge(START, "inner")
    imported = import_langgraph(graph)
    assert imported.unmapped == []
    (node,) = imported.graph.spec.nodes
    assert node.subgraph is not None
    assert [child.id for child in node.subgraph.nodes] == ["bump", "check"]
    expected = graph.compile().invoke({"n": 0, "items": []})
    assert imported.graph.compile().invoke({"n": 0, "items": []})["n"] == expected["n"]


def test_what_a_subgraph_cannot_map_is_reported_with_the_subgraph():
    child = LGStateGraph(Counter)
    child.add_node("bump", bump, retry_policy=[RetryPolicy(), RetryPolicy()])
    child.add_edge(START, "bump")
    graph = LGStateGraph(Counter)
    graph.add_node("inner", child.compile(), retry_policy=RetryPolicy())
    graph.add_edge(START, "inner")
    assert unmapped_of(graph) == [
        ("several RetryPolicy", "node 'bump' in subgraph 'inner'"),
        ("retry", "node 'inner'"),
    ]


def test_a_functional_api_graph_as_a_node_is_reported():
    from langgraph.func import entrypoint

    @entrypoint()
    def flow(state: dict) -> dict:
        return state

    graph = LGStateGraph(Counter)
    graph.add_node("inner", flow)
    graph.add_edge(START, "inner")
    (item,) = import_langgraph(graph).unmapped
    assert (item.feature, item.where) == ("subgraph", "node 'inner'")
    assert "a Pregel is not a compiled StateGraph" in item.reason


def test_langgraph_interrupt_in_a_node_stops_and_resumes_on_graphnb():
    def ask(state: Counter) -> dict[str, Any]:
        first = interrupt("how many?")
        second = interrupt("and then?")
        return {"n": first + second}

    graph = LGStateGraph(Counter)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    app = from_langgraph(graph).compile(checkpointer=MemorySaver())
    app.invoke({"n": 0}, thread_id="t")
    assert [i.value for i in app.get_state("t").interrupts] == ["how many?"]
    app.invoke(graphnb.Command(resume=2), thread_id="t")
    assert [(i.value, i.id) for i in app.get_state("t").interrupts] == [("and then?", "ask:1")]
    assert app.invoke(graphnb.Command(resume=3), thread_id="t")["n"] == 5


def test_a_router_calling_langgraph_interrupt_is_reported():
    def ask(state: Counter) -> str:
        return interrupt("where?")

    graph = one_node()
    graph.add_conditional_edges("bump", ask, [END])
    assert unmapped_of(graph) == [("interrupt", "router 'ask' from 'bump'")]


def test_injected_config_runtime_and_writer_reach_an_imported_node():
    def configured(
        state: Counter, config: RunnableConfig, runtime: Runtime[Any], writer: StreamWriter
    ) -> dict[str, Any]:
        writer({"step": config["metadata"]["langgraph_step"]})
        assert runtime.stream_writer is writer
        assert get_config() is config
        return {"n": len(config["configurable"]["thread_id"])}

    graph = LGStateGraph(Counter)
    graph.add_node("configured", configured)
    graph.add_edge(START, "configured")
    app = from_langgraph(graph).compile(checkpointer=MemorySaver())
    assert list(app.stream({"n": 0}, thread_id="abc", mode="custom")) == [{"step": 0}]
    assert app.get_state("abc").values["n"] == 3


def test_an_unsupported_langgraph_version_is_refused_naming_the_range(monkeypatch):
    import importlib.metadata

    from graphnb.interop.langgraph_runtime import LangGraphVersionError

    def ask(state: Counter) -> dict[str, Any]:
        return {"n": interrupt("?")}

    graph = LGStateGraph(Counter)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata,
        "version",
        lambda name: "2.1.0" if name == "langgraph" else real(name),
    )
    with pytest.raises(LangGraphVersionError, match=r"langgraph >=1\.0,<2\.0; langgraph 2\.1\.0"):
        from_langgraph(graph)


def test_input_and_output_schemas_filter_what_a_run_takes_and_returns():
    class In(TypedDict):
        n: int

    class Out(TypedDict):
        items: list[int]

    graph = LGStateGraph(Counter, input_schema=In, output_schema=Out)
    graph.add_node("bump", bump)
    graph.add_edge(START, "bump")
    expected = graph.compile().invoke({"n": 4, "items": [99]})
    assert from_langgraph(graph).compile().invoke({"n": 4, "items": [99]}) == expected
    assert expected == {"items": [4]}  # `items` was not input, `n` is not output

    @dataclass
    class Model:
        n: int = 0

    other = LGStateGraph(Counter, output_schema=Model)
    other.add_node("bump", bump)
    other.add_edge(START, "bump")
    assert unmapped_of(other) == [("output schema", "Model")]


def test_several_branches_from_one_node_are_followed_all():
    def fan(state: Counter) -> list[Send]:
        return [Send("collect", {"n": 10}), Send("collect", {"n": 20})]

    def first(state: Counter) -> str:
        return "one" if state["n"] == 0 else "stop"

    def other(state: Counter) -> str:
        return "check"

    def built() -> LGStateGraph:
        graph = LGStateGraph(Counter)
        graph.add_node("start", lambda state: {})
        graph.add_node("collect", lambda state: {"items": [state["n"]]})
        graph.add_node("check", check)
        graph.add_edge(START, "start")
        graph.add_conditional_edges("start", first, {"one": "collect", "stop": END})
        graph.add_conditional_edges("start", other, ["check"])
        graph.add_conditional_edges("start", fan, ["collect"])
        return graph

    imported = from_langgraph(built())
    expected = built().compile().invoke({"n": 0})
    assert sorted(imported.compile().invoke({"n": 0})["items"]) == sorted(expected["items"])
    assert sorted(expected["items"]) == [-1, 0, 10, 20]


def test_other_checkpointers_are_reported_and_a_store_is_kept(tmp_path):
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.memory import InMemoryStore

    with SqliteSaver.from_conn_string(str(tmp_path / "lg.db")) as saver:
        compiled = loop().compile(checkpointer=saver, store=InMemoryStore())
        assert unmapped_of(compiled) == [("SqliteSaver", "checkpointer")]


def test_non_strict_import_returns_the_graph_and_the_list():
    imported = import_langgraph(one_node(retry_policy=[RetryPolicy()] * 2))
    assert [item.feature for item in imported.unmapped] == ["several RetryPolicy"]
    assert imported.compile().invoke({"n": 1}) == {"items": [1], "n": 2}


def test_a_non_langgraph_object_is_refused():
    with pytest.raises(TypeError, match="LangGraph StateGraph or compiled graph, got int"):
        import_langgraph(3)


def test_a_typing_extensions_typeddict_state_maps_like_typings():
    from typing_extensions import TypedDict as ExtensionsTypedDict

    class Plain(ExtensionsTypedDict):
        n: int

    def step(state: Plain) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    graph = LGStateGraph(Plain)
    graph.add_node("step", step)
    graph.add_edge(START, "step")
    imported = from_langgraph(graph)
    assert imported.schema.state_type is Plain
    assert imported.compile().invoke({"n": 1}) == {"n": 2}


def test_the_langgraph_extra_pins_what_the_shim_supports_and_what_thread_import_needs():
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    from graphnb.interop.langgraph_runtime import SUPPORTED

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extra = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]["langgraph"]
    wanted = {Requirement(line).name: Requirement(line).specifier for line in extra}
    assert "msgpack" in wanted  # graphnb.interop.langgraph_threads decodes with it
    low, high = (".".join(map(str, v)) for v in SUPPORTED)
    assert low in wanted["langgraph"]
    assert high not in wanted["langgraph"]
    assert f"{low}.99" in wanted["langgraph"]
    assert high.replace(".0", "") + ".0.1" not in wanted["langgraph"]


def test_a_langgraph_programs_own_calls_run_on_the_imported_graph():
    def ask(state: Counter) -> dict[str, Any]:
        return {"n": interrupt("how many?")}

    builder = LGStateGraph(Counter)
    builder.add_node("bump", bump)
    builder.add_node("ask", ask)
    builder.add_edge(START, "bump")
    builder.add_edge("bump", "ask")
    expected_app = builder.compile(checkpointer=InMemorySaver())
    app = from_langgraph(builder.compile(checkpointer=InMemorySaver())).compile()

    def program(graph: Any) -> list[Any]:
        # As a LangGraph user writes it: config dicts, stream_mode, LangGraph's Command.
        config = {"configurable": {"thread_id": "1"}, "recursion_limit": 10}
        seen = [list(chunk) for chunk in graph.stream({"n": 1}, config, stream_mode="updates")]
        snapshot = graph.get_state(config)
        seen.append((snapshot.next, snapshot.values["n"], snapshot.interrupts[0].value))
        seen.append(graph.invoke(Command(resume=7), config)["n"])
        new = graph.update_state(config, {"n": 9})
        seen.append(graph.get_state(new).values["n"])
        seen.append(len(list(graph.get_state_history(config))) > 2)
        return seen

    expected = program(expected_app)
    assert program(app) == expected
    assert expected == [["bump"], ["__interrupt__"], (("ask",), 2, "how many?"), 7, 9, True]


def test_a_call_written_for_langgraph_gets_langgraphs_errors_a_graphnb_call_graphnbs():
    from langgraph import errors

    def boom(state: Counter) -> dict[str, Any]:
        raise KeyError("missing")

    def both(state: Counter) -> dict[str, Any]:
        return {"n": 1}

    failing = one_node()
    failing.add_node("boom", boom)
    failing.add_edge("bump", "boom")
    app = from_langgraph(failing).compile()
    with pytest.raises(KeyError, match="missing") as caught:  # the node's own, as LangGraph
        app.invoke({"n": 0}, {"configurable": {}})
    assert "graphnb: node `boom`" in str(caught.value.__notes__)
    with pytest.raises(KeyError):
        list(app.stream({"n": 0}, stream_mode="updates"))
    with pytest.raises(graphnb.NodeError) as wrapped:  # graphnb's own style: graphnb's error
        app.invoke({"n": 0})
    assert wrapped.value.node == "boom"

    rivals = LGStateGraph(Counter)
    rivals.add_node("a", both)
    rivals.add_node("b", both)
    rivals.add_edge(START, "a")
    rivals.add_edge(START, "b")
    with pytest.raises(errors.InvalidUpdateError):
        from_langgraph(rivals).compile().invoke({"n": 0}, {})
    with pytest.raises(errors.GraphRecursionError):
        from_langgraph(loop()).compile().invoke({"n": 0}, {"recursion_limit": 1})


def test_a_graphnb_call_gets_an_error_langgraphs_except_clause_catches_too():
    from langgraph import errors

    def both(state: Counter) -> dict[str, Any]:
        return {"n": 1}

    rivals = LGStateGraph(Counter)
    rivals.add_node("a", both)
    rivals.add_node("b", both)
    rivals.add_edge(START, "a")
    rivals.add_edge(START, "b")
    app = from_langgraph(rivals).compile()
    with pytest.raises(errors.InvalidUpdateError) as caught:
        app.invoke({"n": 0})
    assert isinstance(caught.value, graphnb.ConflictingUpdateError)
    assert (caught.value.field, set(caught.value.nodes)) == ("n", {"a", "b"})
    with pytest.raises(graphnb.ConflictingUpdateError):
        list(app.stream({"n": 0}))
    with pytest.raises(errors.GraphRecursionError) as limited:
        from_langgraph(loop()).compile().invoke({"n": 0}, recursion_limit=1)
    assert isinstance(limited.value, graphnb.GraphRecursionError)
    assert limited.value.limit == 1


@dataclass
class Caller:
    user: str


def test_a_context_schema_instance_reaches_the_nodes_runtime():
    def greet(state: Counter, runtime: Runtime[Caller]) -> dict[str, Any]:
        return {"n": len(runtime.context.user)}

    graph = LGStateGraph(Counter, context_schema=Caller)
    graph.add_node("greet", greet)
    graph.add_edge(START, "greet")
    expected = graph.compile().invoke({"n": 0}, context=Caller("ada"))
    assert from_langgraph(graph).compile().invoke({"n": 0}, context=Caller("ada")) == expected
    assert expected["n"] == 3


def test_an_imported_graph_loops_as_long_as_on_langgraph():
    # LangGraph's default recursion limit (10,007 in 1.x), not graphnb's 100: a program
    # whose loop runs 150 super-steps finishes on both.
    def more(state: Counter) -> str:
        return "bump" if state["n"] < 150 else END

    graph = one_node()
    graph.add_conditional_edges("bump", more)
    app = from_langgraph(graph).compile()
    assert app.recursion_limit == 10_007
    assert app.invoke({"n": 0})["n"] == graph.compile().invoke({"n": 0})["n"] == 150
    assert from_langgraph(graph).compile(recursion_limit=5).recursion_limit == 5
    native = StateGraph(dict).add_node("bump", bump).add_edge(START, "bump")
    native = native.add_edge("bump", END).compile()
    assert native.recursion_limit == 100


def test_parallel_nodes_write_in_langgraphs_order_whatever_order_they_were_added_in():
    # LangGraph starts a step's triggered nodes and merges their writes by node name
    def writer(name: str) -> Any:
        def node(state: Counter) -> dict[str, Any]:
            return {"items": [ord(name[0])]}

        return node

    def build() -> LGStateGraph:
        graph = LGStateGraph(Counter)
        for name in ("zeta", "alpha", "mid"):
            graph.add_node(name, writer(name))
            graph.add_edge(START, name)
        return graph

    expected = build().compile().invoke({"n": 0})
    assert expected["items"] == [ord("a"), ord("m"), ord("z")]
    assert from_langgraph(build()).compile().invoke({"n": 0}) == expected


def test_sends_to_several_nodes_merge_in_the_order_they_were_sent():
    def fan(state: Counter) -> list[Send]:
        return [Send("b", {"n": 1}), Send("a", {"n": 2}), Send("b", {"n": 3})]

    def item(state: Counter) -> dict[str, Any]:
        return {"items": [state["n"]]}

    def build() -> LGStateGraph:
        graph = LGStateGraph(Counter)
        graph.add_node("a", item)
        graph.add_node("b", item)
        graph.add_conditional_edges(START, fan, ["a", "b"])
        return graph

    expected = build().compile().invoke({"n": 0})
    assert expected["items"] == [1, 2, 3]
    assert from_langgraph(build()).compile().invoke({"n": 0}) == expected


def test_a_replay_starts_from_a_copy_of_its_checkpoint_as_on_langgraph():
    # LangGraph 1.x writes a copy of the checkpoint a replay starts from (its "fork"), so
    # the history a LangGraph program reads shows where the new branch starts.
    def chain() -> LGStateGraph:
        graph = LGStateGraph(Counter)
        graph.add_node("bump", bump)
        graph.add_node("check", check)
        graph.add_edge(START, "bump")
        graph.add_edge("bump", "check")
        return graph

    def program(app: Any) -> list[Any]:
        config = {"configurable": {"thread_id": "1"}}
        app.invoke({"items": [], "n": 1}, config)
        after_bump = next(s for s in app.get_state_history(config) if s.next == ("check",))
        app.invoke(None, after_bump.config)
        branched = app.get_state(config)
        # A replay of that branch's edit-free copy, still the branch's start, is not copied
        # again: replaying at an edit (LangGraph's fork) that is the last checkpoint.
        app.update_state(after_bump.config, {"n": 7})
        app.invoke(None, app.get_state(config).config)
        history = [(s.values, s.next) for s in app.get_state_history(config)]
        # graphnb writes no checkpoint before a run's __start__ task
        return [branched.values, *[entry for entry in history if entry[1] != ("__start__",)]]

    expected = program(chain().compile(checkpointer=InMemorySaver()))
    got = program(from_langgraph(chain().compile(checkpointer=InMemorySaver())).compile())
    assert got == expected
    # newest first: the edit's run, the edit, the replay, its copy, the first run
    nexts = [("check",), (), ("check",), ("bump",)]
    assert [next for _, next in expected[1:]] == [(), ("check",), (), *nexts]


def test_a_langgraph_store_is_the_imported_graphs_store():
    from langgraph.config import get_store
    from langgraph.store.base import BaseStore
    from langgraph.store.memory import InMemoryStore

    def remember(state: Counter, store: BaseStore) -> dict[str, Any]:
        store.put(("runs",), str(state["n"]), {"n": state["n"]})
        return {"n": state["n"] + 1}

    def count(state: Counter, runtime: Runtime[None]) -> dict[str, Any]:
        assert get_store() is runtime.store
        return {"items": [len(runtime.store.search(("runs",)))]}

    graph = LGStateGraph(Counter)
    graph.add_node("remember", remember)
    graph.add_node("count", count)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "count")
    store = InMemoryStore()
    imported = import_langgraph(graph.compile(store=store))
    assert imported.unmapped == []
    app = imported.compile()
    assert app.store is store
    app.invoke({"n": 0, "items": []})
    assert app.invoke({"n": 5, "items": []}) == {"n": 6, "items": [2]}
    assert sorted(item.key for item in store.search(("runs",))) == ["0", "5"]


def test_update_state_without_as_node_edits_as_the_last_writer_as_on_langgraph():
    # LangGraph infers as_node (the node that wrote last) and runs its edges again: a
    # router after a breakpoint routes on the edited state.
    def route(state: Counter) -> Literal["small", "big"]:
        return "big" if state["n"] > 10 else "small"

    def build() -> Any:
        graph = LGStateGraph(Counter)
        graph.add_node("bump", bump)
        graph.add_node("small", check)
        graph.add_node("big", lambda state: {"items": [100]})
        graph.add_edge(START, "bump")
        graph.add_conditional_edges("bump", route)
        return graph.compile(checkpointer=InMemorySaver(), interrupt_after=["bump"])

    def program(app: Any) -> list[Any]:
        config = {"configurable": {"thread_id": "1"}}
        app.invoke({"n": 1, "items": []}, config)
        before = app.get_state(config).next
        app.update_state(config, {"n": 50})
        after = app.get_state(config).next
        return [before, after, app.invoke(None, config)]

    expected = program(build())
    assert expected == [("small",), ("big",), {"n": 50, "items": [1, 100]}]
    assert program(from_langgraph(build()).compile()) == expected


class Profile(BaseModel):
    name: str
    nickname: str | None = None


def test_a_langgraph_call_gets_a_models_state_as_langgraphs_dict_of_written_fields():
    def nick(state: Profile) -> dict[str, Any]:
        return {"name": state.name.upper()}

    graph = LGStateGraph(Profile)
    graph.add_node("nick", nick)
    graph.add_edge(START, "nick")
    expected = graph.compile().invoke({"name": "ada"})
    app = from_langgraph(graph).compile()
    assert app.invoke({"name": "ada"}, {}) == expected == {"name": "ADA"}
    assert type(expected) is not Profile
    values = list(app.stream({"name": "ada"}, {}, stream_mode="values"))
    assert values == list(graph.compile().stream({"name": "ada"}, stream_mode="values"))
    # graphnb's own calls keep the typed state: the model, every field set
    own = app.invoke({"name": "ada"})
    assert isinstance(own, Profile)
    assert (own.name, own.nickname) == ("ADA", None)


def test_history_through_an_interrupt_lists_the_stop_once_as_on_langgraph():
    def ask(state: Counter) -> dict[str, Any]:
        return {"n": interrupt("n?")}

    def build() -> Any:
        graph = LGStateGraph(Counter)
        graph.add_node("bump", bump)
        graph.add_node("ask", ask)
        graph.add_edge(START, "bump")
        graph.add_edge("bump", "ask")
        return graph.compile(checkpointer=InMemorySaver())

    def program(app: Any) -> list[Any]:
        config = {"configurable": {"thread_id": "1"}}
        app.invoke({"n": 1, "items": []}, config)
        app.invoke(Command(resume=5), config)
        history = [(s.values, s.next) for s in app.get_state_history(config)]
        return [entry for entry in history if entry[1] != ("__start__",)]

    expected = program(build())
    assert [next for _, next in expected] == [(), ("ask",), ("bump",)]
    assert program(from_langgraph(build()).compile()) == expected


def test_async_langgraph_calls_get_langgraphs_dict_of_written_fields_too():
    def nick(state: Profile) -> dict[str, Any]:
        return {"name": state.name.upper()}

    graph = LGStateGraph(Profile)
    graph.add_node("nick", nick)
    graph.add_edge(START, "nick")
    app = from_langgraph(graph).compile()

    async def program(target: Any) -> list[Any]:
        result = await target.ainvoke({"name": "ada"}, {})
        values = [v async for v in target.astream({"name": "ada"}, {}, stream_mode="values")]
        return [result, values]

    expected = asyncio.run(program(graph.compile()))
    assert asyncio.run(program(app)) == expected
    assert expected[0] == {"name": "ADA"}


def test_an_edit_of_a_thread_waiting_in_interrupt_shows_no_pending_interrupt_as_on_langgraph():
    def ask(state: Counter) -> dict[str, Any]:
        return {"n": interrupt("n?")}

    def build() -> Any:
        graph = LGStateGraph(Counter)
        graph.add_node("ask", ask)
        graph.add_edge(START, "ask")
        return graph.compile(checkpointer=InMemorySaver())

    def program(app: Any) -> list[Any]:
        config = {"configurable": {"thread_id": "1"}}
        app.invoke({"n": 1, "items": []}, config)
        app.update_state(config, {"items": [9]})
        edited = app.get_state(config)
        return [edited.next, edited.interrupts, app.invoke(Command(resume=4), config)]

    expected = program(build())
    assert expected[:2] == [("ask",), ()]
    assert program(from_langgraph(build()).compile()) == expected
