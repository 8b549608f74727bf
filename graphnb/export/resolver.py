"""The namespace of an exported module: which names it defines, imports, or cannot have.

Every object a graph needs (node callables, routers, the state model, custom reducers) and
every name their source reads from its module is settled here, once:

- a function or class of the user's own code (a notebook, a script, a module outside
  site-packages) is written as source, and the names *it* reads are settled in turn;
- a module is imported; a function, class or value of an installed library is imported
  from the shortest public module that has it;
- a literal constant (numbers, strings, containers of them) is written as an assignment;
- anything else defined in a notebook (an instance, a lambda, a closure) is a problem.
"""

from __future__ import annotations
import __future__

import builtins
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .codegen import UnwritableValue, python_literal
from .errors import ExportProblem
from .load import NOTEBOOK_MODULE_PREFIX
from .origin import import_path, importable, is_user_code, type_checking_imports
from .source import (
    Source,
    SourceUnavailable,
    free_names,
    is_function,
    quoted_annotation_names,
    source_of,
)

__all__ = ["Definition", "Resolver"]

_MISSING: Any = object()
_LITERAL_TYPES = (bool, int, str, bytes, type(None))


@dataclass(frozen=True, slots=True)
class Definition:
    """A top-level statement of the exported module.

    Attributes:
        name: the name it binds.
        kind: ``source`` (a def or class) or ``constant`` (an assignment).
        text: the statement.
    """

    name: str
    kind: Literal["source", "constant"]
    text: str


