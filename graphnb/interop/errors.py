"""What an import from (or export to) LangGraph could not carry over, and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import GraphSetupError

__all__ = ["LangGraphMissingError", "Unmapped", "UnmappedFeatureError"]


@dataclass(frozen=True, slots=True)
class Unmapped:
    """One LangGraph feature that graphnb cannot represent.

    Attributes:
        feature: LangGraph's name for it (``RetryPolicy``, ``Send``, ``subgraph`` ...).
        where: the node, edge, field or option that uses it.
        reason: why graphnb cannot map it, and what to do instead when there is a way.
    """

    feature: str
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.feature} ({self.where}): {self.reason}"


class UnmappedFeatureError(GraphSetupError):
    """A LangGraph graph uses features graphnb cannot map; every one of them is listed.

    Attributes:
        unmapped: the features, in the order they were found.
        graph: the graph's name.
    """

    def __init__(self, unmapped: Sequence[Unmapped], *, graph: str) -> None:
        self.unmapped = tuple(unmapped)
        self.graph = graph
        lines = "\n".join(f"- {item}" for item in self.unmapped)
        super().__init__(
            f"the LangGraph graph {graph!r} uses {len(self.unmapped)} feature(s) graphnb "
            f"cannot map:\n{lines}\n(import_langgraph(...) returns the rest of the graph "
            "and this list without raising)"
        )


class LangGraphMissingError(GraphSetupError, ImportError):
    """LangGraph, or a package of the ``langgraph`` extra, is not installed."""

    def __init__(self, package: str = "langgraph") -> None:
        super().__init__(
            f"LangGraph interop needs the {package} package: pip install 'graphnb[langgraph]'"
        )
