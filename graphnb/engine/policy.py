"""Per-node policies: retry, timeout and cache.

``add_node(name, fn, retry=RetryPolicy(...), timeout=5.0, cache=CachePolicy(...))``. At
compile time a node with a policy has its callable wrapped by :func:`with_policies`; the
run loop does not know about policies at all, so a graph without any pays nothing.

- **retry**: a failed attempt that the policy retries is streamed as
  :class:`~graphnb.NodeRetrying` and run again after a backoff (exponential, capped,
  with jitter). By default every exception retries but programming errors
  (``TypeError``, ``KeyError``, ``AttributeError``, validation errors ...), which would
  fail again the same way.
- **timeout**: an attempt that overruns fails with :class:`~graphnb.NodeTimeout` naming
  the node and the limit. An async node is cancelled. A sync node cannot be stopped from
  outside in Python: it runs on a helper thread, which is left to finish on its own, and
  its result is discarded.
- **cache**: the result is kept under a key made of the node's name, the function it
  runs (:func:`~graphnb.engine.cachekey.function_identity`), the policy's ``version``,
  the state's type and an exact digest of the values of its input fields (never their
  ``repr``, see :mod:`graphnb.engine.cachekey`), and the run's context data for a node
  that takes the run context; a later call with the same key within ``ttl`` seconds
  returns a copy of it without running the node, streamed as
  :class:`~graphnb.CacheHit`. It is kept in memory (``store="memory"``, one cache per
  compiled graph) or in the database of the saver the run uses (``store="saver"``:
  shared by every compiled graph and process using that database, kept as JSON,
  expiring by the wall clock), see :class:`SaverCache`. Expired results are removed,
  and a call that a human answered (``interrupt()``) is neither read from nor kept in
  the cache unless the policy says ``keep_answered=True``.
"""

from __future__ import annotations

import contextvars
import copy
import hashlib
import heapq
import inspect
import json
import math
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..binding import binding_of, resolve
from ..errors import BindingError, GraphnbError, GraphSetupError, NodeTimeout
from ..human import has_answers
from .cachekey import Unkeyable, digest, function_identity
from .events import CacheHit, NodeRetrying
from .node import call_target, engine_caller, takes_context

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..schema import StateSchema
    from ..spec import CacheSpec, RetrySpec
    from .context import RunContext
    from .store import CacheRows

__all__ = [
    "CachePolicy",
    "MemoryCache",
    "NodeCache",
    "RetryPolicy",
    "SaverCache",
    "bind_node_caches",
    "cache_fields",
    "is_unnamed",
    "is_programming_error",
    "saver_caches",
    "unnamed_reference",
    "with_policies",
]

RetryOn = type[BaseException] | tuple[type[BaseException], ...] | Callable[[BaseException], bool]


def is_programming_error(error: BaseException) -> bool:
    """Whether ``error`` is a bug rather than bad luck: retrying would fail the same way."""
    from pydantic import ValidationError

    from ..schema import WriteError

    programming = (
        TypeError,
        KeyError,
        AttributeError,
        NameError,
        IndexError,
        AssertionError,
        NotImplementedError,
        SyntaxError,
        ValidationError,
        WriteError,
    )
    if isinstance(error, NodeTimeout):
        return False
    return isinstance(error, (*programming, GraphnbError))


