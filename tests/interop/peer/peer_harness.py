"""The peer suite's harness: run one LangGraph program on LangGraph and on graphnb.

A :class:`Scenario` is a LangGraph builder written as a LangGraph user writes it, the
steps a user takes with it (an input, a resume, a state edit, a replay from a past
checkpoint) and what is compared. :func:`observe` runs the steps on one engine and
returns what a user sees, normalised to plain data so both engines' observations compare
with ``==``:

- each run's ``updates``, ``values`` and ``custom`` streams (one run, three modes) and,
  when it fails, the failing exception's type (graphnb's ``NodeError`` is unwrapped to
  the node's own exception, which is what LangGraph raises);
- on a thread, after each step, the state's values, next nodes and pending interrupt
  values; at the end, with ``history=True``, every checkpoint's values and next nodes.

Three mappings that docs/interop.md documents are applied, not compared: interrupt ids
(LangGraph hashes them, graphnb names the node), a static stop's ``__interrupt__`` entry
(empty on LangGraph, naming the node on graphnb), and LangGraph's first checkpoint of a
run's input (before its ``__start__`` task), which graphnb does not write.

Run ``python tests/interop/peer/peer_harness.py`` for the tally.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SAME = "same"

ABSENT = "<absent>"
"""In a :class:`Difference`: graphnb's observation has no such key."""

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


@dataclass(frozen=True)
class Difference:
    """A result graphnb gives on purpose (or cannot avoid), with the reason.

    Attributes:
        reason: why graphnb differs (docs/interop.md's table quotes it).
        graphnb: the parts of the observation where graphnb differs, as graphnb gives
            them; every other part must equal LangGraph's.
        cite: a LangGraph issue or doc saying why LangGraph's behaviour is a trap.
        langgraphs_calls_same: the difference is in graphnb's own calls only; the
            LangGraph program's calls (``invoke(input, config)``, ``stream_mode=``) on
            the imported graph give LangGraph's results.
    """

    reason: str
    graphnb: Mapping[str, Any]
    cite: str = ""
    langgraphs_calls_same: bool = False


def assert_difference(
    expected: Mapping[str, Any], got: Mapping[str, Any], difference: Difference
) -> None:
    """Assert ``got`` is ``expected`` (LangGraph's) except where ``difference`` says.

    Each key of ``difference.graphnb`` is a path into the observation (``"*"``: all of
    it, for a refused import; ``"0:input/values"``: that run's values stream); its value
    is what graphnb gives there, or a predicate graphnb's part satisfies.
    """
    import copy

    if "*" in difference.graphnb:
        whole = difference.graphnb["*"]
        assert whole(got) if callable(whole) else got == whole
        return
    want = copy.deepcopy(dict(expected))
    for path, value in difference.graphnb.items():
        keys = path.split("/")
        found = _at(got, keys)
        if callable(value):
            assert value(found), f"{path}: {found!r:.300}"
            value = found
        here = want
        for key in keys[:-1]:
            here = here.setdefault(key, {})
        if value == ABSENT:
            here.pop(keys[-1], None)
        else:
            here[keys[-1]] = value
    assert got == want


def _at(data: Mapping[str, Any], keys: list[str]) -> Any:
    here: Any = data
    for key in keys:
        here = here.get(key) if isinstance(here, Mapping) else None
    return here


@dataclass(frozen=True)
class Input:
    """Run the graph with this input (LangGraph's ``invoke(value, config)``)."""

    value: Any


@dataclass(frozen=True)
class Resume:
    """Answer a pending ``interrupt()``: ``Command(resume=value)``."""

    value: Any


@dataclass(frozen=True)
class Update:
    """``update_state(config, values, as_node=...)`` on the thread."""

    values: Any
    as_node: str | None = None


@dataclass(frozen=True)
class Replay:
    """Run the thread again from its ``index``-th checkpoint (oldest first, as graphnb
    counts them), with ``value`` as input: ``None`` replays, a value forks."""

    index: int
    value: Any = None


@dataclass(frozen=True)
class ForkEdit:
    """``update_state`` at the ``index``-th checkpoint (a fork), then resume from it."""

    index: int
    values: Any


Step = Input | Resume | Update | Replay | ForkEdit


