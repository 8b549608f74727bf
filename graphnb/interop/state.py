"""LangGraph state schemas as graphnb state types.

A ``TypedDict`` is used as it is: graphnb reads the same ``Annotated`` reducers
(``operator.add`` becomes graphnb's ``add``; ``add_messages`` and other two-argument
callables stay callables). A dataclass or a plain Pydantic model becomes a
:class:`~graphnb.GraphState` subclass with the same fields, defaults and reducers, so
nodes still read ``state.field``; the original type is kept on the new class as
``__langgraph_state__`` so an export writes it back.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, get_type_hints

from pydantic import BaseModel, Field, create_model
from typing_extensions import is_typeddict  # typing's misses typing_extensions' TypedDict

from ..state import GraphState
from .errors import Unmapped

__all__ = ["ORIGINAL_STATE", "graphnb_state", "original_state"]

ORIGINAL_STATE = "__langgraph_state__"


def graphnb_state(schema: Any, unmapped: list[Unmapped]) -> type[Any]:
    """The graphnb state type for a LangGraph state schema (problems go to ``unmapped``)."""
    if schema is dict or is_typeddict(schema):
        return schema  # type: ignore[no-any-return]
    if isinstance(schema, type) and issubclass(schema, GraphState):
        return schema
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        fields: dict[str, Any] = {
            name: (
                Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation,
                _pydantic_default(info),
            )
            for name, info in schema.model_fields.items()
        }
        return _derived(schema, fields)
    if isinstance(schema, type) and dataclasses.is_dataclass(schema):
        hints = get_type_hints(schema, include_extras=True)
        fields = {
            f.name: (hints[f.name], _dataclass_default(f)) for f in dataclasses.fields(schema)
        }
        return _derived(schema, fields)
    unmapped.append(
        Unmapped(
            "state schema",
            repr(schema),
            "graphnb states are TypedDicts, dataclasses or Pydantic models (as imported); "
            "this schema is none of them",
        )
    )
    return dict


def original_state(state_type: Any) -> Any:
    """The LangGraph state a graphnb state was derived from (itself when not derived)."""
    return getattr(state_type, ORIGINAL_STATE, state_type)


def _derived(schema: type[Any], fields: dict[str, Any]) -> type[Any]:
    # A Pydantic model is a base too: its validators (field and model) and methods carry
    # over, and nodes checking isinstance(state, Model) still see one.
    bases = (GraphState, schema) if issubclass(schema, BaseModel) else GraphState
    model = create_model(
        schema.__name__,
        __base__=bases,
        __module__=schema.__module__,
        **fields,
    )
    model.__qualname__ = schema.__qualname__
    model.__doc__ = schema.__doc__
    setattr(model, ORIGINAL_STATE, schema)
    return model


def _pydantic_default(info: Any) -> Any:
    if info.default_factory is not None:
        return Field(default_factory=info.default_factory)
    if info.is_required():
        return ...
    return info.default


def _dataclass_default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return Field(default_factory=field.default_factory)
    if field.default is not dataclasses.MISSING:
        return field.default
    return ...
