"""Tools: plain typed Python functions, described to the model by a JSON schema.

The schema comes from the function's signature through Pydantic, and the same Pydantic
model validates the arguments a model sends before the function runs. The tool's
description is the first paragraph of its docstring; a parameter's description comes from
``Annotated[str, Field(description=...)]``, else from the docstring's Google-style
``Args:`` section.

Example:
    >>> from typing import Annotated
    >>> from pydantic import Field
    >>> def weather(city: Annotated[str, Field(description="City name")], days: int = 1) -> str:
    ...     '''Forecast the weather of a city.'''
    ...     return f"sunny in {city} for {days} day(s)"
    >>> tool = Tool.from_function(weather)
    >>> tool.description
    'Forecast the weather of a city.'
    >>> tool.parameters["required"], sorted(tool.parameters["properties"])
    (['city'], ['city', 'days'])
    >>> import asyncio
    >>> asyncio.run(tool.invoke({"city": "Paris", "days": "2"}))
    'sunny in Paris for 2 day(s)'
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import re
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from .errors import ToolDefinitionError

__all__ = ["Tool", "Toolset", "tool"]


@dataclass(frozen=True, slots=True)
class Tool:
    """A function the model may call.

    Attributes:
        name: the name the model calls it by.
        description: what it does, for the model.
        fn: the function (sync or async).
        parameters: the JSON schema of its arguments.
        arguments: the Pydantic model validating its arguments.
    """

    name: str
    description: str
    fn: Callable[..., Any]
    parameters: dict[str, Any]
    arguments: type[BaseModel] = field(repr=False)

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
    ) -> Tool:
        """Make a tool of ``fn``; every parameter needs a type annotation.

        Raises:
            ToolDefinitionError: the name is not 1 to 64 letters, digits, ``_`` or ``-``;
                a parameter has no annotation, starts with ``_``, or is
                ``*args``/``**kwargs``.
        """
        tool_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if not _NAME.fullmatch(tool_name):
            raise ToolDefinitionError(
                f"tool `{tool_name}`: a tool's name must be 1 to 64 letters, digits, '_' or "
                "'-' (what chat-completions endpoints accept); pass name=...",
                tool=tool_name,
            )
        # A callable object keeps its annotations and docstring on its __call__.
        signed = _call_method(fn) or fn
        try:
            hints = typing.get_type_hints(signed, include_extras=True)
        except Exception as error:
            raise ToolDefinitionError(
                f"tool `{tool_name}`: cannot read its type annotations ({error})", tool=tool_name
            ) from error
        fields: dict[str, Any] = {}
        for parameter in inspect.signature(fn).parameters.values():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                raise ToolDefinitionError(
                    f"tool `{tool_name}`: parameter {parameter.name!r} is *args/**kwargs; "
                    "a tool needs named, typed parameters",
                    tool=tool_name,
                )
            if parameter.name.startswith("_"):
                # Pydantic would take it for a private attribute and leave it out of the
                # schema, so the model could never send it.
                raise ToolDefinitionError(
                    f"tool `{tool_name}`: parameter {parameter.name!r} starts with '_'; rename it",
                    tool=tool_name,
                )
            if parameter.name not in hints:
                raise ToolDefinitionError(
                    f"tool `{tool_name}`: parameter {parameter.name!r} has no type annotation",
                    tool=tool_name,
                )
            default = ... if parameter.default is parameter.empty else parameter.default
            fields[parameter.name] = (hints[parameter.name], default)
        docstring = inspect.getdoc(fn) or inspect.getdoc(signed) or ""
        documented = _google_args(docstring)
        with warnings.catch_warnings():
            # A parameter named like a BaseModel method (json, schema, copy...) is fine
            # here: arguments are read back with getattr, never through those methods.
            warnings.filterwarnings("ignore", "Field name .* shadows an attribute", UserWarning)
            model = create_model(
                f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
            )
        schema = model.model_json_schema()
        schema.pop("title", None)
        for name, prop in schema.get("properties", {}).items():
            prop.pop("title", None)
            if name in documented and "description" not in prop:
                prop["description"] = documented[name]
        doc = description if description is not None else docstring
        return cls(tool_name, doc.split("\n\n")[0].strip(), fn, schema, model)

    @property
    def is_async(self) -> bool:
        """Whether the function is a coroutine function (or an ``async def __call__``)."""
        return inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(
            _call_method(self.fn)
        )

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Check and convert the model's arguments.

        Raises:
            pydantic.ValidationError: the arguments do not fit the signature.
        """
        checked = self.arguments.model_validate(dict(arguments))
        return {name: getattr(checked, name) for name in type(checked).model_fields}

    async def invoke(
        self, arguments: Mapping[str, Any], *, executor: Executor | None = None
    ) -> Any:
        """Validate ``arguments`` and call the function.

        A sync function runs in a worker thread of ``executor`` (the event loop's default
        one when omitted), with the caller's context variables; Python cannot interrupt a
        thread, so a timed-out sync call finishes in the background while its result is
        discarded. Prefer async tools for slow I/O.
        """
        values = self.validate(arguments)
        if self.is_async:
            return await self.fn(**values)
        if executor is None:
            return await asyncio.to_thread(self.fn, **values)
        # What asyncio.to_thread does, on the given executor.
        run = functools.partial(contextvars.copy_context().run, self.fn, **values)
        return await asyncio.get_running_loop().run_in_executor(executor, run)

    def openai_schema(self) -> dict[str, Any]:
        """The tool as an OpenAI ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@overload
def tool(
    fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> Tool: ...


@overload
def tool(
    fn: None = None, *, name: str | None = None, description: str | None = None
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator form of :meth:`Tool.from_function`: ``@tool`` or ``@tool(name=...)``."""
    if fn is None:
        return lambda inner: Tool.from_function(inner, name=name, description=description)
    return Tool.from_function(fn, name=name, description=description)


