"""Cache keys: an exact digest of a node's input values and of the function it runs.

A key must never let one input's result stand for another's. So values are hashed by
what they are, never by their ``repr`` (NumPy and pandas shorten theirs, and many
objects print the same for different contents):

- JSON-like values (``None``, booleans, numbers, text, bytes, lists, tuples, dicts with
  keys of any types, in their order, sets in any order), dates and times, ``Decimal``,
  ``UUID``, paths, pydantic URLs and enums by their exact contents, each tagged with its type, so
  ``1``, ``1.0``, ``True`` and ``"1"`` are four keys;
- pydantic models and dataclasses by their class and their fields' values;
- NumPy arrays by dtype, shape and raw bytes (object arrays item by item), NumPy
  scalars likewise; pandas ``DataFrame``/``Series``/``Index`` by their labels, dtypes and
  values;
- anything else has no exact encoding and is refused (:class:`Unkeyable`), so the
  cache names the field and the user leaves it out of ``CachePolicy(fields=...)``.

A function is identified by its module and qualified name, a digest of its code (byte
code, constants, names: two lambdas or two versions of a function differ) and the
immutable values it reads (closure cells, the module globals its code names, defaults,
``functools.partial`` arguments, a callable object's plain attributes; helper functions
it calls are described the same way): two graphs whose ``price`` nodes run different
code, or the same code for another currency, never share results. Mutable values
(lists, dicts, clients) count by their type only, and methods of objects it calls not
at all: change ``CachePolicy(version=...)`` when those change. The digest is the same
in every process running the same Python version.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import hashlib
import inspect
import json
import pathlib
import struct
import types
import uuid
from collections.abc import Callable
from typing import Any

from ..binding import LOADED_FILE_PREFIX

__all__ = ["Unkeyable", "digest", "function_identity"]


class Unkeyable(Exception):
    """A value with no exact encoding for a cache key; ``path`` says where inside it."""

    def __init__(self, kind: str, path: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.path = path


_DEPTH = 200  # deeper values are refused (Python's own recursion would fail later anyway)


def digest(value: Any) -> bytes:
    """The exact digest of ``value`` (see the module docstring).

    Raises:
        Unkeyable: ``value`` holds something with no exact encoding, or nests too deep.
    """
    hasher = hashlib.blake2b(digest_size=20)
    _feed(hasher, value, 0, "")
    return hasher.digest()


def _sized(tag: bytes, data: bytes) -> bytes:
    return tag + struct.pack("<Q", len(data)) + data


def _text(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def _type_name(value: Any) -> bytes:
    kind = type(value)
    return _text(f"{kind.__module__}:{kind.__qualname__}")


def _feed(h: Any, value: Any, depth: int, path: str) -> None:
    if depth > _DEPTH:
        raise Unkeyable(f"a value nested more than {_DEPTH} levels deep", path)
    kind = type(value)
    if value is None:
        h.update(b"N")
    elif kind is bool:
        h.update(b"T" if value else b"F")
    elif kind is int:
        h.update(_sized(b"i", value.to_bytes((value.bit_length() + 8) // 8, "big", signed=True)))
    elif kind is float:
        h.update(b"f" + struct.pack("<d", value))
    elif kind is str:
        h.update(_sized(b"s", _text(value)))
    elif kind in (bytes, bytearray):
        h.update(_sized(b"b" if kind is bytes else b"B", bytes(value)))
    elif kind in (list, tuple):
        scalars = _scalars_text(value)
        if scalars is not None:  # the common flat list (an embedding): one JSON text
            h.update(_sized(b"j" if kind is list else b"k", scalars))
            return
        h.update(_sized(b"l" if kind is list else b"t", struct.pack("<Q", len(value))))
        for index, item in enumerate(value):
            _feed(h, item, depth + 1, f"{path}[{index}]")
    elif kind is dict:
        _feed_mapping(h, b"d", value, depth, path)
    elif kind in (set, frozenset):
        items = sorted(_sub(item, depth, f"{path}{{...}}") for item in value)
        h.update(_sized(b"S" if kind is set else b"Z", b"".join(items)))
    elif kind is complex:
        h.update(b"c" + struct.pack("<dd", value.real, value.imag))
    elif isinstance(value, enum.Enum):
        h.update(_sized(b"e", _type_name(value)))
        _feed(h, value.value, depth + 1, path)
    elif isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        # isoformat keeps microseconds and the offset; a timedelta by its exact parts
        text = (
            f"{value.days},{value.seconds},{value.microseconds}"
            if isinstance(value, datetime.timedelta)
            else value.isoformat()
        )
        h.update(_sized(b"D", _type_name(value) + b"\x00" + _text(text)))
    elif isinstance(value, (decimal.Decimal, uuid.UUID, pathlib.PurePath)) or _is_url(value):
        h.update(_sized(b"x", _type_name(value) + b"\x00" + _text(str(value))))
    elif kind.__module__.partition(".")[0] == "numpy":
        _feed_numpy(h, value, depth, path)
    elif kind.__module__.partition(".")[0] == "pandas":
        _feed_pandas(h, value, depth, path)
    elif isinstance(value, (str, int, float, bytes, list, tuple, dict, set, frozenset)):
        # a subclass of a plain type: its class, then its plain value, taken through the
        # base type's own methods (a subclass may override __str__, __iter__ ...)
        h.update(_sized(b"u", _type_name(value)))
        _feed(h, _plain(value), depth + 1, path)
    elif hasattr(type(value), "model_fields") and hasattr(value, "__pydantic_fields_set__"):
        h.update(_sized(b"m", _type_name(value)))
        fields = {name: getattr(value, name) for name in type(value).model_fields}
        extra = getattr(value, "__pydantic_extra__", None) or {}
        _feed_mapping(h, b"d", {**fields, **extra}, depth, path, attributes=True)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(_sized(b"a", _type_name(value)))
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        _feed_mapping(h, b"d", fields, depth, path, attributes=True)
    else:
        raise Unkeyable(f"a {kind.__module__}.{kind.__qualname__}", path)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _scalars_text(items: list[Any] | tuple[Any, ...]) -> bytes | None:
    """A flat sequence of plain scalars as one exact text, else ``None``.

    Floats alone (an embedding) as their IEEE bytes, ints alone that fit 64 bits likewise,
    anything else as JSON, which writes ``1``, ``1.0``, ``true`` and ``"1"`` apart, floats
    as their shortest round-tripping text (NaN and infinities by name, not quoted), and
    (``ensure_ascii``) every character as an escape, lone surrogates included.
    """
    if len(items) < 8:
        return None
    kinds = set(map(type, items))
    if kinds == {float}:
        return b"d" + struct.pack(f"<{len(items)}d", *items)
    try:
        if kinds == {int}:
            return b"q" + struct.pack(f"<{len(items)}q", *items)
        if kinds <= _SCALARS:
            return b"J" + json.dumps(items, ensure_ascii=True).encode("ascii")
    except (struct.error, ValueError):  # ints past 64 bits, or past Python's text limit
        return None
    return None


def _is_url(value: Any) -> bool:
    """Whether ``value`` is a pydantic URL, whose text is all of it."""
    module = type(value).__module__
    return module.startswith(("pydantic.networks", "pydantic_core")) and hasattr(
        value, "unicode_string"
    )


def _plain(value: Any) -> Any:
    """The value of an instance of a subclass of a plain type, as that plain type."""
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bytes):
        return bytes(memoryview(value))
    if isinstance(value, list):
        return list.copy(value)
    if isinstance(value, tuple):
        return tuple(tuple.__iter__(value))
    if isinstance(value, dict):
        return dict.copy(value)
    if isinstance(value, set):
        return set.copy(value)
    return frozenset.copy(value)


def _sub(value: Any, depth: int, path: str) -> bytes:
    hasher = hashlib.blake2b(digest_size=20)
    _feed(hasher, value, depth + 1, path)
    return hasher.digest()


def _feed_mapping(
    h: Any, tag: bytes, value: Any, depth: int, path: str, *, attributes: bool = False
) -> None:
    # in their order (a node may iterate over them); keys are never compared, so keys of
    # mixed types (1 and "1") are fine
    pairs = [
        (
            _sub(key, depth, path),
            _sub(item, depth, f"{path}.{key}" if attributes else f"{path}[{key!r:.40}]"),
        )
        for key, item in value.items()
    ]
    h.update(_sized(tag, b"".join(k + v for k, v in pairs)))


def _feed_numpy(h: Any, value: Any, depth: int, path: str) -> None:
    import numpy as np

    if isinstance(value, np.generic):
        value = np.asarray(value)
        h.update(b"n")
    if not isinstance(value, np.ndarray):
        raise Unkeyable(f"a {type(value).__module__}.{type(value).__qualname__}", path)
    h.update(_sized(b"A", _type_name(value) + b"\x00" + _text(str(value.dtype.descr))))
    h.update(struct.pack("<Q", value.ndim) + struct.pack(f"<{value.ndim}q", *value.shape))
    if isinstance(value, np.ma.MaskedArray):
        h.update(_sized(b"M", np.ascontiguousarray(np.ma.getmaskarray(value)).tobytes()))
        value = np.ma.getdata(value)
    if value.dtype.hasobject:
        for index, item in enumerate(value.ravel(order="C")):
            _feed(h, item, depth + 1, f"{path}[{index}]")
    else:
        h.update(_sized(b"r", np.ascontiguousarray(value).tobytes()))


def _feed_pandas(h: Any, value: Any, depth: int, path: str) -> None:
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        h.update(_sized(b"P", _type_name(value)))
        _feed_pandas(h, value.columns, depth + 1, f"{path}.columns")
        _feed_pandas(h, value.index, depth + 1, f"{path}.index")
        for number, (_, column) in enumerate(value.items()):
            where = f"{path}.iloc[:, {number}]"
            h.update(_sized(b"p", _text(str(column.dtype))))
            _feed_categories(h, column.dtype, depth, where)
            _feed(h, column.to_numpy(), depth + 1, where)
    elif isinstance(value, pd.Series):
        h.update(_sized(b"P", _type_name(value) + b"\x00" + _text(str(value.dtype))))
        _feed_categories(h, value.dtype, depth, path)
        _feed(h, value.name, depth + 1, f"{path}.name")
        _feed_pandas(h, value.index, depth + 1, f"{path}.index")
        _feed(h, value.to_numpy(), depth + 1, path)
    elif isinstance(value, pd.Index):
        h.update(_sized(b"P", _type_name(value) + b"\x00" + _text(str(value.dtype))))
        _feed_categories(h, value.dtype, depth, path)
        _feed(h, list(value.names), depth + 1, f"{path}.names")
        _feed(h, value.to_numpy(), depth + 1, path)
    elif isinstance(value, (pd.Timestamp, pd.Timedelta)) or value is pd.NaT or value is pd.NA:
        h.update(_sized(b"x", _type_name(value) + b"\x00" + _text(repr(value))))
    else:
        raise Unkeyable(f"a {type(value).__module__}.{type(value).__qualname__}", path)


def _feed_categories(h: Any, dtype: Any, depth: int, path: str) -> None:
    """A categorical dtype's categories and order, which its text ("category") leaves out.

    Two columns with the same values but categories in another order have other codes
    (and sort otherwise): a node reading either gets another result.
    """
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        h.update(b"o" if dtype.ordered else b"O")
        if dtype.categories is not None:
            _feed_pandas(h, dtype.categories, depth + 1, f"{path}.cat.categories")


# -- functions ----------------------------------------------------------------------------

_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, frozenset, tuple, enum.Enum)


def function_identity(fn: Callable[..., Any]) -> str:
    """What ``fn`` computes, as text: its name, its code's digest and what it captures."""
    hasher = hashlib.blake2b(digest_size=16)
    name = _describe(fn, hasher, set())
    return f"{name}#{hasher.hexdigest()}"


