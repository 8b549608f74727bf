"""Persistence: threads of checkpoints, kept by a saver, read through the state model.

Compile a graph with ``checkpointer=`` (a saver or its URL) and run it with
``thread_id=``: each super-step is checkpointed, so the thread can be read, seeded,
edited, resumed, forked and shared between processes. See ``docs/persistence.md``.

Savers: :class:`MemorySaver`, :class:`SqliteSaver` (the embedded default),
:class:`PostgresSaver` and :class:`MySQLSaver`, or :func:`saver_from_url`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from ..checkpoint_errors import (
        CheckpointConflictError,
        CheckpointError,
        CheckpointLoadError,
        ResumeError,
        SaverSetupError,
        ThreadNotFoundError,
        ThreadRequiredError,
        UnsafeCheckpointError,
        UnstorableValueError,
    )
    from ..human import Command, GraphInterrupt, interrupt
    from ..records import (
        CheckpointSource,
        Interrupt,
        InterruptWhen,
        Loaded,
        StateSnapshot,
        StoredCheckpoint,
    )
    from .base import BaseSaver
    from .memory import MemorySaver
    from .mysql import MySQLSaver
    from .postgres import PostgresSaver
    from .serde import StoredFieldDroppedWarning
    from .sql import SCHEMA_VERSION, SqlSaver
    from .sqlite import SqliteSaver
    from .threads import DEFAULT_SNAPSHOT_EVERY, Threads
    from .url import as_saver, saver_from_url

# Names load their module on first use, so `import graphnb.checkpoint` costs nothing until
# a saver or a thread is actually used. The records, errors and `interrupt` live below both
# this package and the engine (graphnb.records, graphnb.checkpoint_errors, graphnb.human):
# they are what the two exchange, and this package never imports the engine.
_MODULES = {
    "BaseSaver": "graphnb.checkpoint.base",
    "Loaded": "graphnb.records",
    "CheckpointConflictError": "graphnb.checkpoint_errors",
    "CheckpointError": "graphnb.checkpoint_errors",
    "CheckpointLoadError": "graphnb.checkpoint_errors",
    "ResumeError": "graphnb.checkpoint_errors",
    "SaverSetupError": "graphnb.checkpoint_errors",
    "ThreadNotFoundError": "graphnb.checkpoint_errors",
    "ThreadRequiredError": "graphnb.checkpoint_errors",
    "UnsafeCheckpointError": "graphnb.checkpoint_errors",
    "UnstorableValueError": "graphnb.checkpoint_errors",
    "Command": "graphnb.human",
    "GraphInterrupt": "graphnb.human",
    "interrupt": "graphnb.human",
    "MemorySaver": "graphnb.checkpoint.memory",
    "MySQLSaver": "graphnb.checkpoint.mysql",
    "PostgresSaver": "graphnb.checkpoint.postgres",
    "CheckpointSource": "graphnb.records",
    "Interrupt": "graphnb.records",
    "InterruptWhen": "graphnb.records",
    "StateSnapshot": "graphnb.records",
    "StoredCheckpoint": "graphnb.records",
    "StoredFieldDroppedWarning": "graphnb.checkpoint.serde",
    "SCHEMA_VERSION": "graphnb.checkpoint.sql",
    "SqlSaver": "graphnb.checkpoint.sql",
    "SqliteSaver": "graphnb.checkpoint.sqlite",
    "DEFAULT_SNAPSHOT_EVERY": "graphnb.checkpoint.threads",
    "Threads": "graphnb.checkpoint.threads",
    "as_saver": "graphnb.checkpoint.url",
    "saver_from_url": "graphnb.checkpoint.url",
}

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "SCHEMA_VERSION",
    "BaseSaver",
    "CheckpointConflictError",
    "CheckpointError",
    "CheckpointLoadError",
    "CheckpointSource",
    "Command",
    "GraphInterrupt",
    "Interrupt",
    "InterruptWhen",
    "Loaded",
    "MemorySaver",
    "MySQLSaver",
    "PostgresSaver",
    "ResumeError",
    "SaverSetupError",
    "SqlSaver",
    "SqliteSaver",
    "StateSnapshot",
    "StoredCheckpoint",
    "StoredFieldDroppedWarning",
    "ThreadNotFoundError",
    "ThreadRequiredError",
    "Threads",
    "UnsafeCheckpointError",
    "UnstorableValueError",
    "as_saver",
    "interrupt",
    "saver_from_url",
]


__getattr__, __dir__ = lazy_names(__name__, _MODULES, __all__)
