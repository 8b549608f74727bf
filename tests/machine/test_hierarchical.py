"""Hierarchical machines: a state whose work is a nested machine, run as a subgraph,
left through the event its final state maps to, checked when declared, drawn nested."""

from __future__ import annotations

import operator
from enum import Enum, auto
from typing import Annotated, Any

import pytest

from graphnb import GraphSetupError, GraphState, NodeStarted
from graphnb.diagram import to_dot, to_mermaid, to_svg
from graphnb.machine import Machine, MachineDefinitionError, external, nested
from graphnb.validate import check_spec


class Review(Enum):
    READ = auto()
    APPROVED = auto()
    REJECTED = auto()


class Verdict(Enum):
    OK = auto()
    NO = auto()


class Doc(Enum):
    DRAFT = auto()
    REVIEW = auto()
    PUBLISHED = auto()


class Act(Enum):
    SUBMIT = auto()
    ACCEPT = auto()
    REVISE = auto()


REVIEW = Machine(
    "review",
    states=Review,
    events=Verdict,
    initial=Review.READ,
    final=[Review.APPROVED, Review.REJECTED],
    transitions=[
        external(Review.READ, Review.APPROVED, on=Verdict.OK),
        external(Review.READ, Review.REJECTED, on=Verdict.NO),
    ],
)
EXITS = {Review.APPROVED: Act.ACCEPT, Review.REJECTED: Act.REVISE}


def _doc(review: Machine[Any, Any] = REVIEW, exits: dict[Any, Any] | None = None) -> Machine:
    return Machine(
        "doc",
        states=Doc,
        events=Act,
        initial=Doc.DRAFT,
        final=[Doc.PUBLISHED],
        transitions=[
            external(Doc.DRAFT, Doc.REVIEW, on=Act.SUBMIT),
            external(Doc.REVIEW, Doc.PUBLISHED, on=Act.ACCEPT),
            external(Doc.REVIEW, Doc.DRAFT, on=Act.REVISE),
        ],
        substates={Doc.REVIEW: nested(review, exits=EXITS if exits is None else exits)},
    )


class Paper(GraphState):
    drafts: Annotated[list[str], operator.add] = []
    event: str | None = None
    phase: str | None = None


def _handlers() -> dict[Any, Any]:
    def draft(state: Paper) -> dict[str, Any]:
        return {"drafts": [f"v{len(state.drafts) + 1}"], "event": Act.SUBMIT}

    def read(state: Paper) -> Verdict:
        return Verdict.OK if len(state.drafts) >= 2 else Verdict.NO

    return {Doc.DRAFT: draft, Review.READ: read}


def test_a_composite_state_runs_its_machine_and_leaves_by_its_final_state():
    app = _doc().to_graph(Paper, _handlers()).compile()
    paths = [e.path for e in app.stream({}, subgraphs=True) if isinstance(e, NodeStarted)]
    assert paths == [
        ("DRAFT",),
        ("REVIEW",),
        ("REVIEW", "READ"),
        ("REVIEW", "REJECTED"),  # rejected: REVISE leads back to DRAFT
        ("DRAFT",),
        ("REVIEW",),
        ("REVIEW", "READ"),
        ("REVIEW", "APPROVED"),  # approved: ACCEPT leads on
        ("PUBLISHED",),
    ]
    final = app.invoke({})
    assert final.phase == "PUBLISHED"
    assert final.drafts == ["v1", "v2"], "an append field crosses the subgraph once"


