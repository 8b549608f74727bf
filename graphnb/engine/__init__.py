"""The runtime: compiled graphs, every run (plain or on a thread), nodes, events.

Storage is reached only through the protocols of :mod:`graphnb.engine.store`; see
docs/architecture.md for what this package may import.
"""
