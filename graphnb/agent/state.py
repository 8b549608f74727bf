"""The graph state of a ReAct run: JSON all the way, so a conversation persists as a thread."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict

from ..reducers import append
from ..state import GraphState, StateField
from .errors import ErrorKind
from .messages import Message, ToolCall
from .results import ToolResult

__all__ = ["AgentFailure", "AgentRunState", "RunStatus"]

RunStatus = Literal["running", "completed", "failed"]


class AgentFailure(BaseModel):
    """Why a phase failed, as the FAILED state and the caller see it.

    Attributes:
        phase: the state that failed.
        event: ``"ERROR"`` or ``"TIMEOUT"``.
        kind: the error's kind (see :data:`~graphnb.agent.ErrorKind`).
        message: a developer-facing description; never shown as the answer.
        retryable: whether the classifier thinks trying again may help.
        retry_after: seconds the other side asked to wait, if it said.
        attempt: failed attempts of this phase in a row, this one included.
        decision: what FAILED decided and why, once it has.
        streamed: the text the phase had streamed before it failed (withdrawn by an
            ``abandoned`` event; never part of the answer).
    """

    model_config = ConfigDict(frozen=True)

    phase: str
    event: Literal["ERROR", "TIMEOUT"]
    kind: ErrorKind
    message: str
    retryable: bool
    retry_after: float | None = None
    attempt: int = 1
    decision: str | None = None
    streamed: str = ""


class AgentRunState(GraphState):
    """The state a ReAct run works on.

    Attributes:
        phase: the machine state the last node ran in.
        event: the event the last node fired.
        prompt: the user prompt waiting to be received.
        messages: the conversation (kept by the thread across runs).
        pending: the tool calls of the current round.
        results: their results, between TOOL_CALLING and OBSERVING.
        draft: the model's answer text, between THINKING and RESPONDING.
        answer: the answer shown to the user (the fallback answer after a RESET).
        rounds: model calls that answered in this run.
        attempts: failures since the last round that completed (observed or answered).
        failure: the last failure, if any.
        status: ``running``, ``completed`` or ``failed``.
    """

    phase: str = "IDLE"
    event: str | None = None
    prompt: str | None = None
    messages: Annotated[list[Message], StateField(reducer=append)] = []
    pending: list[ToolCall] = []
    results: list[ToolResult] = []
    draft: str = ""
    answer: str = ""
    rounds: int = 0
    attempts: int = 0
    failure: AgentFailure | None = None
    status: RunStatus = "running"
