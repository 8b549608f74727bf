"""One run of a compiled graph: super-steps, merging, routing, streaming.

A run is a loop of super-steps. The nodes triggered together form a step; they run
concurrently, each on its own copy of the state. Their updates are checked as they finish,
then merged in node order (the order nodes were added), so the result never depends on
which node finished first. Then edges, routers and joins decide the next step's nodes.

The same step logic serves the sync and the async drivers; each is a generator of events.
``invoke`` drives it with events switched off, so a plain run builds no event objects.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from ..errors import (
    ConflictingUpdateError,
    GraphRecursionError,
    GraphRuntimeError,
    InvalidUpdateError,
    NodeError,
    RouteError,
)
from ..human import Command, GraphInterrupt, ParentCommand
from ..schema import WriteError, is_graph_state
from ..terminals import END, START
from .context import RunContext, done_writing, writing
from .events import CacheHit, Chunk, Event, NodeFailed, NodeFinished, NodeStarted, StepFinished
from .node import Node, Router, Streamed, complete_value
from .send import Send, check_payload, distinct, instance_key, instances, order
from .wiring import positive
from .workers import DEFAULT_WORKERS, iterate_async, run_coroutine

if TYPE_CHECKING:
    from .wiring import Wiring

# asyncio is imported inside the async code paths only: by the time they run an event loop
# exists and asyncio is loaded, and `import graphnb` stays fast for sync users.

__all__ = ["Run"]

S = TypeVar("S")
Update = dict[str, Any]


class Run(Generic[S]):
    """The moving parts of one run: values, step counter, join progress."""

    @classmethod
    def open(
        cls,
        graph: Wiring[S],
        *,
        events: bool,
        context: Mapping[str, Any] | None,
        recursion_limit: int | None,
        thread_id: str | None = None,
    ) -> Self:
        """A new run of ``graph``, with a fresh id.

        ``context`` is checked against the graph's context schema; ``recursion_limit``
        replaces the graph's own when given.
        """
        if context is not None:
            context = graph.run_context(context)
        return cls(
            graph,
            run_id=os.urandom(16).hex(),
            thread_id=thread_id,
            data=context or {},
            recursion_limit=graph.recursion_limit
            if recursion_limit is None
            else positive(recursion_limit, "recursion_limit"),
            events=events,
            max_concurrency=graph.max_concurrency,
        )

    tracing: Any = None  # the run's open spans while it is traced (see .tracing)

    def __init__(
        self,
        graph: Wiring[S],
        *,
        run_id: str,
        thread_id: str | None,
        data: Mapping[str, Any],
        recursion_limit: int,
        events: bool,
        max_concurrency: int | None,
    ) -> None:
        self.graph = graph
        self.schema = graph.schema
        self.run_id = run_id
        self.thread_id = thread_id
        self.data = data
        self.limit = recursion_limit
        self.events = events
        # Finer switches, for streams that want only some events (mode="updates" builds
        # no StepFinished, so no state copy per step).
        self.starts = events
        self.steps = events
        # Whether get_stream_writer() writes (a stream that wants custom chunks): setting
        # it costs a context variable per node, which other streams need not pay.
        self.custom = events
        self.workers = max_concurrency or DEFAULT_WORKERS
        self.max_concurrency = max_concurrency  # None: async nodes are not limited
        self.values: dict[str, Any] = {}
        # The saver of the outermost run; a subgraph's run is given its parent's.
        self.saver: Any = graph.checkpointer
        # The long-term store (compile(store=...)); a subgraph's run is given its parent's.
        self.long_term_store: Any = graph.store
        self.step = 0
        self.joins: dict[int, set[str]] = {}
        # Deferred nodes (add_node(..., defer=True)) triggered and held until the run has
        # nothing else to run, as LangGraph's defer.
        self.held: set[str] = set()
        # Map-reduce (graphnb.engine.send): Sends the routers made for the next step, and
        # whether the step being routed ran Send instances.
        self.sends: list[tuple[str, dict[str, Any]]] = []
        self.fanned = False
        # The last merged step, for routers: each task routes on the state before the
        # step with its own writes only (LangGraph's view), not on its siblings' writes.
        self.merged_from: dict[str, Any] = {}
        self.merged: list[tuple[Node, Update]] = []
        # Whether events from inside subgraph nodes reach this run's stream.
        self.subgraphs = False
        # Where the nodes of the step being run sent the run with a Command(goto=...):
        # (node index, instance) -> its targets (names and Sends), read by next_tasks.
        self.gotos: dict[tuple[int, int | None], list[Any]] = {}
        # Whether this run is a subgraph node's child run (Command.PARENT has a parent).
        self.nested = False

    # -- start -------------------------------------------------------------------------

    def start(self, given: Any, *, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Merge the input into ``base`` (the defaults when omitted) through the reducers.

        Returns the input's checked writes.
        """
        schema = self.schema
        writes = self._check_input(given)
        values = schema.defaults(writes) if base is None else dict(base)
        try:
            schema.apply(values, writes)
        except WriteError as error:
            raise _input_error(error) from error.__cause__
        missing = schema.missing(values)
        if missing:
            names = ", ".join(repr(name) for name in missing)
            raise InvalidUpdateError(
                f"the input lacks required field(s) {names} of {schema.label}",
                node=START,
                step=-1,
                field=missing[0],
            )
        self.values = values
        return writes

    def _check_input(self, given: Any) -> dict[str, Any]:
        schema = self.schema
        if given is None:
            return {}
        model = schema.model
        kind = type(given)
        if model is not None and kind in model.__mro__[2:] and hasattr(kind, "model_fields"):
            # An instance of a Pydantic model the state model derives from (a LangGraph
            # state model, imported): its fields are the input, as LangGraph reads it.
            given = {name: getattr(given, name) for name in kind.model_fields}
        if not isinstance(given, Mapping) and not is_graph_state(given):
            threaded = self.graph.checkpointer is not None
            raise InvalidUpdateError(
                f"the input must be a mapping, a {schema.label}, None"
                f"{' or Command(resume=...)' if threaded else ''}, got {given!r}",
                node=START,
                step=-1,
                field=None,
                value=given,
            )
        try:
            if is_graph_state(given):
                given = schema.values_of(given)
            fields = self.graph.input_fields
            if fields is not None:  # the input schema's fields only, as LangGraph reads them
                keys = schema.keys
                given = {k: v for k, v in given.items() if keys.get(k, k) in fields}
            return schema.check_writes(given)
        except WriteError as error:
            raise _input_error(error) from None

    def first_tasks(self) -> list[Node]:
        """Nodes the run begins with, routers from START included (sync routers only)."""
        return self._release(
            self._order(self._after(START, self.graph.successors.get(START, ()), self._route_sync))
        )

    async def afirst_tasks(self) -> list[Node]:
        """Nodes the run begins with, awaiting an async START router."""
        return self._release(self._order(await self._aafter(START)))

    # -- stepping ----------------------------------------------------------------------

    def check_limit(self) -> None:
        """Refuse to start a step past the recursion limit."""
        if self.step >= self.limit:
            raise GraphRecursionError(
                f"the run reached its recursion limit of {self.limit} super-steps without "
                f"ending; raise it with recursion_limit=... if the graph is meant to loop longer",
                limit=self.limit,
            )

    def merge(self, results: list[tuple[Node, Update]]) -> None:
        """Apply a step's updates, plain runs in node order then Send instances; all or none."""
        schema = self.schema
        writers: dict[str, Node] | None = {} if len(results) > 1 else None  # a lone node: no rival
        values = dict(self.values)
        if self.fanned:  # LangGraph's merge order: plain tasks, then Sends as they were sent
            results = sorted(results, key=lambda result: result[0].instance is not None)
        for node, update in results:
            if writers is not None:
                self._claim(writers, node, update)
            try:
                schema.apply(values, update)
            except WriteError as error:
                raise InvalidUpdateError(
                    f"node `{node.name}` at step {self.step}: {error}",
                    node=node.name,
                    step=self.step,
                    field=error.field,
                    value=error.value,
                ) from error.__cause__  # a failing reducer's own exception, if any
        self.merged_from, self.merged = self.values, results
        self.values = values

    def _claim(self, writers: dict[str, Node], node: Node, update: Update) -> None:
        """Record ``node`` as the writer of its update's fields; two writers of one conflict."""
        fields = self.schema.fields
        for name in update:
            field = fields.get(name)
            exclusive = field.reducer.exclusive if field is not None else True
            if exclusive:
                if name in writers:
                    first, second = instance_key(writers[name]), instance_key(node)
                    raise ConflictingUpdateError(
                        f"nodes `{first}` and `{second}` both wrote field "
                        f"{name!r} in step {self.step}; it keeps one value per step "
                        "(give it a reducer such as append to combine writes)",
                        field=name,
                        nodes=(first, second),
                        step=self.step,
                    )
                writers[name] = node

    def next_tasks(self, finished: list[Node]) -> list[Node]:
        """Nodes triggered by the nodes that just finished (sync routers)."""
        triggered: list[str] = self._gone(finished) if self.gotos else []
        if self.fanned:
            finished, self.fanned = distinct(finished), False
        for node in finished:
            triggered.extend(
                self._after(node.name, self.graph.successors.get(node.name, ()), self._route_sync)
            )
        return self._release(self._order(triggered))

    async def anext_tasks(self, finished: list[Node]) -> list[Node]:
        """Nodes triggered by the nodes that just finished (routers may be async)."""
        triggered: list[str] = self._gone(finished) if self.gotos else []
        if self.fanned:
            finished, self.fanned = distinct(finished), False
        for node in finished:
            triggered.extend(await self._aafter(node.name))
        return self._release(self._order(triggered))

    def _gone(self, finished: list[Node]) -> list[str]:
        """Where the finished nodes' Commands went, in node order; their Sends are queued."""
        gotos, self.gotos = self.gotos, {}
        found: list[str] = []
        for node in finished:
            for target in gotos.get((node.index, node.instance), ()):
                if isinstance(target, str):
                    found.append(target)
                else:  # a Send, checked when the node returned it
                    self.sends.append(target)
        return found

    def _after(
        self, source: str, direct: tuple[str, ...], route: Callable[[str], list[str]]
    ) -> list[str]:
        found = [*direct]
        if source in self.graph.routers:
            found.extend(route(source))
        found.extend(self._joined(source))
        return found

    async def _aafter(self, source: str) -> list[str]:
        """:meth:`_after` with the source's own successors, its router awaited."""
        found = [*self.graph.successors.get(source, ())]
        if source in self.graph.routers:
            found.extend(await self._aroute(source))
        found.extend(self._joined(source))
        return found

    def _joined(self, source: str) -> list[str]:
        fired = []
        for index in self.graph.joins_of.get(source, ()):
            sources, target = self.graph.joins[index]
            seen = self.joins.setdefault(index, set())
            seen.add(source)
            if len(seen) == len(sources):  # seen only ever holds sources: all have fired
                fired.append(target)
                del self.joins[index]
        return fired

    def _release(self, tasks: list[Node]) -> list[Node]:
        """``tasks`` less the deferred nodes, which are held until nothing else would run.

        LangGraph's ``defer=True``: a deferred node triggered several times runs once,
        in the first step that would otherwise have no task (or end the run).
        """
        deferred = self.graph.deferred
        if not deferred and not self.held:
            return tasks
        now = []
        for node in tasks:
            if node.name in deferred and node.instance is None:
                self.held.add(node.name)
            else:
                now.append(node)
        if now or not self.held:
            return now
        held, self.held = self.held, set()
        return sorted((self.graph.nodes[name] for name in held), key=_by_index)

    def _order(self, names: list[str]) -> list[Node]:
        if self.sends:
            return self._with_sends(names)
        nodes = self.graph.nodes
        if len(names) == 1:
            name = names[0]
            return [] if name == END else [nodes[name]]
        unique = {name for name in names if name != END}
        return sorted((nodes[name] for name in unique), key=_by_index)

    def _with_sends(self, names: list[str]) -> list[Node]:
        sends, self.sends = self.sends, []
        self.fanned = True
        made = instances(self.schema, self.graph.nodes, sends)
        return order(self._order(names), made)

    def _route_sync(self, source: str) -> list[str]:
        router = self.graph.routers[source]
        if router.is_async:
            raise RouteError(
                f"the router of `{source}` is async; run the graph with ainvoke/astream",
                node=source,
                step=self.step,
                route=None,
            )
        if len(self.merged) <= 1:  # the usual step: one task, routed on the state as it is
            return self._targets(router, self._call_router(router, self.values))
        return [
            target
            for values in self._routed_states(source)
            for target in self._targets(router, self._call_router(router, values))
        ]

    async def _aroute(self, source: str) -> list[str]:
        router = self.graph.routers[source]
        targets = []
        for values in self._routed_states(source):
            chosen = self._call_router(router, values)
            if router.is_async:
                chosen = await chosen
            targets.extend(self._targets(router, chosen))
        return targets

    def _routed_states(self, source: str) -> list[dict[str, Any]]:
        """The states ``source``'s router runs on: one per task of it in the last step.

        A task routes on the state before its step with its own writes applied, so a
        branch does not see what a sibling wrote in the same step, and each Send
        instance routes on its own result. A node that ran alone routes on the state.
        """
        merged = self.merged
        if len(merged) <= 1:
            return [self.values]
        states = []
        for node, update in merged:
            if node.name == source:
                values = dict(self.merged_from)
                self.schema.apply(values, update)
                states.append(values)
        return states or [self.values]

    def _call_router(self, router: Router, values: dict[str, Any]) -> Any:
        view = self.schema.view(values)
        try:
            if router.takes_context:
                return router.call(view, self.context(router.source, None))
            return router.call(view)
        except Exception as error:
            raise NodeError(
                f"the router of `{router.source}` failed at step {self.step}: "
                f"{type(error).__name__}: {error}",
                node=router.source,
                step=self.step,
            ) from error

    def _targets(self, router: Router, chosen: Any) -> list[str]:
        targets, bad = router.targets(chosen)
        if bad is not None or (not targets and chosen not in ((), [])):
            declared = ", ".join(repr(route) for route in router.routes)
            raise RouteError(
                f"the router of `{router.source}` returned {chosen!r} at step {self.step}; "
                f"its declared routes are {declared}",
                node=router.source,
                step=self.step,
                route=chosen,
            )
        if router.sends:
            return self._split(router, targets)
        return targets

    def _split(self, router: Router, targets: list[Any]) -> list[str]:
        """Keep a router's plain targets; queue its Sends for the next step's tasks."""
        plain = []
        for target in targets:
            if isinstance(target, str):
                plain.append(target)
            else:
                payload = check_payload(self.schema, router.source, self.step, target)
                self.sends.append((target.node, payload))
        return plain

    def context(
        self, node: str, emit: Callable[[Chunk], None] | None, instance: int | None = None
    ) -> RunContext:
        """The run context handed to a node or router."""
        return RunContext(
            self.run_id,
            self.thread_id,
            self.step,
            node,
            self.data,
            emit,
            instance,
            self.saver,
            self.long_term_store,
        )

    def _special_view(self, node: Node, before: dict[str, Any]) -> Any:
        """What a subgraph node (the values) or a node with an input schema reads."""
        if node.subgraph is not None:
            return before
        reads = node.reads
        values = reads.defaults()
        values.update({name: value for name, value in before.items() if name in reads.fields})
        return reads.view(values)

    def _writer(self, node: Node, emit: Callable[[Any], None]) -> Callable[[Any], None]:
        """What :func:`get_stream_writer` returns inside ``node``: a custom chunk writer."""
        step, name, instance = self.step, node.name, node.instance

        def write(value: Any) -> None:
            emit(Chunk(step, name, None, value, instance=instance))

        return write

    def state(self) -> S:
        """The current state as the user's type (a private copy)."""
        return self.schema.view(self.values)

    def finished_event(self, nodes: tuple[str, ...], next_nodes: list[Node]) -> StepFinished[S]:
        """The event closing the current step."""
        wrote = any(update for _, update in self.merged)
        return StepFinished(
            self.step, nodes, self.state(), tuple(n.name for n in next_nodes), wrote
        )

    # -- one node ----------------------------------------------------------------------

    def node_sync(self, node: Node) -> Generator[Event, None, Update]:
        """Run a node in this thread, yielding its events; returns its checked update."""
        step = self.step
        pending: list[Event] = []
        cached = False
        started = time.perf_counter()
        if self.starts:
            yield NodeStarted(step, node.name, instance=node.instance)
        before = self.values if node.input is None else node.input
        # a subgraph node reads the state through its child's input, not through a view
        view = self.schema.view(before) if node.plain else self._special_view(node, before)
        # get_stream_writer() in a streamed run (invoke streams nothing: no cost there)
        token = writing(self._writer(node, pending.append)) if self.custom else None
        try:
            args = (
                (view, self.context(node.name, pending.append, node.instance))
                if node.takes_context
                else (view,)
            )
            if node.is_async or node.is_async_gen:
                result = run_coroutine(self._call_async(node, args, pending.append))
            elif node.subgraph is not None:  # a whole run of a child graph (engine.subgraph)
                if pending and self.events:
                    yield from _flush(pending)
                try:
                    result = yield from node.subgraph.run_sync(self, node, before)
                except ParentCommand as command:  # the child's Command(graph=PARENT)
                    parent = command.command
                    result = Command(goto=parent.goto, update=parent.update)
                    view = self.schema.view(before)
            else:
                result = node.call(*args)
            if pending and self.events:
                cached = any(type(event) is CacheHit for event in pending)
                yield from _flush(pending)
            if type(result) is not dict and (isinstance(result, Streamed) or _is_stream(result)):
                update = yield from self._drain_sync(node, result, pending)
            else:
                update = self.to_update(node, result, before, view)
        except GraphInterrupt:
            if pending and self.events:  # what it wrote before it asked, as LangGraph streams it
                yield from _flush(pending)
            raise
        except Exception as error:
            failure = self.node_error(node, error)
            if self.events:
                if pending:
                    yield from _flush(pending)
                yield NodeFailed(step, node.name, failure, instance=node.instance)
            raise failure from (None if failure is error else error)
        finally:
            if token is not None:
                done_writing(token)
        if self.events:
            if pending:
                yield from _flush(pending)
            duration = time.perf_counter() - started
            yield NodeFinished(step, node.name, update, duration, cached, instance=node.instance)
        return update

    async def node_async(self, node: Node, emit: Callable[[Event], None]) -> Update:
        """Run a node on the event loop, sending its events to ``emit`` as they happen."""
        step = self.step
        started = time.perf_counter()
        events = self.events
        hits: list[CacheHit] = []
        if events:
            emit = _noting_hits(emit, hits)
        if self.starts:
            emit(NodeStarted(step, node.name, instance=node.instance))
        before = self.values if node.input is None else node.input
        view = self.schema.view(before) if node.plain else self._special_view(node, before)
        token = writing(self._writer(node, emit)) if self.custom else None
        try:
            args = (
                (view, self.context(node.name, emit, node.instance))
                if node.takes_context
                else (view,)
            )
            result = await self._call_async(node, args, emit)
            if type(result) is not dict and (isinstance(result, Streamed) or _is_stream(result)):
                update = await self._drain_async(node, result, emit)
            else:
                update = self.to_update(node, result, before, view)
        except Exception as error:
            failure = self.node_error(node, error)
            if events:
                emit(NodeFailed(step, node.name, failure, instance=node.instance))
            raise failure from (None if failure is error else error)
        finally:
            if token is not None:
                done_writing(token)
        if events:
            duration = time.perf_counter() - started
            emit(
                NodeFinished(step, node.name, update, duration, bool(hits), instance=node.instance)
            )
        return update

    async def _call_async(
        self, node: Node, args: tuple[Any, ...], emit: Callable[[Any], None]
    ) -> Any:
        if node.is_async:
            return await node.call(*args)
        return node.call(*args)

    def node_error(self, node: Node, error: Exception) -> GraphRuntimeError:
        """Wrap what a node raised in an error naming the node and the step."""
        if isinstance(error, (NodeError, ConflictingUpdateError)):
            return error
        if isinstance(error, WriteError):
            return InvalidUpdateError(
                f"node `{node.name}` at step {self.step} wrote an invalid value: {error}",
                node=node.name,
                step=self.step,
                field=error.field,
                value=error.value,
            )
        return NodeError(
            f"node `{node.name}` failed at step {self.step}: {type(error).__name__}: {error}",
            node=node.name,
            step=self.step,
        )

    def to_update(self, node: Node, result: Any, before: dict[str, Any], view: Any) -> Update:
        """Turn what a node returned into a checked partial update."""
        schema = self.schema
        if type(result) is dict and result is not view:  # the usual partial dict
            return schema.check_writes(result)
        if result is None:
            return {}
        if type(result) is Command:
            return self._command(node, result, before, view)
        if is_graph_state(result) and schema.model is not None:
            if not isinstance(result, schema.model):
                raise WriteError(
                    f"returned a {type(result).__name__}, expected a {schema.label}",
                    field=None,
                    value=result,
                )
            changed = schema.diff(before, schema.values_of(result))
            return schema.check_writes(changed)
        if result is view and schema.model is None:
            return schema.check_writes(schema.diff(before, result))
        if isinstance(result, Mapping):
            return schema.check_writes(result)
        if _is_foreign_command(result):  # LangGraph's own Command, from an unchanged node
            own = Command(goto=result.goto, update=result.update, graph=result.graph)
            return self._command(node, own, before, view)
        raise WriteError(
            f"returned {result!r}; a node returns a partial dict, a {schema.label}, None "
            "or a streamed result",
            field=None,
            value=result,
        )

    def _command(
        self, node: Node, command: Command[Any], before: dict[str, Any], view: Any
    ) -> Update:
        """A node's ``Command``: its update checked, its goto kept for :meth:`next_tasks`."""
        if command.graph is not None:
            if not self.nested:
                raise WriteError(
                    "returned Command(graph=Command.PARENT), but its graph is not run as "
                    "a subgraph node: there is no parent graph",
                    field=None,
                    value=command,
                )
            raise ParentCommand(command)
        if command.resume is not None:
            raise WriteError(
                "returned Command(resume=...); resume answers an interrupt as a run's input "
                "(invoke(Command(resume=...), thread_id=...)), not as a node's result",
                field=None,
                value=command,
            )
        update = (
            {} if command.update is None else self.to_update(node, command.update, before, view)
        )
        targets = [self._goto(node, target) for target in command.targets()]
        targets = [target for target in targets if target is not None]
        if targets:
            self.gotos[(node.index, node.instance)] = targets
        return update

    def _goto(self, node: Node, target: Any) -> Any:
        """One ``goto`` target checked: a node name, a checked Send, or None for END."""
        if target == END or target is None:
            return None
        if isinstance(target, str):
            if target not in self.graph.nodes:
                raise RouteError(
                    f"node `{node.name}` returned Command(goto={target!r}) at step "
                    f"{self.step}, but the graph has no node {target!r}",
                    node=node.name,
                    step=self.step,
                    route=target,
                )
            return target
        if hasattr(target, "node") and (hasattr(target, "payload") or hasattr(target, "arg")):
            # a Send: graphnb's, or LangGraph's (its payload is `arg`)
            if not hasattr(target, "payload"):
                target = Send(target.node, target.arg)
            if target.node not in self.graph.nodes:
                raise RouteError(
                    f"node `{node.name}` sent {target!r} at step {self.step}, but the graph "
                    f"has no node {target.node!r}",
                    node=node.name,
                    step=self.step,
                    route=target,
                )
            return (target.node, check_payload(self.schema, node.name, self.step, target))
        raise RouteError(
            f"node `{node.name}` returned Command(goto={target!r}) at step {self.step}; goto "
            "takes a node name, END, a Send, or a list of these",
            node=node.name,
            step=self.step,
            route=target,
        )

    def _stream_target(self, node: Node, result: Any) -> tuple[str, Any, Any]:
        streamed = result if isinstance(result, Streamed) else Streamed(result)
        name = streamed.field or self.schema.streaming
        if name is None:
            raise WriteError(
                f"returned a stream, but {self.schema.label} declares no streaming field "
                "(mark one with StateField(streaming=True))",
                field=None,
                value=result,
            )
        return self.schema.field(name).name, streamed, streamed.chunks

    def _drain_sync(
        self, node: Node, result: Any, pending: list[Event]
    ) -> Generator[Event, None, Update]:
        name, streamed, chunks = self._stream_target(node, result)
        collected: list[Any] = []
        iterator = iterate_async(chunks) if hasattr(chunks, "__aiter__") else iter(chunks)
        events = self.events
        while True:
            try:
                chunk = next(iterator)
            except StopIteration as stop:
                if stop.value is not None and streamed.update is None:
                    streamed = Streamed(chunks, stop.value, streamed.aggregate, streamed.field)
                break
            collected.append(chunk)
            if events:
                if pending:
                    yield from _flush(pending)
                yield Chunk(self.step, node.name, name, chunk, instance=node.instance)
        return self._stream_update(name, streamed, collected)

    async def _drain_async(self, node: Node, result: Any, emit: Callable[[Event], None]) -> Update:
        import asyncio

        name, streamed, chunks = self._stream_target(node, result)
        collected: list[Any] = []
        events = self.events
        if hasattr(chunks, "__aiter__"):
            async for chunk in chunks:
                collected.append(chunk)
                if events:
                    emit(Chunk(self.step, node.name, name, chunk, instance=node.instance))
        else:
            iterator = iter(chunks)
            while True:
                try:
                    chunk = next(iterator)
                except StopIteration as stop:
                    if stop.value is not None and streamed.update is None:
                        streamed = Streamed(chunks, stop.value, streamed.aggregate, streamed.field)
                    break
                collected.append(chunk)
                if events:
                    emit(Chunk(self.step, node.name, name, chunk, instance=node.instance))
                await asyncio.sleep(0)  # let the loop (and a Stop) in between chunks
        return self._stream_update(name, streamed, collected)

    def _stream_update(self, name: str, streamed: Streamed, collected: list[Any]) -> Update:
        update = self.schema.check_writes(streamed.update or {})
        if collected or streamed.aggregate is not None:
            complete = complete_value(collected, streamed.aggregate)
            update[name] = (
                self.schema.fields[name].check(complete) if name in self.schema.fields else complete
            )
        return update


def _is_foreign_command(result: Any) -> bool:
    """Whether ``result`` is another library's ``Command`` (LangGraph's), read by its fields."""
    kind = type(result)
    return kind.__name__ == "Command" and all(
        hasattr(result, name) for name in ("goto", "update", "graph")
    )


def _input_error(error: WriteError) -> InvalidUpdateError:
    return InvalidUpdateError(
        f"invalid input: {error}", node=START, step=-1, field=error.field, value=error.value
    )


def _noting_hits(emit: Callable[[Event], None], hits: list[CacheHit]) -> Callable[[Event], None]:
    """``emit``, keeping the node's :class:`CacheHit` in ``hits`` as it passes."""

    def noting(event: Event) -> None:
        if type(event) is CacheHit:
            hits.append(event)
        emit(event)

    return noting


def _flush(pending: list[Event]) -> Iterator[Event]:
    events = pending[:]
    pending.clear()
    return iter(events)


def _by_index(node: Node) -> int:
    return node.index


def _is_stream(result: Any) -> bool:
    return (hasattr(result, "__next__") or hasattr(result, "__anext__")) and not isinstance(
        result, (str, bytes, Mapping)
    )
