"""Node results kept in the saver's database (``CachePolicy(store="saver")``), on every
saver: a hit across compiled graphs and processes, expiry by time-to-live, a new version
string recomputes, hits are events, and a graph without a checkpointer is refused."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

import graphnb.engine.policy as policy_module
from graphnb import (
    END,
    START,
    CacheHit,
    CachePolicy,
    GraphSetupError,
    GraphState,
    NodeError,
    StateGraph,
)
from graphnb.checkpoint import BaseSaver, MemorySaver, MySQLSaver, PostgresSaver, SqliteSaver

from .conftest import MYSQL_URL, POSTGRES_URL, SAVERS, drop_tables, make_saver


def _tid() -> str:
    return uuid.uuid4().hex


class Ask(GraphState):
    question: str = ""
    answer: str = ""
    asked: int = 0


def _graph(calls: list[str], *, version: str = "v1", ttl: float | None = None) -> Any:
    def answer(state: Ask) -> dict[str, Any]:
        calls.append(state.question)
        return {"answer": f"{state.question}!"}

    graph = StateGraph(Ask, name="cached").add_node(
        "answer", answer, cache=CachePolicy(ttl=ttl, version=version, store="saver")
    )
    return graph.add_edge(START, "answer").add_edge("answer", END)


def test_a_result_is_a_hit_for_another_compiled_graph_on_the_same_saver(saver: BaseSaver):
    calls: list[str] = []
    first = _graph(calls).compile(checkpointer=saver)
    assert first.invoke({"question": "why"}, thread_id=_tid()).answer == "why!"
    second = _graph(calls).compile(checkpointer=saver)
    events = list(second.stream({"question": "why"}, mode="events", thread_id=_tid()))
    hits = [e for e in events if isinstance(e, CacheHit)]
    assert calls == ["why"], "the second graph answered from the saver's cache"
    assert [h.node for h in hits] == ["answer"]
    assert events[-1].state.answer == "why!"
    second.invoke({"question": "how"}, thread_id=_tid())
    assert calls == ["why", "how"], "another input is another key"


def test_results_expire_after_their_time_to_live(
    saver: BaseSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_000.0]
    monkeypatch.setattr(policy_module, "_now", lambda: now[0])
    calls: list[str] = []
    app = _graph(calls, ttl=60).compile(checkpointer=saver)
    app.invoke({"question": "q"}, thread_id=_tid())
    now[0] += 59
    app.invoke({"question": "q"}, thread_id=_tid())
    assert calls == ["q"], "fresh within its time to live"
    now[0] += 2
    app.invoke({"question": "q"}, thread_id=_tid())
    assert calls == ["q", "q"], "expired: the node ran again"
    app.invoke({"question": "q"}, thread_id=_tid())
    assert calls == ["q", "q"], "and its new result is kept"


def test_a_new_version_string_recomputes_and_the_old_one_still_hits(saver: BaseSaver):
    calls: list[str] = []
    _graph(calls, version="v1").compile(checkpointer=saver).invoke(
        {"question": "q"}, thread_id=_tid()
    )
    _graph(calls, version="v2").compile(checkpointer=saver).invoke(
        {"question": "q"}, thread_id=_tid()
    )
    assert calls == ["q", "q"]
    _graph(calls, version="v1").compile(checkpointer=saver).invoke(
        {"question": "q"}, thread_id=_tid()
    )
    assert calls == ["q", "q"]


def test_a_state_instance_result_comes_back_as_the_node_s_state(saver: BaseSaver):
    calls: list[int] = []

    def bump(state: Ask) -> Ask:
        calls.append(1)
        state.asked += 1
        return state

    graph = StateGraph(Ask, name="bumps").add_node(
        "bump", bump, cache=CachePolicy(fields=("question",), store="saver")
    )
    graph.add_edge(START, "bump").add_edge("bump", END)
    assert graph.compile(checkpointer=saver).invoke({"question": "q"}, thread_id=_tid()).asked == 1
    again = graph.compile(checkpointer=saver).invoke({"question": "q"}, thread_id=_tid())
    assert calls == [1]
    assert again.asked == 1


def test_a_child_graph_keeps_its_results_in_the_parent_s_saver():
    calls: list[str] = []
    saver = MemorySaver()
    parent = StateGraph(Ask, name="parent").add_node("child", _graph(calls))
    parent.add_edge(START, "child").add_edge("child", END)
    parent.compile(checkpointer=saver).invoke({"question": "q"}, thread_id=_tid())
    parent.compile(checkpointer=saver).invoke({"question": "q"}, thread_id=_tid())
    assert calls == ["q"]
    assert len(saver._cache) == 1


def test_a_run_without_a_checkpointer_fails_at_the_node_saying_why():
    app = _graph([]).compile()  # compiles: it can be drawn, exported, compiled again
    with pytest.raises(NodeError) as caught:
        app.invoke({"question": "q"})
    assert caught.value.node == "answer"
    cause = caught.value.__cause__
    assert isinstance(cause, GraphSetupError)
    assert str(cause) == (
        "`answer` of 'cached' keep their cache in the saver (CachePolicy(store='saver')), but "
        "the graph runs without a checkpointer; compile it with checkpointer=..., or use "
        "store='memory'"
    )


_EXPORTED = """
from graphnb import END, START, CachePolicy, StateGraph

