"""The run context of an agent (run id, thread id, user data), held in a context variable.

The runner sets it around each phase, so code the phase starts, tools running in their own
tasks or worker threads included, reads it with :func:`current_context` without passing it
along: tasks and ``asyncio.to_thread`` copy the context variables of their creator.

Example:
    >>> with use_context(AgentContext("run-1", "thread-1", {"user": "ada"})):
    ...     current_context().data["user"]
    'ada'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..errors import GraphRuntimeError

__all__ = ["AgentContext", "current_context", "use_context"]


@dataclass(frozen=True, slots=True)
class AgentContext:
    """What code running inside an agent run may know about it.

    Attributes:
        run_id: the graph run's id.
        thread_id: the conversation's thread, if the run belongs to one.
        data: user data given to the run.
        phase: the state of the ReAct machine the code runs in.
        round: the ReAct round (1 for the first model call).
    """

    run_id: str
    thread_id: str | None
    data: Mapping[str, Any] = field(default_factory=dict)
    phase: str = "IDLE"
    round: int = 0


_current: ContextVar[AgentContext] = ContextVar("graphnb_agent_context")


def current_context() -> AgentContext:
    """The context of the agent run the caller is part of.

    Raises:
        GraphRuntimeError: called outside an agent run.
    """
    try:
        return _current.get()
    except LookupError:
        raise GraphRuntimeError(
            "current_context() was called outside an agent run; call it from a tool or "
            "from code the agent runs"
        ) from None


@contextmanager
def use_context(context: AgentContext) -> Iterator[AgentContext]:
    """Make ``context`` current for the ``with`` block (and tasks started inside it)."""
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)
