from __future__ import annotations

import asyncio
import threading
from enum import Enum, auto
from typing import Any

import pytest

from graphnb import END, START, GraphSetupError, GraphState, NodeError
from graphnb.machine import (
    Machine,
    MachineDefinitionError,
    TransitionNotAllowed,
    external,
    internal,
)
from graphnb.validate import check_spec


class Order(Enum):
    NEW = auto()
    PAID = auto()
    SHIPPED = auto()
    CANCELLED = auto()


class Act(Enum):
    PAY = auto()
    SHIP = auto()
    CANCEL = auto()
    NOTE = auto()


def rich(context: Any) -> bool:
    if isinstance(context, dict):
        return bool(context.get("vip"))
    return bool(getattr(context, "vip", False))


def make(on_unknown: Any = "raise", log: list[Any] | None = None) -> Machine[Order, Act]:
    def record(source: Order, target: Order, event: Act, context: Any) -> None:
        if log is not None:
            log.append((source, target, event, context))

    return Machine(
        "order",
        states=Order,
        events=Act,
        initial=Order.NEW,
        final=[Order.SHIPPED, Order.CANCELLED],
        transitions=[
            external(Order.NEW, Order.PAID, on=Act.PAY, do=record),
            external(Order.PAID, Order.SHIPPED, on=Act.SHIP, when=rich, do=record),
            external([Order.NEW, Order.PAID], Order.CANCELLED, on=Act.CANCEL, do=record),
            internal(Order.PAID, on=Act.NOTE, do=record),
        ],
        on_unknown=on_unknown,
    )


def test_fire_returns_the_target_and_runs_the_action_with_its_arguments() -> None:
    log: list[Any] = []
    machine = make(log=log)
    assert machine.fire(Order.NEW, Act.PAY, {"who": "ada"}) is Order.PAID
    assert log == [(Order.NEW, Order.PAID, Act.PAY, {"who": "ada"})]


def test_one_final_state_may_be_given_alone() -> None:
    machine = Machine(
        "order",
        states=Order,
        events=Act,
        initial=Order.NEW,
        final=Order.CANCELLED,
        transitions=[
            external(Order.NEW, Order.PAID, on=Act.PAY),
            external(Order.PAID, Order.SHIPPED, on=Act.SHIP),
            external([Order.PAID, Order.SHIPPED], Order.CANCELLED, on=Act.CANCEL),
        ],
    )
    assert machine.final == (Order.CANCELLED,)
    assert machine.is_final(Order.CANCELLED)


def test_one_transition_leaves_from_several_states() -> None:
    machine = make()
    assert machine.fire(Order.NEW, Act.CANCEL) is Order.CANCELLED
    assert machine.fire(Order.PAID, Act.CANCEL) is Order.CANCELLED


def test_a_guard_decides_whether_the_transition_is_taken() -> None:
    machine = make()
    assert machine.fire(Order.PAID, Act.SHIP, {"vip": True}) is Order.SHIPPED
    assert machine.can_fire(Order.PAID, Act.SHIP, {"vip": True})
    assert not machine.can_fire(Order.PAID, Act.SHIP, {"vip": False})
    with pytest.raises(TransitionNotAllowed) as caught:
        machine.fire(Order.PAID, Act.SHIP, {"vip": False})
    assert caught.value.guarded is True
    assert "every guard" in str(caught.value)


def test_the_first_transition_whose_guard_passes_wins() -> None:
    class S(Enum):
        A = auto()
        B = auto()
        C = auto()

    class E(Enum):
        GO = auto()

    machine = Machine(
        "pick",
        states=S,
        events=E,
        initial=S.A,
        final=[S.B, S.C],
        transitions=[
            external(S.A, S.B, on=E.GO, when=lambda n: n > 10, guard_name="big"),
            external(S.A, S.C, on=E.GO, when=lambda n: n > 0, guard_name="positive"),
        ],
    )
    assert machine.fire(S.A, E.GO, 50) is S.B
    assert machine.fire(S.A, E.GO, 5) is S.C
    assert [t.label for t in machine.transitions_from(S.A)] == ["GO [big]", "GO [positive]"]


def test_internal_transition_stays_in_its_state_and_runs_its_action() -> None:
    log: list[Any] = []
    machine = make(log=log)
    assert machine.fire(Order.PAID, Act.NOTE, "hello") is Order.PAID
    assert log == [(Order.PAID, Order.PAID, Act.NOTE, "hello")]


def test_unknown_event_raises_an_error_naming_state_and_event() -> None:
    machine = make()
    with pytest.raises(TransitionNotAllowed) as caught:
        machine.fire(Order.SHIPPED, Act.PAY)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.machine, error.state, error.event, error.guarded) == (
        "order",
        Order.SHIPPED,
        Act.PAY,
        False,
    )
    assert "PAY" in str(error)
    assert "SHIPPED" in str(error)


