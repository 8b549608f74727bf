"""Persistence: threads of checkpoints, kept by a saver, read through the state model.

Compile a graph with ``checkpointer=`` (a saver or its URL) and run it with
``thread_id=``: each super-step is checkpointed, so the thread can be read, seeded,
edited, resumed, forked and shared between processes. See ``docs/persistence.md``.

Savers: :class:`MemorySaver`, :class:`SqliteSaver` (the embedded default),
:class:`PostgresSaver` and :class:`MySQLSaver`, or :func:`saver_from_url`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from .human import Command, GraphInterrupt, interrupt
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

# Names load their module on first use, so `import graphnb.checkpoint` (or re-exporting
# `interrupt` from `graphnb`) costs nothing until a saver or a thread is actually used.
_MODULES = {
    "BaseSaver": "base",
    "Loaded": "base",
    "CheckpointConflictError": "errors",
    "CheckpointError": "errors",
    "CheckpointLoadError": "errors",
    "ResumeError": "errors",
    "SaverSetupError": "errors",
    "ThreadNotFoundError": "errors",
    "ThreadRequiredError": "errors",
    "UnsafeCheckpointError": "errors",
    "UnstorableValueError": "errors",
    "Command": "human",
    "GraphInterrupt": "human",
    "interrupt": "human",
    "MemorySaver": "memory",
    "MySQLSaver": "mysql",
    "PostgresSaver": "postgres",
    "CheckpointSource": "record",
    "Interrupt": "record",
    "InterruptWhen": "record",
    "StateSnapshot": "record",
    "StoredCheckpoint": "record",
    "StoredFieldDroppedWarning": "serde",
    "SCHEMA_VERSION": "sql",
    "SqlSaver": "sql",
    "SqliteSaver": "sqlite",
    "DEFAULT_SNAPSHOT_EVERY": "threads",
    "Threads": "threads",
    "as_saver": "url",
    "saver_from_url": "url",
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


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