@dataclass(frozen=True)
class Scenario:
    """One LangGraph program and what a user does with it.

    Attributes:
        name: short, unique.
        ported_from: where in LangGraph's tests its facts come from: ``file::test``
            (the file is exact; the test part names the test or, where several tests
            share the behaviour, the behaviour, so it may not be one test's name).
        build: returns the LangGraph ``StateGraph`` builder.
        steps: what the user does, in order; a first :class:`Input` at least.
        compile: LangGraph ``compile()`` options (``interrupt_before``, ``cache`` ...), or
            a function returning them (a cache must be new for each engine).
        thread: run on a thread (an ``InMemorySaver`` on LangGraph, imported as graphnb's
            ``MemorySaver``).
        history: also compare the thread's checkpoints.
        context: the run context (LangGraph's ``context=``).
        expected: ``SAME``, or the :class:`Difference` graphnb gives.
    """

    name: str
    ported_from: str
    build: Callable[[], Any]
    steps: Sequence[Step]
    compile: Mapping[str, Any] | Callable[[], Mapping[str, Any]] = field(default_factory=dict)
    thread: bool = False
    history: bool = False
    context: Any = None
    expected: str | Difference = SAME

    def compile_options(self) -> dict[str, Any]:
        """The compile options, made afresh."""
        return dict(self.compile() if callable(self.compile) else self.compile)


# ---------------------------------------------------------------------------------------
# Plain data


