"""A composed graph (subgraphs, Sends, policies) exported to a notebook and loaded back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat

from graphnb.export import load_graph, load_graphs, to_notebook

CELLS = [
    "import operator\nfrom typing import Annotated, TypedDict\n"
    "from graphnb import END, START, CachePolicy, RetryPolicy, Send, StateGraph",
    "class Report(TypedDict, total=False):\n    topic: str\n    docs: list[str]\n"
    "    notes: Annotated[list[str], operator.add]\n\n\n"
    "class Lookup(TypedDict, total=False):\n    query: str\n    hits: list[str]",
    "def search(state: Lookup) -> dict:\n    return {'hits': [state['query'].upper()]}\n\n\n"
    "def summarise(state: Report) -> dict:\n    return {'notes': [state['topic'][:3]]}\n\n\n"
    "def fan(state: Report) -> list:\n"
    "    return [Send('summarise', {'topic': d}) for d in state['docs']]",
    "lookup = StateGraph(Lookup, name='lookup').add_node('search', search)\n"
    "lookup.add_edge(START, 'search').add_edge('search', END)\n"
    "builder = StateGraph(Report, name='report')\n"
    "builder.add_node('research', lookup, inputs={'topic': 'query'}, outputs={'hits': 'notes'})\n"
    "builder.add_node('summarise', summarise, retry=RetryPolicy(max_attempts=3), timeout=5,"
    " cache=CachePolicy(ttl=60))\n"
    "builder.add_edge(START, 'research')\n"
    "builder.add_conditional_edges('research', fan, sends=['summarise'])\n"
    "builder.add_edge('summarise', END)\n"
    "app = builder.compile()",
]


def unbound(data: Any) -> Any:
    """A spec's data without bindings (nodes' and routers'), which name the notebook."""
    if isinstance(data, dict):
        return {
            k: None if k == "binding" else dict.fromkeys(v) if k == "routers" else unbound(v)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [unbound(item) for item in data]
    return data


def test_a_composed_graph_round_trips_through_a_notebook(tmp_path: Path) -> None:
    source = tmp_path / "source.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbformat.write(notebook, str(source))
    _, app = load_graph(f"{source}:app")
    given = {"topic": "owls", "docs": ["alpha", "beta"]}
    exported = to_notebook(app, input=given, ruff=False)
    text = "\n".join(cell.source for cell in exported.cells)
    assert text.index("def build_research_graph") < text.index("def build_graph")
    assert "RetryPolicy(" in text
    assert "sends=" in text
    target = tmp_path / "exported.ipynb"
    nbformat.write(exported, str(target))
    graphs = load_graphs(target)
    back = graphs["graph"]
    assert unbound(back.spec.to_dict()) == unbound(app.spec.to_dict())  # exact, child included
    assert back.invoke(given) == app.invoke(given)
    assert back.invoke(given)["notes"] == ["OWLS", "alp", "bet"]
    assert "final = graph.invoke({'topic': 'owls', 'docs': ['alpha', 'beta']})" in text
