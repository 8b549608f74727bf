"""The two virtual nodes every graph has: where a run starts and where it ends.

A module of their own, below both the plain draft a graph is built in
(:mod:`graphnb.draft`) and its validated spec (:mod:`graphnb.spec`), which name them.
"""

from __future__ import annotations

__all__ = ["END", "START"]

START = "__start__"
"""The virtual node a run starts from."""
END = "__end__"
"""The virtual node a run ends at."""
