"""The nodes of notebook 08: in a module, so that Dask's worker processes can import them.

A function defined in a notebook cell lives in the kernel only; a worker process rebuilds
the graph from each node's ``module:function`` name, so it needs a module it can import.
"""

from __future__ import annotations

import time
from typing import Any

from graphnb import END, START, StateGraph


def fetch(state: dict[str, Any]) -> dict[str, Any]:
    """Stands for a slow call (a model, a web page): waits 50 ms, then returns a text."""
    time.sleep(0.05)
    if state["doc"] % 13 == 0:
        raise ValueError(f"document {state['doc']} could not be fetched")
    return {"text": f"document number {state['doc']} " * (1 + state["doc"] % 4)}


def count_words(state: dict[str, Any]) -> dict[str, Any]:
    """Counts the words of the fetched text."""
    return {"words": len(state["text"].split())}


def build(checkpointer: str | None = None) -> Any:
    """fetch, then count_words."""
    graph = StateGraph(dict, name="documents")
    graph.add_node("fetch", fetch).add_node("count_words", count_words)
    graph.add_edge(START, "fetch").add_edge("fetch", "count_words").add_edge("count_words", END)
    return graph.compile(checkpointer=checkpointer)
