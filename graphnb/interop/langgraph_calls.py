"""LangGraph's calling conventions on an imported graph's compiled form.

A LangGraph program runs its graph as ``graph.invoke(input, config)``,
``graph.stream(input, config, stream_mode="updates")``, resumes it with
``Command(resume=...)`` from ``langgraph.types`` and reads it with
``graph.get_state(config)``. A graph read by :func:`~graphnb.interop.from_langgraph`
compiles to :class:`LangGraphCalls`, a :class:`~graphnb.CompiledGraph` that takes those
too, so the program's own calls run unchanged: the config's
``configurable.thread_id`` / ``checkpoint_id`` and ``recursion_limit`` become graphnb's
``thread_id=``, ``checkpoint_id=`` and ``recursion_limit=``, ``stream_mode`` is graphnb's
``mode``. graphnb's own keyword arguments keep working and win over the config.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterator, Mapping, Set
from typing import Any, NoReturn

from pydantic import BaseModel

from ..checkpoint_errors import ThreadNotFoundError
from ..engine.compiled import CompiledGraph
from ..errors import GraphRuntimeError, NodeError
from ..human import Command
from ..records import StateSnapshot
from ..schema import is_graph_state
from .langgraph_messages import messages_mode
from .langgraph_runtime import CONTEXT_KEY

__all__ = ["LangGraphCalls", "LangGraphSnapshot"]


class LangGraphSnapshot(StateSnapshot[Any]):
    """graphnb's snapshot, with LangGraph's ``config`` and ``parent_config`` on top.

    ``graph.invoke(None, snapshot.config)`` then travels back to it, as on LangGraph.
    """

    @property
    def config(self) -> dict[str, Any]:
        """The config naming this checkpoint of its thread."""
        return {"configurable": {"thread_id": self.thread_id, "checkpoint_id": self.checkpoint_id}}

    @property
    def parent_config(self) -> dict[str, Any] | None:
        """The config naming the checkpoint before this one, if any."""
        if self.parent_id is None:
            return None
        return {"configurable": {"thread_id": self.thread_id, "checkpoint_id": self.parent_id}}


def _langgraph_snapshot(snapshot: StateSnapshot[Any]) -> LangGraphSnapshot:
    """``snapshot`` as LangGraph shows it.

    An edit (``update_state``) of a thread waiting in ``interrupt()`` shows no pending
    interrupt, as LangGraph's new checkpoint has none: the node asks again when the
    thread resumes. graphnb's edit keeps it, so an answer given to it still counts.
    """
    fields = {f.name: getattr(snapshot, f.name) for f in dataclasses.fields(snapshot)}
    if snapshot.source == "update":
        fields["interrupts"] = tuple(i for i in snapshot.interrupts if i.when != "during")
    return LangGraphSnapshot(**fields)


_SKIP = object()
"""What :meth:`LangGraphCalls._seen` returns for an item the caller did not ask for."""


def _one_per_stop(history: list[StateSnapshot[Any]]) -> list[StateSnapshot[Any]]:
    """``history`` as LangGraph lists it: one checkpoint where a node stopped in interrupt().

    LangGraph keeps a pending interrupt on the checkpoint its step started from; graphnb
    writes an ``interrupt`` checkpoint on top of that one, the same state and next nodes
    with the interrupt. The step's own checkpoint is left out where such a copy follows.
    """
    covered = {
        (s.parent_id, s.next, repr(s.values))
        for s in history
        if s.source == "interrupt" and s.parent_id is not None
    }
    return [s for s in history if (s.checkpoint_id, s.next, repr(s.values)) not in covered]


class LangGraphCalls(CompiledGraph[Any]):
    """A compiled imported graph taking LangGraph's ``config`` and ``stream_mode`` too.

    Its ``invoke`` takes and returns the keys of the LangGraph graph's input and output
    schemas (``io_keys``), as LangGraph's does.
    """

    io_keys: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (None, None)

    def invoke(
        self, input: Any = None, config: Mapping[str, Any] | None = None, **options: Any
    ) -> Any:
        """:meth:`CompiledGraph.invoke`, also as LangGraph's ``invoke(input, config)``."""
        style = _langgraph_style(config, options)
        options.pop("stream_mode", None)  # LangGraph's invoke takes one; the result is the same
        threaded = self.checkpointer is not None
        given = self._taken(_input(input))
        run_options = self._replaying(given, _options(config, options, threaded=threaded))
        if style and self._unwritten() is not None:
            # LangGraph's result is a dict of the channels written (see _as_langgraphs)
            states = list(self._langgraph_values(given, run_options))
            return self._returned(states[-1] if states else None)
        try:
            result = super().invoke(given, **run_options)
        except GraphRuntimeError as error:
            _reraise(error, style)
        return self._returned(result)

    async def ainvoke(
        self, input: Any = None, config: Mapping[str, Any] | None = None, **options: Any
    ) -> Any:
        """:meth:`CompiledGraph.ainvoke`, also as LangGraph's ``ainvoke(input, config)``."""
        style = _langgraph_style(config, options)
        options.pop("stream_mode", None)
        threaded = self.checkpointer is not None
        given = self._taken(_input(input))
        run_options = _options(config, options, threaded=threaded)
        run_options = await asyncio.to_thread(self._replaying, given, run_options)
        if style and self._unwritten() is not None:
            # LangGraph's result is a dict of the channels written (see _as_langgraphs)
            states = [
                item
                async for _, item in self._aas_langgraphs(
                    given, {**run_options, "mode": ["values"]}
                )
            ]
            return self._returned(states[-1] if states else None)
        try:
            result = await super().ainvoke(given, **run_options)
        except GraphRuntimeError as error:
            _reraise(error, style)
        return self._returned(result)

    def _unwritten(self) -> frozenset[str] | None:
        """The fields LangGraph leaves out of a state until something writes them.

        A dataclass or Pydantic state's fields without a reducer (LangGraph's
        ``LastValue`` channels, empty until written); a reducer field starts from its
        empty value, shown at once. ``None`` for a TypedDict state, whose unwritten keys
        are absent on graphnb too and whose values are dicts already.
        """
        from .state import ORIGINAL_STATE

        model = self.schema.model
        if model is None or getattr(model, ORIGINAL_STATE, None) is None:
            return None
        return frozenset(name for name, f in self.schema.fields.items() if f.reducer.exclusive)

    def _written_before(self, given: Any, options: Mapping[str, Any]) -> set[str]:
        """The fields written before a run: its input's, and its thread's so far."""
        written: set[str] = set()
        if isinstance(given, Mapping):
            written.update(given)
        elif isinstance(given, BaseModel):
            written.update(given.model_fields_set)
        elif dataclasses.is_dataclass(given) and not isinstance(given, type):
            written.update(f.name for f in dataclasses.fields(given))
        thread = options.get("thread_id")
        if not isinstance(thread, str):
            return written
        try:
            snapshot = CompiledGraph.get_state(self, thread, options.get("checkpoint_id"))
        except ThreadNotFoundError:
            return written
        while True:
            for _, update in snapshot.writes:
                written.update(update)
            if snapshot.parent_id is None:
                return written
            snapshot = CompiledGraph.get_state(self, thread, snapshot.parent_id)

    def _as_langgraphs(self, given: Any, options: dict[str, Any]) -> Iterator[Any]:
        """A stream's ``(mode, item)`` pairs, its ``values`` as LangGraph streams them.

        LangGraph's values are a dict of the channels that hold a value: a dataclass or
        Pydantic state's plain field shows once its input or a node wrote it (graphnb's
        own calls keep the state's model instance, every field set). The run's
        ``updates`` say what was written; they are streamed only when asked for.
        """
        asked = list(options["mode"])
        written = self._written_before(given, options)
        items = super().stream(given, **{**options, "mode": [*asked, "updates"]})
        try:
            for mode, item in items:
                shown = self._seen(mode, item, written, asked)
                if shown is not _SKIP:
                    yield mode, shown
        except GraphRuntimeError as error:
            _reraise(error, True)

    async def _aas_langgraphs(self, given: Any, options: dict[str, Any]) -> AsyncIterator[Any]:
        """Async :meth:`_as_langgraphs`."""
        asked = list(options["mode"])
        written = await asyncio.to_thread(self._written_before, given, options)
        items = super().astream(given, **{**options, "mode": [*asked, "updates"]})
        try:
            async for mode, item in items:
                shown = self._seen(mode, item, written, asked)
                if shown is not _SKIP:
                    yield mode, shown
        except GraphRuntimeError as error:
            _reraise(error, True)

    def _seen(self, mode: str, item: Any, written: set[str], asked: list[str]) -> Any:
        """One streamed item as LangGraph streams it (``_SKIP``: an update not asked for).

        An update adds the fields it wrote to ``written``.
        """
        if mode == "updates":
            for update in item.values():
                if isinstance(update, Mapping):
                    written.update(update)
            return item if "updates" in asked else _SKIP
        if mode == "values":
            return self._shown(item, (self._unwritten() or frozenset()) - written)
        return item

    def _langgraph_values(self, given: Any, options: dict[str, Any]) -> Iterator[Any]:
        for _, item in self._as_langgraphs(given, {**options, "mode": ["values"]}):
            yield item

    def _shown(self, values: Any, left_out: Set[str]) -> Any:
        """``values`` as a dict, without the fields ``left_out``."""
        if is_graph_state(values):
            values = self.schema.values_of(values)
        if not isinstance(values, Mapping):
            return values
        return {key: value for key, value in values.items() if key not in left_out}

    def _replaying(self, given: Any, options: dict[str, Any]) -> dict[str, Any]:
        """A run's options; a replay's start from a copy of the checkpoint it replays.

        LangGraph 1.x starts a replay (input ``None`` at a ``checkpoint_id``, not a
        resume) by writing a copy of that checkpoint (source ``fork``) and runs on from
        the copy, so the thread's history shows where the new branch starts; graphnb
        writes the copy as an edit changing nothing (source ``update``, as
        ``import_langgraph_threads`` reads LangGraph's ``fork``). As on LangGraph, an edit
        that is still the thread's last checkpoint is a branch already, and not copied.
        """
        addressed, thread = options.get("checkpoint_id"), options.get("thread_id")
        if given is not None or addressed is None or not isinstance(thread, str):
            return options
        replayed = CompiledGraph.get_state(self, thread, addressed)
        last = CompiledGraph.get_state(self, thread).checkpoint_id
        if replayed.source == "update" and last == replayed.checkpoint_id:
            return options
        copy = CompiledGraph.update_state(self, thread, {}, checkpoint_id=addressed)
        return {**options, "checkpoint_id": copy}

    def _last_writer(self, thread: str, checkpoint: str | None) -> str | None:
        """The node LangGraph's ``update_state`` edits as when given no ``as_node``.

        The graph's only node, or the one node of the last step that wrote the state
        (``None``: no node ran yet, several did, or a node is waiting in ``interrupt()``;
        the edit then keeps the next nodes as they are, graphnb's own way).
        """
        from ..engine.send import parse_key

        snapshot = CompiledGraph.get_state(self, thread, checkpoint)
        if any(stop.when == "during" for stop in snapshot.interrupts):
            return None
        if len(self.nodes) == 1:
            return next(iter(self.nodes))
        while not snapshot.ran:
            if snapshot.parent_id is None:
                return None
            snapshot = CompiledGraph.get_state(self, thread, snapshot.parent_id)
        writers = {parse_key(key) for key in snapshot.ran}
        return writers.pop() if len(writers) == 1 else None

    def _taken(self, given: Any) -> Any:
        keys = self.io_keys[0]
        if keys is None or not isinstance(given, Mapping):
            return given
        return {key: value for key, value in given.items() if key in keys}

    def _returned(self, result: Any) -> Any:
        keys = self.io_keys[1]
        if keys is None or not isinstance(result, Mapping):
            return result
        return {key: value for key, value in result.items() if key in keys}

    def _written_values_modes(self, style: bool, mode: Any) -> list[str] | None:
        """The run's modes when LangGraph's values must be streamed; else None.

        That is, for a call written for LangGraph streaming values of a state whose
        unwritten fields LangGraph leaves out (see :meth:`_as_langgraphs`).
        """
        modes = [mode] if isinstance(mode, str) else list(mode or ())
        wanted = style and "values" in modes and "messages" not in modes
        return modes if wanted and self._unwritten() is not None else None

    def stream(
        self, input: Any = None, config: Mapping[str, Any] | None = None, **options: Any
    ) -> Iterator[Any]:
        """:meth:`CompiledGraph.stream`, also as ``stream(input, config, stream_mode=...)``."""
        style = _langgraph_style(config, options)
        threaded = self.checkpointer is not None
        given = _input(input)
        run_options = self._replaying(given, _options(config, options, threaded=threaded))
        run_options = _modes(run_options)
        mode = run_options.get("mode")
        modes = self._written_values_modes(style, mode)
        if modes is not None:
            # LangGraph's values are a dict of the channels written (see _as_langgraphs)
            for item in self._as_langgraphs(given, {**run_options, "mode": modes}):
                yield item[1] if isinstance(mode, str) else item
            return
        messages = messages_mode(run_options)
        items = super().stream(given, **run_options)
        try:
            yield from (items if messages is None else messages.convert(items))
        except GraphRuntimeError as error:
            _reraise(error, style)

    async def astream(
        self, input: Any = None, config: Mapping[str, Any] | None = None, **options: Any
    ) -> AsyncIterator[Any]:
        """:meth:`CompiledGraph.astream`, also as ``astream(input, config, stream_mode=...)``."""
        style = _langgraph_style(config, options)
        threaded = self.checkpointer is not None
        given = _input(input)
        run_options = _options(config, options, threaded=threaded)
        run_options = await asyncio.to_thread(self._replaying, given, run_options)
        run_options = _modes(run_options)
        mode = run_options.get("mode")
        modes = self._written_values_modes(style, mode)
        if modes is not None:
            async for item in self._aas_langgraphs(given, {**run_options, "mode": modes}):
                yield item[1] if isinstance(mode, str) else item
            return
        messages = messages_mode(run_options)
        items = super().astream(given, **run_options)
        try:
            async for item in items if messages is None else messages.aconvert(items):
                yield item
        except GraphRuntimeError as error:
            _reraise(error, style)

    def get_state(
        self, thread_id: str | Mapping[str, Any], checkpoint_id: str | None = None, **options: Any
    ) -> Any:
        """:meth:`CompiledGraph.get_state`, also as LangGraph's ``get_state(config)``."""
        thread, checkpoint = _thread(thread_id, checkpoint_id)
        return _langgraph_snapshot(super().get_state(thread, checkpoint, **options))

    def get_state_history(self, thread_id: str | Mapping[str, Any], **options: Any) -> Any:
        """:meth:`CompiledGraph.get_state_history`, also as ``get_state_history(config)``."""
        history = super().get_state_history(_thread(thread_id, None)[0], **options)
        return [_langgraph_snapshot(snapshot) for snapshot in _one_per_stop(history)]

    def update_state(
        self,
        thread_id: str | Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        **options: Any,
    ) -> Any:
        """:meth:`CompiledGraph.update_state`, also as ``update_state(config, values, as_node)``.

        Called with a config, it returns one naming the new checkpoint, as LangGraph's does.
        Without ``as_node``, the edit is made as the node that wrote the state last, as
        LangGraph infers it (:meth:`_last_writer`): its edges run again on the edited
        state, so a router after it routes on the edit.
        """
        thread, checkpoint = _thread(thread_id, options.pop("checkpoint_id", None))
        if as_node is None:
            as_node = self._last_writer(thread, checkpoint)
        new = super().update_state(
            thread, values, as_node=as_node, checkpoint_id=checkpoint, **options
        )
        if isinstance(thread_id, Mapping):
            return {"configurable": {"thread_id": thread, "checkpoint_id": new}}
        return new


