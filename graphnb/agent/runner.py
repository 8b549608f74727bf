"""The ReAct runner: the seed's machine, run as a graph on the graphnb engine.

Each machine state is a node; the node does the state's work (call the model, run the
tools, ...) and names the next event; the machine's transitions are the conditional
edges. So an agent run streams the engine's events (tokens and tool activity arrive as
custom :class:`~graphnb.Chunk` events, state changes as ``NodeFinished`` updates) and
persists like any graph run.

There is one implementation, and it is async: every phase is a coroutine, sync and async
hooks and tools go through the same code (``_maybe_await``, worker threads), and the sync
entry point :meth:`ReActAgent.run` is derived from :meth:`ReActAgent.arun` with
``asyncio.run``. So there is no sync twin differing only in ``await`` to keep in step;
keep it that way (a sync ``stream`` would be a thin driver over ``astream``, never a copy).

Example:
    >>> from graphnb.agent import ReActAgent, ScriptedModel, call
    >>> def weather(city: str) -> str:
    ...     '''Today's weather in a city.'''
    ...     return f"sunny in {city}"
    >>> model = ScriptedModel([call("weather", city="Paris"), "It is sunny in Paris."])
    >>> result = ReActAgent(model, [weather]).run("Weather in Paris?")
    >>> result.status, result.answer
    ('completed', 'It is sunny in Paris.')
    >>> [r.name for r in result.trace.of("transition")]  # doctest: +NORMALIZE_WHITESPACE
    ['IDLE -> THINKING', 'THINKING -> TOOL_CALLING', 'TOOL_CALLING -> OBSERVING',
     'OBSERVING -> THINKING', 'THINKING -> RESPONDING', 'RESPONDING -> COMPLETED']
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, assert_never

from pydantic_core import to_jsonable_python

from ..engine.context import RunContext
from ..engine.events import StreamMode
from .batch import (
    DEFAULT_TOOL_THREADS,
    BatchPolicy,
    check_max_threads,
    describe_error,
    run_tool_calls,
)
from .context import AgentContext, use_context
from .errors import ErrorInfo, RoundLimitExceeded
from .events import (
    AbandonedEvent,
    RetryEvent,
    TokenEvent,
    ToolCallEvent,
    ToolResultEvent,
    TransitionEvent,
)
from .messages import Message, ToolCall
from .model import ChatModel
from .react import REACT_MACHINE, ReactEvent, ReactState
from .results import Failure, RateLimited, Success, Timeout, ToolResult
from .retry import RetryPolicy
from .state import AgentFailure, AgentRunState, RunStatus
from .tools import Tool, Toolset
from .trace import TraceLog

if TYPE_CHECKING:
    from ..engine.compiled import CompiledGraph
    from ..graph import StateGraph
    from ..spec import GraphSpec

__all__ = ["DEFAULT_FALLBACK", "AgentResult", "PhaseTimeouts", "ReActAgent"]

DEFAULT_FALLBACK = "Sorry, I could not finish that just now. Please try again in a moment."
"""The answer a user gets when a run gives up (RESET)."""

_S = ReactState
_E = ReactEvent


def _check_seconds(name: str, seconds: float | None) -> None:
    if seconds is not None and not seconds > 0:
        raise ValueError(f"{name} must be a positive number of seconds or None, got {seconds}")


@dataclass(frozen=True, slots=True)
class PhaseTimeouts:
    """Seconds each phase may take before it fires TIMEOUT (``None``: no limit).

    The tool-calling phase is bounded by the batch deadline and per-call timeouts instead.
    """

    thinking: float | None = 60.0
    observing: float | None = 10.0
    responding: float | None = 10.0

    def __post_init__(self) -> None:
        for name in ("thinking", "observing", "responding"):
            _check_seconds(f"PhaseTimeouts.{name}", getattr(self, name))


@dataclass(frozen=True, slots=True)
class AgentResult:
    """The outcome of one agent run.

    Attributes:
        answer: what to show the user: the answer, or the fallback answer.
        status: ``completed``, or ``failed`` when the run gave up.
        failure: why it failed (developer-facing), if it did.
        rounds: model calls that answered.
        state: the final graph state.
        trace: the run's trace log.
    """

    answer: str
    status: RunStatus
    failure: AgentFailure | None
    rounds: int
    state: AgentRunState = field(repr=False)
    trace: TraceLog = field(repr=False)

    @property
    def ok(self) -> bool:
        """Whether the run completed."""
        return self.status == "completed"

    @property
    def messages(self) -> list[Message]:
        """The conversation after the run."""
        return list(self.state.messages)


@dataclass(slots=True)
class _Scope:
    """What belongs to one run and not to the shared agent: its trace and random draws."""

    trace: TraceLog
    rng: random.Random


_scope: ContextVar[_Scope] = ContextVar("graphnb_agent_scope")


class ReActAgent:
    """A ReAct agent driven by :data:`~graphnb.agent.REACT_MACHINE` on the graph engine.

    Args:
        model: the chat model.
        tools: tools or plain typed functions, or a :class:`Toolset` (which may expose a
            subset per state: the model is offered the THINKING subset, and only the
            TOOL_CALLING subset may run).
        system_prompt: sent first on every model call (not stored in the conversation).
        max_rounds: model calls a run may make before it fails with the round limit.
        retry: the policy FAILED consults to choose RETRY or RESET.
        batch_policy: ``"collect"`` or ``"all_or_nothing"`` for each batch of tool calls.
        call_timeout: seconds one tool call may take.
        batch_deadline: seconds one batch of tool calls may take.
        max_tool_threads: threads one batch's sync tools may run in at once (each batch
            gets its own, one per sync call up to this bound).
        timeouts: per-phase timeouts.
        fallback_answer: the friendly answer after a RESET.
        respond: formats the model's answer in RESPONDING (sync or async).
        observe: inspects each batch's results in OBSERVING (sync or async); raising
            fails the phase.
        checkpointer: keeps conversations as threads: a saver (``MemorySaver()``...) or
            its URL (``"sqlite:///threads.db"``); runs then take ``thread_id=...``.
        compile_options: more arguments for ``StateGraph.compile``.
        seed: seeds the backoff jitter, for reproducible runs.
    """

    def __init__(
        self,
        model: ChatModel,
        tools: Toolset | Iterable[Tool | Callable[..., Any]] = (),
        *,
        system_prompt: str | None = None,
        max_rounds: int = 8,
        retry: RetryPolicy | None = None,
        batch_policy: BatchPolicy = "collect",
        call_timeout: float | None = 30.0,
        batch_deadline: float | None = 60.0,
        max_tool_threads: int = DEFAULT_TOOL_THREADS,
        timeouts: PhaseTimeouts | None = None,
        fallback_answer: str = DEFAULT_FALLBACK,
        respond: Callable[[str], str | Awaitable[str]] | None = None,
        observe: Callable[[Sequence[ToolResult]], object] | None = None,
        checkpointer: Any = None,
        compile_options: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> None:
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
        _check_seconds("call_timeout", call_timeout)
        _check_seconds("batch_deadline", batch_deadline)
        check_max_threads("max_tool_threads", max_tool_threads)
        if batch_policy not in ("collect", "all_or_nothing"):
            raise ValueError(
                f"batch_policy must be 'collect' or 'all_or_nothing', got {batch_policy!r}"
            )
        self.model = model
        self.tools = tools if isinstance(tools, Toolset) else Toolset(tools)
        # A misspelt state would silently leave the real one exposing every tool.
        unknown = [name for name in self.tools.states if name not in ReactState.__members__]
        if unknown:
            raise ValueError(
                f"the toolset gives tools to {', '.join(unknown)}, which are not states of "
                f"the ReAct machine ({', '.join(ReactState.__members__)})"
            )
        self.system_prompt = system_prompt
        self.max_rounds = max_rounds
        self.retry = retry or RetryPolicy()
        self.batch_policy: BatchPolicy = batch_policy
        self.call_timeout = call_timeout
        self.batch_deadline = batch_deadline
        self.max_tool_threads = max_tool_threads
        self.timeouts = timeouts or PhaseTimeouts()
        self.fallback_answer = fallback_answer
        self.respond = respond
        self.observe = observe
        self.seed = seed
        self.machine = REACT_MACHINE
        self.graph: StateGraph[AgentRunState] = REACT_MACHINE.to_graph(
            AgentRunState,
            {
                _S.IDLE: self._idle,
                _S.THINKING: self._thinking,
                _S.TOOL_CALLING: self._tool_calling,
                _S.OBSERVING: self._observing,
                _S.RESPONDING: self._responding,
                _S.FAILED: self._failed,
                _S.COMPLETED: self._completed,
            },
        )
        self.recursion_limit = 10 + 3 * max_rounds * (self.retry.max_attempts + 1)
        options = dict(compile_options or {})
        if checkpointer is not None:
            options["checkpointer"] = checkpointer
        self.compiled: CompiledGraph[AgentRunState] = self.graph.compile(
            recursion_limit=self.recursion_limit, **options
        )
        self._orphans: dict[str, _Scope] = {}

    def __repr__(self) -> str:
        return f"<ReActAgent on {self.model.name!r} with {len(self.tools)} tools>"

    @property
    def spec(self) -> GraphSpec:
        """The graph spec of the agent (the ReAct machine with its bindings)."""
        return self.compiled.spec

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return REACT_MACHINE._repr_mimebundle_(include, exclude)

    # -- threads ---------------------------------------------------------------------------

    def seed_thread(self, thread_id: str, messages: Iterable[Message | Mapping[str, Any]]) -> str:
        """Start the conversation ``thread_id`` with prior messages, before its first run.

        Needs a checkpointer. Returns the id of the seed checkpoint.
        """
        history = [Message.model_validate(m) for m in messages]
        return self.compiled.seed_thread(thread_id, {"messages": history})

    def conversation(self, thread_id: str) -> list[Message]:
        """The messages of the conversation ``thread_id`` as persisted (needs a checkpointer)."""
        return list(self.compiled.get_state(thread_id).values.messages)

    # -- running ---------------------------------------------------------------------------

    def _input(self, prompt: str) -> dict[str, Any]:
        return {
            "prompt": prompt,
            "phase": _S.IDLE.name,
            "event": None,
            "pending": [],
            "results": [],
            "draft": "",
            "answer": "",
            "rounds": 0,
            "attempts": 0,
            "failure": None,
            "status": "running",
        }

    def _options(self, thread_id: str | None, data: Mapping[str, Any] | None) -> dict[str, Any]:
        options: dict[str, Any] = {"context": dict(data or {})}
        if thread_id is not None:
            options["thread_id"] = thread_id
        return options

    def _new_scope(self, trace: TraceLog | None) -> _Scope:
        return _Scope(trace if trace is not None else TraceLog(), random.Random(self.seed))

    async def arun(
        self,
        prompt: str,
        *,
        thread_id: str | None = None,
        data: Mapping[str, Any] | None = None,
        trace: TraceLog | None = None,
    ) -> AgentResult:
        """Answer ``prompt``; never raises for model or tool failures (they end in FAILED).

        Args:
            prompt: the user's message.
            thread_id: the conversation's thread (needs a checkpointer to persist).
            data: user data, visible to tools through :func:`current_context`.
            trace: a log to record into; a new one when omitted.
        """
        scope = self._new_scope(trace)
        token = _scope.set(scope)
        try:
            final = await self.compiled.ainvoke(
                self._input(prompt), **self._options(thread_id, data)
            )
        finally:
            _scope.reset(token)
        return AgentResult(
            final.answer, final.status, final.failure, final.rounds, final, scope.trace
        )

    def run(
        self,
        prompt: str,
        *,
        thread_id: str | None = None,
        data: Mapping[str, Any] | None = None,
        trace: TraceLog | None = None,
    ) -> AgentResult:
        """Sync :meth:`arun`, for scripts (in a notebook, ``await agent.arun(...)``)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.arun(prompt, thread_id=thread_id, data=data, trace=trace))
        raise RuntimeError(
            "ReActAgent.run() cannot be called from a running event loop (a notebook cell "
            "is one); use `await agent.arun(...)` instead"
        )

    async def astream(
        self,
        prompt: str,
        *,
        mode: StreamMode | Sequence[StreamMode] = "events",
        thread_id: str | None = None,
        data: Mapping[str, Any] | None = None,
        trace: TraceLog | None = None,
    ) -> AsyncIterator[Any]:
        """Run and yield what ``mode`` selects, as :meth:`CompiledGraph.astream` does.

        ``mode="custom"`` yields the agent's activity as dicts with a ``type``: ``token``,
        ``transition``, ``tool_call``, ``tool_result``, ``retry``.
        """
        scope = self._new_scope(trace)
        stream = self.compiled.astream(
            self._input(prompt), mode=mode, **self._options(thread_id, data)
        )
        # The scope is set only while the engine works (the tasks it starts copy it): an
        # async generator runs in its consumer's context, and one the consumer leaves
        # early is closed later from another context, where no token could be reset.
        while True:
            token = _scope.set(scope)
            try:
                item = await anext(stream)
            except StopAsyncIteration:
                return
            finally:
                _scope.reset(token)
            yield item

    # -- helpers shared by the phases -----------------------------------------------------

    def _scope_of(self, context: RunContext) -> _Scope:
        try:
            return _scope.get()
        except LookupError:  # the compiled graph driven directly, without arun/astream
            if len(self._orphans) > 64:
                self._orphans.clear()
            return self._orphans.setdefault(context.run_id, self._new_scope(None))

    def _enter(self, state: AgentRunState, context: RunContext, phase: ReactState) -> _Scope:
        scope = self._scope_of(context)
        if state.event is not None:
            scope.trace.add("transition", f"{state.phase} -> {phase.name}", event=state.event)
            context.write(
                TransitionEvent(
                    type="transition", source=state.phase, target=phase.name, event=state.event
                )
            )
        return scope

    def _agent_context(
        self, state: AgentRunState, context: RunContext, phase: ReactState
    ) -> AgentContext:
        return AgentContext(
            context.run_id, context.thread_id, context.data, phase.name, state.rounds
        )

    def _fail(
        self,
        state: AgentRunState,
        phase: ReactState,
        info: ErrorInfo,
        *,
        timeout: bool = False,
        streamed: str = "",
    ) -> dict[str, Any]:
        attempt = state.attempts + 1
        failure = AgentFailure(
            phase=phase.name,
            event="TIMEOUT" if timeout else "ERROR",
            kind=info.kind,
            message=info.message,
            retryable=info.retryable,
            retry_after=info.retry_after,
            attempt=attempt,
            streamed=streamed,
        )
        return {
            "failure": failure,
            "attempts": attempt,
            "event": _E.TIMEOUT if timeout else _E.ERROR,
        }

    def _raised(
        self,
        state: AgentRunState,
        phase: ReactState,
        error: Exception,
        limit: asyncio.Timeout,
        seconds: float | None,
        streamed: str = "",
    ) -> dict[str, Any]:
        """The update of a phase that raised.

        TIMEOUT has one meaning, "did not answer in time", whichever timer said so: the
        phase's own limit, or one below it (``OpenAIChatModel(timeout=...)`` raises
        ``ModelTimeout``, a ``TimeoutError``). Any other exception fires ERROR.
        """
        if isinstance(error, TimeoutError) and limit.expired():
            info = ErrorInfo("timeout", True, f"{phase.name} took longer than {seconds}s")
            return self._fail(state, phase, info, timeout=True, streamed=streamed)
        info = self.retry.classify(error)
        timeout = isinstance(error, TimeoutError)
        return self._fail(state, phase, info, timeout=timeout, streamed=streamed)

    # -- the phases ------------------------------------------------------------------------

    async def _idle(self, state: AgentRunState, context: RunContext) -> dict[str, Any] | None:
        scope = self._enter(state, context, _S.IDLE)
        with scope.trace.span("phase", _S.IDLE.name):
            if state.prompt is None:
                return None
            return {
                "messages": [Message(role="user", content=state.prompt)],
                "prompt": None,
                "event": _E.RECEIVE_PROMPT,
            }

    async def _thinking(self, state: AgentRunState, context: RunContext) -> dict[str, Any]:
        scope = self._enter(state, context, _S.THINKING)
        with scope.trace.span("phase", _S.THINKING.name):
            if state.rounds >= self.max_rounds:
                error = RoundLimitExceeded(
                    f"the agent used its {self.max_rounds} ReAct round(s) without an answer",
                    limit=self.max_rounds,
                )
                return self._fail(state, _S.THINKING, self.retry.classify(error))
            messages = list(state.messages)
            if self.system_prompt:
                messages.insert(0, Message(role="system", content=self.system_prompt))
            offered = self.tools.visible(_S.THINKING)

            streamed: list[str] = []

            def token(text: str) -> None:
                streamed.append(text)
                context.write(TokenEvent(type="token", text=text))

            seconds = self.timeouts.thinking
            limit = asyncio.timeout(seconds)
            with scope.trace.span("model_call", self.model.name, round=state.rounds + 1) as note:
                try:
                    with use_context(self._agent_context(state, context, _S.THINKING)):
                        async with limit:
                            reply = await self.model.complete(
                                messages, tools=offered, on_token=token
                            )
                except Exception as error:
                    update = self._raised(
                        state, _S.THINKING, error, limit, seconds, "".join(streamed)
                    )
                    note.update(ok=False, error=update["failure"].kind)
                    return update
                note.update(tool_calls=len(reply.tool_calls))
            done = {"rounds": state.rounds + 1}
            if reply.tool_calls:
                message = Message(
                    role="assistant", content=reply.text or None, tool_calls=reply.tool_calls
                )
                return {
                    **done,
                    "messages": [message],
                    "pending": list(reply.tool_calls),
                    "event": _E.NEED_TOOL,
                }
            return {**done, "draft": reply.text, "event": _E.DIRECT_ANSWER}

    async def _tool_calling(self, state: AgentRunState, context: RunContext) -> dict[str, Any]:
        scope = self._enter(state, context, _S.TOOL_CALLING)
        trace = scope.trace
        with trace.span("phase", _S.TOOL_CALLING.name, calls=len(state.pending)):
            for call in state.pending:
                context.write(
                    ToolCallEvent(
                        type="tool_call", id=call.id, name=call.name, arguments=call.arguments
                    )
                )

            # Results come in the order they are known, so under all_or_nothing the call
            # that failed first comes before the siblings it cancelled.
            failures: list[ToolResult] = []

            def record(call: ToolCall, result: ToolResult) -> None:
                # What the model will read is made from the stored value, which is JSON
                # data whatever the tool returned (dict keys that are dates, say).
                stored = _storable(result)
                if not isinstance(stored, Success):
                    failures.append(stored)
                duration = _duration(stored)
                trace.add(
                    "tool_call",
                    call.name,
                    start=trace.now() - duration,
                    duration=duration,
                    ok=isinstance(stored, Success),
                    call_id=call.id,
                    result=type(stored).__name__,
                )
                context.write(
                    ToolResultEvent(
                        type="tool_result",
                        id=call.id,
                        name=call.name,
                        status=_STATUS[type(stored)],
                        content=_observation(stored),
                    )
                )

            allowed = {t.name for t in self.tools.visible(_S.TOOL_CALLING)}
            try:
                with use_context(self._agent_context(state, context, _S.TOOL_CALLING)):
                    results = await run_tool_calls(
                        state.pending,
                        self.tools,
                        policy=self.batch_policy,
                        call_timeout=self.call_timeout,
                        deadline=self.batch_deadline,
                        allowed=allowed,
                        on_result=record,
                        max_threads=self.max_tool_threads,
                    )
            except Exception as error:
                info = self.retry.classify(error)
                return self._fail(
                    state, _S.TOOL_CALLING, info, timeout=isinstance(error, TimeoutError)
                )
            if self.batch_policy == "all_or_nothing" and failures:
                cause = failures[0]
                return self._fail(
                    state, _S.TOOL_CALLING, _tool_error(cause), timeout=isinstance(cause, Timeout)
                )
            return {"results": [_storable(r) for r in results], "event": _E.TOOL_RESULT}

    async def _observing(self, state: AgentRunState, context: RunContext) -> dict[str, Any]:
        scope = self._enter(state, context, _S.OBSERVING)
        with scope.trace.span("phase", _S.OBSERVING.name):
            seconds = self.timeouts.observing
            limit = asyncio.timeout(seconds)
            try:
                async with limit:
                    if self.observe is not None:
                        with use_context(self._agent_context(state, context, _S.OBSERVING)):
                            await _maybe_await(self.observe(list(state.results)))
            except Exception as error:
                return self._raised(state, _S.OBSERVING, error, limit, seconds)
            replies = [
                Message(role="tool", content=_observation(r), tool_call_id=r.call_id, name=r.tool)
                for r in state.results
            ]
            return {
                "messages": replies,
                "results": [],
                "pending": [],
                "attempts": 0,
                "failure": None,
                "event": _E.THINK_COMPLETE,
            }

    async def _responding(self, state: AgentRunState, context: RunContext) -> dict[str, Any]:
        scope = self._enter(state, context, _S.RESPONDING)
        with scope.trace.span("phase", _S.RESPONDING.name):
            seconds = self.timeouts.responding
            limit = asyncio.timeout(seconds)
            try:
                async with limit:
                    answer = state.draft
                    if self.respond is not None:
                        with use_context(self._agent_context(state, context, _S.RESPONDING)):
                            answer = await _maybe_await(self.respond(state.draft))
                        if not isinstance(answer, str):
                            raise TypeError(
                                f"respond returned {type(answer).__name__} {answer!r}; "
                                "expected the answer as a str"
                            )
            except Exception as error:
                return self._raised(state, _S.RESPONDING, error, limit, seconds)
            return {
                "messages": [Message(role="assistant", content=answer)],
                "answer": answer,
                "draft": "",
                "status": "completed",
                "attempts": 0,
                "failure": None,
                "event": _E.GENERATE_COMPLETE,
            }

    async def _completed(self, state: AgentRunState, context: RunContext) -> None:
        self._enter(state, context, _S.COMPLETED)

    async def _failed(self, state: AgentRunState, context: RunContext) -> dict[str, Any]:
        scope = self._enter(state, context, _S.FAILED)
        with scope.trace.span("phase", _S.FAILED.name):
            failure = state.failure
            if failure is None:  # FAILED entered without a failure: nothing to retry
                failure = AgentFailure(
                    phase=_S.FAILED.name,
                    event="ERROR",
                    kind="internal",
                    message="FAILED was entered without a recorded failure",
                    retryable=False,
                )
            info = ErrorInfo(failure.kind, failure.retryable, failure.message, failure.retry_after)
            decision = self.retry.decide(info, failure.attempt, scope.rng)
            verdict = f"{'retry' if decision.retry else 'reset'}: {decision.reason}"
            scope.trace.add(
                "retry",
                failure.phase,
                duration=decision.delay,
                ok=decision.retry,
                error=failure.kind,
                attempt=failure.attempt,
                reason=decision.reason,
            )
            context.write(
                RetryEvent(
                    type="retry",
                    phase=failure.phase,
                    retry=decision.retry,
                    delay=decision.delay,
                    reason=decision.reason,
                    attempt=failure.attempt,
                )
            )
            if failure.streamed:
                # Tokens already shown are not the answer: say so, and what replaces them.
                context.write(
                    AbandonedEvent(
                        type="abandoned",
                        phase=failure.phase,
                        text=failure.streamed,
                        replacement="" if decision.retry else self.fallback_answer,
                    )
                )
            recorded = failure.model_copy(update={"decision": verdict})
            if decision.retry:
                if decision.delay > 0:
                    await asyncio.sleep(decision.delay)
                return {"failure": recorded, "event": _E.RETRY}
            closing = [
                Message(
                    role="tool",
                    content="cancelled: the agent gave up",
                    tool_call_id=call.id,
                    name=call.name,
                )
                for call in _unanswered(state)
            ]
            closing.append(Message(role="assistant", content=self.fallback_answer))
            return {
                "failure": recorded,
                "answer": self.fallback_answer,
                "status": "failed",
                "messages": closing,
                "pending": [],
                "results": [],
                "draft": "",
                "event": _E.RESET,
            }


