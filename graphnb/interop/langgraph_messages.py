"""LangGraph's ``stream_mode="messages"`` on an imported graph.

LangGraph streams each LangChain message a node writes, once, as ``(message, metadata)``:
a message already in the node's input (the conversation so far, by its id) is not streamed
again, a message without an id is given one. graphnb's engine streams the same run as
events; :class:`MessagesMode` turns a node's finished update into those pairs, and the
states between steps into the ids already seen.

Tokens of a chat model called inside a node are not streamed one by one here (LangGraph
gets them from LangChain's callbacks): the model's whole reply comes when its node ends.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..engine.events import NodeFinished, StepFinished

__all__ = ["MessagesMode", "messages_mode"]

MESSAGES = "messages"
_EVENTS = "events"


def messages_mode(options: dict[str, Any]) -> MessagesMode | None:
    """Take ``"messages"`` out of the run's ``mode`` option, asking for events instead.

    Returns the converter to run the stream's items through, or ``None`` when the run
    does not ask for messages (``options`` is then left as it was).
    """
    mode = options.get("mode", "events")
    asked = [mode] if isinstance(mode, str) else list(mode)
    if MESSAGES not in asked:
        return None
    single = isinstance(mode, str)
    keeps_events = _EVENTS in asked
    engine = [m for m in asked if m != MESSAGES]
    if not keeps_events:
        engine.append(_EVENTS)
    options["mode"] = engine[0] if single else engine
    return MessagesMode(single=single, keeps_events=keeps_events)


class MessagesMode:
    """Turns a stream of graphnb's events into LangGraph's ``messages`` items, in order."""

    def __init__(self, *, single: bool, keeps_events: bool) -> None:
        self.single = single
        self.keeps_events = keeps_events
        self.seen: set[str] = set()

    def convert(self, items: Iterable[Any]) -> Iterator[Any]:
        """The stream's items with each event replaced by the messages it carries."""
        for item in items:
            yield from self._items(item)

    async def aconvert(self, items: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """:meth:`convert` for an async stream."""
        async for item in items:
            for converted in self._items(item):
                yield converted

    def _items(self, item: Any) -> list[Any]:
        if self.single:
            return list(self._messages(item))
        mode, value = item
        if mode != _EVENTS:
            return [item]
        found: list[Any] = [(MESSAGES, pair) for pair in self._messages(value)]
        if self.keeps_events:
            found.append(item)
        return found

    def _messages(self, event: Any) -> list[tuple[Any, dict[str, Any]]]:
        if isinstance(event, StepFinished):
            # the conversation so far: the next step's nodes find these in their input
            values = event.state if isinstance(event.state, Mapping) else vars(event.state)
            for message in _messages_in(values.values()):
                if message.id is not None:
                    self.seen.add(message.id)
            return []
        if not isinstance(event, NodeFinished):
            return []
        metadata = {
            "langgraph_step": event.step,
            "langgraph_node": event.node,
            "langgraph_path": ("__pregel_pull", event.node)
            if event.instance is None
            else ("__pregel_push", event.instance),
        }
        found = []
        for message in _messages_in((event.update or {}).values()):
            if message.id in self.seen:
                continue
            if message.id is None:
                message.id = str(uuid.uuid4())  # as LangGraph names it
            self.seen.add(message.id)
            found.append((message, metadata))
        return found


def _messages_in(values: Iterable[Any]) -> Iterator[Any]:
    """The LangChain messages among ``values``, alone or in a list."""
    from langchain_core.messages import BaseMessage

    for value in values:
        if isinstance(value, BaseMessage):
            yield value
        elif isinstance(value, Sequence) and not isinstance(value, str):
            yield from (item for item in value if isinstance(item, BaseMessage))