@dataclass(frozen=True)
class RetryPolicy:
    """Run a failing node again.

    Args:
        max_attempts: attempts in all, the first included.
        initial_interval: seconds to wait before the second attempt.
        backoff_factor: each wait is this many times the one before.
        max_interval: the longest wait.
        jitter: wait a random time between half the computed wait and all of it, so that
            many clients failing together do not retry together.
        retry_on: the exception class(es) that retry, or a predicate on the exception;
            by default any exception but programming errors (see
            :func:`is_programming_error`).
        seed: seeds the jitter, for reproducible waits (tests).
    """

    max_attempts: int = 3
    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    jitter: bool = True
    retry_on: RetryOn | None = None
    seed: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        _check_retry_on(self.retry_on)
        _checked(self)  # the same checks as a spec's: a bad value fails where it is written

    def retries(self, error: BaseException) -> bool:
        """Whether ``error`` is worth another attempt under this policy."""
        chosen = self.retry_on
        if chosen is None:
            return not is_programming_error(error)
        if isinstance(chosen, tuple) or (
            isinstance(chosen, type) and issubclass(chosen, BaseException)
        ):
            return isinstance(error, chosen)
        predicate: Callable[[BaseException], bool] = chosen  # type: ignore[assignment]
        return bool(predicate(error))

    def delays(self) -> Callable[[int], float]:
        """The wait after failed attempt ``n`` (1-based), jittered from this policy's seed."""
        rng = random.Random(self.seed)

        def delay(attempt: int) -> float:
            wait = min(
                self.max_interval, self.initial_interval * self.backoff_factor ** (attempt - 1)
            )
            return wait * (0.5 + rng.random() / 2) if self.jitter else wait

        return delay

    def to_spec(self) -> RetrySpec:
        """The policy as spec data; ``retry_on`` as bindings.

        A predicate no binding can name (a lambda, a closure) is written as
        ``<unnamed module:qualname>`` (see :func:`unnamed_reference`): the spec says what
        it was, never where it was in memory, and reading the spec back refuses it.
        """
        chosen = self.retry_on
        retry_on: list[str] | None = None
        if chosen is not None:
            items: Sequence[Any] = chosen if isinstance(chosen, tuple) else (chosen,)
            retry_on = [binding_of(item) or unnamed_reference(item) for item in items]
        from ..spec import RetrySpec

        return RetrySpec(
            max_attempts=self.max_attempts,
            initial_interval=self.initial_interval,
            backoff_factor=self.backoff_factor,
            max_interval=self.max_interval,
            jitter=self.jitter,
            retry_on=retry_on,
        )

    @classmethod
    def from_spec(
        cls, spec: RetrySpec, namespace: Mapping[str, Any] | None = None, *, node: str = ""
    ) -> RetryPolicy:
        """The policy a spec describes, resolving ``retry_on`` bindings.

        Raises:
            BindingError: a binding names nothing, or stands for a lambda or closure (see
                :meth:`to_spec`), naming the node (when given) and the policy.
        """
        retry_on: RetryOn | None = None
        if spec.retry_on is not None:
            for binding in spec.retry_on:
                if is_unnamed(binding):
                    where = f"the retry policy of `{node}`" if node else "a retry policy"
                    raise BindingError(
                        f"{where} retries on {binding}, a lambda or a closure, which a spec "
                        "cannot name; define the predicate as a module-level function "
                        "(def retry_on(error): ...) and pass that",
                        binding=binding,
                    )
            found = tuple(_resolve_builtin(binding, namespace) for binding in spec.retry_on)
            retry_on = found[0] if len(found) == 1 else found
        return cls(
            spec.max_attempts,
            spec.initial_interval,
            spec.backoff_factor,
            spec.max_interval,
            spec.jitter,
            retry_on,
        )


_UNNAMED = "<unnamed "


def unnamed_reference(item: Any) -> str:
    """How a spec writes a ``retry_on`` that no binding names: ``<unnamed mod:<lambda>>``."""
    module = getattr(item, "__module__", None) or "?"
    qualname = getattr(item, "__qualname__", None) or type(item).__qualname__
    return f"{_UNNAMED}{module}:{qualname}>"


def is_unnamed(binding: str) -> bool:
    """Whether a spec's ``retry_on`` entry stands for a lambda or closure (no binding)."""
    return binding.startswith(_UNNAMED)


def _check_retry_on(chosen: object) -> None:
    """Refuse a ``retry_on`` that would fail only when a node fails, hiding its error."""
    if chosen is None or _is_exception_class(chosen):
        return
    if isinstance(chosen, tuple):
        if chosen and all(_is_exception_class(item) for item in chosen):
            return
    elif callable(chosen) and not isinstance(chosen, type):
        return
    raise ValueError(
        "RetryPolicy: retry_on takes an exception class, a non-empty tuple of them or a "
        f"predicate on the exception, got {chosen!r:.80}"
    )


def _is_exception_class(item: object) -> bool:
    return isinstance(item, type) and issubclass(item, BaseException)