def _langgraph_error(error: GraphRuntimeError) -> BaseException:
    """The exception LangGraph raises where graphnb raised ``error``.

    A node's own exception (graphnb wraps it in a ``NodeError``, its cause), and
    LangGraph's ``InvalidUpdateError`` and ``GraphRecursionError`` for graphnb's, so a
    program's ``except`` clauses catch what they caught on LangGraph. Anything else stays.
    """
    from langgraph import errors

    from ..errors import (
        ConflictingUpdateError,
        GraphRecursionError,
        InvalidUpdateError,
        NodeTimeout,
    )

    if isinstance(error, GraphRecursionError):
        return errors.GraphRecursionError(str(error))
    if isinstance(error, InvalidUpdateError | ConflictingUpdateError):
        return errors.InvalidUpdateError(str(error))
    if isinstance(error, NodeError) and not isinstance(error, NodeTimeout):
        cause = error.__cause__
        if isinstance(cause, Exception):
            return cause
    return error


def _langgraph_style(config: Any, options: Mapping[str, Any]) -> bool:
    """Whether a call is written for LangGraph (a config, ``stream_mode``)."""
    return config is not None or "stream_mode" in options


def _also_langgraphs(error: GraphRuntimeError) -> GraphRuntimeError:
    """``error``, made an instance of LangGraph's error for the same refusal too.

    A conflicting write is then both graphnb's ``ConflictingUpdateError`` (``.field``,
    ``.nodes``) and LangGraph's ``InvalidUpdateError``, a recursion limit both graphnb's
    ``GraphRecursionError`` and LangGraph's: ``except`` clauses written for either catch it.
    """
    from langgraph import errors

    from ..errors import ConflictingUpdateError, GraphRecursionError

    peers: dict[type[GraphRuntimeError], type[Exception]] = {
        ConflictingUpdateError: errors.InvalidUpdateError,
        GraphRecursionError: errors.GraphRecursionError,
    }
    for ours, theirs in peers.items():
        if type(error) is ours:
            error.__class__ = _both(ours, theirs)
    return error


