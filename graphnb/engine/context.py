"""What a node can learn about the run it is part of, and how it streams custom chunks.

A node (or router) receives the run's :class:`RunContext` through a second positional
parameter or one named ``context``. It is also LangGraph's ``Runtime``: a parameter named
``runtime`` (or annotated ``Runtime[...]``) gets it, with ``.context`` (what the run was
given as ``context=``), ``.stream_writer`` and ``.store``; a parameter named ``config`` gets
a LangGraph-shaped ``RunnableConfig`` dict, one named ``writer`` the stream writer.
:func:`get_stream_writer` returns the running node's writer from anywhere in its code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from .events import Chunk

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    C = TypeVar("C", default=Any)  # a bare RunContext stays a complete type (PEP 696)
else:  # 3.11's TypeVar has no default; typing_extensions is not loaded for this
    from typing import TypeVar

    C = TypeVar("C")

__all__ = ["INJECTED", "RunContext", "Runtime", "get_stream_writer"]

INJECTED = frozenset({"runtime", "config", "writer", "store"})
"""Parameter names that receive a part of the run by keyword, as LangGraph injects them."""


@dataclass(slots=True)
class RunContext(Generic[C]):
    """Passed to nodes and routers that accept a second argument.

    Attributes:
        run_id: unique id of this run.
        thread_id: the thread the run belongs to, if any.
        step: the current super-step (0 for the first nodes).
        node: the node being run.
        data: user data given to the run (``invoke(..., context=...)``): a mapping, or an
            instance of the graph's ``context_schema``.
        instance: which of the node's ``Send`` instances is running; ``None`` for a
            plain run.
    """

    run_id: str
    thread_id: str | None
    step: int
    node: str
    data: Any = field(default_factory=dict)
    _emit: Callable[[Chunk], None] | None = field(default=None, repr=False)
    instance: int | None = None
    # The saver of the outermost run: where CachePolicy(store="saver") keeps results,
    # for a subgraph's nodes too (see graphnb.engine.policy.SaverCache.on).
    _saver: Any = field(default=None, repr=False)
    # The graph's long-term store (compile(store=...)), shared by every run.
    _store: Any = field(default=None, repr=False)

    def write(self, value: Any) -> None:
        """Stream a custom chunk now; it reaches ``stream(mode="custom")`` consumers."""
        if self._emit is not None:
            self._emit(Chunk(self.step, self.node, None, value, instance=self.instance))

    def _event(self, event: Any) -> None:
        """Stream an engine event on the node's behalf (retries, cache hits)."""
        if self._emit is not None:
            self._emit(event)

    def interrupt(self, value: Any = None) -> Any:
        """Stop a threaded run for a human; see :func:`graphnb.interrupt`."""
        from ..human import interrupt

        return interrupt(value)

    # -- LangGraph's Runtime ------------------------------------------------------------

    @property
    def context(self) -> C:
        """What the run was given as ``context=`` (LangGraph's ``Runtime.context``)."""
        return self.data  # type: ignore[no-any-return]

    @property
    def stream_writer(self) -> Callable[[Any], None]:
        """Writes a custom chunk (LangGraph's ``Runtime.stream_writer``); see :meth:`write`."""
        return self.write

    @property
    def store(self) -> Any:
        """The graph's long-term store (``compile(store=...)``), ``None`` without one."""
        return self._store

    @property
    def previous(self) -> None:
        """The functional API's previous return value: ``None`` (graphnb has no such API)."""
        return None

    def config(self) -> dict[str, Any]:
        """The run as LangGraph's ``RunnableConfig`` dict (for a node's ``config`` parameter).

        ``configurable`` holds ``thread_id``, ``run_id`` and ``checkpoint_ns``, and the
        run's ``context=`` mapping's keys; ``metadata`` LangGraph's ``langgraph_step``
        and ``langgraph_node``.
        """
        configurable: dict[str, Any] = {}
        if isinstance(self.data, Mapping):
            configurable.update(self.data)
        configurable.update(thread_id=self.thread_id, run_id=self.run_id, checkpoint_ns="")
        return {
            "configurable": configurable,
            "metadata": {
                "thread_id": self.thread_id,
                "langgraph_step": self.step,
                "langgraph_node": self.node,
            },
            "run_id": self.run_id,
        }

    def inject(self, name: str) -> Any:
        """The value a parameter named ``name`` (one of :data:`INJECTED`) receives."""
        if name == "config":
            return self.config()
        if name == "writer":
            return self.write
        if name == "store":
            return self._store
        return self


Runtime = RunContext
"""LangGraph's name for the run context: annotate a node's parameter ``Runtime[Ctx]``."""


def _ignore(value: Any) -> None:
    """The writer outside a streamed run: what it is given goes nowhere."""


# The running node's writer, set only while a run streams (invoke sets nothing, and its
# nodes' writers write nowhere, as LangGraph's do outside stream_mode="custom").
_WRITER: ContextVar[Callable[[Any], None]] = ContextVar("graphnb_writer", default=_ignore)


def get_stream_writer() -> Callable[[Any], None]:
    """The running node's custom stream writer: what it is given reaches ``mode="custom"``.

    Outside a streamed run (``invoke``, or outside any node) it writes nowhere.
    """
    return _WRITER.get()


def writing(writer: Callable[[Any], None]) -> Any:
    """Make :func:`get_stream_writer` return ``writer`` here; returns a reset token."""
    return _WRITER.set(writer)


def done_writing(token: Any) -> None:
    """Undo :func:`writing` (a generator closed in another context cannot: let it be)."""
    try:  # noqa: SIM105 - cheaper than suppress() per node
        _WRITER.reset(token)
    except ValueError:
        pass
