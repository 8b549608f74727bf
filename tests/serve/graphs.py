"""Graphs the serving tests serve (also loaded by ``graphnb serve`` from this file)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from graphnb import END, START, GraphState, RunContext, StateField, StateGraph, append, interrupt
from graphnb.agent import Message


class Counter(GraphState):
    count: int = 0
    log: Annotated[list[str], StateField(reducer=append)] = []


def bump(state: Counter, context: RunContext) -> dict[str, object]:
    context.write({"progress": state.count})
    return {"count": state.count + 1, "log": ["bump"]}


def double(state: Counter) -> dict[str, object]:
    return {"count": state.count * 2, "log": ["double"]}


chain = (
    StateGraph(Counter, name="chain")
    .add_node("bump", bump)
    .add_node("double", double)
    .add_edge(START, "bump")
    .add_edge("bump", "double")
    .add_edge("double", END)
)


class Greeting(GraphState):
    name: str = ""
    greeting: str = ""


def ask(state: Greeting) -> dict[str, str]:
    name = interrupt({"question": "what is your name?"})
    return {"name": name, "greeting": f"Hello, {name}!"}


asker = StateGraph(Greeting, name="asker").add_node("ask", ask).add_edge(START, "ask")
asker.add_edge("ask", END)


async def nap(state: Counter) -> dict[str, int]:
    await asyncio.sleep(float(state.count) / 10)  # count tenths of a second
    return {"count": state.count + 1}


sleeper = StateGraph(Counter, name="sleeper").add_node("nap", nap).add_edge(START, "nap")
sleeper.add_edge("nap", END)


class Journey(GraphState):
    journal: str = ""  # a file each step appends "node pid" to: what ran, and where
    visited: Annotated[list[str], StateField(reducer=append)] = []


def _step(name: str) -> Callable[[Journey], Awaitable[dict[str, object]]]:
    async def step(state: Journey) -> dict[str, object]:
        await asyncio.sleep(0.4)
        with open(state.journal, "a", encoding="utf-8") as journal:
            journal.write(f"{name} {os.getpid()}\n")
        return {"visited": [name]}

    step.__name__ = name
    return step


journey = StateGraph(Journey, name="journey")
_legs = ["one", "two", "three", "four", "five", "six"]
for _leg in _legs:
    journey.add_node(_leg, _step(_leg))
for _before, _after in zip([START, *_legs], [*_legs, END], strict=True):
    journey.add_edge(_before, _after)


class Talk(GraphState):
    reply: Annotated[str, StateField(streaming=True)] = ""
    messages: Annotated[list[Message], StateField(reducer=append)] = []


async def speak(state: Talk) -> AsyncIterator[str]:
    for piece in ("Hel", "lo", "!"):  # as a model streams its answer
        yield piece


def note(state: Talk) -> dict[str, object]:
    return {"messages": [Message(role="assistant", content=f"said {state.reply}")]}


talker = StateGraph(Talk, name="talker").add_node("speak", speak).add_node("note", note)
talker.add_edge(START, "speak").add_edge("speak", "note").add_edge("note", END)
