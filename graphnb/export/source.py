"""Finding the source text of functions and classes, and the names that text uses.

``inspect.getsource`` does most of the work. Two gaps are filled here: classes defined in
a Jupyter kernel (Python 3.11's ``inspect`` looks for them in ``__main__.__file__``, which
a kernel does not have), and the free names of a definition, read with :mod:`symtable` so
that Python's own scoping rules decide what is local and what comes from the module.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import symtable
import sys
import textwrap
import types
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Source",
    "SourceUnavailable",
    "free_names",
    "is_function",
    "quoted_annotation_names",
    "source_of",
]


class SourceUnavailable(Exception):
    """An object's source cannot be written into a module; the message says why."""


@dataclass(frozen=True, slots=True)
class Source:
    """A top-level ``def`` or ``class`` statement, ready to be pasted into a module.

    Attributes:
        name: the name the statement binds.
        text: the statement, decorators included, dedented, without a trailing newline.
    """

    name: str
    text: str


def is_function(obj: Any) -> bool:
    """A plain function, or an object a decorator made around one (``functools.cache``).

    Either way its source is the function's, decorators included, which makes the same
    object again.
    """
    if isinstance(obj, types.FunctionType):
        return True
    try:
        # Only an attribute of the object itself: getattr may run any code on others.
        wraps = "__wrapped__" in vars(obj) and not isinstance(obj, type)
        return wraps and isinstance(inspect.unwrap(obj), types.FunctionType)
    except (TypeError, ValueError):  # no __dict__; a cycle of __wrapped__
        return False


def source_of(obj: Any) -> Source:
    """The source of a plain function or class, as one top-level statement.

    Raises:
        SourceUnavailable: ``obj`` is a lambda, a closure, a builtin, an instance, or its
            source cannot be found.
    """
    if isinstance(obj, type):
        text = _class_source(obj)
    elif is_function(obj):
        target = inspect.unwrap(obj)
        if not isinstance(target, types.FunctionType):
            raise SourceUnavailable(f"it wraps {type(target).__name__}, which has no source")
        if target.__name__ == "<lambda>":
            raise SourceUnavailable("it is a lambda")
        owner = target.__qualname__.split(".")[-2:-1]
        if owner and owner[0] != "<locals>":
            raise SourceUnavailable(f"it is defined in the body of class {owner[0]}")
        if target.__closure__:
            names = ", ".join(target.__code__.co_freevars)
            raise SourceUnavailable(f"it is a closure over {names}")
        try:
            text = inspect.getsource(target)
        except (OSError, TypeError) as error:
            raise SourceUnavailable(f"its source is not available ({error})") from None
    elif isinstance(obj, (types.BuiltinFunctionType, types.MethodWrapperType)):
        raise SourceUnavailable("it is a builtin")
    elif isinstance(obj, types.MethodType):
        raise SourceUnavailable("it is a bound method")
    else:
        raise SourceUnavailable(f"it is an instance of {type(obj).__qualname__}")
    text = textwrap.dedent(text).strip()
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise SourceUnavailable(f"its source does not parse on its own ({error.msg})") from None
    if len(tree.body) != 1 or not isinstance(
        tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ):
        raise SourceUnavailable("its source is not a single def or class statement")
    return Source(tree.body[0].name, text)


def _class_source(cls: type) -> str:
    try:
        text = inspect.getsource(cls)
    except (OSError, TypeError):
        pass
    else:
        # Before 3.13, inspect takes the first class statement of that name in the file;
        # a notebook that defines the class again in a later cell means a later one.
        file = inspect.getsourcefile(cls)
        if file is None or sys.version_info >= (3, 13) or "." in cls.__qualname__:
            return text
        return _class_statement(cls, [file]) or text
    # Python 3.11 looks for a class in its module's file, which a Jupyter kernel's
    # ``__main__`` does not have. The class's methods know their cell; a class without
    # methods is looked for in the cells the kernel registered with linecache, and must
    # declare the same fields to count.
    files = _method_files(cls) or [name for name in list(linecache.cache) if _is_cell(name)]
    found = _class_statement(cls, files)
    if found is None:
        raise SourceUnavailable("its source is not available (no file or notebook cell)")
    return found