_BOTH: dict[str, type[GraphRuntimeError]] = {}


def _both(ours: type[GraphRuntimeError], theirs: type[Exception]) -> type[GraphRuntimeError]:
    """The subclass of graphnb's error ``ours`` and LangGraph's ``theirs``, made once."""
    if ours.__name__ not in _BOTH:
        doc = f"{ours.__doc__} (LangGraph's {theirs.__name__} too)"
        _BOTH[ours.__name__] = type(
            ours.__name__, (ours, theirs), {"__module__": __name__, "__doc__": doc}
        )
    return _BOTH[ours.__name__]


def _reraise(error: GraphRuntimeError, style: bool) -> NoReturn:
    """Raise ``error``, as LangGraph would have raised it for a call written for LangGraph.

    A call in graphnb's own style (keywords) gets graphnb's errors, ``.node`` and all,
    each also LangGraph's error for the same refusal where LangGraph has one.
    """
    if not style:
        raise _also_langgraphs(error)
    translated = _langgraph_error(error)
    if translated is error.__cause__:  # the node's own exception, as LangGraph raises it
        translated.add_note(f"(graphnb: {error})")
        raise translated from None
    raise translated from error


def _input(given: Any) -> Any:
    """LangGraph's ``Command(resume=...)`` as graphnb's."""
    kind = type(given)
    if kind.__name__ != "Command" or not kind.__module__.startswith("langgraph"):
        return given
    if given.goto or given.update is not None or given.graph is not None:
        raise ValueError(
            "a run's input Command may only resume (Command(resume=...)); graphnb edits a "
            "thread with update_state(...) and routes with its nodes' Commands"
        )
    return Command(resume=given.resume)


