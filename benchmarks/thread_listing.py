"""Time one page of ``threads_info`` on 10,000 threads on each SQL saver.

Run: ``python benchmarks/thread_listing.py`` (needs the PostgreSQL and MariaDB of the
test setup; uses throwaway tables and a temporary SQLite file, and drops them after).
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path

from graphnb.checkpoint import BaseSaver, MySQLSaver, PostgresSaver, SqliteSaver
from graphnb.engine.threadlist import list_threads_info
from graphnb.records import StoredCheckpoint

THREADS = 10_000


def fill(saver: BaseSaver) -> None:
    """Two checkpoints per thread: an input and a finished step."""
    now = time.time()
    for index in range(THREADS):
        thread_id = f"thread-{index:05d}"
        for seq in (0, 1):
            saver.put(
                StoredCheckpoint(
                    thread_id,
                    seq,
                    f"c{seq}",
                    None if seq == 0 else "c0",
                    None if seq == 0 else 0,
                    0,
                    seq - 1,
                    "loop",
                    now + index + seq / 2,
                    {"ran": [], "next": [], "interrupts": []},
                    [],
                    {"n": index} if seq == 0 else None,
                )
            )


def measure(name: str, saver: BaseSaver) -> None:
    fill(saver)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        page = list_threads_info(saver, limit=50, after=None)
        best = min(best, time.perf_counter() - start)
    assert len(page) == 50
    assert page[0].thread_id == f"thread-{THREADS - 1:05d}"
    start = time.perf_counter()
    found = list_threads_info(saver, search="99", limit=50)
    searched = time.perf_counter() - start
    print(
        f"{name}: first page of 50 in {best * 1000:.0f} ms; search page in "
        f"{searched * 1000:.0f} ms ({len(found)} hits)"
    )


def main() -> None:
    prefix = f"b{uuid.uuid4().hex[:10]}_"
    with tempfile.TemporaryDirectory() as folder:
        saver = SqliteSaver(Path(folder) / "bench.db")
        measure("sqlite", saver)
        saver.close()
    for name, saver_type, url in (
        ("postgres", PostgresSaver, "postgresql://postgres@127.0.0.1:5432/test"),
        ("mariadb", MySQLSaver, "mysql://root:@127.0.0.1:3306/test"),
    ):
        sql = saver_type(url, table_prefix=prefix)
        try:
            measure(name, sql)
        finally:
            conn = sql._connect()
            cursor = conn.cursor()
            cursor.execute(f"DROP TABLE IF EXISTS {sql.table}")
            cursor.execute(f"DROP TABLE IF EXISTS {sql.version_table}")
            conn.commit() if hasattr(conn, "commit") else None
            conn.close()
            sql.close()


if __name__ == "__main__":
    main()