def _class_statement(cls: type, files: list[str]) -> str | None:
    """The statement defining ``cls`` in ``files``, or ``None``.

    The one its methods were compiled in, else the last that declares its fields and methods.
    """
    compiled = {
        (function.__code__.co_filename, function.__code__.co_firstlineno)
        for function in _methods(cls)
    }
    found: str | None = None
    for filename in files:
        text = "".join(linecache.getlines(filename))
        if f"class {cls.__name__}" not in text:
            continue
        try:
            tree = ast.parse(text, filename)
        except SyntaxError:
            continue
        for node in tree.body:
            if (
                isinstance(node, ast.ClassDef)
                and node.name == cls.__qualname__
                and _declares_as(node, cls)
            ):
                lines = text.splitlines()
                first = (node.decorator_list[0] if node.decorator_list else node).lineno
                found = "\n".join(lines[first - 1 : node.end_lineno])
                end = node.end_lineno or node.lineno
                if any(f == filename and first <= line <= end for f, line in compiled):
                    return found
    return found


def _methods(cls: type) -> list[types.FunctionType]:
    methods = []
    for value in list(vars(cls).values()):
        # Only plain functions: touching other attributes (pydantic's) may run code.
        function = value.__func__ if isinstance(value, staticmethod | classmethod) else value
        if isinstance(function, types.FunctionType) and function.__qualname__.startswith(
            cls.__qualname__ + "."
        ):
            methods.append(function)
    return methods


def _method_files(cls: type) -> list[str]:
    return list(dict.fromkeys(function.__code__.co_filename for function in _methods(cls)))


def _is_cell(filename: str) -> bool:
    """A Jupyter kernel's cell (ipykernel's temporary files, IPython's input names)."""
    entry = linecache.cache.get(filename)
    registered = entry is not None and len(entry) == 4 and entry[1] is None
    return registered and ("ipykernel_" in filename or filename.startswith("<ipython-input"))


def _declares_as(node: ast.ClassDef, cls: type) -> bool:
    """Whether a class statement declares the fields and methods ``cls`` has."""
    fields = [
        item.target.id
        for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    ]
    methods = {
        item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return fields == list(vars(cls).get("__annotations__", {})) and methods <= set(vars(cls))


def free_names(source: Source) -> list[str]:
    r"""Names a definition reads from its module, in order of first use.

    The name the statement itself binds is left out. Names a nested scope takes from an
    enclosing function are not free.

    >>> free_names(Source("f", "def f(x: Item) -> int:\n    return len(helper(x)) + LIMIT"))
    ['Item', 'int', 'len', 'helper', 'LIMIT']
    """
    table = symtable.symtable(source.text, "<export>", "exec")
    found: dict[str, None] = {}
    for symbol in table.get_symbols():
        if symbol.is_referenced() and symbol.get_name() != source.name:
            found[symbol.get_name()] = None
    stack = list(table.get_children())
    while stack:
        scope = stack.pop(0)
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            if symbol.is_global() and name != source.name:
                found[name] = None
        stack.extend(scope.get_children())
    return sorted(found, key=_first_use(source.text))


def _first_use(text: str) -> Any:
    positions: dict[str, tuple[int, int]] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name):
            key = (node.lineno, node.col_offset)
            if node.id not in positions or key < positions[node.id]:
                positions[node.id] = key
    return lambda name: (positions.get(name, (1 << 30, 0)), name)


def quoted_annotation_names(source: Source) -> list[str]:
    """Names used inside string annotations (``x: "Item"``), which symtable cannot see.

    >>> quoted_annotation_names(Source("f", 'def f(x: "list[Item]") -> "Out": ...'))
    ['Item', 'Out', 'list']
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.text)):
        annotations: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            annotations.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for annotation in annotations:
            for part in ast.walk(annotation) if annotation is not None else ():
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    try:
                        inner = ast.parse(part.value, mode="eval")
                    except SyntaxError:
                        continue
                    found.update(n.id for n in ast.walk(inner) if isinstance(n, ast.Name))
    found.discard(source.name)
    return sorted(found)
