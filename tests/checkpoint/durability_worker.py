"""The graph the durability crash tests kill mid-run (tests/checkpoint/test_durability.py).

python durability_worker.py <saver url> <durability> <ready file>

Runs thread ``t`` (a new run, or under ``exit`` the resume of an earlier stop); node
``n4`` creates the ready file and then waits to be killed.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

from graphnb import END, START, GraphState, StateField, StateGraph, append


class Log(GraphState):
    count: int = 0
    log: Annotated[list[int], StateField(reducer=append)] = []


def step(state: Log) -> dict[str, Any]:
    return {"count": state.count + 1, "log": [state.count + 1]}


def wait_to_be_killed(state: Log) -> dict[str, Any]:
    if os.environ.get("DURABILITY_READY"):
        Path(sys.argv[3]).touch()
        time.sleep(60)
    return step(state)


def graph() -> StateGraph[Log]:
    built = StateGraph(Log)
    names = [f"n{i}" for i in range(8)]
    for name in names:
        built.add_node(name, wait_to_be_killed if name == "n4" else step)
    built.add_edge(START, names[0])
    for source, target in itertools.pairwise(names):
        built.add_edge(source, target)
    return built.add_edge(names[-1], END)


if __name__ == "__main__":
    url, durability = sys.argv[1], sys.argv[2]
    app = graph().compile(checkpointer=url)
    given = None if durability == "exit" else {"count": 0}
    app.invoke(given, thread_id="t", durability=durability)  # type: ignore[arg-type]