def _checked(policy: RetryPolicy | CachePolicy) -> None:
    from pydantic import ValidationError

    try:
        policy.to_spec()
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ValueError(
            f"{type(policy).__name__}: {where} {problem['msg'].lower()}, got {problem['input']!r}"
        ) from None


def _resolve_builtin(binding: str, namespace: Mapping[str, Any] | None) -> Any:
    import builtins

    if namespace is None and hasattr(builtins, binding):  # "ConnectionError", "OSError" ...
        return getattr(builtins, binding)
    return resolve(binding, {**vars(builtins), **(namespace or {})})


@dataclass(frozen=True)
class CachePolicy:
    """Keep a node's results, keyed by its input, and reuse them.

    Args:
        ttl: seconds a result is kept; ``None``: as long as the compiled graph lives.
        version: part of the key; change it when the node's code changes.
        fields: the input fields the key is made of (names or aliases, checked when the
            graph compiles); ``None``: all of the state's.
        store: ``"memory"``: results live as long as the compiled graph; ``"saver"``:
            in the checkpointer's database, shared by every compiled graph and process
            using it (the graph must be compiled with a checkpointer; results are kept
            as JSON, so they come back as JSON data, which the state model validates).
        keep_answered: keep (and reuse) the result of a call that asked a human
            (``interrupt()``) too. By default such a call neither reads nor fills the
            cache: its result holds one person's answer, which another thread with the
            same input must not receive.
    """

    ttl: float | None = None
    version: str = ""
    fields: tuple[str, ...] | None = None
    store: Literal["memory", "saver"] = "memory"
    keep_answered: bool = False

    def __post_init__(self) -> None:
        _checked(self)

    def to_spec(self) -> CacheSpec:
        """The policy as spec data."""
        from ..spec import CacheSpec

        return CacheSpec(
            ttl=self.ttl,
            version=self.version,
            fields=None if self.fields is None else list(self.fields),
            store=self.store,
            keep_answered=self.keep_answered,
        )

    @classmethod
    def from_spec(cls, spec: CacheSpec) -> CachePolicy:
        """The policy a spec describes."""
        fields = None if spec.fields is None else tuple(spec.fields)
        return cls(spec.ttl, spec.version, fields, spec.store, spec.keep_answered)


class NodeCache(Protocol):
    """Where a cache policy keeps results: :class:`MemoryCache`, :class:`SaverCache`."""

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, the value)`` when ``key`` is cached and fresh, else ``(False, None)``."""

    def put(self, key: str, value: Any, ttl: float | None) -> None:
        """Keep ``value`` under ``key`` for ``ttl`` seconds (``None``: no limit)."""


class MemoryCache:
    """Node results in memory, each until its policy's time-to-live runs out.

    Expired results are removed as the cache is used (each read and write first drops
    those whose time is up), so a long-lived graph does not keep them.

    Args:
        clock: the time source in seconds (``time.monotonic``); tests pass their own.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._items: dict[str, tuple[float | None, Any]] = {}
        # (expiry, key) of every result with a time-to-live, soonest first
        self._expiries: list[tuple[float, str]] = []
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        """Drop the results whose time is up (the caller holds the lock)."""
        expiries = self._expiries
        while expiries and expiries[0][0] <= now:
            expires, key = heapq.heappop(expiries)
            item = self._items.get(key)
            if item is not None and item[0] == expires:  # not replaced since
                del self._items[key]

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, a copy of the value)`` when ``key`` is cached and fresh."""
        with self._lock:
            self._expire(self.clock())
            item = self._items.get(key)
            if item is None:
                return False, None
            value = item[1]
        return True, copy.deepcopy(value)

    def put(self, key: str, value: Any, ttl: float | None) -> None:
        """Keep ``value`` under ``key`` for ``ttl`` seconds (``None``: no limit)."""
        now = self.clock()
        expires = None if ttl is None else now + ttl
        kept = copy.deepcopy(value)
        with self._lock:
            self._expire(now)
            self._items[key] = (expires, kept)
            if expires is not None:
                heapq.heappush(self._expiries, (expires, key))

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._items.clear()
            self._expiries.clear()

    def __len__(self) -> int:
        return len(self._items)


class _Slot:
    """The saver a compile's saver caches use, set once the compiled graph has opened it."""

    def __init__(self) -> None:
        self.rows: CacheRows | None = None
        self.used: list[str] = []  # the nodes that keep results there


