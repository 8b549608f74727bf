"""Human in the loop: stop a threaded run inside a node, and resume it with an answer.

Example:
    >>> from graphnb import StateGraph, START, END
    >>> from graphnb.checkpoint import Command, MemorySaver, interrupt
    >>> def ask(state):
    ...     return {"name": interrupt("what is your name?")}
    >>> graph = StateGraph(dict).add_node("ask", ask).add_edge(START, "ask")
    >>> app = graph.add_edge("ask", END).compile(checkpointer=MemorySaver())
    >>> _ = app.invoke({}, thread_id="t1")  # stops inside `ask`
    >>> app.get_state("t1").interrupts[0].value
    'what is your name?'
    >>> app.invoke(Command(resume="Ada"), thread_id="t1")["name"]
    'Ada'
"""

from __future__ import annotations

import reprlib
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from .errors import GraphRuntimeError
from .records import Interrupt

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    # A default, so that a bare `Command` stays a complete type (PEP 696).
    N = TypeVar("N", default=Any)
else:  # typing_extensions is loaded by pydantic, not by graphnb; 3.11's TypeVar has no default
    from typing import TypeVar

    N = TypeVar("N")

__all__ = [
    "Command",
    "GraphInterrupt",
    "ParentCommand",
    "given_answers",
    "interrupt",
    "interrupt_unanswered",
]

_REPR = reprlib.Repr()  # an interrupt's message: a value nested thousands deep has no full repr
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 6, 200, 200


@dataclass(frozen=True, slots=True)
class Command(Generic[N]):
    """An instruction to the engine, as input to a run or as what a node returns.

    As input, it resumes an interrupted thread: ``invoke(Command(resume=answer),
    thread_id=...)``. Returned by a node, it writes ``update`` and sends the run on to
    ``goto`` (LangGraph's ``Command``, one type for both uses as there):

    >>> from typing import Literal
    >>> from graphnb import StateGraph, START, END
    >>> def triage(state) -> Command[Literal["urgent", "later"]]:
    ...     return Command(goto="urgent", update={"seen": True})
    >>> graph = StateGraph(dict).add_node(triage).add_edge(START, "triage")
    >>> graph = graph.add_node("urgent", lambda s: {"done": "now"})
    >>> graph = graph.add_node("later", lambda s: {"done": "later"})
    >>> app = graph.add_edge("urgent", END).add_edge("later", END).compile()
    >>> app.invoke({})
    {'seen': True, 'done': 'now'}

    A node's static edges still fire beside its ``goto`` (as in LangGraph). ``goto`` may
    name a node not in the node's declared destinations (``add_node(...,
    destinations=...)``, or a ``Command[Literal[...]]`` return annotation): it runs, as in
    LangGraph; destinations are what diagrams and the builder draw. A name that is no
    node of the graph fails the run with a :class:`~graphnb.errors.RouteError`.

    The type parameter (``Command[Literal["a", "b"]]``) only declares destinations.

    Attributes:
        resume: the answer ``interrupt(...)`` returns in the node that asked. With several
            pending interrupts, a dict mapping each :attr:`Interrupt.id` to its answer.
        goto: where the run goes next: a node name, ``Send(node, payload)``, ``END`` (go
            nowhere), or a list of these; all run in the next super-step.
        update: what the node writes: a partial dict or a state instance, merged through
            the reducers like a node's plain return value.
        graph: ``None`` for the graph the node is in; :attr:`PARENT` to apply ``goto``
            and ``update`` to the graph that runs this one as a subgraph node (the
            subgraph stops there, its node's static edges in the parent still fire).
    """

    PARENT: ClassVar[str] = "__parent__"
    """``graph=Command.PARENT``: the command is for the parent graph."""

    resume: Any = None
    goto: Any = ()
    update: Any = None
    graph: str | None = None

    def __post_init__(self) -> None:
        if self.graph not in (None, Command.PARENT):
            raise ValueError(f"Command(graph=...) takes None or Command.PARENT, got {self.graph!r}")

    def targets(self) -> list[Any]:
        """``goto`` as a list: node names, ``END`` and ``Send`` items."""
        goto = self.goto
        if isinstance(goto, (list, tuple)):
            return list(goto)
        return [goto]


