from __future__ import annotations

from typing import Any

import pytest

from graphnb.agent import REACT_MACHINE, ReactEvent, ReactState
from graphnb.machine import TransitionNotAllowed
from graphnb.validate import check_spec

S = ReactState
E = ReactEvent

# The seed's diagram, one row per arrow (ERROR / TIMEOUT arrows split in two).
SEED = [
    (S.IDLE, E.RECEIVE_PROMPT, S.THINKING, None),
    (S.THINKING, E.NEED_TOOL, S.TOOL_CALLING, None),
    (S.THINKING, E.DIRECT_ANSWER, S.RESPONDING, None),
    (S.TOOL_CALLING, E.TOOL_RESULT, S.OBSERVING, None),
    (S.OBSERVING, E.THINK_COMPLETE, S.THINKING, None),
    (S.RESPONDING, E.GENERATE_COMPLETE, S.COMPLETED, None),
    *[
        (s, E.ERROR, S.FAILED, None)
        for s in (S.THINKING, S.TOOL_CALLING, S.OBSERVING, S.RESPONDING)
    ],
    *[
        (s, E.TIMEOUT, S.FAILED, None)
        for s in (S.THINKING, S.TOOL_CALLING, S.OBSERVING, S.RESPONDING)
    ],
    (S.FAILED, E.RESET, S.IDLE, None),
    (S.FAILED, E.RETRY, S.THINKING, "THINKING"),
    (S.FAILED, E.RETRY, S.TOOL_CALLING, "TOOL_CALLING"),
]


@pytest.mark.parametrize(
    ("source", "event", "target", "failed_in"),
    SEED,
    ids=[f"{s.name}-{e.name}-{t.name}" for s, e, t, _ in SEED],
)
def test_every_transition_of_the_seed_diagram(
    source: ReactState, event: ReactEvent, target: ReactState, failed_in: str | None
) -> None:
    context: Any = {"failure": {"phase": failed_in}} if failed_in else None
    assert REACT_MACHINE.can_fire(source, event, context)
    assert REACT_MACHINE.fire(source, event, context) is target


def test_the_machine_has_exactly_the_seed_arrows() -> None:
    spec = REACT_MACHINE.spec
    arrows = {
        (e.source, e.metadata["event"], e.target) for e in spec.edges if e.kind == "conditional"
    }
    assert arrows == {(s.name, e.name, t.name) for s, e, t, _ in SEED}
    assert spec.metadata == {"kind": "machine", "initial": "IDLE", "final": ["COMPLETED"]}
    assert check_spec(spec) == []


def test_failures_while_observing_retry_the_tools_and_others_retry_thinking() -> None:
    retry = REACT_MACHINE.fire
    assert retry(S.FAILED, E.RETRY, {"failure": {"phase": "OBSERVING"}}) is S.TOOL_CALLING
    assert retry(S.FAILED, E.RETRY, {"failure": {"phase": "RESPONDING"}}) is S.THINKING


@pytest.mark.parametrize(
    ("source", "event"),
    [
        (S.IDLE, E.NEED_TOOL),
        (S.COMPLETED, E.RETRY),
        (S.IDLE, E.ERROR),
        (S.TOOL_CALLING, E.DIRECT_ANSWER),
        (S.COMPLETED, E.RECEIVE_PROMPT),
    ],
)
def test_arrows_not_in_the_diagram_are_refused(source: ReactState, event: ReactEvent) -> None:
    assert not REACT_MACHINE.can_fire(source, event)
    with pytest.raises(TransitionNotAllowed) as caught:
        REACT_MACHINE.fire(source, event)
    assert (caught.value.state, caught.value.event) == (source, event)


def test_the_react_machine_renders_as_the_seed_state_diagram() -> None:
    from graphnb.diagram import to_mermaid

    text = to_mermaid(REACT_MACHINE)
    assert "stateDiagram-v2" in text
    assert "FAILED --> TOOL_CALLING : RETRY [retry_tools]" in text
    assert "COMPLETED --> [*]" in text
