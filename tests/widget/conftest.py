"""A fake comm that records what a widget sends, so the protocol is tested without a kernel.

ipywidgets opens a comm through ``ipywidgets.comm.create_comm``; patching that one function
(as anywidget's own tests do) gives every widget a :class:`FakeComm`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

pytest.importorskip("anywidget", reason="the widget tests need graphnb[widget]")

from graphnb.widget.protocol import REQUEST_COMMAND


class FakeComm:
    """Records messages; ``receive`` plays a message from the front end."""

    kernel = "fake-kernel"  # ipywidgets sends nothing through a comm without a kernel
    comm_id = "fake-comm"

    def __init__(self, **kwargs: Any) -> None:
        self.opened = kwargs
        self.sent: list[dict[str, Any]] = []
        self._on_msg: Any = None
        self._requests = 0
        self.closed = False

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.sent.append(data)

    def on_msg(self, callback: Any) -> None:
        self._on_msg = callback

    def on_close(self, callback: Any) -> None:
        pass

    def close(self, *args: Any, **kwargs: Any) -> None:
        self.closed = True

    # -- what tests read -------------------------------------------------------------------

    def custom(self, type_: str | None = None) -> list[dict[str, Any]]:
        """Custom messages pushed to the front end (optionally of one ``type``)."""
        found = [m["content"] for m in self.sent if m.get("method") == "custom"]
        return [m for m in found if type_ is None or m.get("type") == type_]

    def updates(self, key: str) -> list[Any]:
        """Every value of trait ``key`` sent to the front end, in order."""
        updates = [m["state"] for m in self.sent if m.get("method") == "update"]
        return [state[key] for state in updates if key in state]

    def clear(self) -> None:
        self.sent.clear()

    # -- playing the front end ---------------------------------------------------------------

    def receive_update(self, state: dict[str, Any]) -> None:
        """The front end changed traits (``model.save_changes()``)."""
        self._on_msg({"content": {"data": {"method": "update", "state": state}}, "buffers": []})

    def receive(self, content: Any) -> dict[str, Any]:
        """The front end made a request (``invoke`` of the builder's request command).

        Returns the builder's reply, as the front end's promise resolves with it.
        """
        return self.invoke(REQUEST_COMMAND, content)

    def invoke(self, name: str, message: Any) -> Any:
        """The front end invoked a command (anywidget's ``experimental.invoke``): its reply."""
        self._requests += 1
        number = f"request-{self._requests}"
        envelope = {"id": number, "kind": "anywidget-command", "name": name, "msg": message}
        self.receive_custom(envelope)
        for sent in reversed(self.sent):
            content = sent.get("content", {}) if sent.get("method") == "custom" else {}
            if content.get("kind") == "anywidget-command-response" and content["id"] == number:
                return content["response"]
        raise AssertionError(f"the command {name!r} got no reply")

    def receive_custom(self, content: Any) -> None:
        """The front end sent a custom message (``model.send(content)``)."""
        self._on_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


@pytest.fixture
def comms(monkeypatch: pytest.MonkeyPatch) -> list[FakeComm]:
    """Every comm opened during the test, newest last."""
    import ipywidgets.comm

    opened: list[FakeComm] = []

    def create_comm(*args: Any, **kwargs: Any) -> FakeComm:
        opened.append(FakeComm(**kwargs))
        return opened[-1]

    monkeypatch.setattr(ipywidgets.comm, "create_comm", create_comm)
    return opened


@pytest.fixture
def comm(comms: list[FakeComm]) -> Any:
    """The comm of the (first) widget the test creates."""

    class Latest:
        def __getattr__(self, name: str) -> Any:
            return getattr(comms[-1], name)

    return Latest()


def run_async(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine on a fresh event loop (the kernel's loop, in a notebook)."""
    return asyncio.run(coroutine)


NOTEBOOK = '''
import time
from typing import Annotated

from graphnb import END, START, GraphState, StateField, StateGraph, append


class Story(GraphState):
    """A topic, notes, and a streamed text."""

    topic: str = "graphs"
    notes: Annotated[list[str], StateField(reducer=append)] = []
    text: Annotated[str, StateField(streaming=True, alias="Text")] = ""


WORDS = 20
DELAY = 0.0


def research(state: Story) -> dict:
    """Collect facts about the topic."""
    return {"notes": [f"facts about {state.topic}"]}


def draft(state: Story):
    """Stream the text in many small chunks."""
    for index in range(WORDS):
        if DELAY:
            time.sleep(DELAY)
        yield f"{state.topic}-{index} "


def broken(state: Story) -> dict:
    """Fail on purpose."""
    raise ValueError("the model is down")


def _private(state):
    return {}


graph = (
    StateGraph(Story, name="story")
    .add_node("research", research)
    .add_node("draft", draft)
    .add_edge(START, "research")
    .add_edge("research", "draft")
    .add_edge("draft", END)
)
'''


@pytest.fixture
def notebook(tmp_path: Any) -> dict[str, Any]:
    """A namespace as a notebook's kernel holds it: names defined in ``__main__``.

    The cell's code is compiled with a real file name so ``inspect.getsource`` finds it,
    as IPython arranges for notebook cells.
    """
    cell = tmp_path / "cell.py"
    cell.write_text(NOTEBOOK)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(NOTEBOOK, str(cell), "exec", dont_inherit=True), namespace)
    return namespace
