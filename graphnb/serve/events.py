"""A run's stream parts in Redis, written by the worker running it, read by any API process.

Each run has one Redis stream, ``graphnb:run:{run_id}``. Part ``n`` (numbered from 0, the
number a client sends back as ``Last-Event-ID``) is the entry with id ``0-{n+1}``, so a
client that reconnects reads exactly the parts after the last one it had, whichever
process it reaches. The API process writes part 0 (the run's metadata) when it creates
the run; the worker appends the rest and, when the run ends, one last entry that carries
the run's status and result. A worker that takes over a run after a crash goes on with
the next number. A stream is kept for :data:`KEEP_SECONDS` after its run ends.

Followers do not each block a Redis connection: every append is also published on one
channel (:data:`CHANNEL`, the run's id as the message), each process listens to it on one
connection and wakes the followers of that run, which then read what is new.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as redis

__all__ = ["CHANNEL", "END", "KEEP_SECONDS", "BrokerUnreachableError", "RunEvents"]

CHANNEL = "graphnb:parts"
"""The Redis channel that says a run has a new part (the message is the run's id)."""

KEEP_SECONDS = 3600
"""How long a run's parts are kept after it ends, for clients that reconnect."""

END = "__end__"
"""The event of a stream's last entry: the run ended (data: its status and result)."""

_CONNECTIONS = 32  # per process: commands are short, none blocks
_RECHECK = 1.0  # seconds a follower waits for a wake-up before it reads again anyway


class BrokerUnreachableError(ConnectionError):
    """The Redis server that carries the runs' parts cannot be reached."""


def _key(run_id: str) -> str:
    return f"graphnb:run:{run_id}"


def _attempts_key(run_id: str) -> str:
    return f"graphnb:run:{run_id}:attempts"


def _encoded(event: str, data: Any) -> dict[Any, Any]:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, default=repr)
    return {"event": event, "data": text}


class RunEvents:
    """The runs' stream parts in the Redis server at ``url`` (``redis://host:port/db``)."""

    def __init__(self, url: str, *, keep_seconds: int = KEEP_SECONDS) -> None:
        self.url = url
        self.keep_seconds = keep_seconds
        # requests beyond the pool's connections wait for one instead of failing
        pool = redis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=_CONNECTIONS, timeout=30
        )
        self._redis: redis.Redis = redis.Redis.from_pool(pool)
        self._wakes: dict[str, asyncio.Event] = {}  # by run id, for this process's followers
        self._listener: asyncio.Task[None] | None = None

    async def check(self) -> None:
        """Fail now, naming the URL, if the Redis server cannot be reached.

        Raises:
            BrokerUnreachableError: it cannot.
        """
        try:
            await self._redis.ping()
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            raise BrokerUnreachableError(f"cannot reach Redis at {self.url}: {error}") from None

    async def close(self) -> None:
        """Close the connections."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self._redis.aclose()

    async def add(self, run_id: str, index: int, event: str, data: Any) -> None:
        """Append part ``index`` of the run (numbers go up by one, from 0)."""
        async with self._redis.pipeline(transaction=False) as batch:
            batch.xadd(_key(run_id), _encoded(event, data), id=f"0-{index + 1}")
            batch.publish(CHANNEL, run_id)
            await batch.execute()

    async def count(self, run_id: str) -> int:
        """The number of entries the run's stream holds (its end included, if it ended)."""
        return int(await self._redis.xlen(_key(run_id)))

    async def end(self, run_id: str, status: str, result: Any) -> None:
        """Close the run's stream with its status and result, kept for a while."""
        index = await self.count(run_id)
        async with self._redis.pipeline(transaction=True) as batch:
            batch.xadd(
                _key(run_id),
                _encoded(END, {"status": status, "result": result}),
                id=f"0-{index + 1}",
            )
            batch.expire(_key(run_id), self.keep_seconds)
            batch.expire(_attempts_key(run_id), self.keep_seconds)
            batch.publish(CHANNEL, run_id)
            await batch.execute()

    async def attempt(self, run_id: str, head: str) -> tuple[int, str]:
        """Count a worker's attempt at the run: its number, and where the first began.

        ``head`` is the thread's last checkpoint now; the first attempt's is kept.
        """
        key = _attempts_key(run_id)
        async with self._redis.pipeline(transaction=True) as batch:
            batch.hincrby(key, "attempt", 1)
            batch.hsetnx(key, "from", head)
            batch.hget(key, "from")
            attempt, _, started_from = await batch.execute()
        return int(attempt), str(started_from)

    async def kept(self, run_id: str) -> bool:
        """Whether the run's parts are still kept."""
        return bool(await self._redis.exists(_key(run_id)))

    async def next_index(self, run_id: str) -> int | None:
        """The number the run's next part will have; ``None`` when the run has ended."""
        last: Any = await self._redis.xrevrange(_key(run_id), count=1)
        if not last:
            return 0
        entry_id, fields = last[0]
        if fields["event"] == END:
            return None
        return int(entry_id.partition("-")[2])

    async def follow(self, run_id: str, start: int) -> AsyncIterator[tuple[int, str, Any]]:
        """Parts ``(index, event, data)`` from ``start`` on, until the run's end entry.

        The end entry itself is yielded last, with :data:`END` as its event.
        """
        self._listen()
        key, after = _key(run_id), f"0-{start}"
        while True:
            # armed before reading: a part published while we read still wakes us
            wake = self._wakes.setdefault(run_id, asyncio.Event())
            entries: Any = await self._redis.xrange(key, min=f"({after}", count=256)
            if not entries:
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can lose a cancel
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(_RECHECK):
                        await wake.wait()
                continue
            for entry_id, fields in entries:
                after = entry_id
                index = int(entry_id.partition("-")[2]) - 1
                yield index, fields["event"], json.loads(fields["data"])
                if fields["event"] == END:
                    return

    def _listen(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._wake_followers())

    async def _wake_followers(self) -> None:
        async with self._redis.pubsub(ignore_subscribe_messages=True) as channel:
            await channel.subscribe(CHANNEL)
            async for message in channel.listen():
                wake = self._wakes.pop(message["data"], None)
                if wake is not None:
                    wake.set()
