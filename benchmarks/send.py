"""Map-reduce with Send against plain fan-out: the same work, 1,000 items each way.

    python benchmarks/send.py            # best of 5
    python benchmarks/send.py --quick    # best of 2
    python benchmarks/send.py --items 200

Both graphs append one string per item to an ``operator.add`` list in one super-step:

- **send**: START → ``split``, whose router returns ``Send("work", {"item": i})`` for each
  item; ``work`` runs once per item on its own payload.
- **fanout**: START → ``split`` → N distinct nodes ``work_0`` ... ``work_{N-1}``, each
  appending its own item (plain edges, as scenario 4 of engine.py).

The target (issue 14): the Send run takes under 10x the plain fan-out's time. Sync, no
checkpointer, garbage collector off while timing; each run's result is checked.
"""

from __future__ import annotations

import argparse
import gc
import operator
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from _compare import machine, machine_line

from graphnb import END, START, Send, StateGraph


class Items(TypedDict, total=False):
    count: int
    item: str
    done: Annotated[list[str], operator.add]


def split(state: Items) -> None:
    return None


def work(state: Items) -> dict[str, Any]:
    return {"done": [state["item"]]}


def send_graph(count: int) -> Any:
    def fan(state: Items) -> list[Send]:
        return [Send("work", {"item": f"i{n}"}) for n in range(state["count"])]

    graph = StateGraph(Items).add_node("split", split).add_node("work", work)
    graph.add_edge(START, "split").add_conditional_edges("split", fan, sends=["work"])
    return graph.add_edge("work", END).compile()


def fanout_graph(count: int) -> Any:
    graph = StateGraph(Items).add_node("split", split).add_edge(START, "split")
    for n in range(count):

        def one(state: Items, item: str = f"i{n}") -> dict[str, Any]:
            return {"done": [item]}

        graph.add_node(f"work_{n}", one).add_edge("split", f"work_{n}")
        graph.add_edge(f"work_{n}", END)
    return graph.compile()


def best(call: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.disable()
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
        gc.enable()
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="best of 2 instead of 5")
    parser.add_argument("--items", type=int, default=1_000, help="items (default 1,000)")
    options = parser.parse_args(argv)
    runs = 2 if options.quick else 5
    count = options.items
    sends, plain = send_graph(count), fanout_graph(count)
    expected = [f"i{n}" for n in range(count)]
    for app in (sends, plain):
        result = app.invoke({"count": count})
        if result["done"] != expected:
            sys.exit(f"wrong result from {app.name}: {result['done'][:5]}...")
    send_time = best(lambda: sends.invoke({"count": count}), runs)
    plain_time = best(lambda: plain.invoke({"count": count}), runs)
    ratio = send_time / plain_time
    print(machine_line(machine("graphnb")))
    print(f"{count:,} Send items:          {send_time * 1e3:8.1f} ms")
    print(f"{count:,} fan-out branches:    {plain_time * 1e3:8.1f} ms")
    print(f"send / fan-out: {ratio:.2f}x (target < 10x) {'met' if ratio < 10 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
