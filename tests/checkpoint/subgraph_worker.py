"""A composed graph run in a child process by the subgraph crash test.

python subgraph_worker.py <sqlite url> <thread> <log file>

Every node writes its name to the log when it starts; the child's node ``b`` kills its
own process the first time it starts (a marker file next to the log says it did).
"""

from __future__ import annotations

import operator
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

from graphnb import END, START, StateGraph


class State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


def node(name: str, log: Path, *, kill: bool = False) -> Any:
    def run(state: State) -> dict[str, Any]:
        with log.open("a") as sink:
            sink.write(name + "\n")
        marker = log.with_suffix(".killed")
        if kill and not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return {"notes": [name]}

    return run


def composed(log: Path) -> StateGraph[State]:
    """begin -> research (a -> b -> c) -> write."""
    child = StateGraph(State, name="research")
    child.add_node("a", node("a", log)).add_node("b", node("b", log, kill=True))
    child.add_node("c", node("c", log)).add_edge(START, "a").add_edge("a", "b")
    child.add_edge("b", "c").add_edge("c", END)
    graph = StateGraph(State, name="outer").add_node("begin", node("begin", log))
    graph.add_node("research", child).add_node("write", node("write", log))
    graph.add_edge(START, "begin").add_edge("begin", "research")
    return graph.add_edge("research", "write").add_edge("write", END)


if __name__ == "__main__":
    url, thread, log = sys.argv[1:4]
    composed(Path(log)).compile(checkpointer=url).invoke({}, thread_id=thread)
