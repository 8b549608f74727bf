"""State values to JSON and back, through the graph's own state model only.

Writing dumps each field with its Pydantic adapter in JSON mode; a value the model cannot
express as JSON fails the whole write with an error naming the field. Reading validates
each stored value with the same adapter, so the only classes ever built are those the
state model names; nothing is imported, evaluated or unpickled. Stored data that *asks*
for a class (``{"__class__": "os.system"}``, jsonpickle's ``py/object``, LangChain's
``{"lc": 1, "type": "constructor", ...}``) is refused outright: graphnb never writes such
markers, so a row holding one was forged or written by another tool.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from ..checkpoint_errors import CheckpointLoadError, UnsafeCheckpointError, UnstorableValueError
from ..schema import FieldSchema, StateSchema

__all__ = [
    "StoredFieldDroppedWarning",
    "decode_snapshot",
    "decode_update",
    "encode_update",
    "encode_values",
    "find_type_marker",
]

_MARKER_KEYS = frozenset(
    {
        "__class__",
        "__module__",
        "__qualname__",
        "__type__",
        "__reduce__",
        "__reduce_ex__",
        "__import__",
        "__callable__",
        "__builtins__",
        "py/object",
        "py/type",
        "py/function",
        "py/reduce",
        "py/mod",
        "py/newargs",
        "py/repr",
        "_pickle",
    }
)


class StoredFieldDroppedWarning(UserWarning):
    """A stored field no longer exists in the state model; its value was dropped."""


def find_type_marker(value: Any, path: str = "") -> str | None:
    """Where ``value`` holds a key asking a loader to build a class, or ``None``.

    Example:
        >>> find_type_marker({"a": [1, {"py/object": "os.system"}]})
        "['a'][1]['py/object']"
        >>> find_type_marker({"a": [1, {"b": "os.system"}]}) is None
        True
    """
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key in _MARKER_KEYS:
                    return f"{where}[{key!r}]"
                if key == "lc" and item.get("type") in ("constructor", "secret") and "id" in item:
                    return f"{where}['lc']"
                if isinstance(child, (dict, list)):
                    stack.append((child, f"{where}[{key!r}]"))
        elif isinstance(item, list):
            stack.extend(
                (child, f"{where}[{index}]")
                for index, child in enumerate(item)
                if isinstance(child, (dict, list))
            )
    return None


# -- writing -------------------------------------------------------------------------------


def _encode(field: FieldSchema | None, name: str, value: Any, *, typed_update: bool) -> Any:
    adapter = field.adapter if field is not None else None
    try:
        if adapter is not None and typed_update:
            encoded = adapter.dump_python(value, mode="json", warnings="error")
        else:
            encoded = to_jsonable_python(value)
    except (PydanticSerializationError, TypeError, ValueError) as error:
        raise UnstorableValueError(
            f"field {name!r} holds {_short(value)}, which cannot be stored as JSON "
            f"({error}); give the field a JSON-serializable type (a Pydantic model, "
            "a dataclass, str, list, dict ...)",
            field=name,
        ) from None
    marker = find_type_marker(encoded) if isinstance(encoded, (dict, list)) else None
    if marker is not None:
        raise UnstorableValueError(
            f"field {name!r} holds a dict with the key {marker}, which graphnb reserves to "
            "recognize forged class references; rename that key",
            field=name,
        )
    return encoded


def encode_values(schema: StateSchema[Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The whole state as JSON-compatible data, field by field.

    Raises:
        UnstorableValueError: naming the first field that cannot be stored.
    """
    fields = schema.fields
    return {
        name: _encode(fields.get(name), name, value, typed_update=True)
        for name, value in values.items()
    }