def test_machines_nest_to_any_depth():
    class Check(Enum):
        LOOK = auto()
        FINE = auto()

    class Seen(Enum):
        DONE = auto()

    check = Machine(
        "check",
        states=Check,
        events=Seen,
        initial=Check.LOOK,
        final=[Check.FINE],
        transitions=[external(Check.LOOK, Check.FINE, on=Seen.DONE)],
    )
    review = Machine(
        "review",
        states=Review,
        events=Verdict,
        initial=Review.READ,
        final=[Review.APPROVED, Review.REJECTED],
        transitions=[
            external(Review.READ, Review.APPROVED, on=Verdict.OK),
            external(Review.READ, Review.REJECTED, on=Verdict.NO),
        ],
        substates={Review.READ: nested(check, exits={Check.FINE: Verdict.OK})},
    )
    graph = _doc(review).to_graph(
        dict, {Doc.DRAFT: lambda s: Act.SUBMIT, Check.LOOK: lambda s: Seen.DONE}
    )
    app = graph.compile()
    paths = [e.path for e in app.stream({}, subgraphs=True) if isinstance(e, NodeStarted)]
    assert ("REVIEW", "READ", "LOOK") in paths
    assert app.invoke({})["phase"] == "PUBLISHED"
    assert graph.spec.node("REVIEW").subgraph.node("READ").subgraph is not None


def test_the_spec_holds_the_nested_machine_and_its_exits():
    spec = _doc().spec
    node = spec.node("REVIEW")
    assert spec.version == 2
    assert node.subgraph is not None
    assert node.subgraph.metadata["kind"] == "machine"
    assert [n.id for n in node.subgraph.nodes] == ["READ", "APPROVED", "REJECTED"]
    assert node.metadata["exits"] == {"APPROVED": "ACCEPT", "REJECTED": "REVISE"}
    assert check_spec(spec) == []
    assert _doc().fire(Doc.REVIEW, Act.ACCEPT) is Doc.PUBLISHED, "fire stays one level"


def test_a_wrong_nesting_is_reported_with_every_problem():
    with pytest.raises(MachineDefinitionError) as caught:
        _doc(exits={Review.READ: Act.ACCEPT, Review.APPROVED: Act.SUBMIT})
    assert caught.value.problems == [
        "the nested machine of state REVIEW ('review') maps READ in exits, which is not one "
        "of its final states (APPROVED, REJECTED)",
        "the nested machine of state REVIEW leaves APPROVED on SUBMIT, but no transition "
        "leaves REVIEW on SUBMIT",
        "the nested machine of state REVIEW ('review') can end in REJECTED, which exits does "
        "not map to an event of this machine",
    ]
    with pytest.raises(MachineDefinitionError, match=r"must be made with nested\(machine"):
        Machine(
            "bad",
            states=Doc,
            events=Act,
            initial=Doc.DRAFT,
            final=[Doc.PUBLISHED, Doc.REVIEW],
            transitions=[
                external(Doc.DRAFT, Doc.REVIEW, on=Act.SUBMIT),
                external(Doc.DRAFT, Doc.PUBLISHED, on=Act.ACCEPT),
            ],
            substates={Doc.REVIEW: REVIEW},  # type: ignore[dict-item]
        )


def test_a_composite_state_takes_no_handler_of_its_own():
    with pytest.raises(GraphSetupError, match="state REVIEW of machine 'doc' is a nested"):
        _doc().to_graph(dict, {Doc.REVIEW: lambda s: None})
    with pytest.raises(GraphSetupError, match="not Doc or Review members"):
        _doc().to_graph(dict, {Act.SUBMIT: lambda s: None})


def test_diagrams_draw_the_nested_machine_inside_its_state():
    spec = _doc().spec
    mermaid = to_mermaid(spec)
    assert "    state REVIEW {\n" in mermaid
    assert "        [*] --> REVIEW__READ\n" in mermaid
    assert "        REVIEW__READ --> REVIEW__APPROVED : OK\n" in mermaid
    assert '        state "READ" as REVIEW__READ\n' in mermaid
    assert "    REVIEW --> PUBLISHED : ACCEPT\n" in mermaid
    dot = to_dot(spec)
    assert 'subgraph "cluster_REVIEW" {' in dot
    assert '"REVIEW/__start__" [shape=circle, style=filled' in dot
    assert '"REVIEW/READ" -> "REVIEW/APPROVED" [label="OK"];' in dot
    svg = to_svg(spec)
    assert 'data-id="REVIEW/READ"' in svg
    assert 'data-id="REVIEW/APPROVED"' in svg