_COMPILING: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar(
    "graphnb_saver_cache", default=None
)


class saver_caches:  # lower case: a context manager, named like contextlib's
    """Scope of one compile: every saver cache made inside (subgraphs' too) shares a slot.

    The outermost compile owns the slot and binds it to its checkpointer; a subgraph
    compiled meanwhile keeps its results in the same database.
    """

    def __enter__(self) -> _Slot:
        current = _COMPILING.get()
        self._token = None if current is not None else _COMPILING.set(_Slot())
        slot = _COMPILING.get()
        assert slot is not None
        self.owner = current is None
        return slot

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _COMPILING.reset(self._token)

    @staticmethod
    def make(graph: str) -> SaverCache:
        """A saver cache for ``graph``'s nodes, in the current compile's slot."""
        slot = _COMPILING.get()
        if slot is None:  # compiled outside of StateGraph.compile: a slot of its own
            slot = _Slot()
        return SaverCache(slot, graph)


def bind_saver_cache(slot: _Slot, saver: Any, graph: str) -> None:
    """Point the compile's saver caches at ``saver``; a clear error if it cannot serve.

    Without a saver the caches stay unbound: the graph can still be drawn, exported or
    compiled again around a checkpointer, and a run without one fails at the node.
    """
    if not slot.used or saver is None or slot.rows is not None:
        return
    nodes = ", ".join(f"`{name}`" for name in slot.used)
    if not all(hasattr(saver, name) for name in ("cache_get", "cache_put", "cache_delete")):
        raise GraphSetupError(
            f"{nodes} of {graph!r} keep their cache in the saver, but "
            f"{type(saver).__name__} keeps no node results (it has no cache_get/cache_put); "
            "use one of graphnb's savers or store='memory'"
        )
    slot.rows = saver


