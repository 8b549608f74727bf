from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["graphnb.agent", "graphnb.machine"])
def test_all_is_exactly_the_public_api(package: str) -> None:
    module = importlib.import_module(package)
    exported = set(module.__all__)
    assert len(exported) == len(module.__all__), "duplicates in __all__"
    assert all(hasattr(module, name) for name in exported)
    # every public class or function of the package's modules is re-exported, or private
    defined = set()
    for info in pkgutil.iter_modules(module.__path__):
        sub = importlib.import_module(f"{package}.{info.name}")
        for name in getattr(sub, "__all__", ()):
            obj = getattr(sub, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                defined.add(name)
    internal = {"call_tool", "describe_validation", "retry_after_seconds", "ModelRequest"}
    internal |= {"retry_thinking", "retry_tools", "ScriptStep"}
    assert defined - internal <= exported


def test_importing_the_agent_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, graphnb.agent, graphnb.machine; "
        "heavy = {'openai', 'networkx', 'IPython', 'ipywidgets', 'anywidget'}; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
