"""The peer suite's scenarios: LangGraph programs ported from LangGraph's own tests.

Each builder is written as a LangGraph user writes it (LangGraph's imports, LangGraph's
API only); the facts come from the test named in ``ported_from`` under
``libs/langgraph/tests/`` of langchain-ai/langgraph, the code is this project's.
``expected`` is ``SAME`` or the :class:`Difference` graphnb gives, with its reason; the
test asserts exactly that, so a change either way fails it.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config, get_store, get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime, get_runtime
from langgraph.store.base import BaseStore
from langgraph.types import CachePolicy, Command, RetryPolicy, Send, StreamWriter, interrupt
from peer_harness import (
    ABSENT,
    SAME,
    Difference,
    ForkEdit,
    Input,
    Replay,
    Resume,
    Scenario,
    Update,
)
from pydantic import BaseModel, field_validator

# ---------------------------------------------------------------------------------------
# States shared by several scenarios


class Text(TypedDict):
    text: str
    steps: Annotated[list[str], operator.add]


class Count(TypedDict):
    n: int


def note(name: str) -> Any:
    def node(state: Text) -> dict[str, Any]:
        return {"steps": [name]}

    node.__name__ = name
    return node


def chain_of(*names: str, state: Any = Text) -> StateGraph:
    builder = StateGraph(state)
    previous = START
    for name in names:
        builder.add_node(name, note(name))
        builder.add_edge(previous, name)
        previous = name
    return builder


# ---------------------------------------------------------------------------------------
# test_pregel.py / test_large_cases.py: plain graphs


def two_processes() -> StateGraph:
    def one(state: Count) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    def two(state: Count) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    builder = StateGraph(Count)
    builder.add_node("one", one)
    builder.add_node("two", two)
    builder.add_edge(START, "one")
    builder.add_edge("one", "two")
    return builder


def conditional_entry() -> StateGraph:
    def left(state: Text) -> dict[str, Any]:
        return {"text": state["text"] + "<", "steps": ["left"]}

    def right(state: Text) -> dict[str, Any]:
        return {"text": state["text"] + ">", "steps": ["right"]}

    def pick(state: Text) -> str:
        return "go_left" if state["text"].startswith("l") else "go_right"

    builder = StateGraph(Text)
    builder.add_node("left", left)
    builder.add_node("right", right)
    builder.add_conditional_edges(START, pick, {"go_left": "left", "go_right": "right"})
    return builder


def fan_out_join() -> StateGraph:
    builder = StateGraph(Text)
    for name in ("plan", "a", "b", "c", "merge"):
        builder.add_node(name, note(name))
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "a")
    builder.add_edge("plan", "b")
    builder.add_edge("b", "c")
    builder.add_edge(["a", "c"], "merge")
    return builder


def fan_in_twice() -> StateGraph:
    # No join: "merge" runs once per step in which one of its sources finished.
    builder = StateGraph(Text)
    for name in ("a", "b", "b2", "merge"):
        builder.add_node(name, note(name))
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_edge("b", "b2")
    builder.add_edge("a", "merge")
    builder.add_edge("b2", "merge")
    return builder


def fan_out_router() -> StateGraph:
    def both(state: Text) -> list[str]:
        return ["x", "y"]

    builder = StateGraph(Text)
    for name in ("start", "x", "y"):
        builder.add_node(name, note(name))
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", both, ["x", "y"])
    return builder


class Agent(TypedDict):
    question: str
    steps: Annotated[list[str], operator.add]
    tries: int


def agent_loop() -> StateGraph:
    def think(state: Agent) -> dict[str, Any]:
        return {"tries": state.get("tries", 0) + 1, "steps": ["think"]}

    def act(state: Agent) -> dict[str, Any]:
        return {"steps": [f"act{state['tries']}"]}

    def should_continue(state: Agent) -> Literal["act", "__end__"]:
        return "act" if state["tries"] < 3 else END

    builder = StateGraph(Agent)
    builder.add_node("think", think)
    builder.add_node("act", act)
    builder.add_edge(START, "think")
    builder.add_conditional_edges("think", should_continue)
    builder.add_edge("act", "think")
    return builder


def recursion_limit() -> StateGraph:
    # 150 steps: within LangGraph's default recursion limit (10,000), past graphnb's (100).
    def spin(state: Count) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    def again(state: Count) -> Literal["spin", "__end__"]:
        return "spin" if state["n"] < 150 else END

    builder = StateGraph(Count)
    builder.add_node("spin", spin)
    builder.add_edge(START, "spin")
    builder.add_conditional_edges("spin", again)
    return builder


def conflicting_writes() -> StateGraph:
    def a(state: Count) -> dict[str, Any]:
        return {"n": 1}

    def b(state: Count) -> dict[str, Any]:
        return {"n": 2}

    builder = StateGraph(Count)
    builder.add_node("a", a)
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder


def node_returns_none() -> StateGraph:
    def look(state: Count) -> None:
        return None

    def bump(state: Count) -> dict[str, Any]:
        return {"n": state["n"] + 10}

    builder = StateGraph(Count)
    builder.add_node("look", look)
    builder.add_node("bump", bump)
    builder.add_edge(START, "look")
    builder.add_edge("look", "bump")
    return builder


def node_raises() -> StateGraph:
    def boom(state: Count) -> dict[str, Any]:
        raise ValueError("no")

    builder = StateGraph(Count)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    return builder


def async_nodes() -> StateGraph:
    async def one(state: Count) -> dict[str, Any]:
        return {"n": state["n"] * 3}

    builder = StateGraph(Count)
    builder.add_node("one", one)
    builder.add_edge(START, "one")
    return builder


def bool_path_map() -> StateGraph:
    def is_big(state: Count) -> bool:
        return state["n"] > 5

    def big(state: Count) -> dict[str, Any]:
        return {"n": -1}

    def small(state: Count) -> dict[str, Any]:
        return {"n": 1}

    builder = StateGraph(Count)
    builder.add_node("big", big)
    builder.add_node("small", small)
    builder.add_conditional_edges(START, is_big, {True: "big", False: "small"})
    return builder


def two_routers() -> StateGraph:
    def to_a(state: Text) -> str:
        return "a"

    def to_b(state: Text) -> str:
        return "b"

    builder = StateGraph(Text)
    for name in ("start", "a", "b"):
        builder.add_node(name, note(name))
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", to_a, ["a"])
    builder.add_conditional_edges("start", to_b, ["b"])
    return builder


def deferred() -> StateGraph:
    builder = StateGraph(Text)
    for name in ("a", "b", "b2"):
        builder.add_node(name, note(name))
    builder.add_node("final", note("final"), defer=True)
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_edge("b", "b2")
    builder.add_edge("a", "final")
    builder.add_edge("b2", "final")
    return builder


# ---------------------------------------------------------------------------------------
# Send (map-reduce)


class Jokes(TypedDict):
    subjects: list[str]
    subject: str
    jokes: Annotated[list[str], operator.add]


def map_reduce() -> StateGraph:
    def fan(state: Jokes) -> list[Send]:
        return [Send("joke", {"subject": s}) for s in state["subjects"]]

    def joke(state: Jokes) -> dict[str, Any]:
        return {"jokes": [f"{state['subject']}!"]}

    def best(state: Jokes) -> dict[str, Any]:
        return {"subject": max(state["jokes"])}

    builder = StateGraph(Jokes)
    builder.add_node("joke", joke)
    builder.add_node("best", best)
    builder.add_conditional_edges(START, fan, ["joke"])
    builder.add_edge("joke", "best")
    return builder


def send_and_route() -> StateGraph:
    # test_send_sequences: a router returning a route and Send packets together.
    def fan(state: Jokes) -> list[Any]:
        return ["tally", *[Send("joke", {"subject": s}) for s in state["subjects"]]]

    def joke(state: Jokes) -> dict[str, Any]:
        return {"jokes": [state["subject"].upper()]}

    def tally(state: Jokes) -> dict[str, Any]:
        return {"jokes": ["tally"]}

    builder = StateGraph(Jokes)
    builder.add_node("joke", joke)
    builder.add_node("tally", tally)
    builder.add_node("start", lambda state: {})
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", fan, ["joke", "tally"])
    return builder


def send_after_interrupt() -> StateGraph:
    def fan(state: Jokes) -> list[Send]:
        return [Send("joke", {"subject": s}) for s in state["subjects"]]

    def joke(state: Jokes) -> dict[str, Any]:
        return {"jokes": [state["subject"] * 2]}

    builder = StateGraph(Jokes)
    builder.add_node("joke", joke)
    builder.add_node("plan", lambda state: {"subjects": [*state["subjects"], "z"]})
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", fan, ["joke"])
    return builder


# ---------------------------------------------------------------------------------------
# Command


class Hand(TypedDict):
    who: Annotated[list[str], operator.add]
    topic: str


def command_goto() -> StateGraph:
    def triage(state: Hand) -> Command[Literal["billing", "support"]]:
        target = "billing" if "bill" in state["topic"] else "support"
        return Command(update={"who": ["triage"]}, goto=target)

    def billing(state: Hand) -> dict[str, Any]:
        return {"who": ["billing"]}

    def support(state: Hand) -> dict[str, Any]:
        return {"who": ["support"]}

    builder = StateGraph(Hand)
    builder.add_node("triage", triage)
    builder.add_node("billing", billing)
    builder.add_node("support", support)
    builder.add_edge(START, "triage")
    return builder


def handoffs() -> StateGraph:
    # The multi-agent handoff of LangGraph's docs: each agent hands over by Command.
    def researcher(state: Hand) -> Command[Literal["writer", "__end__"]]:
        if len(state["who"]) >= 3:
            return Command(goto=END, update={"who": ["done"]})
        return Command(goto="writer", update={"who": ["researcher"]})

    def writer(state: Hand) -> Command[Literal["researcher"]]:
        return Command(goto="researcher", update={"who": ["writer"]})

    builder = StateGraph(Hand)
    builder.add_node("researcher", researcher)
    builder.add_node("writer", writer)
    builder.add_edge(START, "researcher")
    return builder


def command_destinations() -> StateGraph:
    def pick(state: Hand) -> Command:
        return Command(goto=["a", "b"], update={"who": ["pick"]})

    builder = StateGraph(Hand)
    builder.add_node("pick", pick, destinations=("a", "b"))
    builder.add_node("a", lambda state: {"who": ["a"]})
    builder.add_node("b", lambda state: {"who": ["b"]})
    builder.add_edge(START, "pick")
    return builder


def command_send() -> StateGraph:
    def fan(state: Jokes) -> Command[Literal["joke"]]:
        return Command(goto=[Send("joke", {"subject": s}) for s in state["subjects"]])

    def joke(state: Jokes) -> dict[str, Any]:
        return {"jokes": [state["subject"]]}

    builder = StateGraph(Jokes)
    builder.add_node("fan", fan)
    builder.add_node("joke", joke)
    builder.add_edge(START, "fan")
    return builder


def command_parent() -> StateGraph:
    def inner(state: Hand) -> Command:
        return Command(graph=Command.PARENT, goto="support", update={"who": ["inner"]})

    child = StateGraph(Hand)
    child.add_node("inner", inner)
    child.add_edge(START, "inner")

    builder = StateGraph(Hand)
    builder.add_node("team", child.compile(), destinations=("support",))
    builder.add_node("support", lambda state: {"who": ["support"]})
    builder.add_edge(START, "team")
    return builder


def command_and_edge() -> StateGraph:
    # A Command's goto and the node's static edge both run.
    def first(state: Hand) -> Command[Literal["extra"]]:
        return Command(goto="extra", update={"who": ["first"]})

    builder = StateGraph(Hand)
    builder.add_node("first", first)
    builder.add_node("extra", lambda state: {"who": ["extra"]})
    builder.add_node("static", lambda state: {"who": ["static"]})
    builder.add_edge(START, "first")
    builder.add_edge("first", "static")
    return builder


# ---------------------------------------------------------------------------------------
# Human in the loop (test_interruption.py, test_pregel.py interrupt tests)


class Ask(TypedDict):
    question: str
    answers: Annotated[list[str], operator.add]


def ask_once() -> StateGraph:
    def ask(state: Ask) -> dict[str, Any]:
        answer = interrupt(f"answer {state['question']}?")
        return {"answers": [answer]}

    builder = StateGraph(Ask)
    builder.add_node("prepare", lambda state: {"answers": ["prepared"]})
    builder.add_node("ask", ask)
    builder.add_node("after", lambda state: {"answers": ["after"]})
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "ask")
    builder.add_edge("ask", "after")
    return builder


def ask_twice() -> StateGraph:
    def ask(state: Ask) -> dict[str, Any]:
        name = interrupt("name?")
        age = interrupt("age?")
        return {"answers": [name, age]}

    builder = StateGraph(Ask)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    return builder


def approve_or_reject() -> StateGraph:
    # The human review pattern: interrupt, then a Command to the chosen node.
    def review(state: Ask) -> Command[Literal["publish", "rewrite"]]:
        verdict = interrupt({"draft": state["question"]})
        return Command(goto="publish" if verdict == "ok" else "rewrite")

    builder = StateGraph(Ask)
    builder.add_node("review", review)
    builder.add_node("publish", lambda state: {"answers": ["published"]})
    builder.add_node("rewrite", lambda state: {"answers": ["rewritten"]})
    builder.add_edge(START, "review")
    return builder


def interrupt_in_subgraph() -> StateGraph:
    def ask(state: Ask) -> dict[str, Any]:
        return {"answers": [interrupt("inner?")]}

    child = StateGraph(Ask)
    child.add_node("before", lambda state: {"answers": ["child-before"]})
    child.add_node("ask", ask)
    child.add_edge(START, "before")
    child.add_edge("before", "ask")

    builder = StateGraph(Ask)
    builder.add_node("outer", lambda state: {"answers": ["outer"]})
    builder.add_node("child", child.compile())
    builder.add_edge(START, "outer")
    builder.add_edge("outer", "child")
    return builder


def static_breakpoint() -> StateGraph:
    return chain_of("one", "two", "three")


def edit_then_resume() -> StateGraph:
    def shout(state: Text) -> dict[str, Any]:
        return {"text": state["text"].upper(), "steps": ["shout"]}

    builder = StateGraph(Text)
    builder.add_node("draft", lambda state: {"text": state["text"] + " draft", "steps": ["draft"]})
    builder.add_node("shout", shout)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "shout")
    return builder


def interrupt_in_parallel() -> StateGraph:
    def ask(state: Ask) -> dict[str, Any]:
        return {"answers": [interrupt("ok?")]}

    builder = StateGraph(Ask)
    builder.add_node("quick", lambda state: {"answers": ["quick"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "quick")
    builder.add_edge(START, "ask")
    return builder


# ---------------------------------------------------------------------------------------
# Time travel (test_time_travel.py)


def travel() -> StateGraph:
    return chain_of("a", "b", "c")


# ---------------------------------------------------------------------------------------
# Subgraphs


class Inner(TypedDict):
    text: str


def shared_keys_subgraph() -> StateGraph:
    child = StateGraph(Inner)
    child.add_node("shout", lambda state: {"text": state["text"].upper()})
    child.add_node("twice", lambda state: {"text": state["text"] * 2})
    child.add_edge(START, "shout")
    child.add_edge("shout", "twice")

    builder = StateGraph(Text)
    builder.add_node("prep", lambda state: {"text": state["text"] + "!", "steps": ["prep"]})
    builder.add_node("child", child.compile())
    builder.add_edge(START, "prep")
    builder.add_edge("prep", "child")
    return builder


def subgraph_in_function() -> StateGraph:
    # A different schema: the parent's node calls the child itself.
    class Doc(TypedDict):
        body: str

    child = StateGraph(Doc)
    child.add_node("trim", lambda state: {"body": state["body"].strip()})
    child.add_edge(START, "trim")
    compiled = child.compile()

    def call_child(state: Text) -> dict[str, Any]:
        out = compiled.invoke({"body": state["text"]})
        return {"text": out["body"], "steps": ["child"]}

    builder = StateGraph(Text)
    builder.add_node("call_child", call_child)
    builder.add_edge(START, "call_child")
    return builder


def nested_subgraphs() -> StateGraph:
    grandchild = StateGraph(Inner)
    grandchild.add_node("g", lambda state: {"text": state["text"] + "g"})
    grandchild.add_edge(START, "g")
    child = StateGraph(Inner)
    child.add_node("c", lambda state: {"text": state["text"] + "c"})
    child.add_node("grandchild", grandchild.compile())
    child.add_edge(START, "c")
    child.add_edge("c", "grandchild")
    builder = StateGraph(Inner)
    builder.add_node("p", lambda state: {"text": state["text"] + "p"})
    builder.add_node("child", child.compile())
    builder.add_edge(START, "p")
    builder.add_edge("p", "child")
    return builder


def subgraph_shared_reducer() -> StateGraph:
    child = chain_of("inner")
    builder = StateGraph(Text)
    builder.add_node("outer", note("outer"))
    builder.add_node("child", child.compile())
    builder.add_edge(START, "outer")
    builder.add_edge("outer", "child")
    return builder


def subgraph_own_breakpoint() -> StateGraph:
    child = chain_of("c1", "c2", state=Text)
    builder = StateGraph(Text)
    builder.add_node("child", child.compile(interrupt_before=["c2"]))
    builder.add_edge(START, "child")
    return builder


# ---------------------------------------------------------------------------------------
# Retries (test_retry.py)


def flaky(error: type[Exception], failures: int) -> Any:
    calls = {"n": 0}

    def node(state: Count) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] <= failures:
            raise error("flaky")
        return {"n": calls["n"]}

    return node


def retried(error: type[Exception], failures: int, **policy: Any) -> Any:
    def build() -> StateGraph:
        builder = StateGraph(Count)
        builder.add_node(
            "call",
            flaky(error, failures),
            retry_policy=RetryPolicy(initial_interval=0.001, jitter=False, **policy),
        )
        builder.add_edge(START, "call")
        return builder

    return build


# ---------------------------------------------------------------------------------------
# States: pydantic, dataclass (test_pydantic.py, test_state.py)


class Order(BaseModel):
    item: str
    quantity: int = 1
    log: Annotated[list[str], operator.add] = []


def pydantic_state() -> StateGraph:
    def double(state: Order) -> dict[str, Any]:
        return {"quantity": state.quantity * 2, "log": ["double"]}

    builder = StateGraph(Order)
    builder.add_node("double", double)
    builder.add_edge(START, "double")
    return builder


class Checked(BaseModel):
    name: str
    log: Annotated[list[str], operator.add] = []

    @field_validator("name")
    @classmethod
    def strip_name(cls, value: str) -> str:
        return value.strip().title()


def pydantic_validator() -> StateGraph:
    def rename(state: Checked) -> dict[str, Any]:
        return {"name": "  grace hopper ", "log": [state.name]}

    builder = StateGraph(Checked)
    builder.add_node("rename", rename)
    builder.add_edge(START, "rename")
    return builder


@dataclass
class Basket:
    fruit: list[str] = field(default_factory=list)
    total: int = 0


def dataclass_state() -> StateGraph:
    def pick(state: Basket) -> dict[str, Any]:
        return {"fruit": [*state.fruit, "apple"], "total": state.total + 1}

    builder = StateGraph(Basket)
    builder.add_node("pick", pick)
    builder.add_node("pick_again", pick)
    builder.add_edge(START, "pick")
    builder.add_edge("pick", "pick_again")
    return builder


class Inputs(TypedDict):
    question: str


class Outputs(TypedDict):
    answer: str


class Overall(TypedDict):
    question: str
    answer: str
    notes: str


def input_output_schemas() -> StateGraph:
    def think(state: Inputs) -> dict[str, Any]:
        return {"notes": f"about {state['question']}"}

    def answer(state: Overall) -> dict[str, Any]:
        return {"answer": state["notes"].upper()}

    builder = StateGraph(Overall, input_schema=Inputs, output_schema=Outputs)
    builder.add_node("think", think)
    builder.add_node("answer", answer)
    builder.add_edge(START, "think")
    builder.add_edge("think", "answer")
    return builder


class Private(TypedDict):
    scratch: str


def private_state() -> StateGraph:
    # test_state.py: a node writes a key outside the graph's state, the next reads it.
    def first(state: Overall) -> Private:
        return {"scratch": state["question"] + "?"}

    def second(state: Private) -> dict[str, Any]:
        return {"answer": state["scratch"] * 2}

    builder = StateGraph(Overall)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    return builder


def node_input_schema() -> StateGraph:
    # A node declaring a narrower input schema sees only those keys.
    def seen(state: Inputs) -> dict[str, Any]:
        return {"answer": ",".join(sorted(state))}

    builder = StateGraph(Overall)
    builder.add_node("seen", seen)
    builder.add_edge(START, "seen")
    return builder


# ---------------------------------------------------------------------------------------
# LangGraph's functions inside nodes; runtime and context


@dataclass
class Ctx:
    user: str


def stream_writer() -> StateGraph:
    def work(state: Count) -> dict[str, Any]:
        writer = get_stream_writer()
        writer({"progress": 1})
        writer("half")
        return {"n": state["n"] + 1}

    builder = StateGraph(Count)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder


def writer_then_interrupt() -> StateGraph:
    def work(state: Ask) -> dict[str, Any]:
        get_stream_writer()(f"working on {state['question']}")
        return {"answers": [interrupt("go on?")]}

    builder = StateGraph(Ask)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder


def writer_param() -> StateGraph:
    def work(state: Count, writer: StreamWriter) -> dict[str, Any]:
        writer({"got": state["n"]})
        return {"n": state["n"] + 2}

    builder = StateGraph(Count)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder


def config_reader() -> StateGraph:
    def who(state: Text) -> dict[str, Any]:
        config = get_config()
        return {"text": config["configurable"]["thread_id"], "steps": ["who"]}

    builder = StateGraph(Text)
    builder.add_node("who", who)
    builder.add_edge(START, "who")
    return builder


def config_param() -> StateGraph:
    def who(state: Text, config: RunnableConfig) -> dict[str, Any]:
        return {"text": str(config["configurable"]["thread_id"]), "steps": ["who"]}

    builder = StateGraph(Text)
    builder.add_node("who", who)
    builder.add_edge(START, "who")
    return builder


def runtime_context() -> StateGraph:
    def greet(state: Text, runtime: Runtime[Ctx]) -> dict[str, Any]:
        return {"text": f"hi {runtime.context.user}", "steps": ["greet"]}

    builder = StateGraph(Text, context_schema=Ctx)
    builder.add_node("greet", greet)
    builder.add_edge(START, "greet")
    return builder


def get_runtime_context() -> StateGraph:
    def greet(state: Text) -> dict[str, Any]:
        runtime = get_runtime(Ctx)
        return {"text": f"bye {runtime.context.user}", "steps": ["greet"]}

    builder = StateGraph(Text, context_schema=Ctx)
    builder.add_node("greet", greet)
    builder.add_edge(START, "greet")
    return builder


# ---------------------------------------------------------------------------------------
# Messages (test_messages_state.py)


def scripted_model(state: MessagesState) -> dict[str, Any]:
    last = state["messages"][-1]
    if last.type == "tool":
        return {"messages": [AIMessage(f"it is {last.content}", id=f"ai-{len(state['messages'])}")]}
    call = {"name": "clock", "args": {"tz": "UTC"}, "id": "call-1"}
    return {"messages": [AIMessage("", tool_calls=[call], id="ai-1")]}


def run_tools(state: MessagesState) -> dict[str, Any]:
    calls = state["messages"][-1].tool_calls
    return {
        "messages": [
            ToolMessage("noon", tool_call_id=c["id"], name=c["name"], id=f"tool-{c['id']}")
            for c in calls
        ]
    }


def wants_tool(state: MessagesState) -> Literal["tools", "__end__"]:
    return "tools" if state["messages"][-1].tool_calls else END


def tool_agent() -> StateGraph:
    builder = StateGraph(MessagesState)
    builder.add_node("model", scripted_model)
    builder.add_node("tools", run_tools)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", wants_tool)
    builder.add_edge("tools", "model")
    return builder


def remove_messages() -> StateGraph:
    def forget(state: MessagesState) -> dict[str, Any]:
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][:-1]]}

    builder = StateGraph(MessagesState)
    builder.add_node("forget", forget)
    builder.add_edge(START, "forget")
    return builder


def replace_by_id() -> StateGraph:
    def edit(state: MessagesState) -> dict[str, Any]:
        first = state["messages"][0]
        return {"messages": [HumanMessage(first.content.upper(), id=first.id)]}

    builder = StateGraph(MessagesState)
    builder.add_node("edit", edit)
    builder.add_edge(START, "edit")
    return builder


class Chat(MessagesState):
    summary: str


def messages_subclass() -> StateGraph:
    def summarise(state: Chat) -> dict[str, Any]:
        return {"summary": f"{len(state['messages'])} messages"}

    builder = StateGraph(Chat)
    builder.add_node("summarise", summarise)
    builder.add_edge(START, "summarise")
    return builder


class Typed(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def messages_as_tuples() -> StateGraph:
    def reply(state: Typed) -> dict[str, Any]:
        return {"messages": [("ai", f"heard {state['messages'][-1].content}")]}

    builder = StateGraph(Typed)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder


def chat_thread() -> StateGraph:
    def reply(state: MessagesState) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage(f"#{n}: {state['messages'][-1].content}", id=f"ai{n}")]}

    builder = StateGraph(MessagesState)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder


# ---------------------------------------------------------------------------------------
# Caching


def cached() -> StateGraph:
    calls = {"n": 0}

    def slow(state: Count) -> dict[str, Any]:
        calls["n"] += 1
        return {"n": state["n"] + calls["n"]}

    builder = StateGraph(Count)
    builder.add_node("slow", slow, cache_policy=CachePolicy())
    builder.add_edge(START, "slow")
    return builder


def _in_memory_cache() -> Any:
    from langgraph.cache.memory import InMemoryCache

    return InMemoryCache()


# ---------------------------------------------------------------------------------------
# test_pregel.py / test_runtime.py: the long-term store (compile(store=...))


class Memory(TypedDict):
    count: Annotated[int, operator.add]
    seen: Annotated[list[Any], operator.add]


def store_injected() -> StateGraph:
    def remember(state: Memory, config: RunnableConfig, store: BaseStore) -> dict[str, Any]:
        thread = config["configurable"]["thread_id"]
        store.put(("foo", "bar"), f"doc-{state['count']}", {"some-key": "val", "from": thread})
        return {"count": 1}

    def recall(state: Memory, store: BaseStore) -> dict[str, Any]:
        found = store.search(("foo", "bar"))
        return {"seen": sorted((item.key, item.value["from"]) for item in found)}

    builder = StateGraph(Memory)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    return builder


def store_get_store() -> StateGraph:
    def count_visits(state: Memory) -> dict[str, Any]:
        store = get_store()
        item = store.get(("visits",), "user-1")
        visits = item.value["n"] + 1 if item is not None else 1
        store.put(("visits",), "user-1", {"n": visits})
        return {"count": visits}

    builder = StateGraph(Memory)
    builder.add_node("count_visits", count_visits)
    builder.add_edge(START, "count_visits")
    return builder


def store_on_runtime() -> StateGraph:
    def note(state: Memory, runtime: Runtime[None]) -> dict[str, Any]:
        assert runtime.store is not None
        runtime.store.put(("notes", "a"), "x", {"text": "first"})
        runtime.store.put(("notes", "b"), "y", {"text": "second"})
        return {"count": 1}

    def read(state: Memory, runtime: Runtime[None]) -> dict[str, Any]:
        store = runtime.store
        assert store is not None
        everything = sorted(item.value["text"] for item in store.search(("notes",)))
        only_b = [item.key for item in store.search(("notes", "b"))]
        namespaces = sorted(tuple(n) for n in store.list_namespaces(prefix=("notes",)))
        return {"seen": [everything, only_b, namespaces]}

    builder = StateGraph(Memory)
    builder.add_node("note", note)
    builder.add_node("read", read)
    builder.add_edge(START, "note")
    builder.add_edge("note", "read")
    return builder


def store_delete() -> StateGraph:
    def put_two(state: Memory, store: BaseStore) -> dict[str, Any]:
        store.put(("tmp",), "keep", {"v": 1})
        store.put(("tmp",), "drop", {"v": 2})
        return {"count": 2}

    def drop_one(state: Memory, store: BaseStore) -> dict[str, Any]:
        store.delete(("tmp",), "drop")
        left = [item.key for item in store.search(("tmp",))]
        return {"seen": [left, store.get(("tmp",), "drop") is None]}

    builder = StateGraph(Memory)
    builder.add_node("put_two", put_two)
    builder.add_node("drop_one", drop_one)
    builder.add_edge(START, "put_two")
    builder.add_edge("put_two", "drop_one")
    return builder


def store_in_subgraph() -> StateGraph:
    def child_writes(state: Memory, store: BaseStore) -> dict[str, Any]:
        store.put(("child",), "k", {"from": "child"})
        return {"count": 1}

    child = StateGraph(Memory)
    child.add_node("child_writes", child_writes)
    child.add_edge(START, "child_writes")

    def parent_reads(state: Memory, store: BaseStore) -> dict[str, Any]:
        item = store.get(("child",), "k")
        return {"seen": [None if item is None else item.value]}

    builder = StateGraph(Memory)
    builder.add_node("child", child.compile())
    builder.add_node("parent_reads", parent_reads)
    builder.add_edge(START, "child")
    builder.add_edge("child", "parent_reads")
    return builder


def _in_memory_store() -> Any:
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore()


# ---------------------------------------------------------------------------------------
# More of test_pregel.py, test_interruption.py, test_time_travel.py, test_state.py and
# test_messages_state.py


def ask_until_valid() -> StateGraph:
    def ask_age(state: Ask) -> dict[str, Any]:
        prompt = "age?"
        while True:
            answer = interrupt(prompt)
            if isinstance(answer, int) and answer > 0:
                return {"answers": [str(answer)]}
            prompt = f"{answer!r} is not an age; age?"

    builder = StateGraph(Ask)
    builder.add_node("ask_age", ask_age)
    builder.add_edge(START, "ask_age")
    return builder


def fails_once() -> StateGraph:
    failed = {"yet": False}

    def flaky_step(state: Text) -> dict[str, Any]:
        if not failed["yet"]:
            failed["yet"] = True
            raise ConnectionError("the service is down")
        return {"steps": ["flaky"]}

    builder = StateGraph(Text)
    builder.add_node("first", note("first"))
    builder.add_node("flaky", flaky_step)
    builder.add_node("last", note("last"))
    builder.add_edge(START, "first")
    builder.add_edge("first", "flaky")
    builder.add_edge("flaky", "last")
    return builder


def interrupt_before_all() -> StateGraph:
    return chain_of("one", "two")


def router_after_breakpoint() -> StateGraph:
    def route(state: Text) -> Literal["short", "long"]:
        return "long" if len(state["text"]) > 3 else "short"

    builder = StateGraph(Text)
    builder.add_node("read", note("read"))
    builder.add_node("short", note("short"))
    builder.add_node("long", note("long"))
    builder.add_edge(START, "read")
    builder.add_conditional_edges("read", route)
    return builder


def partial_input() -> StateGraph:
    def greet(state: Text) -> dict[str, Any]:
        return {"text": state.get("text", "nobody") + "!", "steps": ["greet"]}

    builder = StateGraph(Text)
    builder.add_node("greet", greet)
    builder.add_edge(START, "greet")
    return builder


def remove_all_messages() -> StateGraph:
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    def reset(state: MessagesState) -> dict[str, Any]:
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), AIMessage("fresh", id="f")]}

    builder = StateGraph(MessagesState)
    builder.add_node("reset", reset)
    builder.add_edge(START, "reset")
    return builder


class PydanticChat(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: int = 0


def pydantic_messages() -> StateGraph:
    def reply(state: PydanticChat) -> dict[str, Any]:
        last = state.messages[-1]
        return {"messages": [AIMessage(f"re: {last.content}", id="r")], "turns": state.turns + 1}

    builder = StateGraph(PydanticChat)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder


def loop_with_counter() -> StateGraph:
    def tick(state: Count) -> dict[str, Any]:
        return {"n": state["n"] + 1}

    def more(state: Count) -> Literal["tick", "__end__"]:
        return "tick" if state["n"] < 4 else "__end__"

    builder = StateGraph(Count)
    builder.add_node("tick", tick)
    builder.add_edge(START, "tick")
    builder.add_conditional_edges("tick", more)
    return builder


class Item(TypedDict):
    item: str


def ask_in_send_targets() -> StateGraph:
    def fan(state: Ask) -> list[Send]:
        # one item: LangGraph streams parallel tasks' updates in the order they finish
        return [Send("check", {"item": name}) for name in ("x",)]

    def check(state: Item) -> dict[str, Any]:
        return {"answers": [f"{state['item']} checked"]}

    builder = StateGraph(Ask)
    builder.add_node("check", check)
    builder.add_node("ask", lambda state: {"answers": [interrupt("go?")]})
    builder.add_edge(START, "ask")
    builder.add_conditional_edges("ask", fan, ["check"])
    return builder


def parallel_one_fails() -> StateGraph:
    failed = {"yet": False}

    def steady(state: Text) -> dict[str, Any]:
        return {"steps": ["steady"]}

    def shaky(state: Text) -> dict[str, Any]:
        if not failed["yet"]:
            failed["yet"] = True
            raise ConnectionError("shaky failed")
        return {"steps": ["shaky"]}

    builder = StateGraph(Text)
    builder.add_node("steady", steady)
    builder.add_node("shaky", shaky)
    builder.add_node("join", note("join"))
    builder.add_edge(START, "steady")
    builder.add_edge(START, "shaky")
    builder.add_edge(["steady", "shaky"], "join")
    return builder


class Ticket(BaseModel):
    title: str
    status: str = "open"
    history: Annotated[list[str], operator.add] = []


def command_pydantic() -> StateGraph:
    def triage(state: Ticket) -> Command[Literal["close", "escalate"]]:
        urgent = "urgent" in state.title
        return Command(
            goto="escalate" if urgent else "close",
            update={"history": [f"triaged {state.title}"]},
        )

    builder = StateGraph(Ticket)
    builder.add_node("triage", triage)
    builder.add_node("close", lambda state: {"status": "closed", "history": ["closed"]})
    builder.add_node("escalate", lambda state: {"status": "escalated", "history": ["up"]})
    builder.add_edge(START, "triage")
    return builder


def empty_update() -> StateGraph:
    builder = StateGraph(Text)
    builder.add_node("nothing", lambda state: {})
    builder.add_node("after", note("after"))
    builder.add_edge(START, "nothing")
    builder.add_edge("nothing", "after")
    return builder


class Profile(BaseModel):
    name: str
    nickname: str | None = None
    tags: list[str] = []


def optional_fields() -> StateGraph:
    def nick(state: Profile) -> dict[str, Any]:
        return {"nickname": state.name[:3], "tags": [*state.tags, "nicknamed"]}

    builder = StateGraph(Profile)
    builder.add_node("nick", nick)
    builder.add_edge(START, "nick")
    return builder


def conditional_entry_fan_out() -> StateGraph:
    def pick(state: Text) -> list[str]:
        return ["left", "right"] if state["text"] == "both" else ["left"]

    builder = StateGraph(Text)
    builder.add_node("left", note("left"))
    builder.add_node("right", note("right"))
    builder.add_node("end_node", note("end_node"))
    builder.add_conditional_edges(START, pick, ["left", "right"])
    builder.add_edge("left", "end_node")
    builder.add_edge("right", "end_node")
    return builder


def branch_then_join() -> StateGraph:
    def to_both(state: Text) -> list[str]:
        return ["fetch_a", "fetch_b"]

    builder = StateGraph(Text)
    builder.add_node("plan", note("plan"))
    builder.add_node("fetch_a", note("fetch_a"))
    builder.add_node("fetch_b", note("fetch_b"))
    builder.add_node("merge", note("merge"))
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", to_both, ["fetch_a", "fetch_b"])
    builder.add_edge(["fetch_a", "fetch_b"], "merge")
    return builder


def update_as_named_node() -> StateGraph:
    def route(state: Text) -> Literal["a", "b"]:
        return "b" if "b" in state["text"] else "a"

    builder = StateGraph(Text)
    builder.add_node("start", note("start"))
    builder.add_node("a", note("a"))
    builder.add_node("b", note("b"))
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", route)
    return builder


def command_update_only() -> StateGraph:
    def stamp(state: Text) -> Command[Any]:
        return Command(update={"steps": ["stamped"], "text": state["text"] + "!"})

    builder = StateGraph(Text)
    builder.add_node("stamp", stamp)
    builder.add_node("after", note("after"))
    builder.add_edge(START, "stamp")
    builder.add_edge("stamp", "after")
    return builder


class Subject(TypedDict):
    subject: str


def send_own_schema() -> StateGraph:
    def topics(state: Jokes) -> list[Send]:
        return [Send("write_joke", {"subject": name}) for name in ("cats",)]

    def write_joke(state: Subject) -> dict[str, Any]:
        return {"jokes": [f"a joke about {state['subject']}"]}

    builder = StateGraph(Jokes)
    builder.add_node("write_joke", write_joke)
    builder.add_conditional_edges(START, topics, ["write_joke"])
    return builder


def interrupt_history() -> StateGraph:
    def ask(state: Ask) -> dict[str, Any]:
        return {"answers": [interrupt("name?")]}

    builder = StateGraph(Ask)
    builder.add_node("greet", lambda state: {"answers": ["hello"]})
    builder.add_node("ask", ask)
    builder.add_node("bye", lambda state: {"answers": ["bye"]})
    builder.add_edge(START, "greet")
    builder.add_edge("greet", "ask")
    builder.add_edge("ask", "bye")
    return builder


class Loose(TypedDict, total=False):
    topic: str
    draft: str
    notes: Annotated[list[str], operator.add]


def not_required_keys() -> StateGraph:
    def write(state: Loose) -> dict[str, Any]:
        return {"draft": f"on {state.get('topic', 'nothing')}", "notes": ["written"]}

    builder = StateGraph(Loose)
    builder.add_node("write", write)
    builder.add_edge(START, "write")
    return builder


def command_goto_end() -> StateGraph:
    def decide(state: Text) -> Command[Literal["more", "__end__"]]:
        done = state["text"] == "stop"
        return Command(goto=END if done else "more", update={"steps": ["decided"]})

    builder = StateGraph(Text)
    builder.add_node("decide", decide)
    builder.add_node("more", note("more"))
    builder.add_edge(START, "decide")
    return builder


def chat_to_edit() -> StateGraph:
    builder = StateGraph(MessagesState)
    builder.add_node("answer", lambda state: {"messages": [AIMessage("ok", id="a1")]})
    builder.add_edge(START, "answer")
    return builder


# ---------------------------------------------------------------------------------------
# The registry

H = HumanMessage


SCENARIOS: list[Scenario] = [
    Scenario(
        "two processes in, out",
        "test_pregel.py::test_invoke_two_processes_in_out",
        two_processes,
        [Input({"n": 2})],
    ),
    Scenario(
        "conditional entry point",
        "test_pregel.py::test_conditional_entrypoint_graph",
        conditional_entry,
        [Input({"text": "left"})],
    ),
    Scenario(
        "fan out and join",
        "test_large_cases.py::test_in_one_fan_out_state_graph_waiting_edge",
        fan_out_join,
        [Input({"text": ""})],
    ),
    Scenario(
        "fan in without a join",
        "test_pregel.py::test_state_graph_w_config_inherited_state_keys",
        fan_in_twice,
        [Input({"text": ""})],
    ),
    Scenario(
        "router fanning out",
        "test_large_cases.py::test_conditional_state_graph_with_list_edge_inputs",
        fan_out_router,
        [Input({"text": ""})],
    ),
    Scenario(
        "agent loop",
        "test_large_cases.py::test_conditional_state_graph",
        agent_loop,
        [Input({"question": "why", "tries": 0})],
    ),
    Scenario(
        "recursion limit",
        "test_pregel.py::test_recursion_limit",
        recursion_limit,
        [Input({"n": 0})],
    ),
    Scenario(
        "two writes to a plain key",
        "test_pregel.py::test_invalid_update_raises",
        conflicting_writes,
        [Input({"n": 0})],
    ),
    Scenario(
        "node returning None",
        "test_pregel.py::test_node_returns_none",
        node_returns_none,
        [Input({"n": 1})],
    ),
    Scenario("node raising", "test_pregel.py::test_node_exception", node_raises, [Input({"n": 1})]),
    Scenario(
        "async node",
        "test_pregel_async.py::test_invoke_two_processes_in_out",
        async_nodes,
        [Input({"n": 2})],
    ),
    Scenario(
        "path map keyed by booleans",
        "test_large_cases.py::test_conditional_graph",
        bool_path_map,
        [Input({"n": 9})],
    ),
    Scenario(
        "two routers from one node",
        "test_pregel.py::test_multiple_conditional_edges",
        two_routers,
        [Input({"text": ""})],
    ),
    Scenario("deferred node", "test_pregel.py::test_defer_node", deferred, [Input({"text": ""})]),
    Scenario(
        "map-reduce with Send",
        "test_pregel.py::test_send_sequences",
        map_reduce,
        [Input({"subjects": ["cat", "ox", "bee"]})],
    ),
    Scenario(
        "route and Send together",
        "test_pregel.py::test_send_react_interrupt",
        send_and_route,
        [Input({"subjects": ["a", "b"]})],
    ),
    Scenario(
        "Send after a breakpoint",
        "test_pregel.py::test_send_dedupe_on_resume",
        send_after_interrupt,
        [Input({"subjects": ["x"]}), Input(None)],
        compile={"interrupt_after": ["plan"]},
        thread=True,
    ),
    Scenario(
        "Command goto", "test_pregel.py::test_command", command_goto, [Input({"topic": "my bill"})]
    ),
    Scenario(
        "multi-agent handoffs",
        "test_pregel.py::test_command_with_static_breakpoints",
        handoffs,
        [Input({"topic": "t"})],
    ),
    Scenario(
        "Command with destinations",
        "test_state.py::test_graph_with_destinations",
        command_destinations,
        [Input({"topic": "t"})],
    ),
    Scenario(
        "Command goto Send",
        "test_pregel.py::test_send_command",
        command_send,
        [Input({"subjects": ["a", "b"]})],
    ),
    Scenario(
        "Command to the parent graph",
        "test_pregel.py::test_parent_command",
        command_parent,
        [Input({"topic": "t"})],
    ),
    Scenario(
        "Command goto and a static edge",
        "test_pregel.py::test_command_goto_and_edges",
        command_and_edge,
        [Input({"topic": "t"})],
    ),
    Scenario(
        "interrupt() and resume",
        "test_interruption.py::test_interrupt_function",
        ask_once,
        [Input({"question": "q"}), Resume("yes")],
        thread=True,
    ),
    Scenario(
        "two interrupts in one node",
        "test_pregel.py::test_multiple_interrupt_state",
        ask_twice,
        [Input({"question": "q"}), Resume("Ada"), Resume("36")],
        thread=True,
    ),
    Scenario(
        "review then Command",
        "test_interruption.py::test_interrupt_with_command",
        approve_or_reject,
        [Input({"question": "draft"}), Resume("ok")],
        thread=True,
    ),
    Scenario(
        "interrupt() inside a subgraph",
        "test_pregel.py::test_interrupt_subgraph",
        interrupt_in_subgraph,
        [Input({"question": "q"}), Resume("deep")],
        thread=True,
    ),
    Scenario(
        "interrupt() beside a parallel node",
        "test_pregel.py::test_interrupt_task_functional",
        interrupt_in_parallel,
        [Input({"question": "q"}), Resume("fine")],
        thread=True,
    ),
    Scenario(
        "interrupt_before and resume",
        "test_interruption.py::test_interrupt_before",
        static_breakpoint,
        [Input({"text": ""}), Input(None)],
        compile={"interrupt_before": ["two"]},
        thread=True,
    ),
    Scenario(
        "interrupt_after and resume",
        "test_interruption.py::test_interrupt_after",
        static_breakpoint,
        [Input({"text": ""}), Input(None)],
        compile={"interrupt_after": ["one"]},
        thread=True,
    ),
    Scenario(
        "edit the state at a breakpoint",
        "test_pregel.py::test_state_graph_update_state_before",
        edit_then_resume,
        [Input({"text": "hi"}), Update({"text": "edited"}), Input(None)],
        compile={"interrupt_before": ["shout"]},
        thread=True,
        history=True,
    ),
    Scenario(
        "update_state as a node",
        "test_pregel.py::test_update_state_as_node",
        edit_then_resume,
        [Input({"text": "hi"}), Update({"text": "skip"}, as_node="shout")],
        compile={"interrupt_before": ["shout"]},
        thread=True,
    ),
    Scenario(
        "replay from a checkpoint",
        "test_time_travel.py::test_replay",
        travel,
        [Input({"text": ""}), Replay(1)],
        thread=True,
        history=True,
    ),
    Scenario(
        "fork with update_state",
        "test_time_travel.py::test_fork",
        travel,
        [Input({"text": ""}), ForkEdit(1, {"steps": ["edited"]})],
        thread=True,
        history=True,
    ),
    Scenario(
        "history of a run",
        "test_pregel.py::test_checkpoint_history",
        travel,
        [Input({"text": ""}), Input({"text": "again"})],
        thread=True,
        history=True,
    ),
    Scenario(
        "subgraph with shared keys",
        "test_pregel.py::test_nested_graph",
        shared_keys_subgraph,
        [Input({"text": "hi"})],
    ),
    Scenario(
        "subgraph called from a node",
        "test_pregel.py::test_nested_graph_state",
        subgraph_in_function,
        [Input({"text": "  x  "})],
    ),
    Scenario(
        "subgraphs three deep",
        "test_pregel.py::test_doubly_nested_graph_state",
        nested_subgraphs,
        [Input({"text": ""})],
    ),
    Scenario(
        "subgraph writing a shared reducer key",
        "test_pregel.py::test_subgraph_checkpoint_true",
        subgraph_shared_reducer,
        [Input({"text": ""})],
    ),
    Scenario(
        "subgraph's own interrupt_before",
        "test_interruption.py::test_subgraph_interrupt_before",
        subgraph_own_breakpoint,
        [Input({"text": ""}), Input(None)],
        thread=True,
    ),
    Scenario(
        "retry until it works",
        "test_retry.py::test_retry_policy",
        retried(ConnectionError, 2, max_attempts=3),
        [Input({"n": 0})],
    ),
    Scenario(
        "retry gives up",
        "test_retry.py::test_retry_exhausted",
        retried(ConnectionError, 5, max_attempts=2),
        [Input({"n": 0})],
    ),
    Scenario(
        "default retry_on skips ValueError",
        "test_retry.py::test_default_retry_on",
        retried(ValueError, 1, max_attempts=3),
        [Input({"n": 0})],
    ),
    Scenario(
        "retry_on an exception type",
        "test_retry.py::test_retry_on_type",
        retried(KeyError, 1, max_attempts=3, retry_on=KeyError),
        [Input({"n": 0})],
    ),
    Scenario(
        "pydantic state",
        "test_pydantic.py::test_pydantic_state",
        pydantic_state,
        [Input({"item": "pen", "quantity": 2})],
    ),
    Scenario(
        "pydantic instance as input",
        "test_pydantic.py::test_pydantic_input",
        pydantic_state,
        [Input(Order(item="cup", quantity=3))],
    ),
    Scenario(
        "pydantic field validator",
        "test_pydantic.py::test_validators",
        pydantic_validator,
        [Input({"name": " ada lovelace"})],
    ),
    Scenario(
        "dataclass state",
        "test_state.py::test_dataclass_state",
        dataclass_state,
        [Input({"total": 5})],
    ),
    Scenario(
        "input and output schemas",
        "test_state.py::test_input_output_schema",
        input_output_schemas,
        [Input({"question": "owls"})],
    ),
    Scenario(
        "private state between nodes",
        "test_state.py::test_private_state",
        private_state,
        [Input({"question": "q"})],
    ),
    Scenario(
        "node input schema",
        "test_state.py::test_node_input_schema",
        node_input_schema,
        [Input({"question": "q", "notes": "n"})],
    ),
    Scenario(
        "get_stream_writer",
        "test_pregel.py::test_stream_mode_custom",
        stream_writer,
        [Input({"n": 0})],
    ),
    Scenario(
        "custom chunk before interrupt()",
        "test_pregel.py::test_interrupt_stream_mode_custom",
        writer_then_interrupt,
        [Input({"question": "q"}), Resume("yes")],
        thread=True,
    ),
    Scenario(
        "injected writer", "test_pregel.py::test_writer_injection", writer_param, [Input({"n": 0})]
    ),
    Scenario(
        "get_config in a node",
        "test_pregel.py::test_get_config",
        config_reader,
        [Input({"text": ""})],
        thread=True,
    ),
    Scenario(
        "injected config",
        "test_pregel.py::test_config_injection",
        config_param,
        [Input({"text": ""})],
        thread=True,
    ),
    Scenario(
        "context_schema and runtime",
        "test_runtime.py::test_injected_runtime",
        runtime_context,
        [Input({"text": ""})],
        context=Ctx("ada"),
    ),
    Scenario(
        "get_runtime in a node",
        "test_runtime.py::test_get_runtime",
        get_runtime_context,
        [Input({"text": ""})],
        context=Ctx("bob"),
    ),
    Scenario(
        "MessagesState agent with tool calls",
        "test_messages_state.py::test_messages_state",
        tool_agent,
        [Input({"messages": [H("time?", id="h1")]})],
    ),
    Scenario(
        "RemoveMessage",
        "test_messages_state.py::test_remove_message",
        remove_messages,
        [Input({"messages": [H("a", id="1"), H("b", id="2")]})],
    ),
    Scenario(
        "replace a message by id",
        "test_messages_state.py::test_add_messages_replace",
        replace_by_id,
        [Input({"messages": [H("quiet", id="1")]})],
    ),
    Scenario(
        "MessagesState subclass",
        "test_messages_state.py::test_messages_state_subclass",
        messages_subclass,
        [Input({"messages": [H("a", id="1")], "summary": ""})],
    ),
    Scenario(
        "messages as tuples",
        "test_messages_state.py::test_add_messages_coercion",
        messages_as_tuples,
        [Input({"messages": [H("x", id="h")]})],
    ),
    Scenario(
        "chat thread over two turns",
        "test_messages_state.py::test_messages_checkpoint",
        chat_thread,
        [Input({"messages": [H("one", id="h1")]}), Input({"messages": [H("two", id="h2")]})],
        thread=True,
        history=True,
    ),
    Scenario(
        "compile(cache=...)",
        "test_pregel.py::test_node_cache",
        cached,
        [Input({"n": 1}), Input({"n": 1})],
        compile=lambda: {"cache": _in_memory_cache()},
    ),
    Scenario(
        "store injected into a node",
        "test_pregel.py::test_store_injected",
        store_injected,
        [Input({"count": 0}), Input({"count": 0})],
        compile=lambda: {"store": _in_memory_store()},
        thread=True,
    ),
    Scenario(
        "get_store() across runs",
        "test_pregel.py::test_store_injected (get_store)",
        store_get_store,
        [Input({"count": 0}), Input({"count": 0})],
        compile=lambda: {"store": _in_memory_store()},
    ),
    Scenario(
        "runtime.store search and namespaces",
        "test_runtime.py::Runtime.store",
        store_on_runtime,
        [Input({"count": 0})],
        compile=lambda: {"store": _in_memory_store()},
    ),
    Scenario(
        "store delete",
        "test_pregel.py::test_store_injected (BaseStore.delete)",
        store_delete,
        [Input({"count": 0})],
        compile=lambda: {"store": _in_memory_store()},
    ),
    Scenario(
        "subgraph sharing the parent's store",
        "test_pregel.py::test_store_injected (a subgraph's nodes)",
        store_in_subgraph,
        [Input({"count": 0})],
        compile=lambda: {"store": _in_memory_store()},
    ),
    Scenario(
        "interrupt() asked again until valid",
        "test_interruption.py::test_interrupt_loop (validation)",
        ask_until_valid,
        [Input({"question": "q"}), Resume("ten"), Resume(-1), Resume(30)],
        thread=True,
    ),
    Scenario(
        "resume after a node failed",
        "test_pregel.py::test_checkpoint_recovery",
        fails_once,
        [Input({"text": ""}), Input(None)],
        thread=True,
    ),
    Scenario(
        'interrupt_before="*"',
        "test_interruption.py::test_interrupt_before (all nodes)",
        interrupt_before_all,
        [Input({"text": ""}), Input(None), Input(None)],
        compile={"interrupt_before": "*"},
        thread=True,
    ),
    Scenario(
        "edit then route at a breakpoint",
        "test_pregel.py::test_conditional_state_graph_with_breakpoints",
        router_after_breakpoint,
        [Input({"text": "hi"}), Update({"text": "a long text"}), Input(None)],
        compile={"interrupt_after": ["read"]},
        thread=True,
    ),
    Scenario(
        "input without every key",
        "test_state.py::test_typed_dict_partial_input",
        partial_input,
        [Input({"steps": []})],
    ),
    Scenario(
        "RemoveMessage(REMOVE_ALL_MESSAGES)",
        "test_messages_state.py::test_remove_all_messages",
        remove_all_messages,
        [Input({"messages": [H("a", id="1"), H("b", id="2")]})],
    ),
    Scenario(
        "pydantic state with messages",
        "test_messages_state.py::test_messages_state (pydantic)",
        pydantic_messages,
        [Input({"messages": [H("hi", id="h")]})],
    ),
    Scenario(
        "a thread run twice",
        "test_pregel.py::test_invoke_checkpoint",
        loop_with_counter,
        [Input({"n": 0}), Input({"n": 1})],
        thread=True,
        history=True,
    ),
    Scenario(
        "Send after interrupt() and resume",
        "test_pregel.py::test_send_react_interrupt_control",
        ask_in_send_targets,
        [Input({"question": "q"}), Resume("yes")],
        thread=True,
    ),
    Scenario(
        "replay a thread stopped at a breakpoint",
        "test_time_travel.py::test_replay_from_interrupt",
        static_breakpoint,
        [Input({"text": ""}), Replay(0)],
        compile={"interrupt_before": ["three"]},
        thread=True,
        history=True,
    ),
    Scenario(
        "resume after one of two parallel nodes failed",
        "test_pregel.py::test_pending_writes_resume",
        parallel_one_fails,
        [Input({"text": ""}), Input(None)],
        thread=True,
        history=True,
    ),
    Scenario(
        "Command on a pydantic state",
        "test_pregel.py::test_command_pydantic_state",
        command_pydantic,
        [Input({"title": "urgent: printer"})],
    ),
    Scenario(
        "node returning an empty dict",
        "test_pregel.py::test_falsy_return_from_task",
        empty_update,
        [Input({"text": "x"})],
    ),
    Scenario(
        "pydantic state with optional fields",
        "test_pydantic.py::test_optional_fields",
        optional_fields,
        [Input({"name": "Grace"})],
    ),
    Scenario(
        "conditional entry to several nodes",
        "test_pregel.py::test_conditional_entrypoint_to_multiple_state_graph",
        conditional_entry_fan_out,
        [Input({"text": "both"})],
    ),
    Scenario(
        "branch then join",
        "test_large_cases.py::test_in_one_fan_out_state_graph_waiting_edge_via_branch",
        branch_then_join,
        [Input({"text": ""})],
    ),
    Scenario(
        "update_state as a named node re-routes",
        "test_pregel.py::test_update_state_as_node (router)",
        update_as_named_node,
        [Input({"text": "x"}), Update({"text": "b"}, as_node="start"), Input(None)],
        compile={"interrupt_after": ["start"]},
        thread=True,
        history=True,
    ),
    Scenario(
        "Command with an update only",
        "test_pregel.py::test_command_with_update_only",
        command_update_only,
        [Input({"text": "hi"})],
    ),
    Scenario(
        "Send to a node with its own schema",
        "test_pregel.py::test_send_to_nested_graphs (map-reduce, own schema)",
        send_own_schema,
        [Input({"subjects": ["cats"]})],
    ),
    Scenario(
        "history through interrupt() and resume",
        "test_interruption.py::test_interrupt_history",
        interrupt_history,
        [Input({"question": "q"}), Resume("Ada")],
        thread=True,
        history=True,
    ),
    Scenario(
        "TypedDict with total=False",
        "test_state.py::test_typed_dict_not_required",
        not_required_keys,
        [Input({"topic": "owls"}), Input({"notes": ["first"]})],
    ),
    Scenario(
        "edit while interrupt() waits",
        "test_interruption.py::test_update_state_while_interrupted",
        ask_twice,
        [Input({"question": "q"}), Update({"answers": ["edit"]}), Input(None), Resume("Ada")],
        thread=True,
        history=True,
    ),
    Scenario(
        "Command goto END",
        "test_pregel.py::test_command_goto_end",
        command_goto_end,
        [Input({"text": "stop"})],
    ),
    Scenario(
        'interrupt_after="*"',
        "test_interruption.py::test_interrupt_after (all nodes)",
        interrupt_before_all,
        [Input({"text": ""}), Input(None), Input(None)],
        compile={"interrupt_after": "*"},
        thread=True,
    ),
    Scenario(
        "update_state removing a message",
        "test_messages_state.py::test_remove_message_via_update_state",
        chat_to_edit,
        [
            Input({"messages": [H("hi", id="h1")]}),
            Update({"messages": [RemoveMessage(id="h1")]}),
        ],
        thread=True,
        history=True,
    ),
]


# ---------------------------------------------------------------------------------------
# What graphnb gives differently, and why (docs/interop.md's table quotes these reasons)


UNWRITTEN_DEFAULTS = (
    "graphnb's own calls (mode=, thread_id=) stream the state as its model instance, every "
    "field set, a field's default from the start; LangGraph streams a dict of the fields "
    "written (a plain field shows once the input or a node writes it). Kept on purpose: a "
    "typed state is a whole model everywhere, and a node reads that same default on both "
    "engines. The LangGraph program's own calls (invoke(input, config), stream_mode=) on "
    "the imported graph get LangGraph's dicts"
)

DIFFERENCES: dict[str, Difference] = {
    "async node": Difference(
        "graphnb runs an async node under the plain invoke()/stream() (on its own event "
        "loop); LangGraph's sync API refuses it with a TypeError",
        {
            "0:input/error": ABSENT,
            "0:input/updates": [{"one": {"n": 6}}],
            "0:input/values": [{"n": 2}, {"n": 6}],
            "0:input:invoke": {"n": 6},
        },
    ),
    "interrupt() beside a parallel node": Difference(
        "graphnb holds a step whose node stopped in interrupt(): the parallel node's write "
        "is kept with the interrupt and applied with the resumed node's (the same final "
        "state); LangGraph shows it in the paused thread's state at once and streams it "
        "again, marked cached, on resume",
        {
            "0:input/updates": [{"quick": {"answers": ["quick"]}}, {"__interrupt__": ["ok?"]}],
            "0:input/values": [
                {"answers": [], "question": "q"},
                {"answers": [], "question": "q", "__interrupt__": ["ok?"]},
            ],
            "0:input:state/next": ["ask", "quick"],
            "0:input:state/values": {"answers": [], "question": "q"},
            "1:resume/updates": [{"ask": {"answers": ["fine"]}}],
        },
    ),
    "pydantic field validator": Difference(
        "graphnb keeps what the model's validators return (the state is always a valid "
        "model); LangGraph validates a node's input copy but stores and streams the raw "
        "write",
        {
            "0:input/values": [
                {"name": "Ada Lovelace", "log": []},
                {"name": "Grace Hopper", "log": ["Ada Lovelace"]},
            ],
            "0:input:invoke/name": "Grace Hopper",
        },
        cite="langchain-ai/langgraph#4074",
    ),
    "dataclass state": Difference(
        UNWRITTEN_DEFAULTS,
        {
            "0:input/values": [
                {"fruit": [], "total": 5},
                {"fruit": ["apple"], "total": 6},
                {"fruit": ["apple", "apple"], "total": 7},
            ]
        },
        langgraphs_calls_same=True,
    ),
    "pydantic state with messages": Difference(
        UNWRITTEN_DEFAULTS,
        {
            "0:input/values": [
                {
                    "messages": [
                        {
                            "type": "human",
                            "content": "hi",
                            "id": "h",
                            "name": None,
                            "tool_calls": [],
                            "tool_call_id": None,
                        }
                    ],
                    "turns": 0,
                },
                {
                    "messages": [
                        {
                            "type": "human",
                            "content": "hi",
                            "id": "h",
                            "name": None,
                            "tool_calls": [],
                            "tool_call_id": None,
                        },
                        {
                            "type": "ai",
                            "content": "re: hi",
                            "id": "r",
                            "name": None,
                            "tool_calls": [],
                            "tool_call_id": None,
                        },
                    ],
                    "turns": 1,
                },
            ]
        },
        langgraphs_calls_same=True,
    ),
    "resume after one of two parallel nodes failed": Difference(
        "graphnb runs a failed step again whole, from the state before it: the parallel "
        "node that had finished runs again on resume and its update streams then (the "
        "same final state); LangGraph keeps its write as a pending write, shows it in the "
        "failed thread's state and streams it again marked cached; graphnb's failed step "
        "also leaves an error checkpoint in the history",
        {
            "0:input/updates": [],
            "0:input:state/values": {"steps": [], "text": ""},
            "0:input:state/next": ["shaky", "steady"],
            "1:input/updates": [
                {"shaky": {"steps": ["shaky"]}},
                {"steady": {"steps": ["steady"]}},
                {"join": {"steps": ["join"]}},
            ],
            "history": [
                {"values": {"steps": [], "text": ""}, "next": ["shaky", "steady"]},
                {"values": {"steps": [], "text": ""}, "next": ["shaky", "steady"]},
                {"values": {"steps": ["shaky", "steady"], "text": ""}, "next": ["join"]},
                {"values": {"steps": ["shaky", "steady", "join"], "text": ""}, "next": []},
            ],
        },
    ),
    'interrupt_after="*"': Difference(
        "graphnb makes no stop after the last node, where nothing is left to run (the run "
        "ends; its state and next nodes are LangGraph's); LangGraph stops there too, "
        "streaming an empty __interrupt__ update, and a resume then runs nothing",
        {"1:input/updates": [{"two": {"steps": ["two"]}}]},
    ),
    "Command on a pydantic state": Difference(
        UNWRITTEN_DEFAULTS,
        {
            "0:input/values": [
                {"title": "urgent: printer", "status": "open", "history": []},
                {
                    "title": "urgent: printer",
                    "status": "open",
                    "history": ["triaged urgent: printer"],
                },
                {
                    "title": "urgent: printer",
                    "status": "escalated",
                    "history": ["triaged urgent: printer", "up"],
                },
            ]
        },
        langgraphs_calls_same=True,
    ),
    "pydantic state with optional fields": Difference(
        UNWRITTEN_DEFAULTS,
        {
            "0:input/values": [
                {"name": "Grace", "nickname": None, "tags": []},
                {"name": "Grace", "nickname": "Gra", "tags": ["nicknamed"]},
            ]
        },
        langgraphs_calls_same=True,
    ),
}

SCENARIOS = [
    dataclasses.replace(scenario, expected=DIFFERENCES.get(scenario.name, SAME))
    for scenario in SCENARIOS
]
assert set(DIFFERENCES) <= {scenario.name for scenario in SCENARIOS}
