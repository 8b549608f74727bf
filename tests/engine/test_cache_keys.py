"""Cache keys never hand one input's result to another: exact digests of the input
(NumPy arrays, DataFrames, bytes, mixed keys), the function's identity, checked fields,
expiry, and no reuse of a human's answer across threads."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import numpy as np
import pandas as pd
import pytest
from pydantic import AnyUrl, ConfigDict, SecretStr

from graphnb import (
    END,
    START,
    CacheHit,
    CachePolicy,
    GraphSetupError,
    GraphState,
    GraphValidationError,
    MemoryCache,
    NodeError,
    StateField,
    StateGraph,
)
from graphnb.checkpoint import Command, MemorySaver, interrupt
from graphnb.engine.cachekey import Unkeyable, digest, function_identity


def _counting(calls: list[Any], field: str = "x") -> Any:
    def node(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        return {"out": len(calls)}

    return node


def _one(fn: Any, policy: CachePolicy, state: Any = dict, name: str | None = None) -> Any:
    graph = StateGraph(state, name=name) if name else StateGraph(state)
    graph.add_node("work", fn, cache=policy)
    return graph.add_edge(START, "work").add_edge("work", END)


# -- item 1: values that print alike get different keys ----------------------------------


def test_two_large_arrays_differing_in_one_value_are_two_keys() -> None:
    calls: list[Any] = []
    app = _one(_counting(calls), CachePolicy()).compile()
    first = np.zeros(5_000)
    second = first.copy()
    second[2_500] = 1.0
    assert repr(first) == repr(second), "the shortened reprs are the same"
    app.invoke({"x": first})
    app.invoke({"x": second})
    assert len(calls) == 2, "the second array ran the node"
    app.invoke({"x": second.copy()})
    assert len(calls) == 2, "an equal array is a hit"


def test_two_dataframes_differing_in_one_value_are_two_keys() -> None:
    calls: list[Any] = []
    app = _one(_counting(calls), CachePolicy()).compile()
    first = pd.DataFrame({"a": range(500), "b": [1.5] * 500})
    second = first.copy()
    second.loc[250, "b"] = 2.5
    assert repr(first) == repr(second)
    app.invoke({"x": first})
    app.invoke({"x": second})
    assert len(calls) == 2
    app.invoke({"x": second.copy()})
    assert len(calls) == 2


def test_categoricals_with_the_same_values_in_another_category_order_are_two_keys() -> None:
    # the values (and the dtype's text, "category") are alike; the codes a node reads,
    # and the sort order, are not
    def codes(state: dict[str, Any]) -> dict[str, Any]:
        return {"out": state["x"].cat.codes.tolist()}

    app = _one(codes, CachePolicy()).compile()
    first = pd.Series(pd.Categorical(["a", "b"], categories=["a", "b"]))
    second = pd.Series(pd.Categorical(["a", "b"], categories=["b", "a"]))
    assert app.invoke({"x": first})["out"] == [0, 1]
    assert app.invoke({"x": second})["out"] == [1, 0], "not the first series' result"
    ordered = pd.Series(pd.Categorical(["a", "b"], categories=["a", "b"], ordered=True))
    assert digest(ordered) != digest(first)
    assert digest(pd.DataFrame({"c": first})) != digest(pd.DataFrame({"c": second}))
    assert digest(pd.CategoricalIndex(first)) != digest(pd.CategoricalIndex(second))
    assert digest(first) == digest(first.copy()), "an equal series is a hit"


def test_digests_tell_apart_what_reprs_and_equality_confuse() -> None:
    pairs = [
        (1, 1.0),
        (1, True),
        ("1", 1),
        (np.zeros(3, dtype="int32"), np.zeros(3, dtype="int64")),
        (np.zeros((2, 3)), np.zeros((3, 2))),
        ([1, 2], (1, 2)),
        (pd.Series([1, 2], index=[0, 1]), pd.Series([1, 2], index=[1, 0])),
        (pd.DataFrame({"a": [1]}), pd.DataFrame({"b": [1]})),
        (np.array(["a", None], dtype=object), np.array(["a", "None"], dtype=object)),
        (10**5000, 10**5000 + 1),  # no str(): Python refuses 5,000-digit ints
        (AnyUrl("https://a.example/x"), AnyUrl("https://a.example/y")),
        # flat lists of scalars (an embedding) take a faster path, as exact
        ([1] * 8, [1.0] * 8),
        ([1] * 8, [True] * 8),
        (["1"] * 8, [1] * 8),
        ([float("nan")] * 8, ["NaN"] * 8),
        ([0.0] * 8, [-0.0] * 8),
        (["\ud800"] * 8, ["\\ud800"] * 8),
        ([None] * 8, ["null"] * 8),
        ([1] * 8, (1,) * 8),
        ([2**70] * 8, [2**70 + 1] * 8),
        ([1, 2.0] * 4, [1.0, 2] * 4),
        ([0.1] * 1536, [0.1] * 1535 + [0.1000000001]),
    ]
    for left, right in pairs:
        assert digest(left) != digest(right), (left, right)
    assert digest({"b": 1, "a": 2}) != digest({"a": 2, "b": 1}), "a node may iterate a dict"
    assert digest({"a": 2, "b": 1}) == digest({"a": 2, "b": 1})

    class Shouting(str):
        def __str__(self) -> str:
            return "SAME"

    assert digest(Shouting("a")) != digest(Shouting("b"))
    assert digest(Shouting("a")) != digest("a")
    assert digest({1, 2, 3}) == digest({3, 2, 1})


def test_an_object_with_no_exact_encoding_is_refused_naming_cache_node_and_field() -> None:
    class Client:
        def __repr__(self) -> str:
            return "Client()"

    app = _one(_counting([]), CachePolicy()).compile()
    with pytest.raises(NodeError) as caught:
        app.invoke({"x": 1, "client": {"inner": [Client()]}})
    cause = caught.value.__cause__
    assert isinstance(cause, GraphSetupError)
    assert "the cache of node `work` cannot key the field \"client['inner'][0]\"" in str(cause)
    assert "test_cache_keys.test_an_object" in str(cause)
    assert "CachePolicy(fields=[...])" in str(cause)
    # leaving it out keys the rest
    calls: list[Any] = []
    app = _one(_counting(calls), CachePolicy(fields=("x",))).compile()
    app.invoke({"x": 1, "client": Client()})
    app.invoke({"x": 1, "client": Client()})
    assert len(calls) == 1
    with pytest.raises(Unkeyable):
        digest(object())
    with pytest.raises(Unkeyable):  # its text is stars: every secret would share a key
        digest(SecretStr("hunter2"))


# -- item 2: a key names the function it caches ------------------------------------------


def _price_graph(currency: str, cache: MemoryCache | None = None, saver: Any = None) -> Any:
    rate = {"USD": 1.0, "EUR": 0.9}[currency]

    def price(state: dict[str, Any]) -> dict[str, Any]:
        return {"price": state["amount"] * rate, "currency": currency}

    graph = StateGraph(dict).add_node("price", price, cache=CachePolicy())
    graph.add_edge(START, "price").add_edge("price", END)
    return graph.compile(cache=cache, checkpointer=saver)


def test_two_unnamed_graphs_sharing_a_memory_cache_keep_their_own_results() -> None:
    shared = MemoryCache()
    eur = _price_graph("EUR", shared).invoke({"amount": 10})
    usd = _price_graph("USD", shared).invoke({"amount": 10})
    assert (eur["currency"], usd["currency"]) == ("EUR", "USD")
    assert usd["price"] == 10.0
    assert len(shared) == 2
    again = _price_graph("EUR", shared)
    events = list(again.stream({"amount": 10}))
    assert [e.node for e in events if isinstance(e, CacheHit)] == ["price"], "same code and rate"


def test_two_different_functions_under_one_node_name_are_two_keys() -> None:
    shared = MemoryCache()

    def graph_of(fn: Any) -> Any:
        graph = StateGraph(dict).add_node("price", fn, cache=CachePolicy())
        return graph.add_edge(START, "price").add_edge("price", END).compile(cache=shared)

    first = graph_of(lambda state: {"price": state["amount"] * 2})
    second = graph_of(lambda state: {"price": state["amount"] * 3})
    assert first.invoke({"amount": 1})["price"] == 2
    assert second.invoke({"amount": 1})["price"] == 3


def test_a_function_s_identity_is_stable_and_tells_apart_what_it_computes() -> None:
    def double(state: Any, factor: int = 2) -> Any:
        return state * factor

    assert function_identity(double) == function_identity(double)
    assert function_identity(double).startswith(f"{__name__}:")
    assert function_identity(functools.partial(double, factor=3)) != function_identity(
        functools.partial(double, factor=4)
    )

    class Pricer:
        def __init__(self, currency: str) -> None:
            self.currency = currency

        def __call__(self, state: Any) -> Any:
            return self.currency

    assert function_identity(Pricer("USD")) != function_identity(Pricer("EUR"))
    assert function_identity(Pricer("USD")) == function_identity(Pricer("USD"))

    class Slotted:
        __slots__ = ("currency",)

        def __init__(self, currency: str) -> None:
            self.currency = currency

        def __call__(self, state: Any) -> Any:
            return self.currency

    assert function_identity(Slotted("USD")) != function_identity(Slotted("EUR"))
    assert function_identity(Slotted("USD").__call__) != function_identity(Slotted("EUR").__call__)


# -- item 3: the fields keyed are checked; aliases key their field -----------------------


class Trip(GraphState):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    city: Annotated[str, StateField(alias="town")] = ""
    days: int = 1
    out: int = 0


def test_an_unknown_cache_field_is_refused_at_compile_naming_field_and_node() -> None:
    graph = _one(lambda s: {"out": 1}, CachePolicy(fields=("cty",)), Trip, name="trips")
    with pytest.raises(GraphValidationError) as caught:
        graph.compile()
    assert "the cache of `work` is keyed by the field 'cty', which Trip does not have" in str(
        caught.value
    )


def test_a_field_named_by_its_alias_keys_that_field() -> None:
    calls: list[Any] = []

    def work(state: Trip) -> dict[str, Any]:
        calls.append(state.city)
        return {"out": len(calls)}

    app = _one(work, CachePolicy(fields=("town",)), Trip).compile()
    app.invoke({"city": "Oslo"})
    app.invoke({"city": "Rome"})
    assert calls == ["Oslo", "Rome"], "each town is its own key"
    app.invoke({"city": "Rome", "days": 3})
    assert calls == ["Oslo", "Rome"], "days is not part of the key"


# -- item 4: values JSON cannot hold still key -------------------------------------------


class Blob(GraphState):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    data: bytes = b""
    grid: Any = None
    table: dict[Any, int] = {}
    out: int = 0


def test_non_utf8_bytes_arrays_and_mixed_keys_are_keyed() -> None:
    calls: list[Any] = []

    def work(state: Blob) -> dict[str, Any]:
        calls.append(1)
        return {"out": len(calls)}

    app = _one(work, CachePolicy(), Blob).compile()
    given = {"data": b"\xff\xfe", "grid": np.arange(4), "table": {1: 1, "1": 2}}
    assert app.invoke(given).out == 1
    assert app.invoke(given).out == 1, "the same input is a hit"
    assert app.invoke({**given, "data": b"\xff\xfd"}).out == 2
    assert app.invoke({**given, "table": {1: 2, "1": 1}}).out == 3


# -- item 5: expired results go; an answered call is not reused --------------------------


def test_expired_results_are_removed_from_the_memory_cache() -> None:
    now = [0.0]
    cache = MemoryCache(clock=lambda: now[0])
    for number in range(100):
        cache.put(f"k{number}", number, ttl=10)
    cache.put("forever", 1, ttl=None)
    assert len(cache) == 101
    now[0] = 11
    cache.put("new", 2, ttl=10)
    assert len(cache) == 2, "the expired results went when the next one was kept"
    now[0] = 30
    assert cache.get("forever") == (True, 1)
    assert len(cache) == 1


def test_a_cached_node_that_asked_a_human_does_not_hand_the_answer_to_another_thread() -> None:
    asked: list[str] = []

    def ask(state: dict[str, Any]) -> dict[str, Any]:
        asked.append(state["question"])
        return {"answer": interrupt(state["question"])}

    graph = StateGraph(dict).add_node("ask", ask, cache=CachePolicy())
    app = graph.add_edge(START, "ask").add_edge("ask", END).compile(checkpointer=MemorySaver())
    app.invoke({"question": "name?"}, thread_id="alice")
    assert app.invoke(Command(resume="Alice"), thread_id="alice")["answer"] == "Alice"
    app.invoke({"question": "name?"}, thread_id="bob")
    assert app.get_state("bob").interrupts, "bob is asked too, not given alice's answer"
    assert app.invoke(Command(resume="Bob"), thread_id="bob")["answer"] == "Bob"


def test_keep_answered_reuses_an_answered_result_when_asked() -> None:
    def ask(state: dict[str, Any]) -> dict[str, Any]:
        return {"answer": interrupt(state["question"])}

    policy = CachePolicy(keep_answered=True)
    graph = StateGraph(dict).add_node("ask", ask, cache=policy)
    app = graph.add_edge(START, "ask").add_edge("ask", END).compile(checkpointer=MemorySaver())
    app.invoke({"question": "name?"}, thread_id="alice")
    app.invoke(Command(resume="Alice"), thread_id="alice")
    assert app.invoke({"question": "name?"}, thread_id="bob")["answer"] == "Alice"
    assert graph.spec.nodes[0].cache.model_dump(exclude_defaults=True) == {"keep_answered": True}
    assert CachePolicy.from_spec(graph.spec.nodes[0].cache) == policy


def test_a_node_reading_the_run_context_is_keyed_by_its_data() -> None:
    def price(state: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"currency": context.data["currency"]}

    app = _one(price, CachePolicy()).compile()
    assert app.invoke({"amount": 1}, context={"currency": "EUR"})["currency"] == "EUR"
    assert app.invoke({"amount": 1}, context={"currency": "USD"})["currency"] == "USD"
    client = object()  # no exact encoding: counts by its type
    events = list(app.stream({"amount": 1}, context={"currency": "USD", "client": client}))
    assert not [e for e in events if isinstance(e, CacheHit)], "another context is another key"
    events = list(app.stream({"amount": 1}, context={"currency": "USD", "client": object()}))
    assert [e.node for e in events if isinstance(e, CacheHit)] == ["work"]


class Euros(GraphState):
    amount: int = 0
    price: str = ""


class Dollars(GraphState):
    amount: int = 0
    price: str = ""


def test_two_state_types_with_the_same_values_are_two_keys() -> None:
    shared = MemoryCache()

    def price(state: Any) -> dict[str, Any]:
        return {"price": type(state).__name__}

    euros = _one(price, CachePolicy(), Euros).compile(cache=shared)
    dollars = _one(price, CachePolicy(), Dollars).compile(cache=shared)
    assert euros.invoke({"amount": 1}).price == "Euros"
    assert dollars.invoke({"amount": 1}).price == "Dollars"


def test_a_missing_key_and_a_none_value_are_two_keys() -> None:
    def seen(state: dict[str, Any]) -> dict[str, Any]:
        return {"out": "x" in state}

    app = _one(seen, CachePolicy(fields=("x",))).compile()
    assert app.invoke({"y": 1})["out"] is False
    assert app.invoke({"x": None})["out"] is True
