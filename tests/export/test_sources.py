from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest
from pydantic import BaseModel

from graphnb import END, START, GraphState, StateGraph, append
from graphnb.export import load_module, to_module, write_module
from graphnb.export.source import Source, free_names


def traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(state: Any) -> Any:
        update = dict(fn(state))
        update["trace"] = [fn.__name__]
        return update

    return wrapper


class Basket(TypedDict, total=False):
    items: Annotated[list[str], append]
    trace: Annotated[list[str], append]
    mood: str


@traced
def pick(state: Basket) -> dict[str, Any]:
    return {"items": ["apple"]}


async def pack(state: Basket) -> dict[str, Any]:
    return {"items": ["box"]}


def start_route(state: Basket) -> Literal["pick", "pack"]:
    return "pack" if state.get("mood") == "hurry" else "pick"


def run_module(path: Path, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, str(path), "-q", *args],
        capture_output=True,
        text=True,
        cwd=path.parent,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_typeddict_state_decorators_async_nodes_and_a_router_at_start(tmp_path: Path) -> None:
    graph = StateGraph(Basket, name="basket")
    graph.add_node("pick", pick).add_node("pack", pack)
    graph.add_conditional_edges(START, start_route)
    graph.add_edge("pick", "pack").add_edge("pack", END)
    text = to_module(graph)
    assert "class Basket(TypedDict, total=False):" in text
    assert "@traced\ndef pick(" in text
    assert "def traced(fn: Callable[..., Any])" in text
    assert "async def pack(" in text
    assert 'graph.add_conditional_edges(START, start_route, ["pick", "pack"])' in text
    path = tmp_path / "basket.py"
    path.write_text(text, encoding="utf-8")
    assert run_module(path) == {"items": ["apple", "box"], "trace": ["pick"]}
    assert run_module(path, "-i", '{"mood": "hurry"}') == {"items": ["box"], "mood": "hurry"}


def test_names_imported_only_for_type_checking_are_imported(tmp_path: Path) -> None:
    (tmp_path / "typed_nodes.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from graphnb import END, START, StateGraph\n"
        "if TYPE_CHECKING:\n"
        "    from collections.abc import Mapping\n"
        "def node(state: Mapping[str, int]) -> dict[str, int]:\n"
        "    return {'x': state['x'] + 1}\n"
        "graph = StateGraph(dict)\n"
        "graph.add_node('node', node).add_edge(START, 'node').add_edge('node', END)\n",
        encoding="utf-8",
    )
    module = load_module(tmp_path / "typed_nodes.py")
    text = to_module(module.graph)
    assert "from collections.abc import Mapping" in text
    path = write_module(module.graph, tmp_path / "typed_export.py")
    assert run_module(path, "-i", '{"x": 1}') == {"x": 2}


def test_free_names_follow_python_scoping() -> None:
    source = Source(
        "outer",
        "def outer(a=DEFAULT):\n"
        "    local = 1\n"
        "    def inner():\n"
        "        return local + helper() + len([x for x in ITEMS])\n"
        "    return inner\n",
    )
    assert free_names(source) == ["DEFAULT", "helper", "len", "ITEMS"]
    recursive = Source("again", "def again(n):\n    return again(n - 1) if n else Stop\n")
    assert free_names(recursive) == ["Stop"]


def test_loaded_exports_are_importable_objects_again(tmp_path: Path) -> None:
    graph = StateGraph(Basket, name="again")
    graph.add_node("pack", pack).add_edge(START, "pack").add_edge("pack", END)
    first = load_module(write_module(graph, tmp_path / "first.py"))
    second = to_module(first.graph)
    assert second == to_module(graph)


class Toolbox:
    @staticmethod
    def tidy(state: dict[str, Any]) -> dict[str, Any]:
        return {"tidy": True}


def test_a_static_method_is_exported_with_its_class(tmp_path: Path) -> None:
    graph = StateGraph(dict, name="tools")
    graph.add_node("tidy", Toolbox.tidy).add_edge(START, "tidy").add_edge("tidy", END)
    text = to_module(graph, ruff=False)
    assert 'graph.add_node("tidy", Toolbox.tidy)' in text
    assert "class Toolbox:\n    @staticmethod\n    def tidy(" in text
    path = tmp_path / "tools.py"
    path.write_text(text, encoding="utf-8")
    assert run_module(path) == {"tidy": True}


class Item(BaseModel):
    name: str


class Cart(GraphState):
    items: "list[Item]" = []  # noqa: UP037 - a quoted annotation on purpose


