"""Errors raised while saving or loading checkpoints.

Each carries its context as attributes (``.thread_id``, ``.checkpoint_id``, ``.field``)
and derives from :class:`~graphnb.errors.GraphnbError` and the matching built-in.
"""

from __future__ import annotations

from .errors import GraphnbError

__all__ = [
    "CheckpointConflictError",
    "ResumeError",
    "ThreadRequiredError",
    "CheckpointError",
    "CheckpointLoadError",
    "SaverSetupError",
    "ThreadNotFoundError",
    "UnsafeCheckpointError",
    "UnstorableValueError",
]


class CheckpointError(GraphnbError):
    """Base class of the persistence errors."""

    def __init__(
        self, message: str, *, thread_id: str | None = None, checkpoint_id: str | None = None
    ) -> None:
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        super().__init__(message)


class SaverSetupError(CheckpointError, ValueError):
    """A saver cannot be made: an unknown URL, a missing driver, a newer table schema."""


class ThreadNotFoundError(CheckpointError, LookupError):
    """The thread, or the checkpoint asked for, does not exist."""

    def __str__(self) -> str:  # LookupError would quote the message like a dict key
        return str(self.args[0])


class ThreadRequiredError(CheckpointError, ValueError):
    """A graph with a checkpointer was run without ``thread_id``, or the other way round."""


class ResumeError(CheckpointError, ValueError):
    """A resume answer does not say which of several pending interrupts it answers."""


class CheckpointConflictError(CheckpointError, RuntimeError):
    """Another writer extended the thread first; this write was refused as a whole.

    Attributes:
        expected: the sequence number of the thread's last checkpoint as this writer saw it.
    """

    def __init__(self, message: str, *, thread_id: str, expected: int | None) -> None:
        self.expected = expected
        super().__init__(message, thread_id=thread_id)

    @classmethod
    def taken(cls, thread_id: str, seq: int) -> CheckpointConflictError:
        """The error for a write whose ``seq`` another writer took first."""
        return cls(
            f"thread {thread_id!r} already has checkpoint #{seq}: another writer extended it "
            "first, so this write was refused and nothing was written. Read the thread's "
            "latest state (get_state) and run again",
            thread_id=thread_id,
            expected=seq - 1,
        )


class UnstorableValueError(CheckpointError, TypeError):
    """A value cannot be stored as JSON through the state model; nothing was written.

    Attributes:
        field: the state field holding the value.
    """

    def __init__(self, message: str, *, field: str, thread_id: str | None = None) -> None:
        self.field = field
        super().__init__(message, thread_id=thread_id)


class CheckpointLoadError(CheckpointError, ValueError):
    """A stored checkpoint is corrupt or no longer fits the state model.

    Attributes:
        field: the field whose stored value is wrong, when one is to blame.
    """

    def __init__(
        self,
        message: str,
        *,
        thread_id: str | None,
        checkpoint_id: str | None,
        field: str | None = None,
    ) -> None:
        self.field = field
        super().__init__(message, thread_id=thread_id, checkpoint_id=checkpoint_id)


class UnsafeCheckpointError(CheckpointLoadError):
    """A stored checkpoint names a class or function to construct; it is never loaded.

    graphnb writes plain JSON only, so such a row was written by hand or by another tool.
    """
