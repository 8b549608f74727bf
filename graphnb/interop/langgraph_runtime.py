"""LangGraph's own functions inside imported nodes: a shim running them on graphnb.

A LangGraph node may call ``langgraph.types.interrupt(...)``, ``get_stream_writer()``,
``get_config()``, ``get_runtime()`` or ``get_store()``, or take ``config``, ``runtime``,
``writer`` or ``store`` parameters. Each of those reads LangGraph's run config from the
context variable LangChain keeps it in (``var_child_runnable_config``). An imported node
that does so runs inside a LangGraph-shaped config built from graphnb's run:

- ``configurable``: the thread id, and what ``interrupt()`` reads: a scratchpad whose
  resume values are graphnb's answers to this node (``Command(resume=...)``), so a
  resumed node gets them in order; its first unanswered call stops the graphnb run as
  graphnb's ``interrupt()`` does;
- the runtime: ``context`` (graphnb's ``invoke(context=...)``: a mapping, or an
  instance of the graph's ``context_schema``), ``store`` (the graph's
  ``compile(store=...)``, LangGraph's own store object when imported) and
  ``stream_writer`` (graphnb's ``RunContext.write``, read by
  ``stream(mode="custom")``);
- ``metadata``: ``langgraph_node``, ``langgraph_step`` and ``thread_id``.

The names it reads are LangGraph internals, so the shim checks the LangGraph version
when it is built: :data:`SUPPORTED` names the range it is tested against.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from ..engine.context import RunContext
from ..human import given_answers, interrupt_unanswered
from .code import wrapper_of

__all__ = ["CONTEXT_KEY", "SUPPORTED", "LangGraphVersionError", "check_version", "shimmed"]

CONTEXT_KEY = "__langgraph_context__"
"""Where a LangGraph context (an instance of the graph's ``context_schema``) travels in
graphnb's run data, which is a mapping (``LangGraphCalls`` puts it there)."""

SUPPORTED = (1, 0), (2, 0)
"""LangGraph versions the shim runs with: at least the first, below the second."""


class LangGraphVersionError(ImportError):
    """The installed LangGraph is outside the range the shim is tested against."""


def check_version() -> None:
    """Refuse a LangGraph the shim does not know.

    Raises:
        LangGraphVersionError: naming the installed version and the supported range.
    """
    from importlib.metadata import version

    installed = version("langgraph")
    parts = tuple(int(p) for p in itertools.takewhile(str.isdigit, installed.split(".")))
    low, high = SUPPORTED
    if not low <= parts[:2] < high:
        raise LangGraphVersionError(
            f"graphnb runs LangGraph's interrupt()/get_config()/get_stream_writer()/"
            f"get_runtime() inside imported nodes with langgraph >={_dotted(low)},"
            f"<{_dotted(high)}; langgraph {installed} is installed: install a supported "
            f"version (pip install 'graphnb[langgraph]')"
        )


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def shimmed(fn: Callable[..., Any], name: str, injected: Mapping[str, Any]) -> Callable[..., Any]:
    """``fn`` as a graphnb node running inside a LangGraph-shaped run config.

    Args:
        fn: the LangGraph node's function.
        name: the node's name.
        injected: LangGraph's ``func_accepts`` of the node: the parameters it wants
            (``config``, ``runtime``, ``writer``, ``store``) and their defaults.
    """
    check_version()
    from langgraph.errors import GraphInterrupt as LangGraphInterrupt

    def enter(context: RunContext) -> tuple[Any, dict[str, Any]]:
        from langchain_core.runnables.config import var_child_runnable_config

        config = _config(context)
        token = var_child_runnable_config.set(config)  # type: ignore[arg-type]
        return token, _kwargs(config, injected)

    def stopped(error: Any) -> Any:
        (first, *_) = error.args[0]
        return interrupt_unanswered(first.value)

    # Two twins, as a wrapper is a coroutine function or not: enter and stopped are shared.
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def anode(state: Any, context: RunContext) -> Any:
            from langchain_core.runnables.config import var_child_runnable_config

            token, kwargs = enter(context)
            try:
                return await fn(state, **kwargs)
            except LangGraphInterrupt as error:
                return stopped(error)
            finally:
                var_child_runnable_config.reset(token)

        anode.__langgraph_node__ = fn  # type: ignore[attr-defined]
        wrapper_of(anode, fn)
        return anode

    @functools.wraps(fn)
    def node(state: Any, context: RunContext) -> Any:
        from langchain_core.runnables.config import var_child_runnable_config

        token, kwargs = enter(context)
        try:
            return fn(state, **kwargs)
        except LangGraphInterrupt as error:
            return stopped(error)
        finally:
            var_child_runnable_config.reset(token)

    node.__langgraph_node__ = fn  # type: ignore[attr-defined]
    wrapper_of(node, fn)
    return node


def _config(context: RunContext) -> dict[str, Any]:
    from langgraph._internal._constants import (
        CONFIG_KEY_CHECKPOINT_NS,
        CONFIG_KEY_RUNTIME,
        CONFIG_KEY_SCRATCHPAD,
        CONFIG_KEY_SEND,
    )
    from langgraph._internal._scratchpad import PregelScratchpad
    from langgraph.runtime import Runtime

    answers = list(given_answers())
    calls = itertools.count()
    scratchpad = PregelScratchpad(
        step=context.step,
        stop=context.step + 1,
        call_counter=itertools.count().__next__,
        interrupt_counter=calls.__next__,
        get_null_resume=_no_resume,
        resume=answers,
        subgraph_counter=itertools.count().__next__,
    )
    data: Any = context.data or None
    if isinstance(data, Mapping) and CONTEXT_KEY in data:  # a context_schema instance
        data = data[CONTEXT_KEY]
    runtime: Runtime[Any] = Runtime(
        context=data,
        store=context.store,
        stream_writer=context.write,
    )
    configurable: dict[str, Any] = {
        CONFIG_KEY_SCRATCHPAD: scratchpad,
        CONFIG_KEY_SEND: lambda writes: None,  # graphnb keeps the answers itself
        CONFIG_KEY_CHECKPOINT_NS: context.node,
        CONFIG_KEY_RUNTIME: runtime,
    }
    metadata: dict[str, Any] = {"langgraph_node": context.node, "langgraph_step": context.step}
    if context.thread_id is not None:
        configurable["thread_id"] = context.thread_id
        metadata["thread_id"] = context.thread_id
    return {"configurable": configurable, "metadata": metadata, "callbacks": None}


def _no_resume(consume: bool = False) -> None:
    # LangGraph's resume without an interrupt id; graphnb answers by id or in order.
    return None


def _kwargs(config: Mapping[str, Any], injected: Mapping[str, Any]) -> dict[str, Any]:
    from langgraph._internal._constants import CONF, CONFIG_KEY_RUNTIME

    runtime = config[CONF][CONFIG_KEY_RUNTIME]
    kwargs: dict[str, Any] = {}
    for parameter in injected:
        if parameter == "config":
            kwargs[parameter] = config
        elif parameter == "runtime":
            kwargs[parameter] = runtime
        elif parameter == "writer":
            kwargs[parameter] = runtime.stream_writer
        elif parameter == "store":
            kwargs[parameter] = runtime.store
    return kwargs
