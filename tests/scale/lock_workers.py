"""Workers of the thread-lock test, in a module spawned processes import by its directory.

Each worker runs a two-node counter graph on the same threads as the others, at once.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.checkpoint import CheckpointConflictError, saver_from_url


class Count(GraphState):
    count: int = 0
    log: Annotated[list[int], StateField(reducer=append)] = []


def bump(state: Count) -> dict[str, Any]:
    """Adds one; the pause keeps the run on its thread while the others try it."""
    time.sleep(0.002)
    return {"count": state.count + 1, "log": [state.count + 1]}


def counter() -> StateGraph[Count]:
    """Two steps, each adding one: a run advances its thread by 2."""
    graph = StateGraph(Count).add_node("one", bump).add_node("two", bump)
    return graph.add_edge(START, "one").add_edge("one", "two").add_edge("two", END)


def work(
    url: str, options: dict[str, Any], threads: list[str], rounds: int, start: Any
) -> dict[str, Any]:
    """Run every thread ``rounds`` times; returns successes by thread and the errors."""
    saver = saver_from_url(url, **options)
    app = counter().compile(checkpointer=saver)
    done = dict.fromkeys(threads, 0)
    conflicts, errors = 0, []
    start.wait(120)  # every worker starts together, on the same thread
    try:
        for _ in range(rounds):
            for thread in threads:
                try:
                    app.invoke({}, thread_id=thread)
                except CheckpointConflictError:
                    conflicts += 1
                except Exception as error:  # reported, so the test can show it
                    errors.append(repr(error))
                else:
                    done[thread] += 1
    finally:
        saver.close()
    return {"done": done, "conflicts": conflicts, "errors": errors}


def report(queue: Any, index: int, *args: Any) -> None:
    """:func:`work`, putting ``(index, result)`` (or the error's text) on ``queue``."""
    try:
        queue.put((index, work(*args)))
    except BaseException as error:
        queue.put((index, {"crash": repr(error)}))
        raise