CALLS = []


def answer(state: dict) -> dict:
    CALLS.append(state["question"])
    return {"answer": state["question"] + "!"}


def build_graph() -> StateGraph[dict]:
    graph = StateGraph(dict, name="cached")
    graph.add_node("answer", answer, cache=CachePolicy(store="saver"))
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    return graph


graph = build_graph().compile()
"""


def test_a_graph_compiled_again_around_a_saver_keeps_results_there(tmp_path: Path):
    # What an exported module does: compile without a checkpointer at import; its CLI's
    # --db then compiles the graph again around a saver (graphnb.console.compile_for).
    from graphnb.console import compile_for
    from graphnb.export import load_module

    module = tmp_path / "exported.py"
    module.write_text(_EXPORTED, encoding="utf-8")
    saver = SqliteSaver(tmp_path / "runs.db")
    try:
        first = load_module(module)
        compile_for(first.graph, saver).invoke({"question": "why"}, thread_id=_tid())
        second = load_module(module)
        again = compile_for(second.graph, saver)
        events = list(again.stream({"question": "why"}, mode="events", thread_id=_tid()))
        assert [e.node for e in events if isinstance(e, CacheHit)] == ["answer"]
        assert first.CALLS == ["why"]
        assert second.CALLS == []
    finally:
        saver.close()


def test_the_spec_records_where_the_cache_lives_and_round_trips():
    graph = _graph([])
    node = graph.spec.node("answer")
    assert node.cache is not None
    assert node.cache.store == "saver"
    assert '"store": "saver"' in graph.spec.to_json()
    rebuilt = StateGraph.from_spec(graph.spec, namespace={"Ask": Ask}, state=Ask)
    assert rebuilt.spec.node("answer").cache == node.cache
    memory = StateGraph(Ask).add_node("a", lambda s: {}, cache=CachePolicy())
    assert "store" not in memory.spec.to_json(), "the default is left out of the JSON"


_OTHER_PROCESS = """
import uuid
from graphnb import END, START, CachePolicy, GraphState, StateGraph
from graphnb.checkpoint import {saver_class}

class Ask(GraphState):
    question: str = ""
    answer: str = ""
    asked: int = 0

calls = []

def answer(state):
    calls.append(1)
    return {{"answer": state.question + "!"}}

