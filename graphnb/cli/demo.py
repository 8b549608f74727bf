"""``graphnb demo``: run the built-in example graph, streaming its output in the terminal."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Annotated, Any

from ..console import shown
from ..engine.events import Chunk, NodeFinished, NodeStarted
from ..graph import StateGraph
from ..reducers import append
from ..spec import END, START
from ..state import GraphState, StateField
from . import subcommand


class DemoState(GraphState):
    """State of the demo: a question, a plan, and the streamed answer."""

    question: str = "What is a typed-state graph?"
    plan: Annotated[list[str], StateField(reducer=append)] = []
    answer: Annotated[str, StateField(streaming=True)] = ""


def outline(state: DemoState) -> dict[str, Any]:
    """Plan the answer in three steps."""
    return {"plan": ["define the state", "connect the nodes", "stream the answer"]}


def write(state: DemoState) -> Iterator[str]:
    """Stream the answer word by word, as a chat model would."""
    text = (
        f"Q: {state.question} A: a graph whose nodes read and write fields of a typed "
        f"state; this run went through {len(state.plan)} planned steps."
    )
    for word in text.split(" "):
        time.sleep(0.02)
        yield word + " "


def build() -> StateGraph[DemoState]:
    """The demo graph: START -> outline -> write -> END."""
    graph = StateGraph(DemoState, name="demo")
    graph.add_node("outline", outline).add_node("write", write)
    return graph.add_edge(START, "outline").add_edge("outline", "write").add_edge("write", END)


def run(args: argparse.Namespace) -> int:
    """Run the example graph, streaming its output.

    Run graphnb's built-in example graph (START -> outline -> write -> END) in the terminal:
    `outline` writes a plan into the typed state, `write` streams an answer word by word. It
    needs nothing installed beyond graphnb and writes no file; its code is the module
    graphnb.cli.demo.
    """
    graph = build().compile()
    out = sys.stdout
    for event in graph.stream({"question": args.question} if args.question else None):
        if isinstance(event, NodeStarted):
            out.write(f"\n▶ {event.node}\n")
        elif isinstance(event, Chunk):
            out.write(shown(event.value, keep="\n\t"))  # --question is user text
        elif isinstance(event, NodeFinished):
            out.write(f"\n✓ {event.node} ({event.duration * 1000:.1f} ms)\n")
        out.flush()
    return 0


def register(subparsers: Any) -> None:
    """Add ``demo`` to the command line."""
    command = subcommand(subparsers, "demo", run)
    command.add_argument(
        "--question", help="the question the demo answers (default: what a typed-state graph is)"
    )