def _describe(fn: Any, h: Any, seen: set[int]) -> str:
    """Feed ``fn``'s code and captured values into ``h``; returns its readable name."""
    if id(fn) in seen:  # a function capturing itself (recursion through a cell)
        return "<cycle>"
    seen.add(id(fn))
    if isinstance(fn, functools.partial):
        name = _describe(fn.func, h, seen)
        _captured(h, ("partial", fn.args, tuple(sorted(fn.keywords.items()))))
        return name
    if isinstance(fn, types.MethodType):
        name = _describe(fn.__func__, h, seen)
        _captured(h, _plain_attributes(fn.__self__))
        return name
    if isinstance(fn, types.FunctionType):
        _code(h, fn.__code__)
        cells = tuple(_captured_value(cell, h, seen) for cell in fn.__closure__ or ())
        names = _global_names(fn.__code__)
        known = fn.__globals__
        used = tuple(
            (name, _captured_value(_Cell(known[name]), h, seen)) for name in names if name in known
        )
        defaults = tuple(sorted((fn.__kwdefaults__ or {}).items()))
        _captured(h, (cells, used, fn.__defaults__, defaults))
        return f"{_module_name(fn.__module__)}:{fn.__qualname__}"
    if not inspect.isroutine(fn) and not isinstance(fn, type):
        call = getattr(type(fn), "__call__", None)  # noqa: B004 - a callable object
        if isinstance(call, types.FunctionType):
            _code(h, call.__code__)
            _captured(h, _plain_attributes(fn))
            kind = type(fn)
            return f"{_module_name(kind.__module__)}:{kind.__qualname__}"
    # a builtin or a class: its name says what it computes
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(type(fn)))}"


