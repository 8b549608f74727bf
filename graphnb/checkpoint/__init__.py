"""Persistence: threads of checkpoints, kept by a saver, read through the state model.

Compile a graph with ``checkpointer=`` (a saver or its URL) and run it with
``thread_id=``: each super-step is checkpointed, so the thread can be read, seeded,
edited, resumed, forked and shared between processes. See ``docs/persistence.md``.

Savers: :class:`MemorySaver`, :class:`SqliteSaver` (the embedded default),
:class:`PostgresSaver` and :class:`MySQLSaver`, or :func:`saver_from_url`.
"""

from __future__ import annotations

from .base import BaseSaver, Loaded
from .errors import (
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
from .interrupt import Command, GraphInterrupt, interrupt
from .memory import MemorySaver
from .mysql import MySQLSaver
from .postgres import PostgresSaver
from .record import (
    CheckpointSource,
    Interrupt,
    InterruptWhen,
    StateSnapshot,
    StoredCheckpoint,
)
from .serde import StoredFieldDroppedWarning
from .sql import SCHEMA_VERSION, SqlSaver
from .sqlite import SqliteSaver
from .threads import DEFAULT_SNAPSHOT_EVERY, Threads
from .url import as_saver, saver_from_url

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
