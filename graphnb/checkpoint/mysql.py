"""Checkpoints in MySQL or MariaDB (PyMySQL), for threads shared by processes and machines.

Install the driver with ``pip install graphnb[mysql]``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from ..checkpoint_errors import CheckpointLoadError, SaverSetupError, UnstorableValueError
from ..records import StoredCheckpoint
from .locks import DEFAULT_LOCK_TIMEOUT, OnBusy, lock_digest
from .sql import SqlSaver, Statement, largest_part

__all__ = ["MySQLSaver"]

_DUPLICATE_KEY = 1062
# Refusals of the row itself that PyMySQL raises as OperationalError: MariaDB's JSON check
# (a lone surrogate, say), MySQL's invalid JSON text, and a row over max_allowed_packet.
_TOO_BIG = 1153  # max_allowed_packet: the server drops the connection after it
_REFUSED_DATA = frozenset({4025, 3140, _TOO_BIG})
_STATEMENT = 4096  # an insert's bytes besides its JSON: the SQL, the ids, the numbers


class MySQLSaver(SqlSaver):
    """Stores checkpoints in MySQL or MariaDB.

    Thread and checkpoint ids are binary columns holding their UTF-8 bytes, so they
    compare byte for byte as in the other savers: ``utf8mb4_bin`` would pad them, making
    ``"alice"`` and ``"alice "`` one thread. ``meta``, ``writes`` and ``snapshot`` are
    ``LONGTEXT`` holding the JSON graphnb wrote: MySQL's ``JSON`` type would reorder the
    keys of every object. ``JSON_EXTRACT`` and the other JSON functions read them all
    the same.

    The saver's queries share one connection, one call at a time (PyMySQL has no pool).
    A run's thread lock is ``GET_LOCK(name, timeout)`` with a name hashed from the table
    and the thread id, held on a connection of its own for the run.

    Args:
        url: ``mysql://user:password@host:3306/database``.
        table_prefix: put before every table name.
        on_busy_thread, lock_timeout: what a run does when another run holds its thread,
            as for :class:`~graphnb.checkpoint.SqlSaver`.
    """

    json_type = "LONGTEXT"
    param = "%s"
    json_param = "%s"
    text_type = "VARBINARY(1020)"  # 255 characters of up to 4 bytes
    # LOWER does nothing to bytes: read them as text, compared byte for byte (a _ci
    # collation would also ignore accents, which no other saver does).
    lowered_thread_id = "LOWER(CONVERT(c.thread_id USING utf8mb4) COLLATE utf8mb4_bin)"
    id_type = "VARBINARY(256)"
    float_type = "DOUBLE"
    table_options = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

    def __init__(
        self,
        url: str,
        *,
        table_prefix: str = "graphnb_",
        on_busy_thread: OnBusy = "wait",
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme.split("+")[0] not in ("mysql", "mariadb"):
            raise SaverSetupError(f"MySQLSaver needs a mysql:// URL, got {url!r}")
        self.url = url
        self._options: dict[str, Any] = {
            "host": parts.hostname or "127.0.0.1",
            "port": parts.port or 3306,
            "user": unquote(parts.username or "root"),
            "password": unquote(parts.password or ""),
            "database": parts.path.lstrip("/") or None,
        }
        self._max_packet = 0  # the connection's max_allowed_packet, read when it opens
        super().__init__(
            table_prefix=table_prefix, on_busy_thread=on_busy_thread, lock_timeout=lock_timeout
        )

    def __repr__(self) -> str:
        return f"MySQLSaver(table_prefix={self.table_prefix!r})"

    def reopen_args(self) -> tuple[str, dict[str, Any]] | None:
        """The URL and every option."""
        return self.url, self._reopen_options()

    def _opened(self, cursor: Any) -> None:
        cursor.execute("SELECT @@max_allowed_packet")
        self._max_packet = int(cursor.fetchone()[0])

    def _insert_params(
        self, row: StoredCheckpoint
    ) -> tuple[tuple[Any, ...], tuple[str, str, str | None]]:
        params, texts = super()._insert_params(row)
        meta, writes, snapshot = texts
        # Escaped for the statement, JSON text at most doubles (a quote becomes \"): only a
        # row near the limit is measured exactly.
        if 2 * (len(meta) + len(writes) + len(snapshot or "")) + _STATEMENT > self._max_packet:
            self._refuse_oversized(row, params, texts)
        return params, texts

    def _refuse_oversized(
        self, row: StoredCheckpoint, params: tuple[Any, ...], texts: tuple[str, str, str | None]
    ) -> None:
        """Refuse a row over the server's packet limit before sending it.

        Sent, the server would drop the connection halfway ("MySQL server has gone away"),
        naming nothing.
        """
        with self._conn.cursor() as cursor:
            size = len(cursor.mogrify(self._queries["insert"], params).encode("utf-8")) + 1
        if size <= self._max_packet:
            return
        largest, characters = largest_part(texts)
        raise UnstorableValueError(
            f"a checkpoint of thread {row.thread_id!r} is {size:,} bytes, over the server's "
            f"max_allowed_packet of {self._max_packet:,} bytes; its largest part is its "
            f"{largest} ({characters:,} characters of JSON)",
            field=largest,
            thread_id=row.thread_id,
        )

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

    def _usable_after(self, conn: Any, error: BaseException) -> bool:
        import pymysql

        # PyMySQL keeps no protocol state to ask. A refusal by the server (a duplicate key,
        # bad data, bad SQL) arrives as one complete error packet, and a load error is
        # raised after every row was read; anything else (Ctrl-C, a broken socket) may
        # have left an answer unread. A row refused before sending left nothing at all.
        if isinstance(error, CheckpointLoadError):
            return True
        if isinstance(error, UnstorableValueError) and error.__context__ is None:
            return True
        cause = error if isinstance(error, pymysql.MySQLError) else error.__context__
        return isinstance(
            cause, (pymysql.IntegrityError, pymysql.DataError, pymysql.ProgrammingError)
        ) and cause.args[:1] != (_TOO_BIG,)

    def _thread_lock_name(self, thread_id: str) -> str:
        return f"graphnb:{lock_digest(self.table, thread_id).hex()}"

    def _take_lock(self, conn: Any, thread_id: str, *, wait: bool) -> bool:
        name = self._thread_lock_name(thread_id)
        with conn.cursor() as cursor:
            cursor.execute("SELECT GET_LOCK(%s, %s)", (name, self.lock_timeout if wait else 0))
            got = cursor.fetchone()[0]
        if got is None:
            raise SaverSetupError(f"GET_LOCK({name!r}) failed on the server")
        return bool(got)

    def _give_lock(self, conn: Any, thread_id: str) -> None:
        with conn.cursor() as cursor:
            cursor.execute("SELECT RELEASE_LOCK(%s)", (self._thread_lock_name(thread_id),))
            cursor.fetchone()

    @property
    def _lock_name(self) -> str:
        return f"graphnb:{self.table}"[:64]

    def _setup_begin(self) -> list[Statement]:
        # MySQL commits before each CREATE or ALTER, so a transaction alone would not keep
        # two processes from setting up (or migrating) the tables at once.
        return [Statement("SELECT GET_LOCK(%s, 30)", (self._lock_name,)), Statement("BEGIN")]

    def _setup_end(self) -> list[Statement]:
        return [Statement("COMMIT"), Statement("SELECT RELEASE_LOCK(%s)", (self._lock_name,))]

    def _migrations(self, version: int) -> list[Statement]:
        if version >= 2:
            return []
        # Converting to binary keeps each id's bytes as written. A thread that layout 1
        # merged with another (``"alice"`` and ``"alice "``) splits back into the two.
        # Idempotent, as MySQL cannot undo a half-done migration.
        modify = [
            f"MODIFY thread_id {self.text_type} NOT NULL",
            f"MODIFY checkpoint_id {self.id_type} NOT NULL",
            f"MODIFY parent_id {self.id_type}",
            *(f"MODIFY {name} {self.json_type} NOT NULL" for name in ("meta", "writes")),
            f"MODIFY snapshot {self.json_type}",
        ]
        return [Statement(f"ALTER TABLE {self.table} {', '.join(modify)}")]
