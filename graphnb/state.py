"""Typed graph state: a Pydantic model whose fields declare how writes merge.

Example:
    >>> from typing import Annotated
    >>> from graphnb import GraphState, StateField, append
    >>> class ChatState(GraphState):
    ...     messages: Annotated[list[str], StateField(reducer=append, streaming=True)] = []
    ...     current_step: Annotated[str | None, StateField(alias="currentStep")] = None
    >>> ChatState.model_validate({"currentStep": "start"}).current_step
    'start'
    >>> ChatState(current_step="done").to_map()
    {'messages': [], 'currentStep': 'done'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from .reducers import Reducer, as_reducer, replace

__all__ = ["GraphState", "StateField", "field_options"]


@dataclass(frozen=True, slots=True)
class StateField:
    """Options of one state field, given as ``Annotated`` metadata.

    Attributes:
        reducer: how a write merges with the current value; replace when omitted.
        alias: the field's legacy map key, accepted on input and used where a map is made.
        streaming: this field receives the complete value of a node's streamed result.
            At most one field of a model may set it.
    """

    reducer: Reducer | Any = replace
    alias: str | None = None
    streaming: bool = False


@dataclass(frozen=True, slots=True)
class FieldOptions:
    """A field's merge options once the metadata of its annotation has been read."""

    reducer: Reducer
    alias: str | None
    streaming: bool


def field_options(metadata: list[Any] | tuple[Any, ...]) -> FieldOptions:
    """Read a field's reducer, alias and streaming flag from its ``Annotated`` metadata.

    A :class:`StateField` gives all three; a bare reducer or two-argument callable
    (``Annotated[list[str], operator.add]``, as LangGraph users write it) gives the reducer.
    """
    reducer: Reducer = replace
    alias: str | None = None
    streaming = False
    for item in metadata:
        if isinstance(item, StateField):
            found = as_reducer(item.reducer)
            if found is None:
                raise TypeError(
                    f"StateField(reducer=...) needs a Reducer or a two-argument callable, "
                    f"got {item.reducer!r}"
                )
            reducer, alias, streaming = found, item.alias, item.streaming
        else:
            found = as_reducer(item)
            if found is not None:
                reducer = found
    return FieldOptions(reducer, alias, streaming)


class GraphState(BaseModel):
    """Base class of typed graph states.

    Subclass it and declare fields as on any Pydantic model. Private attributes and
    ``ClassVar`` attributes are not part of the state: they are never merged or persisted.
    """

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _accept_legacy_keys(cls, data: Any) -> Any:
        aliases = _aliases(cls)
        if not aliases or not isinstance(data, dict):
            return data
        return {aliases.get(key, key): value for key, value in data.items()}

    def to_map(self) -> dict[str, Any]:
        """Return the state as a plain dict keyed by legacy aliases where fields have one."""
        names = {name: alias for alias, name in _aliases(type(self)).items()}
        return {names.get(key, key): value for key, value in self.model_dump().items()}


_ALIAS_CACHE: dict[type[GraphState], dict[str, str]] = {}


def _aliases(cls: type[GraphState]) -> dict[str, str]:
    """Map each legacy alias of ``cls`` to its field name (cached per class)."""
    try:
        return _ALIAS_CACHE[cls]
    except KeyError:
        aliases = {}
        for name, info in cls.model_fields.items():
            options = field_options(info.metadata)
            if options.alias is not None:
                aliases[options.alias] = name
        _ALIAS_CACHE[cls] = aliases
        return aliases