class SaverCache:
    """Node results in the checkpointer's database, each until its time-to-live runs out.

    Shared by every compiled graph (and process) on that database: a result one of them
    stored is a hit for the others. Results are stored as JSON (a state instance as its
    fields' values, rebuilt as the node's state type on a hit); expiry follows the wall
    clock (``time.time``), which processes share. A key is made of the graph's name and
    the node's cache key, so two graphs with a node of the same name never share results.

    Args:
        slot: where the saver is found once the compiled graph opened it.
        graph: the name of the graph whose nodes use this cache.
        clock: seconds since the epoch; tests pass their own.
    """

    def __init__(self, slot: _Slot, graph: str, clock: Callable[[], float] | None = None) -> None:
        self._slot = slot
        self.graph = graph
        self._clock = clock
        self._swept = -math.inf  # when expired rows were last removed
        self._other: tuple[Any, SaverCache] | None = None

    def on(self, saver: Any) -> SaverCache:
        """This cache in ``saver``'s database: the saver of the run a node is part of.

        A subgraph compiled with a checkpointer of its own keeps its results in the
        saver of the graph it runs under, as its threads do; ``None`` (a run without a
        checkpointer) keeps the saver this cache was bound to.
        """
        if saver is None or saver is self._slot.rows:
            return self
        other = self._other
        if other is None or other[0] is not saver:
            slot = _Slot()
            slot.used = self._slot.used
            bind_saver_cache(slot, saver, self.graph)
            other = self._other = (saver, SaverCache(slot, self.graph, self._clock))
        return other[1]

    def clock(self) -> float:
        """Seconds since the epoch: the given clock, else :func:`time.time`."""
        return (self._clock or _now)()

    def use(self, node: str) -> SaverCache:
        """Note that ``node`` keeps its results here (checked when the saver is bound)."""
        self._slot.used.append(node)
        return self

    def _rows(self) -> CacheRows:
        rows = self._slot.rows
        if rows is None:
            nodes = ", ".join(f"`{name}`" for name in self._slot.used)
            raise GraphSetupError(
                f"{nodes} of {self.graph!r} keep their cache in the saver "
                "(CachePolicy(store='saver')), but the graph runs without a checkpointer; "
                "compile it with checkpointer=..., or use store='memory'"
            )
        return rows

    def _key(self, key: str) -> str:
        return hashlib.sha256(f"{self.graph}\x00{key}".encode()).hexdigest()[:40]

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, the value decoded)`` when ``key`` is stored and fresh."""
        rows = self._rows()
        stored = rows.cache_get(self._key(key))
        if stored is None:
            return False, None
        text, expires = stored
        if expires is not None and self.clock() >= expires:
            rows.cache_delete(self._key(key))
            return False, None
        try:
            envelope = json.loads(text)
            kind, value = envelope["kind"], envelope["value"]
        except (ValueError, KeyError, TypeError):
            return False, None  # a damaged row is a miss; the next put replaces it
        return True, _StoredModel(value) if kind == "model" else value

    def put(self, key: str, value: Any, ttl: float | None) -> None:
        """Store ``value`` (as JSON) under ``key`` for ``ttl`` seconds (``None``: no limit)."""
        from pydantic import BaseModel
        from pydantic_core import PydanticSerializationError, to_json

        if isinstance(value, BaseModel):
            envelope = {"kind": "model", "value": value.model_dump(mode="json")}
        else:
            envelope = {"kind": "value", "value": value}
        try:
            text = to_json(envelope).decode()
        except PydanticSerializationError as error:
            raise TypeError(
                f"a result of {self.graph!r} cannot be kept in the saver's cache: it is not "
                f"JSON ({error}); use CachePolicy(store='memory') for such results"
            ) from None
        now = self.clock()
        expires = None if ttl is None else now + ttl
        rows = self._rows()
        rows.cache_put(self._key(key), text, expires)
        expire = getattr(rows, "cache_expire", None)  # a saver of another kind may lack it
        if expire is not None and now - self._swept >= SWEEP_INTERVAL:
            self._swept = now
            expire(now)

    def clear(self) -> int:
        """Forget every result in the saver (of every graph); returns how many went."""
        return self._rows().cache_clear()


def bind_node_caches(fns: Iterable[Any], saver: Any, graph: str) -> None:
    """Bind the saver caches of these node callables to ``saver``.

    A graph compiled again around a checkpointer keeps its nodes, wrapped when it was
    first compiled: their caches find the new saver here.
    """
    for fn in fns:
        cache = getattr(fn, "graphnb_saver_cache", None)
        if isinstance(cache, SaverCache):
            bind_saver_cache(cache._slot, saver, graph)


SWEEP_INTERVAL = 60.0
"""Seconds between two removals of a saver cache's expired rows (at most one per minute
per compiled graph, done as a result is stored)."""


def _now() -> float:
    return time.time()  # looked up at each call, so tests can move the wall clock


@dataclass(frozen=True)
class _StoredModel:
    """A state instance a node returned, as its values: rebuilt as the node's state type."""

    values: dict[str, Any]


def _restored(value: Any, state: Any) -> Any:
    if isinstance(value, _StoredModel):
        return type(state).model_validate(value.values)
    return value


def cache_fields(
    node: str, policy: CachePolicy, schema: StateSchema[Any]
) -> tuple[tuple[str, ...] | None, list[str]]:
    """The field names a node's cache key is made of, and the problems found.

    An alias stands for its field (the key holds the field's value under its name); a
    name the state does not declare is a problem, since every input would then share
    one key. A plain ``dict`` state declares no fields: any key goes.
    """
    if policy.fields is None:
        return None, []
    names: list[str] = []
    problems: list[str] = []
    open_keys = schema.model is None and not schema.typed
    for given in policy.fields:
        name = schema.keys.get(given)
        if name is None and not open_keys:
            known = ", ".join(repr(name) for name in schema.fields) or "none"
            problems.append(
                f"the cache of `{node}` is keyed by the field {given!r}, which {schema.label} "
                f"does not have (its fields: {known})."
            )
            continue
        names.append(name or given)
    return tuple(dict.fromkeys(names)), problems


