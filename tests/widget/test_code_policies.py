"""A retry policy whose ``retry_on`` is a lambda or closure (issue 29, item 14): it runs in
the builder of a graph given in code, the spec never holds a memory address, and an
export refuses it naming the node and the policy."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from graphnb import END, START, BindingError, GraphSpec, RetryPolicy, StateGraph
from graphnb.export import ExportError, to_module
from graphnb.widget import Builder


def _graph() -> tuple[StateGraph[Any], list[str]]:
    calls: list[str] = []

    def work(state: dict[str, Any]) -> dict[str, Any]:
        calls.append(state["fail"])
        if len(calls) == 1:
            raise {"os": OSError, "value": ValueError}[state["fail"]]("first attempt")
        return {"attempts": len(calls)}

    policy = RetryPolicy(
        initial_interval=0, jitter=False, retry_on=lambda e: isinstance(e, OSError)
    )
    graph = StateGraph(dict).add_node("work", work, retry=policy)
    return graph.add_edge(START, "work").add_edge("work", END), calls


def test_the_spec_names_a_lambda_without_its_memory_address() -> None:
    graph, _ = _graph()
    text = graph.spec.to_json()
    assert " at 0x" not in text
    assert json.loads(text)["nodes"][0]["retry"]["retry_on"] == [
        f"<unnamed {__name__}:_graph.<locals>.<lambda>>"
    ]


@pytest.mark.parametrize("compiled", [False, True])
def test_the_builder_of_a_graph_given_in_code_runs_its_lambda_predicate(compiled: bool) -> None:
    graph, calls = _graph()
    builder = Builder(graph.compile() if compiled else graph, namespace={})
    app = builder.compile()
    assert app.invoke({"fail": "os"})["attempts"] == 2, "OSError retried, as the lambda says"
    calls.clear()
    with pytest.raises(Exception, match="first attempt"):
        app.invoke({"fail": "value"})
    assert calls == ["value"], "ValueError not retried"
    calls.clear()
    assert builder._compile_for_run().invoke({"fail": "os"})["attempts"] == 2
    assert " at 0x" not in builder.spec.to_json()


def test_a_spec_read_back_refuses_the_lambda_naming_node_and_policy() -> None:
    graph, _ = _graph()
    with pytest.raises(BindingError) as caught:
        StateGraph.from_spec(GraphSpec.from_json(graph.spec.to_json()))
    assert str(caught.value).startswith("the retry policy of `work` retries on <unnamed ")
    assert "define the predicate as a module-level function" in str(caught.value)


def exported_work(state: dict[str, Any]) -> dict[str, Any]:
    return {"attempts": 1}


def test_an_export_refuses_the_lambda_naming_node_and_policy() -> None:
    policy = RetryPolicy(retry_on=lambda e: isinstance(e, OSError))
    graph = StateGraph(dict).add_node("work", exported_work, retry=policy)
    graph.add_edge(START, "work").add_edge("work", END)
    with pytest.raises(ExportError) as caught:
        to_module(graph, ruff=False)
    assert [str(p) for p in caught.value.problems] == [
        "retry_on of 'work': it is a lambda, and it cannot be imported by path"
    ]
    spec = GraphSpec.from_json(graph.spec.to_json())
    with pytest.raises(ExportError) as caught:
        to_module(spec, namespace={"exported_work": exported_work}, ruff=False)
    problems = [str(p) for p in caught.value.problems]
    assert any(
        re.match(r"the retry policy of node 'work': it retries on <unnamed .*<lambda>>", p)
        for p in problems
    ), problems


def test_the_builder_of_a_saved_spec_shows_the_unnamed_predicate_as_a_problem() -> None:
    graph, _ = _graph()
    given = Builder(graph, namespace={})
    assert given.problems == [], "given in code, the lambda runs"
    saved = Builder(GraphSpec.from_json(graph.spec.to_json()), namespace={})
    retry = [p for p in saved.problems if "retry policy" in p["message"]]
    assert [p["nodes"] for p in retry] == [["work"]]
    assert retry[0]["message"].startswith("the retry policy of `work` retries on <unnamed ")
