"""The runtime view of a state type: its fields, how writes to them are checked and merged.

Three kinds of state are accepted:

- a :class:`~graphnb.state.GraphState` subclass (typed, every write validated);
- a ``TypedDict`` whose fields may carry reducers in ``Annotated`` metadata (validated);
- ``dict``, with per-key reducers given separately (nothing validated).

Internally the state is always a ``dict`` of field values. A node is handed a fresh copy
(a model instance, or a dict) so that what it mutates never leaks into the shared state.
"""

from __future__ import annotations

import copy
import sys
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    TypeVar,
    get_args,
    get_origin,
    get_type_hints,
)

from .reducers import UNCHANGED, Reducer, append, as_reducer, replace

if TYPE_CHECKING:
    # pydantic (and GraphState, a pydantic model) is imported only for a typed state: a
    # graph on a plain dict state runs without it.
    from pydantic import ConfigDict, TypeAdapter, ValidationError

    from .state import GraphState

__all__ = ["FieldSchema", "StateSchema", "WriteError", "type_text"]

S = TypeVar("S")

_IMMUTABLE: frozenset[type] = frozenset({int, float, complex, str, bytes, bool, type(None)})


class WriteError(ValueError):
    """A single write failed validation; the engine turns it into an InvalidUpdateError."""

    def __init__(self, message: str, *, field: str | None, value: Any) -> None:
        self.field = field
        self.value = value
        super().__init__(message)


@dataclass(slots=True)
class FieldSchema:
    """One field of a state: its merge strategy and how a written value is checked."""

    name: str
    reducer: Reducer
    alias: str | None = None
    streaming: bool = False
    annotation: Any = Any
    adapter: TypeAdapter[Any] | None = None
    required: bool = False
    default: Callable[[Mapping[str, Any]], Any] | None = None
    """Makes the field's default from the values of the fields before it (what a pydantic
    ``default_factory`` taking the validated data reads; other defaults ignore them)."""
    exact: type | None = None
    """Set when the annotation is a plain int/str/float/bool: a value of exactly that type
    needs no validation (the common case, skipped cheaply)."""
    model_validated: bool = False
    """Whether the model's ``@field_validator`` / ``@model_validator`` functions check an
    assignment of this field (see :meth:`StateSchema.apply`)."""

    def check(self, value: Any) -> Any:
        """Validate a write (not yet merged) and return the value to hand to the reducer."""
        adapter = self.adapter
        if adapter is None or not self.reducer.typed_updates:
            # Custom reducers take updates of any shape: their result is checked instead.
            return value
        if type(value) is self.exact:
            return value
        try:
            if self.reducer is append and not isinstance(value, (list, tuple)):
                return adapter.validate_python([value])
            return adapter.validate_python(value)
        except _validation_error() as error:
            raise WriteError(_describe(self, value, error), field=self.name, value=value) from None

    def check_result(self, value: Any) -> Any:
        """Validate a merged value when the reducer is a custom one."""
        adapter = self.adapter
        if adapter is None or self.reducer.typed_updates:
            return value
        try:
            return adapter.validate_python(value)
        except _validation_error() as error:
            raise WriteError(_describe(self, value, error), field=self.name, value=value) from None


def _validation_error() -> type[ValidationError]:
    from pydantic import ValidationError

    return ValidationError


def is_graph_state(value: object) -> bool:
    """Whether ``value`` is a GraphState instance (none can be before graphnb.state loads)."""
    state = sys.modules.get("graphnb.state")
    return state is not None and isinstance(value, state.GraphState)


