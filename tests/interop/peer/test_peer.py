"""The peer suite: LangGraph programs run on LangGraph and, imported, on graphnb.

Each scenario of ``peer_scenarios.py`` gives LangGraph's results (``SAME``) or exactly the
documented :class:`Difference`; both directions fail the test when behaviour changes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

HERE = Path(__file__).resolve().parent


def _load(name: str) -> Any:
    # The suite imports test files by path (--import-mode=importlib); the scenarios
    # import the harness by name, so both are registered under their own names.
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


harness = _load("peer_harness")
scenarios = _load("peer_scenarios")


@pytest.mark.filterwarnings("ignore:The 'config' parameter should be typed")
@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_scenario_gives_langgraphs_results_or_the_documented_difference(scenario: Any) -> None:
    expected, got = harness.outcome(scenario)
    if scenario.expected == harness.SAME:
        assert got == expected
        return
    assert got != expected, "graphnb now gives LangGraph's results: mark the scenario SAME"
    harness.assert_difference(expected, got, scenario.expected)


def test_the_suite_ports_enough_scenarios_and_most_give_langgraphs_results() -> None:
    total = len(scenarios.SCENARIOS)
    same = sum(s.expected == harness.SAME for s in scenarios.SCENARIOS)
    assert total >= 45
    assert len({s.name for s in scenarios.SCENARIOS}) == total
    # docs/interop.md's table states this count; keep them in step.
    assert f"{same} of {total}" in (HERE.parents[2] / "docs" / "interop.md").read_text()


def test_every_difference_gives_its_reason() -> None:
    for scenario in scenarios.SCENARIOS:
        if scenario.expected != harness.SAME:
            assert len(scenario.expected.reason) > 20, scenario.name


UNCHANGED = [
    s for s in scenarios.SCENARIOS if s.expected == harness.SAME or s.expected.langgraphs_calls_same
]


@pytest.mark.filterwarnings("ignore:The 'config' parameter should be typed")
@pytest.mark.parametrize("scenario", UNCHANGED, ids=lambda s: s.name)
def test_the_langgraph_programs_own_calls_give_the_same_results(scenario: Any) -> None:
    # The program as written for LangGraph (invoke(input, config), stream_mode=, LangGraph's
    # Command, snapshot.config for time travel), run unchanged on the imported graph.
    expected = harness.observe(scenario, harness.LangGraphEngine)
    assert harness.observe(scenario, harness.UnchangedProgramEngine) == expected