def plain(value: Any) -> Any:
    """``value`` as plain, comparable data (messages as their meaningful fields)."""
    try:
        from langchain_core.messages import BaseMessage
    except ImportError:  # pragma: no cover
        BaseMessage = ()  # type: ignore[assignment,misc]
    if isinstance(value, BaseMessage):
        return {
            "type": value.type,
            "content": value.content,
            # add_messages gives a message without an id a random uuid4 on both engines
            "id": "<uuid4>" if value.id and _UUID.fullmatch(value.id) else value.id,
            "name": value.name,
            "tool_calls": [dict(c) for c in getattr(value, "tool_calls", [])],
            "tool_call_id": getattr(value, "tool_call_id", None),
        }
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return {k: plain(getattr(value, k)) for k in type(value).model_fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _interrupts(items: Any) -> list[Any]:
    """Interrupt values, without ids; static stops (no value on either engine) left out."""
    values = []
    for item in items or ():
        when = getattr(item, "when", "during")
        # a static stop; inside a subgraph graphnb names it "child/node:before"
        if when != "during" or str(getattr(item, "id", "")).endswith((":before", ":after")):
            continue
        values.append(plain(item.value))
    return values


def _update(update: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: _interrupts(value) if key == "__interrupt__" else plain(value)
        for key, value in update.items()
    }


def _values(values: Any) -> Any:
    """A values item; the interrupts a stopped run's last one holds, as their values."""
    if isinstance(values, Mapping) and "__interrupt__" in values:
        return {
            **plain({k: v for k, v in values.items() if k != "__interrupt__"}),
            "__interrupt__": _interrupts(values["__interrupt__"]),
        }
    return plain(values)


def _error(error: BaseException) -> str:
    """The error a LangGraph program's ``except`` clause sees: its LangGraph class if it
    is one (graphnb's ``ConflictingUpdateError`` on an imported graph is also LangGraph's
    ``InvalidUpdateError``), else its own."""
    from graphnb import NodeError

    while isinstance(error, NodeError) and error.__cause__ is not None:
        error = error.__cause__
    for kind in type(error).__mro__:
        if kind.__module__.startswith("langgraph."):
            return kind.__name__
    return type(error).__name__


# ---------------------------------------------------------------------------------------
# Engines


class LangGraphEngine:
    """The scenario on LangGraph itself."""

    name = "langgraph"

    def __init__(self, scenario: Scenario) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        options = scenario.compile_options()
        if scenario.thread:
            options["checkpointer"] = InMemorySaver()
        self.graph = scenario.build().compile(**options)
        self.config: dict[str, Any] = {"configurable": {"thread_id": "t"}}
        self.context = scenario.context

    def _kwargs(self) -> dict[str, Any]:
        return {} if self.context is None else {"context": self.context}

    def run(self, given: Any, checkpoint: int | None = None) -> dict[str, Any]:
        from langgraph.types import Command

        config = self.config
        if checkpoint is not None:
            config = self._checkpoint_config(checkpoint)
        if isinstance(given, Resume):
            given = Command(resume=given.value)
        seen: dict[str, Any] = {"updates": [], "values": [], "custom": []}
        try:
            for mode, item in self.graph.stream(
                given,
                config,
                stream_mode=["updates", "values", "custom"],
                **self._kwargs(),
            ):
                seen[mode].append(
                    _update(item)
                    if mode == "updates"
                    else _values(item)
                    if mode == "values"
                    else plain(item)
                )
        except Exception as error:
            seen["error"] = _error(error)
        return seen

    def invoke(self, given: Any) -> Any:
        try:
            return plain(self.graph.invoke(given, self.config, **self._kwargs()))
        except Exception as error:
            return {"error": type(error).__name__}

    def _snapshots(self) -> list[Any]:
        # Oldest first, without the checkpoint of a run's input before its __start__ task.
        history = list(self.graph.get_state_history(self.config))
        return [s for s in reversed(history) if s.next != ("__start__",)]

    def _checkpoint_config(self, index: int) -> dict[str, Any]:
        return self._snapshots()[index].config

    def state(self) -> dict[str, Any]:
        snapshot = self.graph.get_state(self.config)
        return {
            "values": plain(snapshot.values),
            "next": sorted(snapshot.next),
            "interrupts": _interrupts(snapshot.interrupts),
        }

    def update(self, values: Any, as_node: str | None, checkpoint: int | None = None) -> None:
        config = self.config if checkpoint is None else self._checkpoint_config(checkpoint)
        new = self.graph.update_state(config, values, as_node=as_node)
        if checkpoint is not None:
            self.fork = new

    def resume_fork(self) -> dict[str, Any]:
        saved, self.config = self.config, self.fork
        try:
            return self.run(None)
        finally:
            self.config = saved

    def history(self) -> list[Any]:
        return [{"values": plain(s.values), "next": sorted(s.next)} for s in self._snapshots()]


class GraphnbEngine:
    """The scenario imported into graphnb (``graphnb.interop.import_langgraph``)."""

    name = "graphnb"

    def __init__(self, scenario: Scenario) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        from graphnb.interop import UnmappedFeatureError, from_langgraph, import_langgraph

        options = scenario.compile_options()
        if scenario.thread:
            options["checkpointer"] = InMemorySaver()
        compiled = scenario.build().compile(**options)
        imported = import_langgraph(compiled)
        if imported.unmapped:
            # what from_langgraph raises, as a user sees it
            try:
                from_langgraph(compiled)
            except UnmappedFeatureError as error:
                raise ImportRefused(sorted({u.feature for u in error.unmapped})) from error
        self.graph = imported.compile()
        self.thread = "t" if scenario.thread else None
        self.context = scenario.context

    def _kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if self.thread is not None:
            kwargs["thread_id"] = self.thread
        if self.context is not None:
            kwargs["context"] = self.context
        return kwargs

    def run(self, given: Any, checkpoint: int | None = None) -> dict[str, Any]:
        from graphnb import Command

        if isinstance(given, Resume):
            given = Command(resume=given.value)
        kwargs = self._kwargs()
        if checkpoint is not None:
            kwargs["checkpoint_id"] = self._snapshots()[checkpoint].checkpoint_id
        seen: dict[str, Any] = {"updates": [], "values": [], "custom": []}
        try:
            for mode, item in self.graph.stream(
                given, mode=["updates", "values", "custom"], **kwargs
            ):
                seen[mode].append(
                    _update(item)
                    if mode == "updates"
                    else _values(item)
                    if mode == "values"
                    else plain(item)
                )
        except Exception as error:
            seen["error"] = _error(error)
        return seen

    def invoke(self, given: Any) -> Any:
        try:
            return plain(self.graph.invoke(given, **self._kwargs()))
        except Exception as error:
            return {"error": _error(error)}

    def _snapshots(self) -> list[Any]:
        return list(reversed(self.graph.get_state_history(self.thread)))

    def state(self) -> dict[str, Any]:
        snapshot = self.graph.get_state(self.thread)
        return {
            "values": plain(snapshot.values),
            "next": sorted(snapshot.next),
            "interrupts": _interrupts(snapshot.interrupts),
        }

    def update(self, values: Any, as_node: str | None, checkpoint: int | None = None) -> None:
        checkpoint_id = None if checkpoint is None else self._snapshots()[checkpoint].checkpoint_id
        self.fork = self.graph.update_state(
            self.thread, values, as_node=as_node, checkpoint_id=checkpoint_id
        )

    def resume_fork(self) -> dict[str, Any]:
        seen: dict[str, Any] = {"updates": [], "values": [], "custom": []}
        try:
            for mode, item in self.graph.stream(
                None,
                mode=["updates", "values", "custom"],
                thread_id=self.thread,
                checkpoint_id=self.fork,
            ):
                seen[mode].append(
                    _update(item)
                    if mode == "updates"
                    else _values(item)
                    if mode == "values"
                    else plain(item)
                )
        except Exception as error:
            seen["error"] = _error(error)
        return seen

    def history(self) -> list[Any]:
        return [{"values": plain(s.values), "next": sorted(s.next)} for s in self._snapshots()]


class UnchangedProgramEngine(LangGraphEngine):
    """The scenario's LangGraph program, its own calls unchanged, on the imported graph.

    ``from_langgraph(compiled).compile()`` takes LangGraph's ``invoke(input, config)``,
    ``stream_mode=`` and ``Command(resume=...)``; only the engine underneath differs.
    """

    name = "graphnb (LangGraph's calls)"

    def __init__(self, scenario: Scenario) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        from graphnb.interop import from_langgraph

        options = scenario.compile_options()
        if scenario.thread:
            options["checkpointer"] = InMemorySaver()
        self.graph = from_langgraph(scenario.build().compile(**options)).compile()
        self.config = {"configurable": {"thread_id": "t"}}
        self.context = scenario.context

    def run(self, given: Any, checkpoint: int | None = None) -> dict[str, Any]:
        seen = super().run(given, checkpoint)
        return seen

    def invoke(self, given: Any) -> Any:
        try:
            return plain(self.graph.invoke(given, self.config, **self._kwargs()))
        except Exception as error:
            return {"error": _error(error)}


class ImportRefused(Exception):
    """``from_langgraph`` refused the graph; ``features`` are the unmapped ones."""

    def __init__(self, features: list[str]) -> None:
        super().__init__(features)
        self.features = features


def observe(scenario: Scenario, engine_type: type[Any]) -> dict[str, Any]:
    """What a user sees running ``scenario`` on one engine, as plain data."""
    try:
        engine = engine_type(scenario)
    except ImportRefused as refused:
        return {"import": refused.features}
    except Exception as error:
        return {"compile": _error(error)}
    seen: dict[str, Any] = {}
    for index, step in enumerate(scenario.steps):
        key = f"{index}:{type(step).__name__.lower()}"
        if isinstance(step, Input):
            if not scenario.thread:
                seen[f"{key}:invoke"] = engine.invoke(step.value)
            seen[key] = engine.run(step.value)
        elif isinstance(step, Resume):
            seen[key] = engine.run(step)
        elif isinstance(step, Update):
            engine.update(step.values, step.as_node)
        elif isinstance(step, Replay):
            seen[key] = engine.run(step.value, checkpoint=step.index)
        elif isinstance(step, ForkEdit):
            engine.update(step.values, None, checkpoint=step.index)
            seen[key] = engine.resume_fork()
        if scenario.thread:
            seen[f"{key}:state"] = engine.state()
    if scenario.history:
        seen["history"] = engine.history()
    return seen


def outcome(scenario: Scenario) -> tuple[dict[str, Any], dict[str, Any]]:
    """The observations on LangGraph and on graphnb."""
    return observe(scenario, LangGraphEngine), observe(scenario, GraphnbEngine)


def gives_langgraphs_results(scenario: Scenario) -> bool:
    """Whether graphnb observes exactly what LangGraph does."""
    expected, got = outcome(scenario)
    return expected == got


def main(argv: Sequence[str]) -> int:
    """Print each scenario's result and the tally."""
    from peer_scenarios import SCENARIOS

    same = through_calls = 0
    for scenario in SCENARIOS:
        try:
            expected = observe(scenario, LangGraphEngine)
            ok = observe(scenario, GraphnbEngine) == expected
            calls_ok = ok or observe(scenario, UnchangedProgramEngine) == expected
        except Exception as error:
            print(f"CRASH {scenario.name}: {error!r}")
            ok = calls_ok = False
        same += ok
        through_calls += calls_ok
        if "-v" in argv or not ok:
            print(f"{'same' if ok else 'DIFF'} {scenario.name}")
    print(f"{same} of {len(SCENARIOS)} scenarios give LangGraph's results")
    print(f"{through_calls} of {len(SCENARIOS)} through the LangGraph program's own calls")
    return 0


if __name__ == "__main__":
    # The scenarios import this file as `peer_harness`: run that module's main, so their
    # steps are instances of its classes, not of __main__'s.
    import peer_harness

    sys.exit(peer_harness.main(sys.argv[1:]))