class ParentCommand(BaseException):
    """Raised inside a subgraph for a ``Command(graph=Command.PARENT)``; the parent takes it.

    A ``BaseException`` (like :class:`GraphInterrupt`) so that no ``except Exception``
    between the subgraph's node and its parent catches it.
    """

    def __init__(self, command: Command[Any]) -> None:
        self.command = command
        super().__init__(f"a command for the parent graph: {command!r}")


class GraphInterrupt(BaseException):
    """Raised by :func:`interrupt` to stop the run; the engine catches it.

    It derives from ``BaseException`` (like ``KeyboardInterrupt``) so that a node's
    ``except Exception`` does not swallow it.
    """

    def __init__(self, interrupt: Interrupt) -> None:
        self.interrupt = interrupt
        super().__init__(f"interrupt in `{interrupt.node}`: {_REPR.repr(interrupt.value)}")


@dataclass(slots=True)
class _Asking:
    node: str
    answers: tuple[Any, ...]
    calls: int = 0


# The node whose interrupt() calls are being answered: its key alone while it has no
# answers (then its first call stops the run, so nothing needs counting), or an _Asking.
_ASKING: ContextVar[_Asking | str | None] = ContextVar("graphnb_interrupt", default=None)


def interrupt(value: Any = None) -> Any:
    """Stop the run here and show ``value`` to a human; returns their answer on resume.

    The thread's state keeps the interrupt pending (``get_state(thread).interrupts``).
    Running the thread with ``Command(resume=answer)`` runs the node again from its start;
    this time the same ``interrupt(...)`` call returns ``answer``. A node may call it
    several times: each call is answered in order.

    Args:
        value: JSON-compatible data describing what is asked.

    Raises:
        GraphRuntimeError: outside a node of a threaded run (a run with a checkpointer
            and a ``thread_id``), where there is nowhere to keep the question.
    """
    asking = _ASKING.get()
    if asking is None:
        raise GraphRuntimeError(
            "interrupt() works only inside a node of a run that has a thread: compile with "
            "checkpointer=... and run with thread_id=..."
        )
    if isinstance(asking, str):
        raise GraphInterrupt(Interrupt(asking, "during", value, f"{asking}:0"))
    index = asking.calls
    asking.calls += 1
    if index < len(asking.answers):
        return asking.answers[index]
    raise GraphInterrupt(Interrupt(asking.node, "during", value, f"{asking.node}:{index}"))


def has_answers() -> bool:
    """Whether the node running here was resumed with a human's answers.

    Its result then holds one person's answer: a cache must not hand it to another
    thread (see :class:`graphnb.CachePolicy`).
    """
    return isinstance(_ASKING.get(), _Asking)


def asking(node: str, answers: tuple[Any, ...]) -> Any:
    """Make :func:`interrupt` calls in this context belong to ``node``; returns a reset token."""
    return _ASKING.set(_Asking(node, answers) if answers else node)


def done_asking(token: Any) -> None:
    """Undo :func:`asking`."""
    # A generator closed in another context cannot reset; that context is gone anyway.
    # (try/except, not suppress(): this runs for every node of a threaded run.)
    try:  # noqa: SIM105
        _ASKING.reset(token)
    except ValueError:
        pass


def given_answers() -> tuple[Any, ...]:
    """The answers the running node's ``interrupt()`` calls get, in order.

    For shims that run another library's ``interrupt()`` on graphnb's (graphnb.interop's
    LangGraph shim): empty outside a threaded node and before any resume.
    """
    asking = _ASKING.get()
    return asking.answers if isinstance(asking, _Asking) else ()


def interrupt_unanswered(value: Any) -> Any:
    """Stop as the node's first unanswered ``interrupt(value)`` call does.

    The other library's own ``interrupt()`` has already handed out each of
    :func:`given_answers`; this stops the run at the next call, with graphnb's id for it.
    """
    asking = _ASKING.get()
    if isinstance(asking, _Asking):
        asking.calls = len(asking.answers)
    return interrupt(value)
