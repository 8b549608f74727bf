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
from ..records import CHECKPOINT_SOURCES, StoredCheckpoint, is_checkpoint_source

__all__ = [
    "MAX_CHECKPOINT_ID",
    "MAX_THREAD_ID",
    "check_row",
    "parse_json",
    "row_json",
    "storable_text",
    "to_json",
]

MAX_THREAD_ID = 255
"""The longest thread id (in characters) every saver can store."""
MAX_CHECKPOINT_ID = 64
"""The longest checkpoint id (in characters) every saver can store."""


_TEXTS = (
    ("thread_id", MAX_THREAD_ID, False),
    ("checkpoint_id", MAX_CHECKPOINT_ID, False),
    ("parent_id", MAX_CHECKPOINT_ID, True),
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
    if _plain_row(row):
        return
    check_row_by_column(row)


def _plain_row(row: StoredCheckpoint) -> bool:
    """Whether ``row`` is the usual one, which :func:`check_row_by_column` would pass.

    ASCII ids, ints in range, a finite time, tested in one expression: checking column by
    column (as the fallback does, to name the one at fault) costs more than a memory
    saver's whole store. ``False`` only means "check by column".
    """
    thread_id, checkpoint_id, parent_id, source = (
        row.thread_id,
        row.checkpoint_id,
        row.parent_id,
        row.source,
    )
    seq, parent_seq, base_seq, step, stamp = (
        row.seq,
        row.parent_seq,
        row.base_seq,
        row.step,
        row.created_at,
    )
    return (
        type(thread_id) is str
        and 0 < len(thread_id) <= MAX_THREAD_ID
        and thread_id.isascii()
        and "\x00" not in thread_id
        and type(checkpoint_id) is str
        and 0 < len(checkpoint_id) <= MAX_CHECKPOINT_ID
        and checkpoint_id.isascii()
        and "\x00" not in checkpoint_id
        and (
            parent_id is None
            or (
                type(parent_id) is str
                and 0 < len(parent_id) <= MAX_CHECKPOINT_ID
                and parent_id.isascii()
                and "\x00" not in parent_id
            )
        )
        and type(source) is str
        and source in CHECKPOINT_SOURCES
        and type(seq) is int
        and 0 <= seq < 2**63
        and (parent_seq is None or (type(parent_seq) is int and 0 <= parent_seq < 2**63))
        and type(base_seq) is int
        and 0 <= base_seq < 2**63
        and type(step) is int
        and -(2**31) <= step < 2**31
        and type(stamp) is float
        and math.isfinite(stamp)
    )


def check_row_by_column(row: StoredCheckpoint) -> None:
    """:func:`check_row`, one column after the other, naming the first one at fault."""
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
    if not is_checkpoint_source(row.source):
        _refuse(row, "source", row.source, f"one of {', '.join(sorted(CHECKPOINT_SOURCES))}")
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


# One encoder for every checkpoint: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def _refuse_object(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# JSONEncoder.encode builds its C encoder again on every call, which costs as much as
# encoding a checkpoint's small meta and writes: this one is built once, with the same
# options (no circular-reference markers: a cycle raises RecursionError, as deep nesting
# does, and both are refused as unstorable). json.encoder.c_make_encoder is what
# JSONEncoder itself uses; without the C accelerator, the encoder above does the work.
_C_ENCODE = (
    json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None,  # markers
        _refuse_object,  # default
        json.encoder.encode_basestring_ascii,
        None,  # indent
        ":",  # key separator
        ",",  # item separator
        False,  # sort_keys
        False,  # skipkeys
        False,  # allow_nan
    )
    if getattr(json.encoder, "c_make_encoder", None) is not None
    else None
)


def to_json(value: Any) -> str:
    """``value`` as compact JSON text, key order kept; NaN and infinities raise ValueError."""
    if _C_ENCODE is not None:
        return "".join(_C_ENCODE(value, 0))
    return _ENCODER.encode(value)


def row_json(row: StoredCheckpoint) -> tuple[str, str, str | None]:
    """The row's ``meta``, ``writes`` and ``snapshot`` as JSON text, key order kept.

    Writes and snapshot are the writer's own text (``row.texts``) when it made it.

    Raises:
        UnstorableValueError: naming the column that is not JSON (NaN, an object, an int
            of more digits than Python converts to text, nesting deeper than Python's
            recursion limit).
    """
    if row.texts is not None:
        return (_dump(row, "meta", row.meta), *row.texts)
    return (
        _dump(row, "meta", row.meta),
        _dump(row, "writes", row.writes),
        None if row.snapshot is None else _dump(row, "snapshot", row.snapshot),
    )


def _dump(row: StoredCheckpoint, name: str, value: Any) -> str:
    try:
        return to_json(value)
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