def encode_update(schema: StateSchema[Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """One node's checked update as JSON-compatible data.

    An update for a field with a custom reducer may have any shape, so it is stored as
    plain JSON rather than through the field's type.
    """
    fields = schema.fields
    encoded = {}
    for name, value in update.items():
        field = fields.get(name)
        typed = field is None or field.reducer.typed_updates
        encoded[name] = _encode(field, name, value, typed_update=typed)
    return encoded


def _short(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


# -- reading -------------------------------------------------------------------------------


class _Where:
    """The row being read, for error messages."""

    __slots__ = ("checkpoint_id", "thread_id")

    def __init__(self, thread_id: str, checkpoint_id: str) -> None:
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id

    def text(self) -> str:
        return f"checkpoint {self.checkpoint_id!r} of thread {self.thread_id!r}"


def check_safe(data: Any, *, thread_id: str, checkpoint_id: str, part: str) -> None:
    """Refuse stored data holding a class reference.

    Raises:
        UnsafeCheckpointError: naming the thread, the checkpoint and where the marker is.
    """
    marker = find_type_marker(data)
    if marker is not None:
        raise UnsafeCheckpointError(
            f"checkpoint {checkpoint_id!r} of thread {thread_id!r} asks to construct a class "
            f"or call a function (key {marker} in its {part}); graphnb stores plain JSON "
            "only and never imports what stored data names, so this row was refused",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )


def _decode(field: FieldSchema, raw: Any, where: _Where, *, typed: bool) -> Any:
    adapter = field.adapter
    if adapter is None or not typed:
        return raw
    try:
        return adapter.validate_python(raw, strict=False)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise CheckpointLoadError(
            f"field {field.name!r} of {where.text()} holds {raw!r:.80}, which no longer fits "
            f"the state model ({first['msg']}); migrate the stored value or make the field "
            "accept it",
            thread_id=where.thread_id,
            checkpoint_id=where.checkpoint_id,
            field=field.name,
        ) from None


def decode_snapshot(
    schema: StateSchema[Any],
    snapshot: Mapping[str, Any],
    *,
    thread_id: str,
    checkpoint_id: str,
    dropped: set[str],
) -> dict[str, Any]:
    """A stored whole state as field values; fields the model lost are added to ``dropped``.

    Fields the model gained since the row was written take their defaults.
    """
    values = schema.defaults()
    values.update(_decode_fields(schema, snapshot, _Where(thread_id, checkpoint_id), dropped))
    return values


def decode_update(
    schema: StateSchema[Any],
    update: Mapping[str, Any],
    *,
    thread_id: str,
    checkpoint_id: str,
    dropped: set[str],
) -> dict[str, Any]:
    """A stored node update as checked field values, ready for the reducers."""
    where = _Where(thread_id, checkpoint_id)
    return _decode_fields(schema, update, where, dropped, update=True)


def _decode_fields(
    schema: StateSchema[Any],
    stored: Mapping[str, Any],
    where: _Where,
    dropped: set[str],
    *,
    update: bool = False,
) -> dict[str, Any]:
    """Each stored field's value, validated by its field; unknown fields of a model dropped.

    An update for a field with a custom reducer may have any shape, so it is kept as stored.
    """
    fields = schema.fields
    decoded = {}
    for name, raw in stored.items():
        field = fields.get(name)
        if field is None:
            if schema.typed:
                dropped.add(name)
            else:
                decoded[name] = raw
            continue
        typed = not update or field.reducer.typed_updates
        decoded[name] = _decode(field, raw, where, typed=typed)
    return decoded


def warn_dropped(
    schema: StateSchema[Any], dropped: Iterable[str], *, thread_id: str, checkpoint_id: str
) -> None:
    """Warn once about stored fields the state model no longer has."""
    names = sorted(dropped)
    if names:
        listed = ", ".join(repr(name) for name in names)
        warnings.warn(
            f"thread {thread_id!r} (checkpoint {checkpoint_id!r}) stores field(s) {listed} "
            f"that {schema.label} no longer has; their values were dropped",
            StoredFieldDroppedWarning,
            stacklevel=3,
        )
