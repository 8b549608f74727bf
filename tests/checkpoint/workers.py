"""Graphs run in child processes by the concurrency and crash tests.

python workers.py write <saver url> <table prefix> <worker> <threads>
python workers.py tick <sqlite url> <thread>     # runs until killed or done
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any, Literal

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.checkpoint import saver_from_url

TICKS = 40


class Log(GraphState):
    count: int = 0
    log: Annotated[list[int], StateField(reducer=append)] = []
    worker: str = ""


def chain_graph() -> StateGraph[Log]:
    graph = StateGraph(Log)
    for name in ("a", "b", "c"):
        graph.add_node(name, lambda s: {"count": s.count + 1, "log": [s.count + 1]})
    return graph.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", END)


def tick(state: Log) -> dict[str, Any]:
    time.sleep(0.02)  # long enough that a kill usually lands inside a node
    return {"count": state.count + 1, "log": [state.count + 1]}


def again(state: Log) -> Literal["tick", "__end__"]:
    return "tick" if state.count < TICKS else END


def tick_graph() -> StateGraph[Log]:
    graph = StateGraph(Log).add_node("tick", tick).add_edge(START, "tick")
    return graph.add_conditional_edges("tick", again, ["tick", END])


def main(argv: list[str]) -> None:
    if argv[0] == "write":
        url, prefix, worker, count = argv[1], argv[2], argv[3], int(argv[4])
        options = {"table_prefix": prefix} if not url.startswith("sqlite") else {}
        app = chain_graph().compile(checkpointer=saver_from_url(url, **options))
        for index in range(count):
            app.invoke({"worker": worker}, thread_id=f"w{worker}-{index}")
    elif argv[0] == "tick":
        app = tick_graph().compile(checkpointer=argv[1], recursion_limit=1000)
        app.invoke({}, thread_id=argv[2])
    else:
        raise SystemExit(f"unknown command {argv[0]!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