def _isolate(value: Any) -> Any:
    """A copy of ``value`` that shares nothing mutable with it."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    # Flat containers of immutable items (lists of messages, counters) are by far the most
    # common state values: a shallow copy isolates them at a fraction of deepcopy's cost.
    if kind is list or kind is set:
        if all(type(item) in _IMMUTABLE for item in value):
            return value.copy()
    elif kind is dict and all(type(item) in _IMMUTABLE for item in value.values()):
        return value.copy()
    return copy.deepcopy(value)


def _describe(field: FieldSchema, value: Any, error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = "".join(f"[{part!r}]" for part in first["loc"])
    detail = f"{first['msg']}{f' at {where}' if where else ''}"
    return f"field {field.name!r} expects {type_text(field.annotation)}, got {value!r} ({detail})"


def type_text(annotation: Any) -> str:
    """A field's type as people write it: ``int``, ``list[str]``, ``Any``."""
    if isinstance(annotation, type) and not get_args(annotation):
        return annotation.__name__
    return repr(annotation).replace("typing.", "")


class StateSchema(Generic[S]):
    """How values of one state type are checked, merged, copied and built."""

    def __init__(
        self,
        state_type: type[S],
        fields: Mapping[str, FieldSchema],
        *,
        model: type[GraphState] | None = None,
        typed: bool = False,
    ) -> None:
        self.state_type = state_type
        self.model = model
        self.typed = typed
        self.fields = dict(fields)
        self.keys = {name: name for name in self.fields}
        self.keys.update({f.alias: f.name for f in self.fields.values() if f.alias})
        streaming = [f.name for f in self.fields.values() if f.streaming]
        self.streaming_fields = streaming
        self.streaming: str | None = streaming[0] if streaming else None
        self._replace_field = FieldSchema("", replace)
        self.model_validated = frozenset(f.name for f in self.fields.values() if f.model_validated)

    # -- construction ------------------------------------------------------------------

    @classmethod
    def of(
        cls,
        state_type: type[Any],
        *,
        reducers: Mapping[str, Reducer | Callable[[Any, Any], Any]] | None = None,
        streaming: str | None = None,
    ) -> StateSchema[Any]:
        """Build the schema of a GraphState subclass, a TypedDict, or ``dict``."""
        if state_type is dict:
            fields: dict[str, FieldSchema] = {}
            _add_key_options(fields, reducers, streaming)
            return StateSchema[Any](state_type, fields)
        from .state import GraphState

        if isinstance(state_type, type) and issubclass(state_type, GraphState):
            if reducers or streaming:
                raise TypeError(
                    f"{state_type.__name__} declares its reducers and streaming field itself; "
                    "use StateField(...) in its annotations instead of reducers=/streaming="
                )
            return StateSchema[Any](
                state_type, _model_fields(state_type), model=state_type, typed=True
            )
        if _is_typeddict(state_type):
            fields = _typeddict_fields(state_type)
            _add_key_options(fields, reducers, streaming)
            return StateSchema[Any](state_type, fields, typed=True)
        raise TypeError(
            f"a graph's state must be a GraphState subclass, a TypedDict or dict, "
            f"got {state_type!r}"
        )

    # -- checking writes ---------------------------------------------------------------

    def field(self, key: str) -> FieldSchema:
        """Return the field a key (name or alias) names; untyped dict keys replace."""
        name = self.keys.get(key)
        if name is not None:
            return self.fields[name]
        if self.typed:
            known = ", ".join(repr(name) for name in self.fields) or "no fields"
            raise WriteError(
                f"{self.label} has no field {key!r} (it has {known})", field=key, value=None
            )
        return FieldSchema(key, replace)

    def check_writes(self, update: Mapping[str, Any]) -> dict[str, Any]:
        """Validate a partial update; keys may be aliases. Returns ``{field name: value}``."""
        checked = {}
        keys, fields = self.keys, self.fields
        for key, value in update.items():
            name = keys.get(key)
            if name is not None:
                checked[name] = fields[name].check(value)
            elif not isinstance(key, str):
                raise WriteError(
                    f"state keys must be strings, got {key!r}", field=repr(key), value=value
                )
            elif self.typed:
                self.field(key)  # raises, naming the fields the state has
            else:
                checked[key] = value  # an untyped dict key: replaced, not validated
        return checked

    def apply(self, values: dict[str, Any], writes: Mapping[str, Any]) -> None:
        """Merge checked writes into ``values`` in place, through each field's reducer.

        A model's ``@field_validator`` and ``@model_validator`` functions then check the
        merged values of the written fields, as pydantic checks an assignment
        (``validate_assignment``): what they return is what is kept.
        """
        fields = self.fields
        for name, update in writes.items():
            field = fields.get(name) or self._replace_field
            try:
                if name in values:
                    merged = field.reducer(values[name], update)
                elif field.reducer.typed_updates:
                    merged = field.reducer(None, update)
                else:
                    # A custom reducer's first write starts from the type's empty value, as
                    # LangGraph's does (list -> [], int -> 0); failing that, it is the value.
                    empty = _empty_value(field.annotation)
                    merged = update if empty is None else field.reducer(empty, update)
            except Exception as error:
                # Named here, so that the run can say which node's write it could not merge.
                raise WriteError(
                    f"the {field.reducer.name} reducer of field {name!r} failed on "
                    f"{update!r}: {type(error).__name__}: {error}",
                    field=name,
                    value=update,
                ) from error
            values[name] = field.check_result(merged)
        if self.model_validated:
            assigned = [name for name in writes if name in self.model_validated]
            if assigned:
                self._validate_assigned(values, assigned)

    def _validate_assigned(self, values: dict[str, Any], names: list[str]) -> None:
        model = self.model
        assert model is not None  # only a model's fields run its validators
        scratch = model.model_construct(**values)
        for name in names:
            value = values[name]
            try:
                model.__pydantic_validator__.validate_assignment(scratch, name, value)
            except _validation_error() as error:
                first = error.errors(include_url=False)[0]
                raise WriteError(
                    f"{self.label} refused {value!r:.80} for field {name!r}: {first['msg']}",
                    field=name,
                    value=value,
                ) from None
            except Exception as error:  # a validator failing in another way than pydantic's
                raise WriteError(
                    f"a validator of {self.label} failed on field {name!r} = {value!r:.80}: "
                    f"{type(error).__name__}: {error}",
                    field=name,
                    value=value,
                ) from error
            values[name] = scratch.__dict__[name]

    def diff(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
        """The update that turns ``before`` into ``after``, field by field, via the reducers."""
        update = {}
        for name, value in after.items():
            old = before.get(name)
            if value is old:
                continue
            field = self.fields.get(name) or self._replace_field
            try:
                change = field.reducer.diff(old, value)
            except ValueError as error:
                raise WriteError(
                    f"field {name!r} ({field.reducer.name}) was changed in a way no update "
                    f"can express: {error}",
                    field=name,
                    value=value,
                ) from None
            if change is not UNCHANGED:
                update[name] = change
        return update

    # -- values ------------------------------------------------------------------------

    @property
    def label(self) -> str:
        """The state type's name, for messages."""
        return getattr(self.state_type, "__name__", repr(self.state_type))

    def defaults(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Field values before any write: defaults only, required fields left out.

        Args:
            given: values about to be written (a run's input), which a default made from
                the other fields' values sees before their defaults.
        """
        values: dict[str, Any] = {}
        known = ChainMap(dict(given or {}), values)
        for field in self.fields.values():
            if field.default is not None:
                values[field.name] = field.default(known)
        return values

    def missing(self, values: Mapping[str, Any]) -> list[str]:
        """Required fields absent from ``values``."""
        return [f.name for f in self.fields.values() if f.required and f.name not in values]

    def view(self, values: Mapping[str, Any]) -> S:
        """A private copy of the state for one node: its mutations stay its own."""
        return self.build({key: _isolate(value) for key, value in values.items()})

    def build(self, values: dict[str, Any]) -> S:
        """The state as its user-facing type, sharing ``values``' objects."""
        model = self.model
        if model is None:
            return values  # type: ignore[return-value]
        if model.__pydantic_post_init__:  # private attributes or a post-init hook to run
            return model.model_construct(**values)  # type: ignore[return-value]
        # What model_construct does for a complete set of already validated values, minus
        # its per-field default handling: this runs once per node call.
        instance = object.__new__(model)
        _set = object.__setattr__
        _set(instance, "__dict__", values)
        _set(instance, "__pydantic_fields_set__", set(values))
        _set(instance, "__pydantic_extra__", None)
        _set(instance, "__pydantic_private__", None)
        return instance  # type: ignore[return-value]

    def values_of(self, state: Any) -> dict[str, Any]:
        """Field values of a state instance or a mapping (the reverse of :meth:`build`).

        Raises:
            WriteError: ``state`` is an instance of another state model.
        """
        if is_graph_state(state):
            if self.model is None or not isinstance(state, self.model):
                raise WriteError(
                    f"got a {type(state).__name__}, expected a mapping or a {self.label}",
                    field=None,
                    value=state,
                )
            return {name: getattr(state, name) for name in self.fields}
        return dict(state)


def _exact_type(annotation: Any, metadata: list[Any]) -> type | None:
    from .state import StateField

    constrained = any(not isinstance(m, StateField) and as_reducer(m) is None for m in metadata)
    if annotation in (int, str, float, bool) and not constrained:
        return annotation  # type: ignore[no-any-return]
    return None


def _empty_value(annotation: Any) -> Any:
    kind = get_origin(annotation) or annotation
    if kind in (list, dict, set, tuple, int, float, str):
        return kind()
    return None


def _complete(model: type[GraphState]) -> None:
    """Make sure every annotation of ``model`` is resolved; its reducers live in them."""
    if getattr(model, "__pydantic_fields_complete__", True):
        return
    from pydantic.errors import PydanticUndefinedAnnotation

    try:
        model.model_rebuild(raise_errors=True)
    except PydanticUndefinedAnnotation as error:
        raise TypeError(
            f"the annotations of {model.__name__} cannot be resolved ({error.message}); "
            "define the model in an importable module or a notebook cell, or call "
            f"{model.__name__}.model_rebuild(_types_namespace=...) with the missing names"
        ) from None


def _model_fields(model: type[GraphState]) -> dict[str, FieldSchema]:
    from pydantic import ConfigDict, Field

    from .state import GraphState as GraphStateBase
    from .state import field_options

    _complete(model)
    # Fields whose assignment the model's decorated validators check: a model validator
    # sees every assignment, a field validator its fields ("*": all).
    decorators = model.__pydantic_decorators__
    checked: set[str] = set()
    for decorator in decorators.field_validators.values():
        checked.update(decorator.info.fields)
    own = GraphStateBase.__pydantic_decorators__.model_validators  # aliases, on input only
    users = [
        name
        for name, decorator in decorators.model_validators.items()
        if name not in own or _unbound(decorator.func) is not _unbound(own[name].func)
    ]
    if users or "*" in checked:
        checked.update(model.model_fields)
    # A field's values are checked as the model checks them: under its config (strict,
    # arbitrary types, string options ...). GraphState's own keys concern the model only.
    config = ConfigDict(**model.model_config)
    config.pop("defer_build", None)
    config.pop("validate_by_alias", None)
    config.pop("validate_by_name", None)
    # A value written as is (the fast path) skips validation: not when the config may
    # change or refuse a plain str/float.
    transforms = any(key in config for key in _VALUE_OPTIONS)
    fields = {}
    for name, info in model.model_fields.items():
        options = field_options(info.metadata)
        annotation = info.annotation
        metadata = list(info.metadata)
        if info.discriminator is not None:
            # Kept on the FieldInfo, not in its metadata; without it a union is validated
            # as a plain one, which may pick another member than the model would.
            metadata.append(Field(discriminator=info.discriminator))
        adapter = _adapter(_annotated(annotation, metadata), config)
        default: Callable[[Mapping[str, Any]], Any] | None = None
        if not info.is_required():
            default = _default_factory(info)
        fields[name] = FieldSchema(
            name,
            options.reducer,
            # pydantic's own alias (Field(alias=...), an alias generator) names the field
            # in the model's input just as a StateField alias does.
            alias=options.alias or _input_alias(name, info.validation_alias),
            streaming=options.streaming,
            annotation=annotation,
            adapter=adapter,
            required=info.is_required(),
            default=default,
            exact=None if transforms else _exact_type(annotation, info.metadata),
            model_validated=name in checked,
        )
    return fields


def _unbound(method: Any) -> Any:
    return getattr(method, "__func__", method)


def _input_alias(name: str, alias: object) -> str | None:
    """A field's validation alias when it is another key (not AliasPath/AliasChoices)."""
    return alias if isinstance(alias, str) and alias != name else None


_VALUE_OPTIONS = (
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "str_min_length",
    "str_max_length",
    "allow_inf_nan",
)
"""Model config keys that change or refuse a plain str or float value."""


def _adapter(annotation: Any, config: ConfigDict) -> TypeAdapter[Any]:
    from pydantic import PydanticUserError, TypeAdapter

    if not config:
        return TypeAdapter(annotation)
    try:
        return TypeAdapter(annotation, config=config)
    except PydanticUserError as error:
        if error.code != "type-adapter-config-unused":
            raise
        # A model, dataclass or TypedDict field is checked under its own config, as it is
        # within the model.
        return TypeAdapter(annotation)


def _default_factory(info: Any) -> Callable[[Mapping[str, Any]], Any]:
    if info.default_factory is None and type(info.default) in _IMMUTABLE:
        value = info.default
        return lambda known: value
    # A factory taking the validated data gets the fields before it; others ignore it.
    return lambda known: copy.deepcopy(
        info.get_default(call_default_factory=True, validated_data=dict(known))
    )


def _annotated(annotation: Any, metadata: list[Any]) -> Any:
    from .state import StateField

    constraints = [m for m in metadata if not isinstance(m, StateField) and as_reducer(m) is None]
    return Annotated[(annotation, *constraints)] if constraints else annotation


def _is_typeddict(state_type: Any) -> bool:
    # typing's is_typeddict does not recognise typing_extensions' TypedDict (which pydantic
    # asks for before Python 3.12); typing_extensions' recognises both.
    from typing_extensions import is_typeddict

    return is_typeddict(state_type)


def _typeddict_fields(state_type: type[Any]) -> dict[str, FieldSchema]:
    from typing import NotRequired, Required

    from pydantic import TypeAdapter
    from typing_extensions import ReadOnly

    from .state import field_options

    hints = get_type_hints(state_type, include_extras=True)
    fields = {}
    for name, hint in hints.items():
        metadata: tuple[Any, ...] = ()
        # Whether a key must be present (or may change) is the TypedDict's business, not
        # part of a value's type.
        while get_origin(hint) in (Required, NotRequired, ReadOnly):
            (hint,) = get_args(hint)
        annotation = hint
        if get_origin(hint) is not None and hasattr(hint, "__metadata__"):
            annotation, *rest = get_args(hint)
            metadata = tuple(rest)
        options = field_options(metadata)
        fields[name] = FieldSchema(
            name,
            options.reducer,
            alias=options.alias,
            streaming=options.streaming,
            annotation=annotation,
            adapter=TypeAdapter(annotation),
        )
    return fields


def _add_key_options(
    fields: dict[str, FieldSchema],
    reducers: Mapping[str, Reducer | Callable[[Any, Any], Any]] | None,
    streaming: str | None,
) -> None:
    for key, given in (reducers or {}).items():
        reducer = as_reducer(given)
        if reducer is None:
            raise TypeError(
                f"reducers[{key!r}] must be a Reducer or a two-argument callable, got {given!r}"
            )
        if key in fields:
            fields[key].reducer = reducer
        else:
            fields[key] = FieldSchema(key, reducer)
    if streaming is not None:
        if streaming not in fields:
            fields[streaming] = FieldSchema(streaming, replace)
        fields[streaming].streaming = True
