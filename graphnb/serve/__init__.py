"""Serve graphs over HTTP with the API LangGraph's ``langgraph-sdk`` client speaks.

Needs the ``serve`` extra (``pip install 'graphnb[serve]'``: Starlette and uvicorn);
``import graphnb`` never imports this package. See docs/serve.md.

- :func:`create_app`: the ASGI application for some compiled graphs (one assistant each).
- :func:`serving`: that application on uvicorn on a background thread, for a block.
- :func:`serve`: that application in the foreground, as ``graphnb serve`` runs it.
"""

from __future__ import annotations

from .app import DEFAULT_BODY_LIMIT, create_app
from .server import TOKEN_ENV, InsecureBindError, check_bind, serve, serving

__all__ = [
    "DEFAULT_BODY_LIMIT",
    "TOKEN_ENV",
    "InsecureBindError",
    "check_bind",
    "create_app",
    "serve",
    "serving",
]