class Toolset:
    """The tools of an agent, and which of them each state exposes.

    Args:
        tools: tools, or plain functions made into tools.
        by_state: per state (an enum member or its name), the names of the tools it
            exposes; a state not listed exposes every tool.

    Example:
        >>> def habits(user: str) -> list[str]:
        ...     '''The user's habits.'''
        ...     return ["run"]
        >>> def store(plan: str) -> bool:
        ...     '''Store a plan.'''
        ...     return True
        >>> tools = Toolset([habits, store], by_state={"LOOKUP": ["habits"], "STORE": ["store"]})
        >>> [t.name for t in tools.visible("LOOKUP")], [t.name for t in tools.visible("OTHER")]
        (['habits'], ['habits', 'store'])
    """

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any]] = (),
        *,
        by_state: Mapping[Enum | str, Iterable[str]] | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            made = item if isinstance(item, Tool) else Tool.from_function(item)
            if made.name in self._tools:
                raise ToolDefinitionError(f"two tools are named `{made.name}`", tool=made.name)
            self._tools[made.name] = made
        self._by_state: dict[str, tuple[str, ...]] = {}
        for state, names in (by_state or {}).items():
            key = state.name if isinstance(state, Enum) else state
            listed = tuple(names)
            unknown = [n for n in listed if n not in self._tools]
            if unknown:
                raise ToolDefinitionError(
                    f"state {key} exposes unknown tool(s) {unknown}; known: {sorted(self._tools)}",
                    tool=unknown[0],
                )
            self._by_state[key] = listed

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        """The tool named ``name``, or ``None``."""
        return self._tools.get(name)

    @property
    def tools(self) -> list[Tool]:
        """Every tool, in the order given."""
        return list(self._tools.values())

    @property
    def states(self) -> tuple[str, ...]:
        """The names of the states given their own subset (``by_state``), in order."""
        return tuple(self._by_state)

    def visible(self, state: Enum | str) -> list[Tool]:
        """The tools ``state`` exposes."""
        key = state.name if isinstance(state, Enum) else state
        names = self._by_state.get(key)
        if names is None:
            return self.tools
        return [self._tools[name] for name in names]


def _call_method(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """The bound ``__call__`` of a callable object written in Python, else ``None``."""
    method = inspect.getattr_static(type(fn), "__call__", None)
    if inspect.isroutine(fn) or not inspect.isfunction(method):
        return None
    return types.MethodType(method, fn)


_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _google_args(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google-style ``Args:`` section.

    A few lines of parsing instead of a docstring library: only this one section of one
    style is read, and it must not add a dependency to the core.
    """
    found: dict[str, str] = {}
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() in ("Args:", "Arguments:"))
    except StopIteration:
        return found
    indent: int | None = None
    current: str | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            current = None
            continue
        depth = len(line) - len(line.lstrip())
        if depth == 0:
            break
        if indent is None:
            indent = depth
        match = _ARG.match(line.strip()) if depth == indent else None
        if match:
            current = match[1].lstrip("*")
            found[current] = match[2].strip()
        elif current is not None and depth > indent:
            found[current] = f"{found[current]} {line.strip()}".strip()
    return found


def describe_validation(error: ValidationError) -> str:
    """A one-line account of invalid arguments, for the model to correct itself."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item.get("loc", ())) or "arguments"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts)
