"""Nodes of the batch tests, in a module workers can import (by its directory on PYTHONPATH)."""

from __future__ import annotations

import os
import threading
import time
import uuid
from typing import Any

from graphnb import END, START, StateGraph


def double(state: dict[str, Any]) -> dict[str, Any]:
    """Doubles ``x``; refuses a negative one, so a batch has inputs that fail."""
    if state["x"] < 0:
        raise ValueError(f"negative input {state['x']}")
    return {"x": state["x"] * 2, "path": [*state.get("path", []), "double"]}


def slow_add(state: dict[str, Any]) -> dict[str, Any]:
    """Adds one, after a pause long enough to kill a worker in the middle of a batch."""
    time.sleep(state.get("pause", 0.0))
    if os.environ.get("GRAPHNB_TEST_CRASH"):
        raise SystemExit("crashed")  # as a worker dying after the first step's checkpoint
    return {"x": state["x"] + 1, "path": [*state.get("path", []), "add"], "pid": os.getpid()}


def build(checkpointer: str | None = None) -> Any:
    """The test graph: double, then add one (slowly when asked)."""
    graph = StateGraph(dict).add_node("double", double).add_node("add", slow_add)
    graph.add_edge(START, "double").add_edge("double", "add").add_edge("add", END)
    return graph.compile(checkpointer=checkpointer)


def draw(state: dict[str, Any]) -> dict[str, Any]:
    """A new value at every run, as a sampling model gives: equal inputs, different results."""
    return {"draw": uuid.uuid4().hex}


def keep_lock(state: dict[str, Any]) -> dict[str, Any]:
    """Puts a lock, which does not pickle, in the state of a negative ``x``."""
    return {"lock": threading.Lock()} if state["x"] < 0 else {"x": state["x"] + 1}


def build_one(node: str) -> Any:
    """A graph of one of this module's nodes, by its name."""
    graph = StateGraph(dict).add_node(node, globals()[node])
    return graph.add_edge(START, node).add_edge(node, END).compile()


def build_with_policies(checkpointer: str | Any = None) -> Any:
    """The test graph with a retry, a timeout and a cache on its nodes."""
    from graphnb import CachePolicy, RetryPolicy

    graph = StateGraph(dict).add_node(
        "double", double, retry=RetryPolicy(max_attempts=2, initial_interval=0.01), timeout=30.0
    )
    graph.add_node("add", slow_add, cache=CachePolicy(fields=("x",)))
    graph.add_edge(START, "double").add_edge("double", "add").add_edge("add", END)
    return graph.compile(checkpointer=checkpointer)


def build_nested(checkpointer: str | Any = None) -> Any:
    """The test graph run as a subgraph node between two nodes of an outer graph."""
    inner = StateGraph(dict, name="inner").add_node("double", double).add_node("add", slow_add)
    inner.add_edge(START, "double").add_edge("double", "add").add_edge("add", END)
    outer = StateGraph(dict, name="outer").add_node("inner", inner)
    outer.add_node("last", slow_add, timeout=30.0)
    outer.add_edge(START, "inner").add_edge("inner", "last").add_edge("last", END)
    return outer.compile(checkpointer=checkpointer)