def cache_key(
    node: str,
    policy: CachePolicy,
    state: Any,
    *,
    identity: str = "",
    fields: tuple[str, ...] | None = None,
    data: Mapping[str, Any] | None = None,
) -> str:
    """The key of a node's result: its name and function, the policy's version, its input.

    Args:
        node: the node's name.
        policy: its cache policy (its ``version`` is part of the key).
        state: the state the node is given; its type is part of the key too.
        identity: what the node's function computes (see
            :func:`~graphnb.engine.cachekey.function_identity`).
        fields: the field names keyed (from :func:`cache_fields`); ``None``: every field.
        data: the run's context data, for a node that takes the run context (it may read
            it): plain values by their digest, other objects (a client) by their type.

    Raises:
        GraphSetupError: a field's value has no exact encoding (see
            :mod:`graphnb.engine.cachekey`); names the cache, the node and the field.
    """
    if isinstance(state, dict):
        values: Any = state
    elif hasattr(type(state), "model_fields"):
        values = {name: getattr(state, name) for name in type(state).model_fields}
    else:
        values = dict(state)
    kind = type(state)
    hasher = hashlib.sha256()
    hasher.update(digest((node, identity, policy.version, kind.__module__, kind.__qualname__)))
    if data:
        hasher.update(b"c" + _data_digest(data))
    for name in sorted(values if fields is None else fields, key=digest):
        hasher.update(b"f" + digest(name))
        if name not in values:
            hasher.update(b"-")  # a key missing from a dict state, told apart from None
            continue
        try:
            hasher.update(b"=" + digest(values[name]))
        except Unkeyable as error:
            where = f"{name}{error.path}"
            raise GraphSetupError(
                f"the cache of node `{node}` cannot key the field {where!r}: {error.kind} has "
                "no exact encoding (its repr may hide a difference, so two inputs could share "
                "a result); leave the field out with CachePolicy(fields=[...]) or hold it as "
                "plain data (numbers, text, bytes, lists, dicts, NumPy arrays, DataFrames)"
            ) from None
        except RecursionError:
            raise GraphSetupError(
                f"the cache of node `{node}` cannot key the field {name!r}: it is nested too "
                "deeply; leave it out with CachePolicy(fields=[...])"
            ) from None
    return hasher.hexdigest()[:32]


def _data_digest(data: Mapping[str, Any]) -> bytes:
    """The run's context data as a key part: objects with no exact encoding by type."""
    parts = []
    for key, value in data.items():
        try:
            found = digest(value)
        except (Unkeyable, RecursionError):
            found = digest(f"{type(value).__module__}:{type(value).__qualname__}")
        parts.append(digest(key) + found)
    return hashlib.sha256(b"".join(sorted(parts))).digest()


