"""Builder.connect in a real JupyterLab: a served thread's history in the side panel, and
its pending interrupt answered from the panel, the run happening on the server.

The kernel serves the graph (``graphnb.serve.serving`` on loopback) and starts a run on
it with ``langgraph-sdk``; the builder only reads and answers over HTTP.
"""

from __future__ import annotations

from typing import Any

SERVED = """
from langgraph_sdk import get_sync_client
from graphnb import END, START, StateGraph, interrupt
from graphnb.checkpoint import MemorySaver
from graphnb.serve import serving
from graphnb.widget import Builder

def ask(state: dict) -> dict:
    return {"name": interrupt("what is your name?")}

def greet(state: dict) -> dict:
    return {"greeting": f"Hello, {state['name']}!"}

graph = (
    StateGraph(dict, name="asker")
    .add_node("ask", ask)
    .add_node("greet", greet)
    .add_edge(START, "ask")
    .add_edge("ask", "greet")
    .add_edge("greet", END)
    .compile(checkpointer=MemorySaver())
)
service = serving([graph])
url = service.__enter__()
client = get_sync_client(url=url, api_key=None)
thread_id = client.threads.create()["thread_id"]
client.runs.wait(thread_id, "asker", input={})
builder = Builder.connect(url, assistant="asker")
builder
"""


def test_a_served_thread_is_browsed_and_its_interrupt_answered(lab: Any) -> None:
    kernel = lab.open_notebook("connect", [SERVED])
    try:
        page = lab.page
        lab.builder()
        thread = str(kernel.json("thread_id"))
        lab.side_tab("threads")
        listed = page.get_by_test_id(f"thread-{thread}")
        listed.wait_for(timeout=30_000)
        assert listed.get_attribute("data-status") == "interrupted"

        lab.side(listed).click()
        page.get_by_test_id("history-item-0").wait_for(timeout=30_000)
        assert page.get_by_test_id("history-item-1").count() == 1  # the input checkpoint too

        # The thread waits at ask's interrupt(): its answer form, as after a run here.
        question = page.get_by_test_id("interrupt-question-ask")
        question.wait_for(timeout=30_000)
        assert question.inner_text() == "what is your name?"
        answer = lab.side(page.get_by_test_id("interrupt-answer-ask"))
        answer.click()
        answer.type("Ada")
        page.keyboard.press("Control+Enter")
        page.get_by_test_id("interrupt-ask").wait_for(state="detached", timeout=30_000)
        # The answer is handled off the kernel's loop: wait for the server's run to end.
        lab.wait_until(
            lambda: kernel.json("client.threads.get(thread_id)['status']") == "idle",
            timeout=30,
        )
        values = kernel.json("client.threads.get_state(thread_id)['values']")
        assert values == {"name": "Ada", "greeting": "Hello, Ada!"}
        assert kernel.json("client.threads.get(thread_id)['status']") == "idle"
        lab.assert_no_js_errors()
    finally:
        kernel.run("builder.close(); client.close(); service.__exit__(None, None, None)")
