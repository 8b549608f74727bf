"""Checkpoints in MySQL or MariaDB (PyMySQL), for threads shared by processes and machines.

Install the driver with ``pip install graphnb[mysql]``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from ..checkpoint_errors import SaverSetupError
from .sql import SqlSaver

__all__ = ["MySQLSaver"]

_DUPLICATE_KEY = 1062
# Refusals of the row itself that PyMySQL raises as OperationalError: MariaDB's JSON check
# (a lone surrogate, say), MySQL's invalid JSON text, and a row over max_allowed_packet.
_REFUSED_DATA = frozenset({4025, 3140, 1153})


class MySQLSaver(SqlSaver):
    """Stores checkpoints in MySQL or MariaDB; ``meta``, ``writes`` and ``snapshot`` are JSON.

    Thread ids compare byte for byte (``utf8mb4_bin``), as in the other savers.

    Args:
        url: ``mysql://user:password@host:3306/database``.
        table_prefix: put before every table name.
    """

    json_type = "JSON"
    param = "%s"
    json_param = "%s"
    text_type = "VARCHAR(255)"
    float_type = "DOUBLE"
    table_options = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

    def __init__(self, url: str, *, table_prefix: str = "graphnb_") -> None:
        parts = urlsplit(url)
        if parts.scheme.split("+")[0] not in ("mysql", "mariadb"):
            raise SaverSetupError(f"MySQLSaver needs a mysql:// URL, got {url!r}")
        self._options: dict[str, Any] = {
            "host": parts.hostname or "127.0.0.1",
            "port": parts.port or 3306,
            "user": unquote(parts.username or "root"),
            "password": unquote(parts.password or ""),
            "database": parts.path.lstrip("/") or None,
        }
        super().__init__(table_prefix=table_prefix)

    def __repr__(self) -> str:
        return f"MySQLSaver(table_prefix={self.table_prefix!r})"

    def _connect(self) -> Any:
        try:
            import pymysql
        except ImportError:  # pragma: no cover - depends on the environment
            raise SaverSetupError(
                "MySQLSaver needs PyMySQL: install it with `pip install graphnb[mysql]`"
            ) from None
        return pymysql.connect(**self._options, autocommit=True, charset="utf8mb4")

    def _is_duplicate(self, error: BaseException) -> bool:
        import pymysql

        return isinstance(error, pymysql.IntegrityError) and error.args[0] == _DUPLICATE_KEY

    def _is_bad_data(self, error: BaseException) -> bool:
        import pymysql

        if isinstance(error, pymysql.DataError):
            return True
        code = error.args[0] if isinstance(error, pymysql.MySQLError) and error.args else None
        return code in _REFUSED_DATA

    def _is_closed(self, conn: Any) -> bool:
        return not conn.open

    def _setup_lock(self, cursor: Any) -> None:
        cursor.execute("SELECT GET_LOCK(%s, 30)", (f"graphnb:{self.table}"[:64],))
        cursor.execute("BEGIN")

    def _setup_unlock(self, cursor: Any) -> None:
        cursor.execute("COMMIT")
        cursor.execute("SELECT RELEASE_LOCK(%s)", (f"graphnb:{self.table}"[:64],))