def with_policies(
    name: str,
    fn: Callable[..., Any],
    *,
    retry: RetryPolicy | None,
    timeout: float | None,
    cache: CachePolicy | None,
    store: NodeCache,
    fields: tuple[str, ...] | None = None,
) -> Callable[..., Any]:
    """``fn`` wrapped to apply its policies; called as ``(state, context)``.

    ``fields`` are the cache's field names as :func:`cache_fields` resolved them (the
    policy's own, aliases included, when not given).
    """
    target = call_target(fn)
    if inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target):
        raise GraphSetupError(
            f"`{name}` streams (it is a generator): retry, timeout and cache apply to nodes "
            "that return their update"
        )
    call = engine_caller(fn)
    wants_context = takes_context(fn)
    remote = isinstance(store, SaverCache)
    identity = function_identity(fn) if cache is not None else ""
    keyed = fields if fields is not None or cache is None else cache.fields

    def attempt_args(state: Any, context: RunContext) -> tuple[Any, ...]:
        return (state, context) if wants_context else (state,)

    def cache_of(state: Any, context: RunContext) -> tuple[NodeCache | None, str]:
        """The cache this call reads and fills, and its key; ``None``: no caching."""
        if cache is None or (not cache.keep_answered and has_answers()):
            return None, ""
        data = context.data if wants_context else None
        key = cache_key(name, cache, state, identity=identity, fields=keyed, data=data)
        if isinstance(store, SaverCache):
            return store.on(context._saver), key
        return store, key

    def retry_wait(
        error: Exception, attempt: int, delay: Callable[[int], float] | None, context: RunContext
    ) -> float | None:
        """The pause before retrying after failed ``attempt``, told as an event; ``None``: none."""
        if delay is None or retry is None:
            return None
        if attempt >= retry.max_attempts or not retry.retries(error):
            return None
        wait = delay(attempt)
        context._event(
            NodeRetrying(context.step, name, attempt, wait, error, instance=context.instance)
        )
        return wait

    if inspect.iscoroutinefunction(target):

        async def policed_async(state: Any, context: RunContext) -> Any:
            import asyncio

            kept, key = cache_of(state, context)
            if kept is not None:
                # A database answers off the event loop.
                hit, value = await asyncio.to_thread(kept.get, key) if remote else kept.get(key)
                if hit:
                    context._event(CacheHit(context.step, name, key, instance=context.instance))
                    return _restored(value, state)
            delay = retry.delays() if retry is not None else None
            attempt = 1
            while True:
                try:
                    pending = call(*attempt_args(state, context))
                    if timeout is None:
                        result = await pending
                    else:
                        try:  # not wait_for: on Python 3.11 it can lose a cancel
                            async with asyncio.timeout(timeout):
                                result = await pending
                        except TimeoutError:
                            raise _timeout(name, context, timeout) from None
                    break
                except Exception as error:
                    wait = retry_wait(error, attempt, delay, context)
                    if wait is None:
                        raise
                    await asyncio.sleep(wait)
                    attempt += 1
            if kept is not None and cache is not None:
                if remote:
                    await asyncio.to_thread(kept.put, key, result, cache.ttl)
                else:
                    kept.put(key, result, cache.ttl)
            return result

        policed_async.graphnb_node = fn  # type: ignore[attr-defined]
        policed_async.graphnb_retry = retry  # type: ignore[attr-defined]
        policed_async.graphnb_saver_cache = store if remote else None  # type: ignore[attr-defined]
        return policed_async

    def policed(state: Any, context: RunContext) -> Any:
        kept, key = cache_of(state, context)
        if kept is not None:
            hit, value = kept.get(key)
            if hit:
                context._event(CacheHit(context.step, name, key, instance=context.instance))
                return _restored(value, state)
        delay = retry.delays() if retry is not None else None
        attempt = 1
        while True:
            try:
                args = attempt_args(state, context)
                if timeout is None:
                    result = call(*args)
                else:
                    result = _call_with_timeout(name, call, args, timeout, context)
                break
            except Exception as error:
                wait = retry_wait(error, attempt, delay, context)
                if wait is None:
                    raise
                time.sleep(wait)
                attempt += 1
        if kept is not None and cache is not None:
            kept.put(key, result, cache.ttl)
        return result

    policed.graphnb_node = fn  # type: ignore[attr-defined]  # what exports name
    policed.graphnb_retry = retry  # type: ignore[attr-defined]  # what the builder reruns
    policed.graphnb_saver_cache = store if remote else None  # type: ignore[attr-defined]
    return policed


def _timeout(name: str, context: RunContext, limit: float) -> NodeTimeout:
    return NodeTimeout(
        f"node `{name}` ran longer than its timeout of {limit:g} s at step {context.step}",
        node=name,
        step=context.step,
        limit=limit,
    )


def _call_with_timeout(
    name: str,
    call: Callable[..., Any],
    args: tuple[Any, ...],
    limit: float,
    context: RunContext,
) -> Any:
    """Run a sync node on a helper thread and stop waiting for it after ``limit`` seconds.

    Python cannot stop a thread: one that overruns is left to finish, its result unused.
    The thread runs in a copy of this context, so ``interrupt()`` works inside it.
    """
    box: list[tuple[bool, Any]] = []
    finished = threading.Event()
    run_in = contextvars.copy_context()

    def target() -> None:
        try:
            box.append((True, run_in.run(call, *args)))
        except BaseException as error:  # re-raised in the caller's thread
            box.append((False, error))
        finally:
            finished.set()

    threading.Thread(target=target, name=f"graphnb-timeout-{name}", daemon=True).start()
    if not finished.wait(limit):
        raise _timeout(name, context, limit)
    ok, value = box[0]
    if not ok:
        raise value
    return value
