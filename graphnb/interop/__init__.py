"""LangGraph graphs in, LangGraph code out (the optional extra ``graphnb[langgraph]``).

:func:`from_langgraph` reads a LangGraph ``StateGraph`` (or its compiled graph) into a
graphnb ``StateGraph``; :func:`import_langgraph` does the same and lists what it could not
map instead of raising; :func:`to_langgraph_module` writes a module that builds a graphnb
graph with LangGraph's API; :func:`import_langgraph_threads` copies a LangGraph
checkpointer's threads into a graphnb saver. LangGraph is imported only when one of them is called.
"""

from __future__ import annotations

from .errors import LangGraphMissingError, Unmapped, UnmappedFeatureError
from .langgraph_in import Imported, from_langgraph, import_langgraph, is_langgraph
from .langgraph_out import to_langgraph_module
from .langgraph_threads import ImportedThread, RefusedPayloadError, import_langgraph_threads

__all__ = [
    "Imported",
    "ImportedThread",
    "LangGraphMissingError",
    "RefusedPayloadError",
    "Unmapped",
    "UnmappedFeatureError",
    "from_langgraph",
    "import_langgraph",
    "import_langgraph_threads",
    "is_langgraph",
    "to_langgraph_module",
]