def _unanswered(state: AgentRunState) -> list[ToolCall]:
    """Tool calls of the last assistant message that got no tool reply.

    Answering them keeps the conversation valid for the next model call.
    """
    # Only replies after that message count: a model may reuse an id of an earlier turn.
    answered: set[str | None] = set()
    for message in reversed(state.messages):
        if message.role == "tool":
            answered.add(message.tool_call_id)
        elif message.role == "assistant" and message.tool_calls:
            return [c for c in message.tool_calls if c.id not in answered]
        elif message.role == "user":
            break
    return []


def _storable(result: ToolResult) -> ToolResult:
    """The result with its value as JSON data, so it persists with the thread.

    Models and dataclasses become dicts, dates ISO strings (as values or as dict keys);
    anything else its ``str``. A value that cannot be stored (its ``str`` raises, it
    contains itself) makes the call a failure the model can read.
    """
    if not isinstance(result, Success):
        return result
    try:
        value = to_jsonable_python(result.value, fallback=str)
    except Exception as error:
        return Failure(
            result.call_id,
            result.tool,
            f"its result cannot be stored as JSON: {describe_error(error)}",
            "error",
            result.duration,
        )
    return replace(result, value=value)


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _duration(result: ToolResult) -> float:
    match result:
        case Success(duration=seconds) | Failure(duration=seconds):
            return seconds
        case Timeout(after=seconds):
            return seconds
        case RateLimited():
            return 0.0
        case _:
            assert_never(result)


