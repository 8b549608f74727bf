"""Bindings: naming a callable or a model by a string, and finding it again.

A binding is ``"package.module:qualified.name"`` or, for objects defined in a notebook, a
bare ``"name"`` looked up in the namespace the caller passes. Resolving imports the named
module and walks attributes; it never evaluates a string as code.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from typing import Any

from .errors import BindingError

__all__ = ["LOADED_FILE_PREFIX", "binding_of", "is_loaded_file", "resolve"]

LOADED_FILE_PREFIX = "graphnb_file_"
"""How the module name starts that graphnb makes up for a loaded ``.py`` file whose own
name is not an importable module name (``my-flow.py``, a ``test.py`` that the standard
library's ``test`` would shadow). Only the process that loaded the file knows that name:
another process (an exported module, a batch worker) cannot import it."""

_NAME = r"[^\W\d]\w*"
_BINDING = re.compile(
    rf"^(?:(?P<module>{_NAME}(?:\.{_NAME})*):)?(?P<qualname>{_NAME}(?:\.{_NAME})*)$"
)


def binding_of(obj: Any) -> str | None:
    """The binding naming ``obj``, or ``None`` when it cannot be named (lambdas, closures).

    Objects defined in a notebook or script (module ``__main__``) get a bare name, resolved
    later against that notebook's namespace.
    """
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    if "<" in qualname:  # <lambda>, <locals>
        return None
    if module in ("__main__", "builtins") or module.startswith("__ipython"):
        return qualname
    return f"{module}:{qualname}"


def is_loaded_file(module_name: str) -> bool:
    """Whether ``module_name`` is one graphnb made up for a loaded file (not importable).

    >>> is_loaded_file("graphnb_file_my_flow_1a2b3c4d"), is_loaded_file("my_flow")
    (True, False)
    """
    return module_name.startswith(LOADED_FILE_PREFIX)


def resolve(binding: str, namespace: Mapping[str, Any] | None = None) -> Any:
    """Find the object a binding names.

    Args:
        binding: ``"module:qualname"`` or a bare name.
        namespace: where bare names are looked up (a notebook's ``globals()``); the
            ``__main__`` module is used when omitted.

    Raises:
        BindingError: the binding is malformed, or names nothing.
    """
    match = _BINDING.match(binding.strip()) if isinstance(binding, str) else None
    if match is None:
        raise BindingError(
            f"binding {binding!r} is not of the form 'module:qualname' or 'name'", binding=binding
        )
    module_name, qualname = match["module"], match["qualname"]
    head, *rest = qualname.split(".")
    if module_name is None:
        scope = namespace if namespace is not None else vars(importlib.import_module("__main__"))
        if head not in scope:
            raise BindingError(
                f"binding {binding!r}: no name {head!r} in the notebook's namespace",
                binding=binding,
            )
        obj = scope[head]
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise BindingError(
                f"binding {binding!r}: cannot import module {module_name!r} ({error})",
                binding=binding,
            ) from error
        obj = _attribute(module, head, binding, f"module {module_name!r}")
    for part in rest:
        obj = _attribute(obj, part, binding, type(obj).__name__)
    return obj


def _attribute(obj: Any, name: str, binding: str, owner: str) -> Any:
    """``obj.name``, or a :class:`BindingError` saying that ``owner`` has no ``name``."""
    try:
        return getattr(obj, name)
    except AttributeError:
        raise BindingError(
            f"binding {binding!r}: {owner} has no attribute {name!r}", binding=binding
        ) from None