graph = StateGraph(Ask, name="cached").add_node(
    "answer", answer, cache=CachePolicy(version="v1", store="saver")
)
graph.add_edge(START, "answer").add_edge("answer", END)
saver = {saver_class}({target!r}{options})
final = graph.compile(checkpointer=saver).invoke({{"question": "why"}}, thread_id=uuid.uuid4().hex)
print(final.answer, len(calls))
"""


@pytest.mark.parametrize("kind", [p for p in SAVERS if p.values[0] != "memory"])
def test_a_result_stored_by_one_process_is_a_hit_in_another(kind: str, tmp_path: Path):
    saver = make_saver(kind, tmp_path)
    try:
        if isinstance(saver, SqliteSaver):
            cls, target, options = "SqliteSaver", str(tmp_path / "threads.db"), ""
        elif isinstance(saver, PostgresSaver):
            cls, target = "PostgresSaver", POSTGRES_URL
            options = f", table_prefix={saver.table_prefix!r}"
        else:
            assert isinstance(saver, MySQLSaver)
            cls, target = "MySQLSaver", MYSQL_URL
            options = f", table_prefix={saver.table_prefix!r}"
        script = textwrap.dedent(_OTHER_PROCESS).format(
            saver_class=cls, target=target, options=options
        )

        def other() -> str:
            done = subprocess.run(
                [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, done.stderr
            return done.stdout.strip()

        assert other() == "why! 1", "the first process ran the node"
        assert other() == "why! 0", "the second found its result in the database"
        calls: list[str] = []
        _graph(calls).compile(checkpointer=saver).invoke({"question": "why"}, thread_id=_tid())
        assert calls == ["why"], "another function under the same names is another key"
    finally:
        drop_tables(saver)


def test_an_async_node_reads_and_writes_the_saver_cache_off_the_event_loop(saver: BaseSaver):
    import asyncio
    import threading

    calls: list[str] = []
    loop_threads: set[int] = set()
    rows = saver.cache_get  # type: ignore[attr-defined]

    def watched(key: str) -> Any:
        loop_threads.add(threading.get_ident())
        return rows(key)

    saver.cache_get = watched  # type: ignore[attr-defined]

    async def answer(state: Ask) -> dict[str, Any]:
        calls.append(state.question)
        return {"answer": "async!"}

    graph = StateGraph(Ask, name="async").add_node(
        "answer", answer, cache=CachePolicy(store="saver")
    )
    graph.add_edge(START, "answer").add_edge("answer", END)

    async def main() -> tuple[str, int]:
        app = graph.compile(checkpointer=saver)
        await app.ainvoke({"question": "q"}, thread_id=_tid())
        final = await app.ainvoke({"question": "q"}, thread_id=_tid())
        return final.answer, threading.get_ident()

    answer_text, loop_thread = asyncio.run(main())
    assert answer_text == "async!"
    assert calls == ["q"]
    assert loop_threads
    assert loop_thread not in loop_threads, "the database was read on the event loop"


def _price(currency: str) -> Any:
    rate = {"USD": 1.0, "EUR": 0.9}[currency]

    def price(state: dict[str, Any]) -> dict[str, Any]:
        return {"price": state["amount"] * rate, "currency": currency}

    graph = StateGraph(dict).add_node("price", price, cache=CachePolicy(store="saver"))
    return graph.add_edge(START, "price").add_edge("price", END)


def test_two_unnamed_graphs_on_one_saver_keep_their_own_results(saver: BaseSaver):
    eur = _price("EUR").compile(checkpointer=saver).invoke({"amount": 10}, thread_id=_tid())
    usd = _price("USD").compile(checkpointer=saver).invoke({"amount": 10}, thread_id=_tid())
    assert (eur["currency"], usd["currency"], usd["price"]) == ("EUR", "USD", 10.0)
    again = _price("USD").compile(checkpointer=saver)
    events = list(again.stream({"amount": 10}, mode="events", thread_id=_tid()))
    assert [e.node for e in events if isinstance(e, CacheHit)] == ["price"]


def _rows(saver: BaseSaver) -> int:
    if isinstance(saver, MemorySaver):
        return len(saver._cache)
    assert isinstance(saver, SqliteSaver | PostgresSaver | MySQLSaver)
    conn = saver._connect()
    try:
        cursor = conn.cursor()
        cursor.execute(f"SELECT COUNT(*) FROM {saver.cache_table}")
        (count,) = cursor.fetchone()
        cursor.close()
        return int(count)
    finally:
        conn.close()


def test_expired_rows_are_removed_from_the_saver(
    saver: BaseSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_000.0]
    monkeypatch.setattr(policy_module, "_now", lambda: now[0])
    app = _graph([], ttl=10).compile(checkpointer=saver)
    for question in ("a", "b", "c"):
        app.invoke({"question": question}, thread_id=_tid())
    assert _rows(saver) == 3
    now[0] += policy_module.SWEEP_INTERVAL + 1
    app.invoke({"question": "d"}, thread_id=_tid())
    assert _rows(saver) == 1, "the three expired rows went when the next result was stored"
    assert saver.cache_expire(now[0] + 11) == 1


def test_a_child_compiled_with_its_own_saver_keeps_results_in_the_saver_it_runs_under(
    tmp_path: Path,
) -> None:
    calls: list[str] = []
    own = SqliteSaver(tmp_path / "own.db")
    child = _graph(calls).compile(checkpointer=own)
    own.close()  # the child's own saver is gone: it is not where results go
    parent = StateGraph(Ask, name="parent").add_node("child", child)
    parent.add_edge(START, "child").add_edge("child", END)
    used = MemorySaver()
    app = parent.compile(checkpointer=used)
    assert app.invoke({"question": "q"}, thread_id=_tid()).answer == "q!"
    assert app.invoke({"question": "q"}, thread_id=_tid()).answer == "q!"
    assert calls == ["q"]
    assert len(used._cache) == 1
