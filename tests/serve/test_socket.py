"""The socket ``serving()`` hands uvicorn: the connections it accepts send without delay.

It was made as ``socket.socket(AF_INET)``, protocol 0, and asyncio switches Nagle's
algorithm off only on sockets that say TCP: every response after a connection's first then
waited about 40 ms for the client's delayed ACK (``langgraph-sdk``'s client keeps its
connection, so nearly every request of ``Builder.connect`` paid it).
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from graphnb.serve.server import listening_socket


async def _nodelay_of_an_accepted_connection(host: str) -> int:
    loop = asyncio.get_running_loop()
    accepted: asyncio.Future[int] = loop.create_future()

    class Accepting(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    listening = listening_socket(host, 0)
    server = await loop.create_server(Accepting, sock=listening)
    async with server:
        _, writer = await asyncio.open_connection(*listening.getsockname()[:2])
        try:
            return await asyncio.wait_for(accepted, 5)
        finally:
            writer.close()


def test_a_connection_accepted_by_the_server_has_nagle_switched_off():
    assert asyncio.run(_nodelay_of_an_accepted_connection("127.0.0.1")) != 0


def test_the_same_holds_on_ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    assert asyncio.run(_nodelay_of_an_accepted_connection("::1")) != 0