class Resolver:
    """Settles the names of one exported module.

    Args:
        namespace: a notebook's namespace, used for the names read by objects defined in
            the notebook (module ``__main__``).
    """

    def __init__(self, namespace: Mapping[str, Any] | None = None) -> None:
        self.namespace = namespace
        self.imports: dict[str, tuple[str, str | None]] = {}
        """Local name -> (module, attribute); attribute ``None`` for ``import module``."""
        self.definitions: list[Definition] = []
        self.problems: list[ExportProblem] = []
        self.future_annotations = False
        self._bound: dict[str, Any] = {}
        self._defined: dict[int, str] = {}
        self._alive: list[Any] = []  # keeps objects keyed by id() alive during the export

    # -- the graph's own objects -------------------------------------------------------

    def reference(self, obj: Any, who: str) -> str | None:
        """An expression for ``obj`` in the exported module (``None`` on a problem)."""
        if id(obj) in self._defined:
            return self._defined[id(obj)]
        module = getattr(obj, "__module__", None)
        if (isinstance(obj, type) or is_function(obj)) and is_user_code(module):
            try:
                source = source_of(obj)
            except SourceUnavailable as error:
                owner = self._owner_class(obj)
                if owner is not None:
                    defined = self.reference(owner, who)
                    return f"{defined}.{obj.__name__}" if defined is not None else None
                return self._imported(obj, who, str(error))
            return self._define(obj, source, who, source.name)
        return self._imported(obj, who, _why_not_source(obj))

    def _owner_class(self, fn: Any) -> type | None:
        """The top-level class whose body defines ``fn`` (a static or plain method)."""
        parts = getattr(fn, "__qualname__", "").split(".")
        if not isinstance(fn, types.FunctionType) or len(parts) != 2:
            return None
        owner = self._globals_of(fn).get(parts[0])
        if isinstance(owner, type) and owner.__dict__.get(parts[1]) is not None:
            found = getattr(owner, parts[1], None)
            return owner if found is fn else None
        return None

    def scaffold(self, preferred: str, module: str, attribute: str, value: Any) -> str:
        """Bind a name the generated code needs (``StateGraph``, ``START``...)."""
        return self._import_as(preferred, value, module, attribute)

    def _import_as(self, preferred: str, value: Any, module: str, attribute: str) -> str:
        """The name ``value`` is imported as, adding the import on first use.

        ``preferred``, or with ``_`` appended while that name is bound to something else.
        """
        name = preferred
        while name in self._bound and not _same(self._bound[name], value):
            name += "_"
        if name not in self._bound:
            self._bind(name, value)
            self.imports[name] = (module, attribute)
        return name

    def fresh(self, preferred: str) -> str:
        """A name no definition or import uses, for the generated functions."""
        name = preferred
        while name in self._bound or hasattr(builtins, name):
            name += "_"
        self._bind(name, _MISSING)
        return name

    # -- internals ---------------------------------------------------------------------

    def _bind(self, name: str, value: Any) -> None:
        self._bound[name] = value
        self._alive.append(value)

    def _define(self, obj: Any, source: Source, who: str, name: str) -> str | None:
        if name in self._bound and not _same(self._bound[name], obj):
            self.problems.append(
                ExportProblem(
                    who, f"its name {name!r} is already used by another object in the export"
                )
            )
            return None
        self._bind(name, obj)
        self._defined[id(obj)] = name
        scope = self._globals_of(obj)
        if scope.get("annotations") is __future__.annotations:
            self.future_annotations = True
        for free in free_names(source):
            self._use(free, scope.get(free, _MISSING), scope, f"{who} (uses {free!r})")
        hidden = type_checking_imports(scope)
        for quoted in quoted_annotation_names(source):
            # A quoted annotation may name something only a type checker knows; take what
            # the module has, and leave the rest as the text it already is.
            if quoted not in self._bound and (quoted in scope or quoted in hidden):
                value = scope.get(quoted, _MISSING)
                self._use(quoted, value, scope, f"{who} (annotation {quoted!r})")
        self.definitions.append(Definition(name, "source", source.text))
        return name

    def _globals_of(self, obj: Any) -> Mapping[str, Any]:
        target = obj
        if is_function(obj):
            target = _unwrap(obj)
            if isinstance(target, types.FunctionType):
                if target.__module__ == "__main__" and self.namespace is not None:
                    return self.namespace
                return target.__globals__
        module_name = getattr(target, "__module__", None)
        if module_name == "__main__" and self.namespace is not None:
            return self.namespace
        module = sys.modules.get(module_name or "")
        return vars(module) if module is not None else {}

    def _use(self, name: str, value: Any, scope: Mapping[str, Any], who: str) -> None:
        """Make ``name`` mean ``value`` in the exported module, as it does in ``scope``."""
        if name in self._bound:
            if not _same(self._bound[name], value):
                self.problems.append(
                    ExportProblem(who, f"{name!r} means different objects in different places")
                )
            return
        if value is _MISSING:
            hidden = type_checking_imports(scope).get(name)
            if hidden is not None:
                # Imported for annotations only; the export has no import cycle to avoid.
                self._bind(name, hidden)
                self.imports[name] = hidden
            elif not hasattr(builtins, name):
                self.problems.append(ExportProblem(who, f"{name!r} is not defined"))
            return
        if getattr(builtins, name, _MISSING) is value:
            return
        if isinstance(value, types.ModuleType):
            self._import_module(name, value, who)
            return
        module = getattr(value, "__module__", None)
        if (isinstance(value, type) or is_function(value)) and is_user_code(module):
            try:
                source = source_of(value)
            except SourceUnavailable:
                pass
            else:
                defined = self._define(value, source, who, source.name)
                if defined is not None and defined != name:
                    self._bind(name, value)
                    self.definitions.append(Definition(name, "constant", f"{name} = {defined}"))
                return
        unwritable: UnwritableValue | None = None
        try:
            literal = python_literal(value)
        except UnwritableValue as error:
            literal, unwritable = None, error
        if literal is not None and not self._import_constant(name, value):
            self._bind(name, value)
            self.definitions.append(Definition(name, "constant", f"{name} = {literal}"))
            return
        if literal is not None or (unwritable is not None and self._import_constant(name, value)):
            return
        path = import_path(value)
        if path is not None and "." not in path[1]:
            self._bind(name, value)
            self.imports[name] = (path[0], path[1])
            return
        owner = scope.get("__name__")
        if isinstance(owner, str) and importable(owner) and scope.get(name) is value:
            self._bind(name, value)
            self.imports[name] = (owner, name)
            return
        why = f"is {unwritable}" if unwritable is not None else _describe(value, module)
        self.problems.append(ExportProblem(who, f"{name!r} {why}"))

    def _import_constant(self, name: str, value: Any) -> bool:
        """Import a constant from graphnb or an imported module that has it by that name."""
        candidates = ["graphnb", *sorted({m for m, _ in self.imports.values()})]
        for module_name in candidates:
            module = sys.modules.get(module_name)
            found = getattr(module, name, _MISSING) if module is not None else _MISSING
            if found is not _MISSING and type(found) is type(value) and found == value:
                self._bind(name, value)
                self.imports[name] = (module_name, name)
                return True
        return False

    def _import_module(self, name: str, module: types.ModuleType, who: str) -> None:
        full = module.__name__
        if not importable(full):
            self.problems.append(ExportProblem(who, f"module {full!r} cannot be imported"))
            return
        self._bind(name, module)
        if name == full:
            self.imports[name] = (full, None)
        elif full.endswith("." + name):
            self.imports[name] = (full.rpartition(".")[0], name)
        else:
            self.imports[name] = (full, "")  # "" means `import full as name`

    def _imported(self, obj: Any, who: str, why: str) -> str | None:
        """Reference ``obj`` by importing it; a problem naming ``why`` when impossible."""
        if getattr(builtins, getattr(obj, "__name__", "") or "", _MISSING) is obj:
            return str(obj.__name__)
        path = import_path(obj)
        if path is None:
            self.problems.append(ExportProblem(who, f"{why}, and it cannot be imported by path"))
            return None
        module, qualname = path
        head, _, rest = qualname.partition(".")
        head_value = getattr(sys.modules[module], head)
        local = self._import_as(head, head_value, module, head)
        expression = f"{local}.{rest}" if rest else local
        self._defined[id(obj)] = expression
        self._alive.append(obj)
        return expression


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is type(b) and type(a) in _LITERAL_TYPES:
        return bool(a == b)
    return False


def _unwrap(fn: Any) -> Any:
    import inspect

    return inspect.unwrap(fn)


def _why_not_source(obj: Any) -> str:
    try:
        source_of(obj)
    except SourceUnavailable as error:
        return str(error)
    return "it belongs to an installed library"


def _describe(value: Any, module: Any) -> str:
    kind = "a lambda" if getattr(value, "__name__", "") == "<lambda>" else None
    if kind is None and isinstance(value, types.FunctionType) and value.__closure__:
        kind = f"a closure over {', '.join(value.__code__.co_freevars)}"
    kind = kind or f"a {type(value).__qualname__}"
    notebook = module in (None, "__main__") or str(module).startswith(NOTEBOOK_MODULE_PREFIX)
    where = "the notebook" if notebook else f"module {module!r}"
    return (
        f"is {kind} defined in {where}; it is neither source, a literal, nor importable "
        "(define it in an importable module, or inside the function that uses it)"
    )
