"""What a node can learn about the run it is part of, and how it streams custom chunks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .events import Chunk

__all__ = ["RunContext"]


@dataclass(slots=True)
class RunContext:
    """Passed to nodes and routers that accept a second argument.

    Attributes:
        run_id: unique id of this run.
        thread_id: the thread the run belongs to, if any.
        step: the current super-step (0 for the first nodes).
        node: the node being run.
        data: user data given to the run (``invoke(..., context={...})``).
        instance: which of the node's ``Send`` instances is running; ``None`` for a
            plain run.
    """

    run_id: str
    thread_id: str | None
    step: int
    node: str
    data: Mapping[str, Any] = field(default_factory=dict)
    _emit: Callable[[Chunk], None] | None = field(default=None, repr=False)
    instance: int | None = None
    # The saver of the outermost run: where CachePolicy(store="saver") keeps results,
    # for a subgraph's nodes too (see graphnb.engine.policy.SaverCache.on).
    _saver: Any = field(default=None, repr=False)

    def write(self, value: Any) -> None:
        """Stream a custom chunk now; it reaches ``stream(mode="custom")`` consumers."""
        if self._emit is not None:
            self._emit(Chunk(self.step, self.node, None, value, self.instance))

    def _event(self, event: Any) -> None:
        """Stream an engine event on the node's behalf (retries, cache hits)."""
        if self._emit is not None:
            self._emit(event)

    def interrupt(self, value: Any = None) -> Any:
        """Stop a threaded run for a human; see :func:`graphnb.interrupt`."""
        from ..human import interrupt

        return interrupt(value)
