"""OpenTelemetry spans of runs, checked with the SDK's in-memory exporter."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from graphnb import END, START, Command, StateGraph, interrupt
from graphnb.checkpoint import MemorySaver
from graphnb.engine import tracing
from graphnb.engine.run import Run


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.instrument(tracer_provider=provider)
    try:
        yield exporter
    finally:
        tracing.uninstrument()
        provider.shutdown()


def fan_out() -> StateGraph[dict[str, Any]]:
    graph = StateGraph(dict, name="fan")
    graph.add_node("plan", lambda state: {"n": 1})
    graph.add_node("left", lambda state: {"left": state["n"] + 1})
    graph.add_node("right", lambda state: {"right": state["n"] + 2})
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "left").add_edge("plan", "right")
    graph.add_edge("left", END).add_edge("right", END)
    return graph


def by_name(exporter: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    found: dict[str, list[ReadableSpan]] = {}
    for span in exporter.get_finished_spans():
        found.setdefault(span.name, []).append(span)
    return found


def parent_of(span: ReadableSpan, every: dict[str, list[ReadableSpan]]) -> str:
    assert span.parent is not None
    ids = {s.context.span_id: s.name for group in every.values() for s in group}
    return ids[span.parent.span_id]


@pytest.mark.parametrize("way", ["invoke", "ainvoke", "stream"])
def test_a_run_is_a_span_with_a_span_per_step_and_per_node(
    spans: InMemorySpanExporter, way: str
) -> None:
    compiled = fan_out().compile()
    if way == "invoke":
        compiled.invoke({})
    elif way == "ainvoke":
        asyncio.run(compiled.ainvoke({}))
    else:
        assert list(compiled.stream({}, mode="updates")) == [
            {"plan": {"n": 1}},
            {"left": {"left": 2}},
            {"right": {"right": 3}},
        ]
    found = by_name(spans)
    assert sorted(found) == ["node left", "node plan", "node right", "run fan", "step"]
    (run,) = found["run fan"]
    assert run.parent is None
    assert run.attributes is not None
    assert run.attributes["graphnb.graph"] == "fan"
    run_id = run.attributes["graphnb.run_id"]
    steps = sorted(found["step"], key=lambda s: s.start_time or 0)
    assert [s.attributes["graphnb.step"] for s in steps if s.attributes] == [0, 1]
    assert [list(s.attributes["graphnb.nodes"]) for s in steps if s.attributes] == [
        ["plan"],
        ["left", "right"],
    ]
    for name, step in (("node plan", 0), ("node left", 1), ("node right", 1)):
        (node,) = found[name]
        assert parent_of(node, found) == "step"
        assert node.attributes is not None
        assert node.attributes["graphnb.step"] == step
        assert node.attributes["graphnb.run_id"] == run_id
    assert all(parent_of(s, found) == "run fan" for s in steps)


def test_a_failing_node_records_its_exception(spans: InMemorySpanExporter) -> None:
    def broken(state: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("the model is down")

    graph = StateGraph(dict, name="failing").add_node("broken", broken)
    graph.add_edge(START, "broken").add_edge("broken", END)
    with pytest.raises(Exception, match="the model is down"):
        graph.compile().invoke({})
    found = by_name(spans)
    for name in ("node broken", "run failing"):
        (span,) = found[name]
        assert span.status.status_code is StatusCode.ERROR
        assert "the model is down" in (span.status.description or "")
        assert any(e.name == "exception" for e in span.events)


def test_a_threaded_run_reports_its_checkpoints_and_interrupts(
    spans: InMemorySpanExporter,
) -> None:
    def ask(state: dict[str, Any]) -> dict[str, Any]:
        return {"answer": interrupt("ok?")}

    graph = StateGraph(dict, name="asking").add_node("ask", ask)
    graph.add_edge(START, "ask").add_edge("ask", END)
    compiled = graph.compile(checkpointer=MemorySaver())
    compiled.invoke({"q": 1}, thread_id="t-1")
    found = by_name(spans)
    (stop,) = found["interrupt"]
    pending = compiled.get_state("t-1")
    assert stop.attributes is not None
    assert stop.attributes["graphnb.checkpoint_id"] == pending.checkpoint_id
    assert list(stop.attributes["graphnb.nodes"]) == ["ask"]
    (node,) = found["node ask"]
    assert node.attributes is not None
    assert node.attributes["graphnb.interrupted"] is True
    assert node.attributes["graphnb.thread_id"] == "t-1"

    spans.clear()
    assert compiled.invoke(Command(resume="yes"), thread_id="t-1")["answer"] == "yes"
    found = by_name(spans)
    stored = [s.checkpoint_id for s in compiled.get_state_history("t-1")]
    reported = [s.attributes["graphnb.checkpoint_id"] for s in found["checkpoint"] if s.attributes]
    assert reported
    assert set(reported) <= set(stored)
    assert stored[0] in reported  # the last checkpoint, written by this run
    assert all(parent_of(s, found) in ("step", "run asking") for s in found["checkpoint"])


def test_an_agent_s_retries_are_spans_under_its_failed_node(spans: InMemorySpanExporter) -> None:
    from graphnb.agent import ModelServerError, ReActAgent, RetryPolicy, ScriptedModel

    model = ScriptedModel([ModelServerError("busy", model="m", status=503), "Fine."])
    agent = ReActAgent(model, retry=RetryPolicy(max_attempts=2, base_delay=0.001))
    assert agent.run("hi").answer == "Fine."
    found = by_name(spans)
    (retry,) = found["retry"]
    assert parent_of(retry, found) == "node FAILED"
    assert retry.attributes is not None
    assert retry.attributes["graphnb.retry"] is True
    assert retry.attributes["graphnb.phase"] == "THINKING"
    assert retry.attributes["graphnb.attempt"] == 1


def test_tracing_off_leaves_the_events_untouched() -> None:
    compiled = fan_out().compile()
    run = Run.open(compiled, events=False, context=None, recursion_limit=None)
    events = iter(())
    assert tracing.trace_events(run, events) is events


def test_runs_report_to_the_global_provider_and_nothing_is_imported_without_it() -> None:
    code = textwrap.dedent(
        """
        import sys
        from graphnb import END, START, StateGraph

        graph = StateGraph(dict, name="g").add_node("a", lambda s: {"x": 1})
        graph.add_edge(START, "a").add_edge("a", END)
        graph.compile().invoke({})
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))

        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        graph.compile().invoke({})  # the API's default provider: no spans to make
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        graph.compile().invoke({})
        print(sorted(s.name for s in exporter.get_finished_spans()))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[]", "['node a', 'run g', 'step']"]


def test_the_example_in_docs_tracing_prints_what_the_page_shows() -> None:
    page = (Path(__file__).parents[2] / "docs" / "tracing.md").read_text(encoding="utf-8")
    code, shown = re.findall(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", page, re.S)[0]
    for _ in range(2):  # and again: it leaves nothing behind
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert out.stdout == shown