def test_ignore_policy_keeps_the_state_and_runs_no_action() -> None:
    log: list[Any] = []
    machine = make("ignore", log)
    assert machine.fire(Order.SHIPPED, Act.PAY) is Order.SHIPPED
    assert machine.resolve(Order.SHIPPED, Act.PAY) is None
    assert log == []


def test_definition_is_stateless_and_shared_between_threads() -> None:
    machine = make()
    results: list[Order] = []

    def walk(vip: bool) -> None:
        state = Order.NEW
        for _ in range(200):
            state = machine.fire(Order.NEW, Act.PAY)
            state = machine.fire(state, Act.SHIP, {"vip": True}) if vip else state
        results.append(state)

    threads = [threading.Thread(target=walk, args=(i % 2 == 0,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.name for r in results) == ["PAID", "PAID", "SHIPPED", "SHIPPED"]


def test_events_from_lists_declared_events_in_order() -> None:
    machine = make()
    assert machine.events_from(Order.PAID) == [Act.SHIP, Act.CANCEL, Act.NOTE]
    assert machine.is_final(Order.SHIPPED)
    assert not machine.is_final(Order.NEW)


def test_every_definition_problem_is_reported_at_once() -> None:
    class Other(Enum):
        X = auto()

    with pytest.raises(MachineDefinitionError) as caught:
        Machine(
            "bad",
            states=Order,
            events=Act,
            initial=Order.NEW,
            transitions=[
                external(Order.NEW, Order.PAID, on=Act.PAY),
                external(Order.NEW, Order.CANCELLED, on=Act.PAY),
                external(Order.NEW, Other.X, on=Act.SHIP),  # type: ignore[arg-type]
            ],
        )
    error = caught.value
    assert isinstance(error, GraphSetupError)
    assert isinstance(error, TypeError)
    assert len(error.problems) == 3
    assert any("Other.X" in p for p in error.problems)
    assert sum("labelled 'PAY'" in p for p in error.problems) == 1
    assert any("unguarded" in p for p in error.problems)


def test_values_of_the_wrong_type_are_reported_not_crashed_on() -> None:
    with pytest.raises(MachineDefinitionError) as caught:
        Machine(
            "typo",
            states=Order,
            events=Act,
            initial=Order.NEW,
            transitions=[
                external(Order.NEW, Order.PAID, on="PAY"),  # type: ignore[arg-type]
                external("NEW", Order.CANCELLED, on=Act.CANCEL),  # type: ignore[arg-type]
            ],
        )
    assert caught.value.problems == [
        "the transition NEW -> PAID on 'PAY' uses an event that is not a Act",
        "the transition 'NEW' -> CANCELLED on CANCEL names 'NEW', which is not a Order",
    ]


def test_unreachable_states_are_a_definition_error() -> None:
    with pytest.raises(MachineDefinitionError) as caught:
        Machine(
            "partial",
            states=Order,
            events=Act,
            initial=Order.NEW,
            transitions=[external(Order.NEW, Order.PAID, on=Act.PAY)],
        )
    assert caught.value.problems == [
        "state PAID has no transition out and is not final; list it in final=[...] or give "
        "it a transition",
        "state SHIPPED cannot be reached from the initial state NEW",
        "state CANCELLED cannot be reached from the initial state NEW",
    ]


def test_a_state_without_a_way_out_must_be_final() -> None:
    transitions = [
        external(Order.NEW, Order.PAID, on=Act.PAY),
        external(Order.PAID, Order.SHIPPED, on=Act.SHIP),
        external(Order.PAID, Order.CANCELLED, on=Act.CANCEL),
    ]
    with pytest.raises(MachineDefinitionError, match="state SHIPPED has no transition out"):
        Machine("o", states=Order, events=Act, initial=Order.NEW, transitions=transitions)
    final = [Order.SHIPPED, Order.CANCELLED]
    done = Machine(
        "o", states=Order, events=Act, initial=Order.NEW, final=final, transitions=transitions
    )
    assert check_spec(done.spec) == []


def test_states_must_be_an_enum() -> None:
    with pytest.raises(MachineDefinitionError, match="states must be an Enum"):
        Machine("x", states=str, events=Act, initial="a", transitions=[])  # type: ignore[type-var,arg-type]


# -- the spec -------------------------------------------------------------------------------


def test_spec_follows_the_machine_convention() -> None:
    spec = make().spec
    assert spec.name == "order"
    assert spec.metadata == {"kind": "machine", "initial": "NEW", "final": ["SHIPPED", "CANCELLED"]}
    assert [n.id for n in spec.nodes] == ["NEW", "PAID", "SHIPPED", "CANCELLED"]
    edges = [(e.source, e.target, e.label, e.metadata) for e in spec.edges]
    assert edges == [
        (START, "NEW", None, {}),
        ("NEW", "PAID", "PAY", {"event": "PAY", "guard": None, "internal": False}),
        ("PAID", "SHIPPED", "SHIP [rich]", {"event": "SHIP", "guard": "rich", "internal": False}),
        ("NEW", "CANCELLED", "CANCEL", {"event": "CANCEL", "guard": None, "internal": False}),
        ("PAID", "CANCELLED", "CANCEL", {"event": "CANCEL", "guard": None, "internal": False}),
        ("PAID", "PAID", "NOTE", {"event": "NOTE", "guard": None, "internal": True}),
        ("SHIPPED", END, None, {}),
        ("CANCELLED", END, None, {}),
    ]
    assert all(
        e.kind == "conditional" for e in spec.edges if START not in (e.source,) and e.target != END
    )
    assert check_spec(spec) == []


def test_spec_round_trips_through_json() -> None:
    spec = make().spec
    from graphnb import GraphSpec

    assert GraphSpec.from_json(spec.to_json()) == spec


def test_machine_draws_through_the_diagram_package() -> None:
    bundle = make()._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<svg")
    assert "SHIP [rich]" in bundle["image/svg+xml"]
    assert "machine 'order'" in bundle["text/plain"]


def test_machine_renders_as_a_mermaid_state_diagram() -> None:
    from graphnb.diagram import to_mermaid

    text = to_mermaid(make())
    assert "stateDiagram-v2" in text
    assert "PAID --> SHIPPED : SHIP [rich]" in text


# -- as a graph -----------------------------------------------------------------------------


class Ticket(GraphState):
    phase: str = "NEW"
    event: str | None = None
    vip: bool = False
    notes: int = 0


def test_to_graph_runs_the_machine_through_its_transitions() -> None:
    log: list[Any] = []
    graph = make(log=log).to_graph(
        Ticket,
        {
            Order.NEW: lambda s: Act.PAY,
            Order.PAID: lambda s: (
                {"notes": s.notes + 1, "event": Act.NOTE} if s.notes < 2 else Act.SHIP
            ),
        },
    )
    final = graph.compile().invoke({"vip": True})
    assert (final.phase, final.notes) == ("SHIPPED", 2)
    assert [(s.name, t.name) for s, t, _, _ in log] == [
        ("NEW", "PAID"),
        ("PAID", "PAID"),
        ("PAID", "PAID"),
        ("PAID", "SHIPPED"),
    ]
    assert graph.spec.metadata["kind"] == "machine"


def test_to_graph_guard_sees_the_graph_state() -> None:
    graph = make().to_graph(Ticket, {Order.NEW: lambda s: Act.PAY, Order.PAID: lambda s: Act.SHIP})
    with pytest.raises(NodeError) as caught:
        graph.compile().invoke({"vip": False})
    assert isinstance(caught.value.__cause__, TransitionNotAllowed)


def test_handler_naming_no_event_ends_the_run_where_it_is() -> None:
    graph = make().to_graph(Ticket, {Order.NEW: lambda s: Act.PAY, Order.PAID: lambda s: None})
    assert graph.compile().invoke({}).phase == "PAID"


@pytest.mark.parametrize("named", [{"event": "PAYY"}, Order.PAID])
def test_handler_naming_no_event_of_the_machine_fails_saying_which(named: Any) -> None:
    graph = make().to_graph(Ticket, {Order.NEW: lambda s: named})
    with pytest.raises(NodeError) as caught:
        graph.compile().invoke({})
    event = named["event"] if isinstance(named, dict) else named
    assert isinstance(caught.value.__cause__, ValueError)
    assert str(caught.value.__cause__) == (
        f"the handler of state NEW named the event {event!r}; "
        "expected a Act member, the name of one, or None"
    )


def test_async_handlers_with_context_run_under_ainvoke() -> None:
    seen: list[str] = []

    async def pay(state: Ticket, context: Any) -> Act:
        seen.append(context.node)
        await asyncio.sleep(0)
        return Act.CANCEL

    graph = make().to_graph(Ticket, {Order.NEW: pay})
    final = asyncio.run(graph.compile().ainvoke({}))
    assert final.phase == "CANCELLED"
    assert seen == ["NEW"]


def test_handlers_are_called_as_nodes_are() -> None:
    class Pay:
        async def __call__(self, state: Ticket) -> Act:
            return Act.PAY

    handlers: dict[Order, Any] = {
        Order.NEW: Pay(),  # an async callable object is awaited
        Order.PAID: lambda s, then=Act.CANCEL: then,  # a defaulted parameter gets no context
    }
    final = asyncio.run(make().to_graph(Ticket, handlers).compile().ainvoke({}))
    assert final.phase == "CANCELLED"


def test_handlers_keyed_by_foreign_values_are_refused() -> None:
    with pytest.raises(GraphSetupError, match="not Order members"):
        make().to_graph(Ticket, {"NEW": lambda s: None})