@dataclasses.dataclass(frozen=True)
class _Cell:
    cell_contents: Any


def _captured_value(cell: Any, h: Any, seen: set[int]) -> Any:
    """A closure cell's (or global's) value as the identity counts it."""
    try:
        value = cell.cell_contents
    except ValueError:  # an empty cell (a name bound later)
        return None
    if isinstance(value, (types.FunctionType, functools.partial, types.MethodType)):
        return _describe(value, h, seen)  # a helper the node calls is part of it
    return value


def _global_names(code: types.CodeType) -> tuple[str, ...]:
    """The names a code object (and the code nested in it) reads, sorted."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names.update(_global_names(constant))
    return tuple(sorted(names))


def _module_name(module: str) -> str:
    """A module's name; a loaded file's made-up one as its stem.

    ``graphnb_file_flow_1a2b3c4d`` is ``flow``: what another process (or a second load of
    the same file) may call it.
    """
    if module.startswith(LOADED_FILE_PREFIX):
        stem, _, tail = module[len(LOADED_FILE_PREFIX) :].rpartition("_")
        if stem and len(tail) == 8:
            return stem
    return module


def _plain_attributes(obj: Any) -> tuple[tuple[str, Any], ...]:
    """An object's immutable attribute values, from its ``__dict__`` and its slots."""
    found = dict(vars(obj)) if isinstance(getattr(obj, "__dict__", None), dict) else {}
    for kind in type(obj).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                found.setdefault(slot, getattr(obj, slot))
    return tuple(sorted((str(k), v) for k, v in found.items() if isinstance(v, _IMMUTABLE)))


def _captured(h: Any, values: Any) -> None:
    """Feed the immutable values in ``values``; anything else counts by its type only."""
    h.update(_captured_digest(values))


def _captured_digest(value: Any) -> bytes:
    if isinstance(value, tuple):
        return hashlib.blake2b(
            b"".join(_captured_digest(item) for item in value), digest_size=20
        ).digest()
    if isinstance(value, _IMMUTABLE):
        try:
            return digest(value)
        except Unkeyable:
            pass
    return hashlib.blake2b(_type_name(value), digest_size=20).digest()


def _code(h: Any, code: types.CodeType) -> None:
    """Feed what a code object does, not where it is (no file name or line numbers)."""
    h.update(_sized(b"C", code.co_code))
    h.update(_sized(b"n", _text("\x00".join((*code.co_names, *code.co_freevars)))))
    h.update(struct.pack("<QQ", code.co_argcount, code.co_kwonlyargcount))
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            _code(h, constant)
        else:
            h.update(_captured_digest(constant))
