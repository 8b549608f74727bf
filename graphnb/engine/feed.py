"""A live feed of threads' runs to observers in this process.

A debugger (the builder's canvas, a log, a test) calls :func:`watch` with a thread id and a
callback; from then on every threaded run on that thread in this process, whoever started
it (``invoke`` in another cell, ``stream``, a batch), sends its events to the callback as
they happen: :class:`RunStarted`, the run's own events (:mod:`graphnb.engine.events`,
all of them, whatever the run's caller asked to stream), and :class:`RunEnded`.

A run nobody watches pays one dictionary lookup. A watched ``invoke`` builds the events
it would otherwise skip. Callbacks run on the run's own thread (or its event loop), in
order; one that raises is reported as a warning and dropped from that run, never failing
the run. Runs in other processes are not seen: read their checkpoints from the saver.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from .events import Event
    from .run import Run

__all__ = [
    "EVERY_THREAD",
    "FeedEvent",
    "RunEnded",
    "RunStarted",
    "Watch",
    "arelay",
    "relay",
    "watch",
    "watched",
]


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A run began on the watched thread."""

    kind: ClassVar[Literal["run_started"]] = "run_started"
    thread_id: str
    run_id: str
    graph: str


@dataclass(frozen=True, slots=True)
class RunEnded:
    """A run on the watched thread ended.

    Attributes:
        outcome: ``"done"`` (it ran to its end or stopped at an interrupt), ``"failed"``
            (``error`` says what) or ``"stopped"`` (its caller stopped reading it, or it
            was cancelled).
        error: ``"Type: message"`` of the error a failed run raised.
    """

    kind: ClassVar[Literal["run_ended"]] = "run_ended"
    thread_id: str
    run_id: str
    outcome: Literal["done", "failed", "stopped"]
    error: str | None = None


FeedEvent = Any
"""What a callback receives: :class:`RunStarted`, a run's event, or :class:`RunEnded`."""

Callback = Callable[[FeedEvent], None]

_lock = threading.Lock()
_watchers: dict[str, tuple[Callback, ...]] = {}


class Watch:
    """A subscription made by :func:`watch`; :meth:`close` (or leaving ``with``) ends it."""

    def __init__(self, thread_id: str, callback: Callback) -> None:
        self.thread_id = thread_id
        self.callback = callback
        self.closed = False

    def close(self) -> None:
        """Stop sending this thread's events to the callback (idempotent)."""
        if self.closed:
            return
        self.closed = True
        with _lock:
            kept = tuple(c for c in _watchers.get(self.thread_id, ()) if c is not self.callback)
            if kept:
                _watchers[self.thread_id] = kept
            else:
                _watchers.pop(self.thread_id, None)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        which = "every thread" if self.thread_id == EVERY_THREAD else repr(self.thread_id)
        return f"<Watch {which} {state}>"


EVERY_THREAD = "\x00every thread"
"""The key :func:`watch` files a watcher of every thread under (no thread id has it)."""


def watch(thread_id: str | None, callback: Callback) -> Watch:
    """Send every event of the runs on ``thread_id`` in this process to ``callback``.

    ``thread_id=None`` watches the runs of every thread.

    Raises:
        TypeError: ``thread_id`` is not a string (or ``None``) or ``callback`` is not
            callable.
    """
    if thread_id is None:
        thread_id = EVERY_THREAD
    if not isinstance(thread_id, str):
        raise TypeError(f"watch(thread_id=...) must be a string, got {thread_id!r}")
    if not callable(callback):
        raise TypeError(f"watch(callback=...) must be callable, got {callback!r}")
    with _lock:
        _watchers[thread_id] = (*_watchers.get(thread_id, ()), callback)
    return Watch(thread_id, callback)


def watched(thread_id: str | None) -> bool:
    """Whether anyone watches ``thread_id`` (a lock-free read: one dict lookup)."""
    return thread_id is not None and (thread_id in _watchers or EVERY_THREAD in _watchers)


class _Relay:
    def __init__(self, thread_id: str, run: Run[Any]) -> None:
        self.thread_id = thread_id
        self.run_id = run.run_id
        self.callbacks = [*_watchers.get(thread_id, ()), *_watchers.get(EVERY_THREAD, ())]
        # A watcher sees every event, whatever the caller asked to stream.
        run.events = run.starts = run.steps = run.custom = True
        self.send(RunStarted(thread_id, run.run_id, run.graph.name))

    def send(self, event: FeedEvent) -> None:
        for callback in list(self.callbacks):
            try:
                callback(event)
            except Exception as error:  # an observer never fails the run
                self.callbacks.remove(callback)
                warnings.warn(
                    f"a watcher of thread {self.thread_id!r} raised {error!r}; it gets no "
                    "more events of this run",
                    RuntimeWarning,
                    stacklevel=2,
                )

    def end(
        self, outcome: Literal["done", "failed", "stopped"], error: BaseException | None
    ) -> None:
        text = f"{type(error).__name__}: {error}" if error is not None else None
        self.send(RunEnded(self.thread_id, self.run_id, outcome, text))


def relay(thread_id: str, run: Run[Any], events: Iterator[Event]) -> Iterator[Event]:
    """``events``, each also sent to the watchers of ``thread_id``."""
    with _relaying(thread_id, run) as feed:
        for event in events:
            feed.send(event)
            yield event


async def arelay(
    thread_id: str, run: Run[Any], events: AsyncIterator[Event]
) -> AsyncIterator[Event]:
    """Async :func:`relay`."""
    with _relaying(thread_id, run) as feed:
        async for event in events:
            feed.send(event)
            yield event


@contextmanager
def _relaying(thread_id: str, run: Run[Any]) -> Iterator[_Relay]:
    """A run's feed to the thread's watchers, told how the run ended."""
    feed = _Relay(thread_id, run)
    try:
        yield feed
    except Exception as error:
        feed.end("failed", error)
        raise
    except BaseException:  # cancelled, stopped, or the stream closed early
        feed.end("stopped", None)
        raise
    feed.end("done", None)