def _observation(result: ToolResult) -> str:
    """What the model is told about a tool call's outcome."""
    match result:
        case Success(value=value):
            if isinstance(value, str):
                return value
            return json.dumps(value, ensure_ascii=False, default=str)
        case Failure(error=error, reason=reason):
            return f"error ({reason}): {error}"
        case Timeout(after=after):
            return f"timeout: the tool gave no answer within {after:g}s"
        case RateLimited(retry_after=after):
            wait = f"; retry after {after:g}s" if after is not None else ""
            return f"rate limited{wait}"
        case _:
            assert_never(result)


_STATUS: dict[type[ToolResult], Literal["success", "failure", "timeout", "ratelimited"]] = {
    Success: "success",
    Failure: "failure",
    Timeout: "timeout",
    RateLimited: "ratelimited",
}

_NOT_RETRYABLE = frozenset({"invalid-arguments", "unknown-tool", "not-allowed"})


def _tool_error(result: ToolResult) -> ErrorInfo:
    """How a failed all-or-nothing batch is classified, from its first failure."""
    text = f"tool `{result.tool}` ({result.call_id}): {_observation(result)}"
    match result:
        case Success():
            return ErrorInfo("internal", False, text)
        case Failure(reason=reason):
            return ErrorInfo("tool", reason not in _NOT_RETRYABLE, text)
        case Timeout():
            return ErrorInfo("timeout", True, text)
        case RateLimited(retry_after=after):
            return ErrorInfo("rate_limited", True, text, after)
        case _:
            assert_never(result)
