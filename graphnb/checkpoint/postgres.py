"""Checkpoints in PostgreSQL (psycopg 3), for threads shared by processes and machines.

Install the driver with ``pip install graphnb[postgres]``.
"""

from __future__ import annotations

import zlib
from typing import Any

from .errors import SaverSetupError
from .sql import SqlSaver

__all__ = ["PostgresSaver"]


class PostgresSaver(SqlSaver):
    """Stores checkpoints in PostgreSQL; ``meta``, ``writes`` and ``snapshot`` are JSONB.

    Args:
        url: a libpq connection string or URL, ``postgresql://user@host:5432/db``.
        table_prefix: put before every table name.
    """

    json_type = "JSONB"
    param = "%s"
    json_param = "%s::jsonb"
    text_type = "TEXT"
    float_type = "DOUBLE PRECISION"

    def __init__(self, url: str, *, table_prefix: str = "graphnb_") -> None:
        self.url = url
        super().__init__(table_prefix=table_prefix)

    def __repr__(self) -> str:
        return f"PostgresSaver(table_prefix={self.table_prefix!r})"

    def _connect(self) -> Any:
        try:
            import psycopg
        except ImportError:  # pragma: no cover - depends on the environment
            raise SaverSetupError(
                "PostgresSaver needs psycopg 3: install it with `pip install graphnb[postgres]`"
            ) from None
        return psycopg.connect(self.url, autocommit=True)

    def _is_duplicate(self, error: BaseException) -> bool:
        import psycopg.errors

        return isinstance(error, psycopg.errors.UniqueViolation)

    def _is_bad_data(self, error: BaseException) -> bool:
        import psycopg

        return isinstance(error, psycopg.DataError)

    def _setup_lock(self, cursor: Any) -> None:
        # Concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL's catalog.
        cursor.execute("BEGIN")
        key = zlib.crc32(f"graphnb:{self.table}".encode())
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
