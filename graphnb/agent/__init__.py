"""The ReAct agent runner of seed 001, on the graphnb engine.

The agent is the seed's state machine (IDLE, THINKING, TOOL_CALLING, OBSERVING,
RESPONDING, COMPLETED, FAILED) run as a graph: tool calls run concurrently with typed
results, failures go to FAILED which retries or resets with a friendly answer, and every
step is recorded in a trace log. See ``docs/agent.md``.
"""

from __future__ import annotations

from .batch import DEFAULT_TOOL_THREADS, BatchPolicy, run_tool_calls
from .context import AgentContext, current_context, use_context
from .errors import (
    ErrorInfo,
    ErrorKind,
    MalformedToolCall,
    ModelError,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnavailable,
    RoundLimitExceeded,
    ScriptExhausted,
    ToolDefinitionError,
    ToolRateLimited,
    classify_error,
)
from .events import (
    AbandonedEvent,
    AgentEvent,
    RetryEvent,
    TokenEvent,
    ToolCallEvent,
    ToolResultEvent,
    TransitionEvent,
)
from .messages import Message, ModelReply, ToolCall, call
from .model import ChatModel, TokenSink
from .openai_model import OpenAIChatModel
from .react import REACT_MACHINE, ReactEvent, ReactState
from .results import Failure, FailureReason, RateLimited, Success, Timeout, ToolResult
from .retry import RetryDecision, RetryPolicy
from .runner import DEFAULT_FALLBACK, AgentResult, PhaseTimeouts, ReActAgent
from .scripted import Hang, ScriptedModel
from .state import AgentFailure, AgentRunState
from .tools import Tool, Toolset, tool
from .trace import PhaseStats, TraceLog, TraceRecord

__all__ = [
    "DEFAULT_FALLBACK",
    "DEFAULT_TOOL_THREADS",
    "REACT_MACHINE",
    "AbandonedEvent",
    "AgentContext",
    "AgentEvent",
    "AgentFailure",
    "AgentResult",
    "AgentRunState",
    "BatchPolicy",
    "ChatModel",
    "ErrorInfo",
    "ErrorKind",
    "Failure",
    "FailureReason",
    "Hang",
    "MalformedToolCall",
    "Message",
    "ModelError",
    "ModelRateLimited",
    "ModelReply",
    "ModelServerError",
    "ModelTimeout",
    "ModelUnavailable",
    "OpenAIChatModel",
    "PhaseStats",
    "PhaseTimeouts",
    "RateLimited",
    "ReActAgent",
    "ReactEvent",
    "ReactState",
    "RetryDecision",
    "RetryEvent",
    "RetryPolicy",
    "RoundLimitExceeded",
    "ScriptExhausted",
    "ScriptedModel",
    "Success",
    "Timeout",
    "TokenEvent",
    "TokenSink",
    "Tool",
    "ToolCall",
    "ToolCallEvent",
    "ToolDefinitionError",
    "ToolRateLimited",
    "ToolResult",
    "ToolResultEvent",
    "Toolset",
    "TraceLog",
    "TraceRecord",
    "TransitionEvent",
    "call",
    "classify_error",
    "current_context",
    "run_tool_calls",
    "tool",
    "use_context",
]
