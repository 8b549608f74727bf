from __future__ import annotations

from typing import Any

import pytest

import graphnb.export
from graphnb import END, START, StateGraph, append
from graphnb.export import ExportError, to_module


def hello(state: dict[str, Any]) -> dict[str, Any]:
    return {"log": ["hello"]}


def small_graph() -> StateGraph[dict[str, Any]]:
    graph = StateGraph(dict, reducers={"log": append}, name="small")
    graph.add_node("hello", hello, position=(5, 6)).add_edge(START, "hello")
    return graph.add_edge("hello", END)


def test_public_api_is_exactly_all() -> None:
    public = {name for name in vars(graphnb.export) if not name.startswith("_")} - {"annotations"}
    modules = {"codegen", "errors", "formatting", "load", "markdown", "module", "notebook", "parts"}
    modules |= {"nbformat_import", "origin", "resolver", "script", "source"}
    assert public - modules == set(graphnb.export.__all__)


def test_a_spec_with_a_namespace_exports_like_its_graph() -> None:
    from_spec = to_module(small_graph().spec, namespace={"hello": hello}, ruff=False)
    assert from_spec == to_module(small_graph(), ruff=False)


def test_a_spec_whose_binding_names_nothing_is_an_export_error() -> None:
    spec = small_graph().spec
    spec.nodes[0].binding = "hello"  # a name in a notebook's namespace
    with pytest.raises(ExportError, match="no name 'hello'") as caught:
        to_module(spec, namespace={})
    assert [problem.name for problem in caught.value.problems] == ["node 'hello'"]


class SpecHolder:
    """Like the widget's builder: a spec and the namespace its bindings live in."""

    def __init__(self, graph: StateGraph[Any]) -> None:
        self.spec = graph.spec
        self.namespace = {"hello": hello}


class GraphMaker(SpecHolder):
    """A builder that can rebuild its graph itself (the widget's ``to_graph``)."""

    def to_graph(self) -> StateGraph[Any]:
        return StateGraph.from_spec(self.spec, namespace=self.namespace)


@pytest.mark.parametrize("holder", [SpecHolder, GraphMaker])
def test_builder_like_objects_export_with_their_namespace(holder: type[SpecHolder]) -> None:
    text = to_module(holder(small_graph()), ruff=False)
    assert 'graph = StateGraph(dict, reducers={"log": append}, name="small")' in text
    assert 'graph.add_node("hello", hello, position=(5.0, 6.0))' in text


def test_the_widget_builder_exports_its_code_given_callables() -> None:
    pytest.importorskip("anywidget")
    from graphnb.widget import Builder

    text = to_module(Builder(small_graph(), namespace={"hello": hello}), ruff=False)
    assert "def hello(state: dict[str, Any]) -> dict[str, Any]:" in text
    assert "from typing import Any" in text


def test_objects_that_are_not_graphs_are_rejected() -> None:
    with pytest.raises(TypeError, match="expected a StateGraph"):
        to_module(42)


class Wrapper:
    """Like the ReAct agent: an object that holds a compiled graph."""

    def __init__(self) -> None:
        self.compiled = small_graph().compile()
        self.spec = self.compiled.spec


def test_objects_wrapping_a_compiled_graph_export_it() -> None:
    assert to_module(Wrapper(), ruff=False) == to_module(small_graph(), ruff=False)


class NeedsArguments(SpecHolder):
    """Like a state machine: its to_graph needs arguments, so the spec is used."""

    def to_graph(self, state: Any, handlers: Any) -> StateGraph[Any]:
        raise AssertionError("not called")


def test_a_to_graph_needing_arguments_is_not_called() -> None:
    text = to_module(NeedsArguments(small_graph()), ruff=False)
    assert 'graph.add_node("hello", hello, position=(5.0, 6.0))' in text
