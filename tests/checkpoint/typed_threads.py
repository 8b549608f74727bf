"""Checked by mypy --strict (test_typing.py): thread APIs keep the state's type."""

from __future__ import annotations

from typing import assert_type

from graphnb import END, START, GraphState, StateGraph
from graphnb.checkpoint import (
    Command,
    Interrupt,
    MemorySaver,
    SqliteSaver,
    StateSnapshot,
    interrupt,
)


class Order(GraphState):
    item: str = ""
    approved: bool = False


def review(state: Order) -> dict[str, bool]:
    answer = interrupt({"item": state.item})
    return {"approved": answer == "yes"}


graph = StateGraph(Order).add_node("review", review)
app = (
    graph.add_edge(START, "review")
    .add_edge("review", END)
    .compile(checkpointer=MemorySaver(), interrupt_before=["review"])
)
assert_type(app.invoke({"item": "book"}, thread_id="t"), Order)
assert_type(app.invoke(None, thread_id="t"), Order)
assert_type(app.invoke(Command(resume="yes"), thread_id="t"), Order)
snapshot = app.get_state("t")
assert_type(snapshot, StateSnapshot[Order])
assert_type(snapshot.values, Order)
assert_type(snapshot.interrupts, tuple[Interrupt, ...])
assert_type(app.get_state_history("t"), list[StateSnapshot[Order]])
assert_type(app.update_state("t", {"item": "pen"}, as_node="review"), str)
assert_type(app.seed_thread("u", Order(item="cup")), str)
assert_type(app.list_threads(), list[str])

with SqliteSaver(":memory:") as saver:  # the context manager keeps the saver's own type
    assert_type(saver, SqliteSaver)
