"""What every saver checks before storing a row, and how it stores and reads its JSON.

Shared by all savers so that a row is refused, stored and read back the same way by each:
an id one database could hold and another could not would make a thread work on one saver
and fail on the next.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..checkpoint_errors import CheckpointLoadError, UnstorableValueError
from ..records import StoredCheckpoint

__all__ = [
    "MAX_CHECKPOINT_ID",
    "MAX_THREAD_ID",
    "check_row",
    "parse_json",
    "row_json",
    "storable_text",
]

MAX_THREAD_ID = 255
"""The longest thread id (in characters) every saver can store."""
MAX_CHECKPOINT_ID = 64
"""The longest checkpoint id (in characters) every saver can store."""


_TEXTS = (
    ("thread_id", MAX_THREAD_ID, False),
    ("checkpoint_id", MAX_CHECKPOINT_ID, False),
    ("parent_id", MAX_CHECKPOINT_ID, True),
    ("source", 16, False),
)
_INTS = (
    ("seq", 2**63, False),
    ("parent_seq", 2**63, True),
    ("base_seq", 2**63, False),
    ("step", 2**31, False),  # an INTEGER column in every SQL database
)


def storable_text(value: object, longest: int) -> bool:
    """Whether ``value`` is text every saver stores and compares as given.

    NUL cannot be stored in PostgreSQL's text, and a lone surrogate cannot be encoded for
    SQLite's or MySQL's driver: such a key would work in one saver and fail in another.
    """
    if type(value) is not str or not 0 < len(value) <= longest or "\x00" in value:
        return False
    if value.isascii():  # the common case: no surrogate possible, no encoding needed
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_row(row: StoredCheckpoint) -> None:
    """Refuse a row some saver could not store or give back as it was.

    Every saver runs this before storing, so a row is refused the same way everywhere.

    Raises:
        UnstorableValueError: naming the column (``.field``) at fault.
    """
    for name, longest, optional in _TEXTS:
        value = getattr(row, name)
        if not (optional and value is None) and not storable_text(value, longest):
            _refuse(
                row,
                name,
                value,
                f"a non-empty str of at most {longest} characters "
                "without NUL characters or lone surrogates",
            )
    for name, bound, optional in _INTS:
        value = getattr(row, name)
        if optional and value is None:
            continue
        if type(value) is not int or not -bound <= value < bound:  # bool is no int here
            _refuse(row, name, value, f"an int between {-bound} and {bound - 1}")
    stamp = row.created_at
    if type(stamp) not in (float, int) or not math.isfinite(stamp):
        _refuse(row, "created_at", stamp, "a finite number (Unix time)")


def _refuse(row: StoredCheckpoint, name: str, value: object, expected: str) -> None:
    raise UnstorableValueError(
        f"a checkpoint of thread {row.thread_id!r:.80} cannot be stored: its {name} is "
        f"{value!r:.80}, expected {expected}",
        field=name,
        thread_id=row.thread_id if isinstance(row.thread_id, str) else None,
    )


def row_json(row: StoredCheckpoint) -> tuple[str, str, str | None]:
    """The row's ``meta``, ``writes`` and ``snapshot`` as JSON text, key order kept.

    Raises:
        UnstorableValueError: naming the column that is not JSON (NaN, an object, an int
            of more digits than Python converts to text, nesting deeper than Python's
            recursion limit).
    """
    return (
        _dump(row, "meta", row.meta),
        _dump(row, "writes", row.writes),
        None if row.snapshot is None else _dump(row, "snapshot", row.snapshot),
    )


def _dump(row: StoredCheckpoint, name: str, value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as error:
        reason = "it nests too deeply" if isinstance(error, RecursionError) else str(error)
        raise UnstorableValueError(
            f"the {name} of a checkpoint of thread {row.thread_id!r:.80} is not JSON: {reason}",
            field=name,
            thread_id=row.thread_id,
        ) from None


def parse_json(text: str | bytes, *, thread_id: str, checkpoint_id: str, column: str) -> Any:
    """A JSON column's text as Python data.

    Raises:
        CheckpointLoadError: the text does not parse, holds an int too long to convert, or
            nests deeper than Python's recursion limit: the row was damaged or forged.
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        reason = "it nests too deeply" if isinstance(error, RecursionError) else str(error)
        raise CheckpointLoadError(
            f"checkpoint {checkpoint_id!r:.80} of thread {thread_id!r:.80} is corrupt: its "
            f"{column} JSON does not parse ({reason})",
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
        ) from None
