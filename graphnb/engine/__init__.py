"""The runtime: compiled graphs, runs, nodes, events."""
