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

import json
import reprlib
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from pydantic import TypeAdapter, ValidationError
from pydantic_core import (
    CoreConfig,
    PydanticSerializationError,
    SchemaSerializer,
    to_jsonable_python,
)

from ..checkpoint_errors import CheckpointLoadError, UnsafeCheckpointError, UnstorableValueError
from ..schema import FieldSchema, StateSchema

__all__ = [
    "StoredFieldDroppedWarning",
    "StoredValues",
    "encode_update",
    "encode_values",
    "find_type_marker",
    "imports_on_load",
    "unstorable_field",
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


MAX_DEPTH = 400
"""How deeply stored JSON may nest. Pydantic refuses to serialize values nested deeper
than 255 levels, so a row graphnb wrote stays well within it; a deeper one was forged, and
would make Python's recursive parsers and encoders fail with ``RecursionError``."""


def find_type_marker(value: Any, path: str = "") -> str | None:
    """Where ``value`` holds a key asking a loader to build a class, or ``None``.

    Example:
        >>> find_type_marker({"a": [1, {"py/object": "os.system"}]})
        "['a'][1]['py/object']"
        >>> find_type_marker({"a": [1, {"b": "os.system"}]}) is None
        True
    """
    found = _scan(value, path, None)
    return found[0] if found is not None else None


def _scan(value: Any, path: str, limit: int | None) -> tuple[str, bool] | None:
    """The first type marker (``(where, False)``), or nesting past ``limit`` (``(where, True)``)."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if limit is not None and depth > limit:
            return where, True
        if isinstance(item, dict):
            for key, child in item.items():
                if key in _MARKER_KEYS:
                    return f"{where}[{key!r}]", False
                if key == "lc" and item.get("type") in ("constructor", "secret") and "id" in item:
                    return f"{where}['lc']", False
                if isinstance(child, (dict, list, tuple)):
                    stack.append((child, f"{where}[{key!r}]", depth + 1))
        elif isinstance(item, (list, tuple)):  # a tuple is written as a JSON array
            stack.extend(
                (child, f"{where}[{index}]", depth + 1)
                for index, child in enumerate(item)
                if isinstance(child, (dict, list, tuple))
            )
    return None


# -- writing -------------------------------------------------------------------------------


_PLAIN = frozenset({str, int, bool, type(None)})


def _encode(field: FieldSchema | None, name: str, value: Any, *, typed_update: bool) -> Any:
    adapter = field.adapter if field is not None else None
    kind = type(value)
    if kind in _PLAIN and (
        adapter is None or not typed_update or (field is not None and field.exact is kind)
    ):
        return value  # JSON as it is, with no field type of its own to serialize it through
    try:
        if adapter is not None and typed_update:
            encoded = _json_serializer(adapter).to_python(value, mode="json", warnings="error")
        else:
            encoded = to_jsonable_python(value)
    except (PydanticSerializationError, TypeError, ValueError, RecursionError) as error:
        if isinstance(error, RecursionError) or "depth exceeded" in str(error):
            # pydantic reports deep nesting as a "circular reference": say what it is
            raise UnstorableValueError(
                f"field {name!r} holds {_short(value)}, nested too deeply to be stored as "
                "JSON; keep the state flatter (or hold such data outside it)",
                field=name,
            ) from None
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


# Each field adapter's serializer again, but keeping NaN and infinities: the adapter turns
# them into None wherever it infers a value's type (an `Any`, a bare `dict` or `list`), so
# they would be stored as null. Kept, JSON refuses them and the write names the field, as
# it does for a `float` field. Calling the serializer directly also skips `dump_python`'s
# own overhead, which costs more than this lookup.
_JSON_SERIALIZERS: WeakKeyDictionary[TypeAdapter[Any], SchemaSerializer] = WeakKeyDictionary()


def _json_serializer(adapter: TypeAdapter[Any]) -> SchemaSerializer:
    serializer = _JSON_SERIALIZERS.get(adapter)
    if serializer is None:
        config = CoreConfig(ser_json_inf_nan="constants")
        serializer = _JSON_SERIALIZERS[adapter] = SchemaSerializer(adapter.core_schema, config)
    return serializer


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


def unstorable_field(encoded: Any, thread_id: str) -> UnstorableValueError:
    """The error naming the field to blame, and why, when ``json.dumps`` refused data.

    ``encoded`` is encoded writes (``[[node, update], ...]``) or a snapshot.
    """
    fields = (
        encoded.items()
        if isinstance(encoded, dict)
        else [item for _, update in encoded for item in update.items()]
    )
    for name, value in fields:
        try:
            json.dumps(value, allow_nan=False)
        except RecursionError:
            reason = "a value nested too deeply for JSON"
        except ValueError as error:
            if "digits" in str(error):  # Python's int-to-text limit (sys.set_int_max_str_digits)
                reason = (
                    f"an int of more than {sys.get_int_max_str_digits()} digits, which "
                    "JSON readers refuse; store it as a str instead"
                )
            else:
                reason = "NaN or an infinity, which JSON cannot store; store None or a str instead"
        else:
            continue
        return UnstorableValueError(
            f"field {name!r} holds {reason}", field=name, thread_id=thread_id
        )
    return UnstorableValueError(
        f"a checkpoint of thread {thread_id!r} is not JSON", field="?", thread_id=thread_id
    )


def imports_on_load(field: FieldSchema) -> bool:
    """Whether validating a stored value of ``field`` could import what the value names.

    Walks the field's whole pydantic core schema, so an ``ImportString`` nested in a
    sub-model, a list, a TypedDict, a dataclass, a dict's values or a union is found too.
    """
    if field.adapter is None:
        return False
    stack: list[Any] = [field.adapter.core_schema]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif _is_import_string(item):
            return True
    return False


def _is_import_string(item: Any) -> bool:
    # pydantic's ImportString validates with `pydantic._internal._validators.import_string`;
    # matched by name too, in case a pydantic release moves it.
    if not callable(item) or isinstance(item, type):
        return False
    module = getattr(item, "__module__", None) or ""
    return getattr(item, "__name__", None) == "import_string" and module.startswith("pydantic")


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 4, 60, 60


def _short(value: Any) -> str:
    # reprlib stops at a few levels: a value nested thousands deep has no full repr
    text = _REPR.repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


# -- reading -------------------------------------------------------------------------------


def check_safe(data: Any, *, thread_id: str, checkpoint_id: str, part: str) -> None:
    """Refuse stored data holding a class reference, or nesting deeper than graphnb writes.

    Raises:
        UnsafeCheckpointError: naming the thread, the checkpoint and where the marker is.
        CheckpointLoadError: the data nests deeper than :data:`MAX_DEPTH` levels.
    """
    found = _scan(data, "", MAX_DEPTH)
    if found is None:
        return
    where, too_deep = found
    if too_deep:
        raise CheckpointLoadError(
            f"checkpoint {checkpoint_id!r} of thread {thread_id!r} is corrupt: its {part} "
            f"nests deeper than {MAX_DEPTH} levels (at {where[:60]}...), which graphnb never "
            "writes",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        )
    raise UnsafeCheckpointError(
        f"checkpoint {checkpoint_id!r} of thread {thread_id!r} asks to construct a class "
        f"or call a function (key {where} in its {part}); graphnb stores plain JSON "
        "only and never imports what stored data names, so this row was refused",
        thread_id=thread_id,
        checkpoint_id=checkpoint_id,
    )


def _decode(field: FieldSchema, raw: Any, checkpoint: StoredValues, *, typed: bool) -> Any:
    adapter = field.adapter
    if adapter is None:
        return raw
    if not typed:
        return _rebuilt(adapter, raw)
    try:
        return adapter.validate_python(raw, strict=False)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise CheckpointLoadError(
            f"field {field.name!r} of {checkpoint.text()} holds {raw!r:.80}, which no longer fits "
            f"the state model ({first['msg']}); migrate the stored value or make the field "
            "accept it",
            thread_id=checkpoint.thread_id,
            checkpoint_id=checkpoint.checkpoint_id,
            field=field.name,
        ) from None


def _rebuilt(adapter: TypeAdapter[Any], raw: Any) -> Any:
    """A custom reducer's stored update, its objects rebuilt where the field's type can.

    Such an update may have any shape, so it is stored as plain JSON: objects (LangChain
    messages for ``add_messages``, models, dataclasses) became dicts. When the update
    holds such dicts and reads back as the field's type (a list of them, or one of its
    items) to exactly what was stored, that value is handed to the reducer, as the node
    wrote it; anything else (a coercion that would change a value) stays as stored.
    """
    if not _holds_object(raw):
        return raw
    candidates = [(raw, False)]
    if isinstance(raw, dict):
        candidates.append(([raw], True))  # one item of a list field
    for value, single in candidates:
        try:
            rebuilt = adapter.validate_python(value, strict=False)
        except ValidationError:
            continue
        try:
            same = to_jsonable_python(rebuilt) == value
        except (PydanticSerializationError, TypeError, ValueError):
            same = False
        if same:
            return rebuilt[0] if single else rebuilt
    return raw


def _holds_object(raw: Any) -> bool:
    if isinstance(raw, dict):
        return True
    return isinstance(raw, list) and any(isinstance(item, dict) for item in raw)


@dataclass(slots=True)
class StoredValues:
    """Reads the values one stored checkpoint holds through today's state model.

    Stored fields the model no longer has are collected in ``dropped`` (for one warning,
    :func:`warn_dropped`); a value that no longer fits its field fails with a
    :class:`CheckpointLoadError` naming the thread and the checkpoint.
    """

    schema: StateSchema[Any]
    thread_id: str
    checkpoint_id: str
    dropped: set[str] = field(default_factory=set)

    def snapshot(self, stored: Mapping[str, Any]) -> dict[str, Any]:
        """A stored whole state as field values; fields the model gained take defaults."""
        values = self.schema.defaults()
        values.update(self._fields(stored, update=False))
        return values

    def update(self, stored: Mapping[str, Any]) -> dict[str, Any]:
        """A stored node update as checked field values, ready for the reducers.

        An update of a field with a custom reducer may have any shape: it is rebuilt, not
        validated.
        """
        return self._fields(stored, update=True)

    def text(self) -> str:
        """The checkpoint, as error messages name it."""
        return f"checkpoint {self.checkpoint_id!r} of thread {self.thread_id!r}"

    def _fields(self, stored: Mapping[str, Any], *, update: bool) -> dict[str, Any]:
        fields = self.schema.fields
        decoded = {}
        for name, raw in stored.items():
            schema_field = fields.get(name)
            if schema_field is None:
                if self.schema.typed:
                    self.dropped.add(name)
                else:
                    decoded[name] = raw
                continue
            typed = not update or schema_field.reducer.typed_updates
            decoded[name] = _decode(schema_field, raw, self, typed=typed)
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
