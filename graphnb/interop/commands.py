"""graphnb's ``Command`` and ``Send`` as LangGraph's, for nodes run by LangGraph.

:func:`graphnb.interop.to_langgraph_module` wraps each node that declares Command
destinations with :func:`langgraph_node`: the node's own code returns graphnb's
``Command``, which LangGraph would not recognise. (The other way needs nothing: graphnb's
engine reads LangGraph's ``Command`` and ``Send`` as they are.)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..human import Command
from .errors import LangGraphMissingError

__all__ = ["langgraph_node", "to_langgraph_command"]


def to_langgraph_command(result: Any) -> Any:
    """``result`` with a graphnb ``Command`` (and the ``Send`` items of its goto) made LangGraph's.

    Anything else is returned as it is.
    """
    if type(result) is not Command:
        return result
    try:
        from langgraph.types import Command as LangGraphCommand
        from langgraph.types import Send as LangGraphSend
    except ImportError as error:  # pragma: no cover - the extra is what runs this
        raise LangGraphMissingError() from error

    def target(item: Any) -> Any:
        if hasattr(item, "node") and hasattr(item, "payload"):
            return LangGraphSend(item.node, item.payload)
        return item

    goto = result.goto
    goto = [target(item) for item in goto] if isinstance(goto, (list, tuple)) else target(goto)
    return LangGraphCommand(
        graph=result.graph, update=result.update, resume=result.resume, goto=goto
    )


def langgraph_node(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, returning LangGraph's ``Command`` where it returns graphnb's.

    The wrapper keeps ``fn``'s signature (``functools.wraps``), so LangGraph still sees
    the parameters it injects (``config``, ``runtime`` ...) and its return annotation.
    """
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_node(*args: Any, **kwargs: Any) -> Any:
            return to_langgraph_command(await fn(*args, **kwargs))

        return async_node

    @functools.wraps(fn)
    def node(*args: Any, **kwargs: Any) -> Any:
        return to_langgraph_command(fn(*args, **kwargs))

    return node
