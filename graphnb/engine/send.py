"""Map-reduce: a router's ``Send(node, payload)`` runs ``node`` once per item.

A router may return :class:`Send` items (alone, in a list, or mixed with plain route
values). Each becomes an *instance* of its target node in the next super-step: the
target's callable, run on the payload as its input state (the state's defaults with the
payload written over them) instead of the graph's state. The instances of one step run
concurrently like any other nodes of the step, and their updates merge through the
fields' reducers in node order, a node's instances in the order the router listed them.

A plain step pays one attribute test for all this (``Run.sends`` is empty); everything
else lives here and runs only when a router sent something.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import RouteError
from ..schema import WriteError, is_graph_state
from .node import Node

if TYPE_CHECKING:
    from ..schema import StateSchema

__all__ = ["Send", "distinct", "instance_key", "instances", "order", "parse_key", "position"]


@dataclass(frozen=True, slots=True, eq=False)
class Send:
    """Run ``node`` on its own input state ``payload``, as one item of a map-reduce.

    Args:
        node: the target node; declare it on the router with
            ``add_conditional_edges(..., sends=[node])``.
        payload: the instance's input: a mapping of field names (or aliases) to values,
            or a state instance. Fields it leaves out have their defaults.
    """

    node: str
    payload: Any = None

    def __repr__(self) -> str:
        return f"Send({self.node!r}, {self.payload!r})"


def instance_key(node: Node) -> str:
    """The name a step's task is recorded under: ``node`` or ``node[index]``."""
    return node.name if node.instance is None else f"{node.name}[{node.instance}]"


def parse_key(key: str) -> str:
    """The node name of a task key written by :func:`instance_key`."""
    if key.endswith("]") and "[" in key:
        return key[: key.rindex("[")]
    return key


def check_payload(schema: StateSchema[Any], source: str, step: int, send: Send) -> dict[str, Any]:
    """A Send's payload as checked writes; a RouteError naming the router if it is not one."""
    payload = send.payload
    if payload is None:
        return {}
    if not isinstance(payload, Mapping) and not is_graph_state(payload):
        raise RouteError(
            f"the router of `{source}` sent {payload!r} to `{send.node}` at step {step}; a "
            f"Send payload is a mapping of {schema.label} fields or a {schema.label}",
            node=source,
            step=step,
            route=send,
        )
    try:
        if is_graph_state(payload):
            payload = schema.values_of(payload)
        return schema.check_writes(payload)
    except WriteError as error:
        raise RouteError(
            f"the router of `{source}` sent an invalid payload to `{send.node}` at step "
            f"{step}: {error}",
            node=source,
            step=step,
            route=send,
        ) from None


def instances(
    schema: StateSchema[Any],
    nodes: Mapping[str, Node],
    sends: list[tuple[str, dict[str, Any]]],
) -> list[Node]:
    """One instance per ``(target, checked payload)``, numbered per target in item order."""
    counts: dict[str, int] = {}
    made = []
    for target, writes in sends:
        number = counts.get(target, 0)
        counts[target] = number + 1
        values = schema.defaults()
        schema.apply(values, writes)
        made.append(nodes[target].instance_of(number, values, writes))
    return made


def order(plain: list[Node], made: list[Node]) -> list[Node]:
    """A step's tasks in the order they start: Send instances, then plain runs.

    That is the order LangGraph prepares a step's tasks in (its Send packets, then the
    nodes its edges triggered), so the updates of quick nodes stream in the same order.
    Their writes merge in another order: see :func:`position`.
    """
    tasks = plain + made
    tasks.sort(key=lambda node: -position(node)[0])  # stable: node order within each kind
    return tasks


def position(node: Node) -> tuple[int, int, int]:
    """Where a task's writes merge in its step: plain runs in node order, then Send instances.

    LangGraph applies a step's plain tasks before its Send packets, so a reducer such as
    ``operator.add`` sees the router's own successors' items first, then the mapped ones.
    (A running step keeps its Sends in the order they were sent; a step resumed from a
    checkpoint, which keeps no such order, puts them in node order.)
    """
    if node.instance is None:
        return (0, node.index, 0)
    return (1, node.index, node.instance)


def distinct(finished: list[Node]) -> list[Node]:
    """The finished nodes once each: a node's instances trigger its edges and joins once.

    (Its router still runs once per instance, on that instance's result: see
    ``Run._routed_states``.)
    """
    seen: dict[str, Node] = {}
    for node in finished:
        seen.setdefault(node.name, node)
    return list(seen.values())