def _options(
    config: Mapping[str, Any] | None, options: dict[str, Any], *, threaded: bool
) -> dict[str, Any]:
    given = options.get("context")
    if given is not None and not isinstance(given, Mapping):
        # an instance of the graph's context_schema: graphnb's run data is a mapping
        options["context"] = {CONTEXT_KEY: given}
    if not config:
        return options
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a LangGraph config mapping, got {config!r:.80}")
    configurable = config.get("configurable") or {}
    # Without a checkpointer LangGraph ignores the thread; so does this.
    for key in ("thread_id", "checkpoint_id") if threaded else ():
        if configurable.get(key) is not None:
            options.setdefault(key, str(configurable[key]))
    if config.get("recursion_limit") is not None:
        options.setdefault("recursion_limit", config["recursion_limit"])
    return options


def _modes(options: dict[str, Any]) -> dict[str, Any]:
    if "stream_mode" in options:
        options.setdefault("mode", options.pop("stream_mode"))
    return options


def _thread(given: str | Mapping[str, Any], checkpoint_id: str | None) -> tuple[str, str | None]:
    if not isinstance(given, Mapping):
        return given, checkpoint_id
    configurable = given.get("configurable") or {}
    if configurable.get("thread_id") is None:
        raise ValueError("the config names no thread: {'configurable': {'thread_id': ...}}")
    found = configurable.get("checkpoint_id")
    return str(configurable["thread_id"]), checkpoint_id or (None if found is None else str(found))
