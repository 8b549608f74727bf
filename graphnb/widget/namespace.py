"""What the notebook offers the builder: its callables and state models.

The builder resolves bindings against the notebook's namespace (IPython's ``user_ns`` when
a kernel runs it, ``__main__`` otherwise) and lists what was defined there, so the binding
panel can offer it. Nothing here evaluates text as code.
"""

from __future__ import annotations

import importlib
import inspect
import textwrap
import typing
from collections.abc import Callable, Mapping
from typing import Any, cast

import typing_extensions  # its is_typeddict also knows typing_extensions' TypedDict

from ..binding import binding_of, resolve
from ..errors import BindingError
from ..state import GraphState
from .protocol import CallableInfo, ModelInfo

__all__ = [
    "describe_callable",
    "describe_model",
    "find_callables",
    "find_models",
    "ipython_shell",
    "notebook_namespace",
    "try_lookup",
]

_SOURCE_LIMIT = 20_000
"""Characters of source shown in the binding panel; longer sources are cut."""


def ipython_shell() -> Any:
    """The running IPython shell, or ``None`` outside IPython."""
    try:
        ipython = importlib.import_module("IPython")
    except ImportError:  # pragma: no cover - the widget extra installs IPython
        return None
    return ipython.get_ipython()


def notebook_namespace() -> dict[str, Any]:
    """The namespace bare bindings resolve in: IPython's ``user_ns``, else ``__main__``'s."""
    shell = ipython_shell()
    if shell is not None:
        return cast("dict[str, Any]", shell.user_ns)
    return vars(importlib.import_module("__main__"))


def _defined_here(obj: Any) -> bool:
    module = getattr(obj, "__module__", None)
    return module == "__main__" or (isinstance(module, str) and module.startswith("__ipython"))


def find_callables(namespace: Mapping[str, Any]) -> list[CallableInfo]:
    """Functions defined in the notebook (not imported, not private), sorted by name."""
    found = []
    for name, obj in namespace.items():
        if name.startswith("_") or not inspect.isfunction(obj) or not _defined_here(obj):
            continue
        if obj.__name__ != name:  # an alias of a function listed under its own name
            continue
        found.append(describe_callable(obj, binding=name))
    return sorted(found, key=lambda info: info["name"])


def find_models(namespace: Mapping[str, Any]) -> list[ModelInfo]:
    """State models in the namespace: GraphState subclasses and TypedDicts, sorted by name."""
    found = []
    for name, obj in namespace.items():
        if name.startswith("_") or not isinstance(obj, type) or obj is GraphState:
            continue
        is_model = issubclass(obj, GraphState)
        if not (is_model or (typing_extensions.is_typeddict(obj) and _defined_here(obj))):
            continue
        try:
            found.append(describe_model(obj, binding=name if _defined_here(obj) else None))
        except TypeError:  # a broken model is reported when it is picked, not while listing
            continue
    return sorted(found, key=lambda info: info["name"])


def _kind(
    fn: Callable[..., Any],
) -> typing.Literal["function", "async", "generator", "async-generator", "callable"]:
    if inspect.isasyncgenfunction(fn):
        return "async-generator"
    if inspect.iscoroutinefunction(fn):
        return "async"
    if inspect.isgeneratorfunction(fn):
        return "generator"
    return "function" if inspect.isfunction(fn) else "callable"


def describe_callable(fn: Any, *, binding: str | None = None) -> CallableInfo:
    """Name, signature, docstring and source of a callable, for the binding panel.

    Args:
        fn: the callable.
        binding: how the graph will name it; derived from ``fn`` when omitted.

    Raises:
        TypeError: ``fn`` is not callable.
    """
    if not callable(fn):
        raise TypeError(f"expected a callable, got {type(fn).__name__} {fn!r}")
    name = getattr(fn, "__name__", None) or type(fn).__name__
    try:
        # Notebook classes print as `__main__.Story`; users wrote `Story`.
        signature = f"{name}{inspect.signature(fn)}".replace("__main__.", "")
    except (TypeError, ValueError):
        signature = f"{name}(...)"
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        source = ""
    if len(source) > _SOURCE_LIMIT:
        source = source[:_SOURCE_LIMIT] + "\n# ... (cut)\n"
    return CallableInfo(
        name=name,
        binding=binding or binding_of(fn) or name,
        kind=_kind(fn),
        signature=signature,
        doc=inspect.getdoc(fn) or "",
        source=source,
    )


def describe_model(model: type[Any], *, binding: str | None = None) -> ModelInfo:
    """Fields (type, merge strategy, alias, streaming) and JSON schema of a state model.

    Raises:
        TypeError: ``model`` is not a GraphState subclass, a TypedDict or ``dict``.
    """
    from ..graph import StateGraph

    spec = StateGraph(model).spec.state
    fields = [field.model_dump(mode="json") for field in spec.fields]
    schema: dict[str, Any] = {}
    if isinstance(model, type) and issubclass(model, GraphState):
        try:
            schema = model.model_json_schema()
        except Exception:  # types without a JSON schema: raw JSON input only
            schema = {}
    name = getattr(model, "__name__", "dict")
    return ModelInfo(
        name=name,
        binding=binding or spec.binding or name,
        kind=spec.kind,
        doc=inspect.cleandoc(model.__dict__.get("__doc__") or ""),
        fields=fields,
        json_schema=schema,
    )


def try_lookup(binding: str, namespace: Mapping[str, Any]) -> tuple[Any, str | None]:
    """``(object, None)`` when ``binding`` resolves, else ``(None, why)``."""
    try:
        return resolve(binding, namespace), None
    except BindingError as error:
        return None, str(error)