def add_item(state: Cart) -> dict[str, Any]:
    return {"items": [*state.items, Item(name="pear")]}


def test_names_in_quoted_annotations_are_exported(tmp_path: Path) -> None:
    graph = StateGraph(Cart, name="cart")
    graph.add_node("add", add_item).add_edge(START, "add").add_edge("add", END)
    text = to_module(graph)
    assert "class Item(BaseModel):" in text
    assert "from pydantic import BaseModel" in text
    path = tmp_path / "cart.py"
    path.write_text(text, encoding="utf-8")
    assert run_module(path) == {"items": [{"name": "pear"}]}


def kernel_cell(
    code: str, number: int, namespace: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run ``code`` as a Jupyter kernel runs a cell: a temporary file name in linecache."""
    import linecache

    filename = f"/tmp/ipykernel_4242/cell{number}.py"
    lines = code.splitlines(keepends=True)
    monkeypatch.setitem(linecache.cache, filename, (len(code), None, lines, filename))
    exec(compile(code, filename, "exec"), namespace)


def test_classes_typed_in_a_kernel_are_found_in_their_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphnb.export.source import source_of

    namespace: dict[str, Any] = {"__name__": "__main__"}
    kernel_cell("class Memo:\n    title: str\n    body: str\n", 1, namespace, monkeypatch)
    decoy: dict[str, Any] = {"__name__": "__main__"}
    kernel_cell("class Memo:\n    title: str\n", 2, decoy, monkeypatch)
    kernel_cell("class Tool:\n    def use(self):\n        return 1\n", 3, namespace, monkeypatch)
    assert source_of(namespace["Memo"]).text == "class Memo:\n    title: str\n    body: str"
    assert source_of(namespace["Tool"]).text.startswith("class Tool:\n    def use(self):")


def test_cached_functions_of_a_notebook_are_exported_with_their_decorator(
    tmp_path: Path,
) -> None:
    """`functools.cache` and `lru_cache` make objects that are not functions; their source
    is the function's, decorator included, as for a `functools.wraps` wrapper."""
    cells = [
        "import functools\nfrom graphnb import END, START, StateGraph",
        "@functools.lru_cache(maxsize=None)\ndef square(n: int) -> int:\n    return n * n",
        "@functools.cache\ndef double(n: int) -> int:\n    return 2 * n",
        "def node(state: dict) -> dict:\n    return {'x': square(state['x']) + double(1)}",
        "graph = StateGraph(dict).add_node('node', node)\n"
        "graph.add_edge(START, 'node').add_edge('node', END)",
    ]
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "source": cell} for cell in cells],
    }
    (tmp_path / "cached.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    graph = load_module(tmp_path / "cached.ipynb").graph
    text = to_module(graph)
    assert "@functools.lru_cache(maxsize=None)\ndef square(n: int) -> int:" in text
    assert "@functools.cache\ndef double(n: int) -> int:" in text
    path = tmp_path / "cached_export.py"
    path.write_text(text, encoding="utf-8")
    assert run_module(path, "-i", '{"x": 3}') == {"x": 11}


def test_a_class_defined_again_in_a_later_cell_exports_as_the_graph_uses_it(
    tmp_path: Path,
) -> None:
    """Python 3.11's `inspect` gives the first `class` statement of a name in the file;
    the graph uses the one its cell ran last (told apart by fields, or by where the
    class's methods were compiled)."""
    cells = [
        "from graphnb import END, START, GraphState, StateGraph",
        "class Note(GraphState):\n    x: int = 0",
        "class Tools:\n    @staticmethod\n    def bump(state: Note) -> dict:\n"
        "        return {'x': state.x + 1}",
        "class Note(GraphState):\n    x: int = 0\n    tag: str = 'v2'",
        "class Tools:\n    @staticmethod\n    def bump(state: Note) -> dict:\n"
        "        return {'x': state.x + 10, 'tag': state.tag + '!'}",
        "graph = StateGraph(Note).add_node('bump', Tools.bump)\n"
        "graph.add_edge(START, 'bump').add_edge('bump', END)",
    ]
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "source": cell} for cell in cells],
    }
    (tmp_path / "again.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    graph = load_module(tmp_path / "again.ipynb").graph
    assert graph.compile().invoke({"x": 1}).model_dump() == {"x": 11, "tag": "v2!"}
    path = write_module(graph, tmp_path / "again_export.py")
    assert "tag: str = " in path.read_text(encoding="utf-8")
    assert run_module(path, "-i", '{"x": 1}') == {"x": 11, "tag": "v2!"}
