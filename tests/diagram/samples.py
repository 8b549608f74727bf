"""Sample graphs and machines drawn by the diagram tests (and the PNG artifacts)."""

from __future__ import annotations

from typing import Literal

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec, StateGraph


def noop(state: dict[str, object]) -> dict[str, object]:
    return {}


def pick(state: dict[str, object]) -> Literal["search", "answer"]:
    return "answer"


def again(state: dict[str, object]) -> str:
    return "done"


def cyclic_graph() -> GraphSpec:
    """A plan/act/check loop: check routes back to plan or ends."""
    graph = StateGraph(dict, name="cyclic")
    for name in ("plan", "act", "check"):
        graph.add_node(name, noop)
    graph.add_edge(START, "plan").add_edge("plan", "act").add_edge("act", "check")
    graph.add_conditional_edges("check", again, {"retry": "plan", "done": END})
    return graph.spec


def fan_out_join() -> GraphSpec:
    """One node fans out to three workers; a join waits for all of them."""
    graph = StateGraph(dict, name="fan_out_join")
    for name in ("split", "fetch_weather", "fetch_flights", "fetch_hotels", "merge", "report"):
        graph.add_node(name, noop)
    graph.add_edge(START, "split")
    for worker in ("fetch_weather", "fetch_flights", "fetch_hotels"):
        graph.add_edge("split", worker)
    graph.add_edge(["fetch_weather", "fetch_flights", "fetch_hotels"], "merge")
    graph.add_edge("merge", "report").add_edge("report", END)
    return graph.spec


def router_graph() -> GraphSpec:
    """A conditional router with route labels and a long node label."""
    graph = StateGraph(dict, name="router")
    graph.add_node("classify", noop, label="classify the user's question by topic and intent")
    graph.add_node("search", noop).add_node("answer", noop)
    graph.add_edge(START, "classify")
    graph.add_conditional_edges(
        "classify", pick, {"needs_lookup": "search", "answer": "answer", "give_up": END}
    )
    graph.add_edge("search", "answer").add_edge("answer", END)
    return graph.spec


REACT_TRANSITIONS = [
    ("IDLE", "THINKING", "RECEIVE_PROMPT", None),
    ("THINKING", "TOOL_CALLING", "NEED_TOOL", None),
    ("THINKING", "RESPONDING", "DIRECT_ANSWER", None),
    ("TOOL_CALLING", "OBSERVING", "TOOL_RESULT", None),
    ("OBSERVING", "THINKING", "THINK_COMPLETE", None),
    ("RESPONDING", "COMPLETED", "GENERATE_COMPLETE", None),
    ("THINKING", "FAILED", "ERROR", None),
    ("TOOL_CALLING", "FAILED", "TIMEOUT", None),
    ("OBSERVING", "FAILED", "ERROR", None),
    ("RESPONDING", "FAILED", "ERROR", None),
    ("FAILED", "IDLE", "RESET", None),
    ("FAILED", "THINKING", "RETRY", "retries < 3"),
    ("FAILED", "TOOL_CALLING", "RETRY", "tool failed"),
    ("THINKING", "THINKING", "TOKEN", None),
]


def react_machine() -> GraphSpec:
    """The seed's ReAct agent machine, in the state-machine spec convention."""
    states = ["IDLE", "THINKING", "TOOL_CALLING", "OBSERVING", "RESPONDING", "COMPLETED", "FAILED"]
    edges = [EdgeSpec(source=START, target="IDLE")]
    for source, target, event, guard in REACT_TRANSITIONS:
        internal = source == target
        label = f"{event} [{guard}]" if guard else event
        edges.append(
            EdgeSpec(
                source=source,
                target=target,
                kind="conditional",
                route=label,
                label=label,
                metadata={"event": event, "guard": guard, "internal": internal},
            )
        )
    edges.append(EdgeSpec(source="COMPLETED", target=END))
    return GraphSpec(
        name="react_agent",
        nodes=[NodeSpec(id=state) for state in states],
        edges=edges,
        metadata={"kind": "machine", "initial": "IDLE", "final": ["COMPLETED"]},
    )


SAMPLES = {
    "cyclic": cyclic_graph,
    "fan_out_join": fan_out_join,
    "router": router_graph,
    "react_machine": react_machine,
}
