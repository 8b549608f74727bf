"""Running the API on uvicorn: in the foreground (``graphnb serve``) or on a thread.

A server bound to anything but a loopback address is reachable by others, so it refuses
to start without a token or an auth hook (:func:`check_bind`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import uvicorn
from starlette.applications import Starlette
from typing_extensions import Unpack

from ..engine.compiled import CompiledGraph
from .app import AppOptions, Auth, create_app

__all__ = ["TOKEN_ENV", "InsecureBindError", "check_bind", "listening_socket", "serve", "serving"]

TOKEN_ENV = "GRAPHNB_SERVE_TOKEN"
"""Environment variable ``graphnb serve`` reads the API token from."""


class InsecureBindError(ValueError):
    """A server bound beyond loopback without a token."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to anything


def check_bind(host: str, auth_token: str | None, auth: Auth | None = None) -> None:
    """Refuse to serve beyond loopback without a token or an auth hook.

    Raises:
        InsecureBindError: ``host`` is not a loopback address and there is neither.
    """
    if auth_token is None and auth is None and not is_loopback(host):
        raise InsecureBindError(
            f"refusing to serve on {host!r} without a token: anyone who reaches it could "
            f"run the graphs. Give --auth-token (or set {TOKEN_ENV}) or --auth "
            "module:function, or bind to 127.0.0.1"
        )


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` and ``port`` for uvicorn to listen on.

    Made with ``IPPROTO_TCP`` named, not left 0: asyncio switches Nagle's algorithm off
    (``TCP_NODELAY``) only on connections whose socket says TCP. Without it every response
    after a connection's first waited about 40 ms for the client's delayed ACK.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


def serve(
    graphs: Mapping[str, CompiledGraph[Any]] | Sequence[CompiledGraph[Any]],
    *,
    host: str = "127.0.0.1",
    port: int = 2024,
    **options: Unpack[AppOptions],
) -> None:
    """Serve ``graphs`` until interrupted.

    ``options`` are :func:`~graphnb.serve.app.create_app`'s (``store``, ``auth_token``, ...).
    """
    uvicorn.run(_checked_app(graphs, host, options), host=host, port=port, log_level="info")


@contextlib.contextmanager
def serving(
    graphs: Mapping[str, CompiledGraph[Any]] | Sequence[CompiledGraph[Any]],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    **options: Unpack[AppOptions],
) -> Iterator[str]:
    """Serve ``graphs`` on a background thread while the block runs; yields the URL.

    ``port=0`` takes a free port. The server stops (its runs cancelled) when the block
    ends. ``options`` are :func:`~graphnb.serve.app.create_app`'s.
    """
    app = _checked_app(graphs, host, options)
    sock = listening_socket(host, port)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start; see its log above")
            time.sleep(0.01)
        bound_host, bound_port = sock.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        yield f"http://{shown}:{bound_port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _checked_app(
    graphs: Mapping[str, CompiledGraph[Any]] | Sequence[CompiledGraph[Any]],
    host: str,
    options: AppOptions,
) -> Starlette:
    check_bind(host, options.get("auth_token"), options.get("auth"))
    return create_app(graphs, **options)
