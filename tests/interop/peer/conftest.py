"""The peer suite's helpers are loaded by test_peer.py, not collected (--doctest-modules)."""

from __future__ import annotations

collect_ignore = ["peer_harness.py", "peer_scenarios.py"]
