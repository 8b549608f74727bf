"""The HTTP API: the part of LangGraph's Agent Server API that ``langgraph-sdk`` speaks.

One assistant per served graph (its id is the graph's name, or a UUID derived from it),
threads kept in the graphs' saver with their metadata in :class:`~graphnb.serve.store.Store`,
runs executed in this process by :class:`~graphnb.serve.runs.Runner`. Every error is a
JSON body ``{"detail": ...}`` with a 4xx code naming what was wrong; a route or an option
not served yet answers 501 naming it. Request bodies are JSON, read up to a size limit,
and nothing is ever unpickled.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hmac
import inspect
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypedDict

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..checkpoint_errors import ThreadNotFoundError
from ..engine.compiled import CompiledGraph
from ..errors import GraphnbError
from ..human import Command
from ..records import StateSnapshot
from ..terminals import END, START
from .modes import ENGINE_MODES, EVENT_MODES
from .queue import STALLED_AFTER, QueuedRuns, work
from .runs import (
    ACTIVE,
    ActiveRun,
    FollowedRun,
    Runner,
    RunRequest,
    Runs,
    final_values,
    jsonable,
)
from .store import Busy, PostgresStore, Store, open_store

__all__ = ["DEFAULT_BODY_LIMIT", "AppOptions", "Auth", "create_app"]

Auth = Callable[[Mapping[str, str]], "str | Awaitable[str]"]
"""An auth hook: the request's headers (lower-case names) in, the user's identity out.

It raises to refuse the request: :class:`PermissionError` is answered 403, anything else
401, each as JSON naming the error. It may be a coroutine function."""

_USER: contextvars.ContextVar[str | None] = contextvars.ContextVar("graphnb_serve_user")
# the identity of the request being handled; None: no owners (no hook, or one token)

DEFAULT_BODY_LIMIT = 1 << 20
"""Largest request body accepted, in bytes (1 MiB)."""

_NAMESPACE = uuid.UUID("6f1b9c1e-8d2a-4c53-9a57-6a1c0e0b5e21")
_MODES = (*ENGINE_MODES, *EVENT_MODES)
_RUN_KEYS = frozenset(
    {
        "assistant_id",
        "input",
        "command",
        "config",
        "context",
        "metadata",
        "stream_mode",
        "stream_subgraphs",
        "stream_resumable",
        "interrupt_before",
        "interrupt_after",
        "checkpoint",
        "checkpoint_id",
        "multitask_strategy",
        "if_not_exists",
        "on_disconnect",
        "on_completion",
        "durability",
        "feedback_keys",
        "webhook",
        "after_seconds",
        "checkpoint_during",
        "strict_resume",
        "langsmith_tracer",
    }
)
# Accepted in a run's body, not acted on yet: each answers 501 when given a value.
_ON_DISCONNECT = ("on_disconnect", ("cancel", "continue"))
_RUN_UNSERVED = ("webhook", "after_seconds", "langsmith_tracer")

Handler = Callable[[Request], Awaitable[Response]]


class ApiError(Exception):
    """A request the server answers with ``status`` and ``{"detail": message}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _unserved(what: str) -> ApiError:
    return ApiError(501, f"{what} is not served by graphnb yet (see docs/serve.md)")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


class Api:
    """The served graphs, their threads and runs, and the request handlers."""

    def __init__(
        self,
        graphs: Mapping[str, CompiledGraph[Any]],
        store: Store,
        *,
        auth_token: str | None,
        body_limit: int,
        runs: Runs | None = None,
        auth: Auth | None = None,
    ) -> None:
        if not graphs:
            raise ValueError("serve at least one graph")
        for name, graph in graphs.items():
            graph.threads  # noqa: B018 - raises ThreadRequiredError without a checkpointer
            if not name:
                raise ValueError("a served graph needs a name")
        self.graphs = dict(graphs)
        self.ids = {str(uuid.uuid5(_NAMESPACE, name)): name for name in self.graphs}
        self.store = store
        self.runner: Runs = Runner(store) if runs is None else runs
        if auth is not None and auth_token is not None:
            raise ValueError("give an auth token or an auth hook, not both")
        self.auth_token = auth_token
        self.auth = auth
        self.body_limit = body_limit
        self.started = time.time()
        self._dropping: set[asyncio.Task[None]] = set()  # threadless runs' clean-ups

    # -- plumbing --------------------------------------------------------------------

    def guarded(self, handler: Handler) -> Handler:
        """``handler`` behind the token check, with every error answered as JSON."""

        async def guard(request: Request) -> Response:
            try:
                self._check_token(request)
                _USER.set(await self._user(request))
                return await handler(request)
            except ApiError as error:
                return JSONResponse({"detail": error.message}, status_code=error.status)
            except ThreadNotFoundError as error:
                return JSONResponse({"detail": str(error)}, status_code=404)
            except (GraphnbError, ValueError) as error:
                # the graph refused what the request asked (a bad update, a bad node name)
                return JSONResponse({"detail": f"{type(error).__name__}: {error}"}, status_code=422)

        return guard

    def _check_token(self, request: Request) -> None:
        if self.auth_token is None:
            return
        given = request.headers.get("x-api-key")
        if given is None:
            scheme, _, value = request.headers.get("authorization", "").partition(" ")
            given = value if scheme.lower() == "bearer" else None
        if given is None or not hmac.compare_digest(given.encode(), self.auth_token.encode()):
            raise ApiError(401, "missing or wrong API token (send it as the x-api-key header)")

    async def _user(self, request: Request) -> str | None:
        """Who sends the request, as the auth hook says; ``None`` without a hook."""
        if self.auth is None:
            return None
        try:
            user = self.auth(request.headers)
            if inspect.isawaitable(user):
                user = await user
        except PermissionError as error:
            raise ApiError(
                403, f"forbidden: {error or 'the auth hook refused the request'}"
            ) from None
        except Exception as error:  # the hook refused: whatever it raised, say so
            raise ApiError(401, f"unauthorized: {error or type(error).__name__}") from None
        if not isinstance(user, str) or not user:
            raise ApiError(401, f"unauthorized: the auth hook gave no identity, got {user!r:.80}")
        return user

    def _owns(self, row: Mapping[str, Any]) -> bool:
        """Whether the request's user may see and touch the thread ``row`` describes."""
        user = _USER.get(None)
        return user is None or row["metadata"].get("owner") == user

    def _owned(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """A new thread's metadata, with its owner when there is a hook."""
        user = _USER.get(None)
        if user is None:
            return metadata
        if metadata.get("owner", user) != user:
            raise ApiError(403, "forbidden: a thread's owner is the user who makes it")
        return metadata | {"owner": user}

    async def body(self, request: Request, *, array: bool = False) -> Any:
        """The request's JSON object body (``{}`` when empty), read up to the size limit.

        With ``array``, a JSON array (``[]`` when empty) instead.
        """
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.body_limit:
            raise ApiError(413, f"request body over the limit of {self.body_limit} bytes")
        data = bytearray()
        async for piece in request.stream():
            data += piece
            if len(data) > self.body_limit:
                raise ApiError(413, f"request body over the limit of {self.body_limit} bytes")
        if not data.strip():
            return [] if array else {}
        try:
            body = json.loads(data)
        except (ValueError, UnicodeDecodeError) as error:
            raise ApiError(400, f"request body is not valid JSON: {error}") from None
        if not isinstance(body, list if array else dict):
            wanted = "a JSON array" if array else "a JSON object"
            raise ApiError(422, f"request body must be {wanted}, got {type(body).__name__}")
        return body

    def assistant(self, assistant_id: Any) -> tuple[str, CompiledGraph[Any]]:
        """The graph an assistant id (the graph's name or its UUID) names."""
        if not isinstance(assistant_id, str):
            raise ApiError(422, f"assistant_id must be a string, got {assistant_id!r:.80}")
        name = self.ids.get(assistant_id, assistant_id)
        if name not in self.graphs:
            raise ApiError(
                404, f"no assistant {assistant_id!r}; served: {', '.join(sorted(self.graphs))}"
            )
        return name, self.graphs[name]

    def thread_row(self, thread_id: str) -> dict[str, Any]:
        """The thread's stored row; 404 when the server never made it."""
        row = self.store.thread(thread_id)
        if row is None or not self._owns(row):  # another user's thread is not there
            raise ApiError(404, f"no thread {thread_id!r}")
        return row

    def graph_of(self, row: Mapping[str, Any]) -> CompiledGraph[Any] | None:
        """The graph the thread belongs to (``None`` before its first run)."""
        name = row["graph_id"]
        return None if name is None else self.graphs.get(name)

    # -- assistants ------------------------------------------------------------------

    def assistant_json(self, name: str) -> dict[str, Any]:
        """An assistant as the API describes it."""
        when = _iso(self.started)
        return {
            "assistant_id": str(uuid.uuid5(_NAMESPACE, name)),
            "graph_id": name,
            "name": name,
            "description": None,
            "config": {},
            "context": {},
            "metadata": {"created_by": "system"},
            "version": 1,
            "created_at": when,
            "updated_at": when,
        }

    async def search_assistants(self, request: Request) -> Response:
        """``POST /assistants/search``."""
        body = await self.body(request)
        limit, offset = _page(body)
        names = [
            name
            for name in sorted(self.graphs)
            if body.get("graph_id") in (None, name) and body.get("name") in (None, name)
        ]
        if body.get("metadata"):
            names = [n for n in names if _matches(self.assistant_json(n)["metadata"], body)]
        return JSONResponse([self.assistant_json(n) for n in names[offset : offset + limit]])

    async def get_assistant(self, request: Request) -> Response:
        """``GET /assistants/{assistant_id}``."""
        name, _ = self.assistant(request.path_params["assistant_id"])
        return JSONResponse(self.assistant_json(name))

    async def get_assistant_graph(self, request: Request) -> Response:
        """``GET /assistants/{assistant_id}/graph``: nodes and edges as LangGraph draws them."""
        _, graph = self.assistant(request.path_params["assistant_id"])
        spec = graph.spec
        ends = {e.target for e in spec.edges}
        nodes: list[dict[str, Any]] = [{"id": START, "type": "schema", "data": "__start__"}]
        nodes += [{"id": n.id, "type": "runnable", "data": {"name": n.id}} for n in spec.nodes]
        if END in ends:
            nodes.append({"id": END, "type": "schema", "data": "__end__"})
        edges: list[dict[str, Any]] = [
            {"source": e.source, "target": e.target, "conditional": e.kind == "conditional"}
            for e in spec.edges
        ]
        for edge, e in zip(edges, spec.edges, strict=True):
            if e.route:
                edge["data"] = e.route
        return JSONResponse({"nodes": nodes, "edges": edges})

    async def get_assistant_schemas(self, request: Request) -> Response:
        """``GET /assistants/{assistant_id}/schemas``: JSON schemas of the graph's types.

        The state's, its input and output (the state's fields a run reads and returns)
        and the run context's; LangGraph's ``config_schema`` has no counterpart (None).
        """
        name, graph = self.assistant(request.path_params["assistant_id"])
        state = _json_schema(graph.schema.state_type)
        return JSONResponse(
            {
                "graph_id": name,
                "state_schema": state,
                "input_schema": _restricted(state, graph.input_fields),
                "output_schema": _restricted(state, graph.output_fields),
                "context_schema": None
                if graph.context_schema is None
                else _json_schema(graph.context_schema),
                "config_schema": None,
            }
        )

    # -- threads ---------------------------------------------------------------------

    async def thread_json(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """A thread as the API describes it: status and current values included."""
        graph = self.graph_of(row)
        snapshot = await _snapshot(graph, row["thread_id"])
        status = "idle"
        if self.runner.busy(row["thread_id"]):
            status = "busy"
        elif snapshot is not None and snapshot.interrupts:
            status = "interrupted"
        elif snapshot is not None and snapshot.error is not None:
            status = "error"
        return {
            "thread_id": row["thread_id"],
            "created_at": _iso(row["created_at"]),
            "updated_at": _iso(row["updated_at"]),
            "metadata": row["metadata"]
            | ({"graph_id": row["graph_id"]} if row["graph_id"] else {}),
            "status": status,
            "values": {} if snapshot is None else jsonable(snapshot.values),
            "interrupts": {} if snapshot is None else _interrupts_by_task(snapshot),
        }

    async def create_thread(self, request: Request) -> Response:
        """``POST /threads``."""
        body = await self.body(request)
        _only(body, {"thread_id", "metadata", "if_exists", "supersteps", "ttl"}, "thread")
        for key in ("supersteps", "ttl"):
            if body.get(key):
                raise _unserved(f"a thread's {key!r}")
        thread_id = body.get("thread_id") or str(uuid.uuid4())
        _check_thread_id(thread_id)
        metadata = _object(body.get("metadata"), "metadata")
        graph_id = metadata.pop("graph_id", None)
        if graph_id is not None:
            graph_id, _ = self.assistant(graph_id)
        metadata = self._owned(metadata)
        row = self.store.thread(thread_id)
        if row is not None:
            if body.get("if_exists") == "do_nothing" and self._owns(row):
                return JSONResponse(await self.thread_json(row))
            raise ApiError(409, f"thread {thread_id!r} already exists")
        self.store.add_thread(thread_id, metadata, graph_id)
        return JSONResponse(await self.thread_json(self.thread_row(thread_id)))

    async def get_thread(self, request: Request) -> Response:
        """``GET /threads/{thread_id}``."""
        return JSONResponse(
            await self.thread_json(self.thread_row(request.path_params["thread_id"]))
        )

    async def patch_thread(self, request: Request) -> Response:
        """``PATCH /threads/{thread_id}``: merge ``metadata`` into the thread's."""
        thread_id = request.path_params["thread_id"]
        body = await self.body(request)
        _only(body, {"metadata", "ttl"}, "thread update")
        if body.get("ttl"):
            raise _unserved("a thread's 'ttl'")
        self.thread_row(thread_id)
        metadata = _object(body.get("metadata"), "metadata")
        if "graph_id" in metadata:
            raise ApiError(422, "a thread's graph_id is set by its first run, not changed")
        if _USER.get(None) is not None and "owner" in metadata:
            raise ApiError(403, "forbidden: a thread's owner is the user who made it")
        self.store.merge_metadata(thread_id, metadata)
        return JSONResponse(await self.thread_json(self.thread_row(thread_id)))

    async def search_threads(self, request: Request) -> Response:
        """``POST /threads/search``: by ids, metadata (every pair equal) and status."""
        body = await self.body(request)
        limit, offset = _page(body)
        for key in ("values", "extract"):
            if body.get(key):
                raise _unserved(f"searching threads by {key!r}")
        ids = body.get("ids")
        rows = [
            row
            for row in self.store.threads()
            if (ids is None or row["thread_id"] in ids)
            and _matches(row["metadata"], body)
            and self._owns(row)
        ]
        if body.get("sort_order") == "asc":
            rows.reverse()
        found = [await self.thread_json(row) for row in rows]
        if body.get("status"):
            found = [t for t in found if t["status"] == body["status"]]
        return JSONResponse(found[offset : offset + limit])

    async def count_threads(self, request: Request) -> Response:
        """``POST /threads/count``: how many threads ``threads.search`` would find."""
        body = await self.body(request)
        _only(body, {"metadata", "values", "status"}, "thread count")
        if body.get("values"):
            raise _unserved("counting threads by 'values'")
        rows = [
            row
            for row in self.store.threads()
            if _matches(row["metadata"], body) and self._owns(row)
        ]
        if body.get("status"):
            found = [await self.thread_json(row) for row in rows]
            rows = [t for t in found if t["status"] == body["status"]]
        return JSONResponse(len(rows))

    async def copy_thread(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/copy``: a new thread with the same checkpoints."""
        thread_id = request.path_params["thread_id"]
        row = self.thread_row(thread_id)
        if self.runner.busy(thread_id):
            raise ApiError(409, f"thread {thread_id!r} has a run in progress: copy it after")
        new_id = str(uuid.uuid4())
        graph = self.graph_of(row)
        if graph is not None:
            await asyncio.to_thread(graph.threads.copy, thread_id, new_id)
        self.store.add_thread(new_id, row["metadata"], row["graph_id"])
        return JSONResponse(await self.thread_json(self.thread_row(new_id)))

    async def prune_threads(self, request: Request) -> Response:
        """``POST /threads/prune``: delete threads, or keep only their latest checkpoint.

        Ids the request's user has no thread of, and threads with a run in progress, are
        left alone; ``pruned_count`` counts the others.
        """
        body = await self.body(request)
        _only(body, {"thread_ids", "strategy"}, "prune")
        ids = body.get("thread_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ApiError(422, f"thread_ids must be a list of thread ids, got {ids!r:.80}")
        strategy = body.get("strategy", "delete")
        if strategy not in ("delete", "keep_latest"):
            raise ApiError(422, f"strategy must be 'delete' or 'keep_latest', got {strategy!r:.80}")
        pruned = 0
        for thread_id in dict.fromkeys(ids):
            row = self.store.thread(thread_id)
            if row is None or not self._owns(row) or self.runner.busy(thread_id):
                continue
            graph = self.graph_of(row)
            if strategy == "delete":
                if graph is not None:
                    await asyncio.to_thread(graph.delete_thread, thread_id)
                self.store.delete_thread(thread_id)
            elif graph is not None:
                prune = graph.threads.prune
                await asyncio.to_thread(prune, keep_last=1, thread_ids=[thread_id])
            pruned += 1
        return JSONResponse({"pruned_count": pruned})

    async def delete_thread(self, request: Request) -> Response:
        """``DELETE /threads/{thread_id}``: its checkpoints, runs and metadata."""
        thread_id = request.path_params["thread_id"]
        row = self.thread_row(thread_id)
        if self.runner.busy(thread_id):
            raise ApiError(409, f"thread {thread_id!r} has a run in progress: cancel it first")
        graph = self.graph_of(row)
        if graph is not None:
            await asyncio.to_thread(graph.delete_thread, thread_id)
        self.store.delete_thread(thread_id)
        return Response(status_code=204)

    async def get_state(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/state[/{checkpoint_id}]``."""
        thread_id = request.path_params["thread_id"]
        graph = self.graph_of(self.thread_row(thread_id))
        checkpoint_id = request.path_params.get("checkpoint_id")
        snapshot = await _snapshot(graph, thread_id, checkpoint_id)
        if snapshot is None:
            if checkpoint_id is not None:
                raise ApiError(404, f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}")
            return JSONResponse(_empty_state(thread_id))
        return JSONResponse(_state_json(snapshot))

    async def update_state(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/state``: edit the state as ``as_node`` would."""
        thread_id = request.path_params["thread_id"]
        body = await self.body(request)
        _only(body, {"values", "as_node", "checkpoint", "checkpoint_id"}, "state update")
        graph = self.graph_of(self.thread_row(thread_id))
        if graph is None:
            raise ApiError(409, f"thread {thread_id!r} has not run yet, so it has no graph")
        if self.runner.busy(thread_id):
            raise ApiError(409, f"thread {thread_id!r} has a run in progress")
        values = _object(body.get("values"), "values")
        checkpoint_id = _checkpoint_id(body)
        new_id = await graph.aupdate_state(
            thread_id, values, as_node=body.get("as_node"), checkpoint_id=checkpoint_id
        )
        self.store.touch_thread(thread_id)
        return JSONResponse({"checkpoint": _checkpoint(thread_id, new_id)})

    async def history(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/history``: checkpoints newest first, one page."""
        thread_id = request.path_params["thread_id"]
        body = await self.body(request)
        graph = self.graph_of(self.thread_row(thread_id))
        if body.get("metadata"):
            raise _unserved("filtering history by 'metadata'")
        limit = body.get("limit", 10)
        if type(limit) is not int or limit < 1:
            raise ApiError(422, f"limit must be a whole number of at least 1, got {limit!r:.80}")
        before = body.get("before")
        if isinstance(before, dict):
            before = before.get("checkpoint_id")
        if before is not None and not isinstance(before, str):
            raise ApiError(422, f"before must be a checkpoint id, got {before!r:.80}")
        if graph is None:
            return JSONResponse([])
        try:
            page = await graph.aget_state_history(thread_id, limit=limit, before=before)
        except ThreadNotFoundError:
            page = []
        return JSONResponse([_state_json(s) for s in page])

    # -- runs ------------------------------------------------------------------------

    async def _start(self, request: Request) -> tuple[FollowedRun, dict[str, Any]]:
        body = await self.body(request)
        active = await self._start_run(body, request.path_params.get("thread_id"))
        assert active is not None
        return active, body

    async def _start_run(
        self, body: dict[str, Any], thread_id: str | None, *, dry: bool = False
    ) -> FollowedRun | None:
        """Check a run's body and start the run (``None`` with ``dry``: checked only).

        Nothing is changed before every check has passed: a refused run leaves no thread
        made and no run rolled back.
        """
        _only(body, _RUN_KEYS, "run")
        threadless = thread_id is None
        if thread_id is None:  # a threadless run: on a thread of its own
            if body.get("on_completion") not in (None, "delete", "keep"):
                raise ApiError(
                    422,
                    f"on_completion must be 'delete' or 'keep', got {body['on_completion']!r:.80}",
                )
            thread_id = str(uuid.uuid4())
            body["if_not_exists"] = "create"
        for key, allowed in (("if_not_exists", ("create", "reject")), _ON_DISCONNECT):
            if body.get(key) is not None and body[key] not in allowed:
                raise ApiError(422, f"{key} must be one of {list(allowed)}, got {body[key]!r:.80}")
        for key in _RUN_UNSERVED:
            if body.get(key):
                raise _unserved(f"a run's {key!r}")
        strategy = body.get("multitask_strategy", "reject")
        if strategy not in ("reject", "enqueue", "interrupt", "rollback"):
            raise ApiError(
                422,
                "multitask_strategy must be one of ['reject', 'enqueue', 'interrupt', "
                f"'rollback'], got {strategy!r:.80}",
            )
        name, graph = self.assistant(body.get("assistant_id"))
        row = self.store.thread(thread_id)
        if row is None:
            if body.get("if_not_exists") != "create":
                raise ApiError(404, f"no thread {thread_id!r} (if_not_exists='create' makes it)")
            _check_thread_id(thread_id)
            owned = self._owned({})
        elif not self._owns(row):
            raise ApiError(404, f"no thread {thread_id!r}")
        elif row["graph_id"] not in (None, name):
            raise ApiError(
                409, f"thread {thread_id!r} belongs to assistant {row['graph_id']!r}, not {name!r}"
            )
        modes = _modes(body.get("stream_mode", "values"))
        command = body.get("command")
        if command is not None:
            given: Any = _command(_object(command, "command"), graph)
        else:
            given = body.get("input")
        config = _object(body.get("config"), "config")
        options: dict[str, Any] = {
            "context": _object(body.get("context"), "context") or None,
            "recursion_limit": config.get("recursion_limit"),
            "checkpoint_id": _checkpoint_id(body),
            "interrupt_before": body.get("interrupt_before"),
            "interrupt_after": body.get("interrupt_after"),
            "subgraphs": bool(body.get("stream_subgraphs")),
        }
        durability = body.get("durability")
        if durability is not None:
            if durability not in ("sync", "async", "exit"):
                raise ApiError(
                    422, f"durability must be 'sync', 'async' or 'exit', got {durability!r:.80}"
                )
            options["durability"] = durability
        graph.check_node_names(options["interrupt_before"], "interrupt_before")  # 422 before start
        graph.check_node_names(options["interrupt_after"], "interrupt_after")
        if dry:
            return None
        if row is None:
            self.store.add_thread(thread_id, owned, name)
        elif strategy == "rollback":  # the thread's runs go, as if they had never been
            for run in self.store.runs(thread_id, limit=1_000, offset=0, status=None):
                if run["status"] in ACTIVE:  # newest first: the queued ones before the active
                    await self._rollback(run)
        try:
            request = RunRequest(
                graph,
                graph_id=name,
                assistant_id=str(uuid.uuid5(_NAMESPACE, name)),
                thread_id=thread_id,
                input=given,
                modes=modes,
                options=options,
                metadata=_object(body.get("metadata"), "metadata"),
                strategy=strategy,
            )
            active = await self.runner.start(request)
            if threadless and body.get("on_completion") != "keep":
                dropping = asyncio.create_task(self._drop_when_done(active))
                self._dropping.add(dropping)  # held, or the loop may collect it unfinished
                dropping.add_done_callback(self._dropping.discard)
        except Busy:
            raise ApiError(
                409, f"thread {thread_id!r} is busy with another run (multitask_strategy 'reject')"
            ) from None
        return active

    async def create_batch(self, request: Request) -> Response:
        """``POST /runs/batch``: background runs, each body checked before any starts.

        A body without ``thread_id`` is a threadless run; with one, a run on that thread.
        """
        payloads = await self.body(request, array=True)
        runs: list[tuple[dict[str, Any], str | None]] = []
        for index, payload in enumerate(payloads):
            if not isinstance(payload, dict):
                raise ApiError(422, f"run {index} of the batch is not a JSON object")
            thread_id = payload.pop("thread_id", None)
            if thread_id is not None and not isinstance(thread_id, str):
                raise ApiError(422, f"run {index} of the batch: thread_id must be a string")
            runs.append((payload, thread_id))
        for payload, thread_id in runs:
            await self._start_run(dict(payload), thread_id, dry=True)
        started = [await self._start_run(payload, thread_id) for payload, thread_id in runs]
        return JSONResponse([_run_json(active.record) for active in started if active])

    async def _rollback(self, record: Mapping[str, Any]) -> None:
        """Cancel a run, then delete it and the checkpoints it wrote (LangGraph's rollback).

        Its checkpoints are those of its thread written since the run was created: a
        thread runs one run at a time, and no state update is taken while it is busy.
        """
        thread_id = record["thread_id"]
        await self.runner.cancel(record["run_id"], wait=True)
        row = self.store.thread(thread_id)
        graph = None if row is None else self.graph_of(row)
        if graph is not None:
            await asyncio.to_thread(graph.threads.drop_since, thread_id, record["created_at"])
        self.store.delete_run(record["run_id"])

    async def _drop_when_done(self, active: FollowedRun) -> None:
        """Delete a threadless run's thread once the run has ended (``on_completion``)."""
        async for _ in active.follow():
            pass
        thread_id = active.record["thread_id"]
        row = self.store.thread(thread_id)
        graph = None if row is None else self.graph_of(row)
        if graph is not None:
            await asyncio.to_thread(graph.delete_thread, thread_id)
        self.store.delete_thread(thread_id)

    async def create_run(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/runs``: a background run."""
        active, _ = await self._start(request)
        return JSONResponse(_run_json(active.record), headers=_run_headers(active.record))

    async def stream_run(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/runs/stream``: the run's parts over SSE."""
        active, body = await self._start(request)
        headers = _run_headers(active.record)
        if body.get("stream_resumable"):
            # where langgraph-sdk reconnects, with Last-Event-ID, when the stream drops
            headers["Location"] = headers["Content-Location"] + "/stream"
        # as LangGraph's server: a client that leaves takes its run with it, unless it says
        cancel = (body.get("on_disconnect") or "cancel") == "cancel"
        return self._stream(active, 0, None, cancel=cancel, headers=headers)

    def _stream(
        self,
        active: FollowedRun,
        start: int | None,
        modes: set[str] | None,
        *,
        cancel: bool,
        headers: dict[str, str],
    ) -> Response:
        async def parts() -> AsyncIterator[bytes]:
            finished = False
            try:
                async for index, event, data in active.follow(start):
                    if modes is None or event.partition("/")[0] in modes:
                        yield _sse(index, event, data)
                finished = True
            finally:
                if not finished and cancel:
                    # shielded: the response is being cancelled, and a queued run's cancel
                    # has to reach the database
                    with anyio.CancelScope(shield=True):
                        await self.runner.cancel(active.record["run_id"], wait=False)

        return StreamingResponse(parts(), media_type="text/event-stream", headers=headers)

    async def join_stream(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/runs/{run_id}/stream``: a run's parts from now on.

        With a ``Last-Event-ID`` header, the parts after that one instead: a client whose
        stream dropped gets the rest (while the run is active, or among the last ended).
        """
        params, query = request.path_params, request.query_params
        record = self._run_record(params["thread_id"], params["run_id"])
        active: FollowedRun | None = await self.runner.find(record)
        last = request.headers.get("last-event-id")
        if last is not None and not last.isdigit():
            raise ApiError(422, f"Last-Event-ID must be a part's number, got {last!r:.80}")
        if active is None:
            if last is not None:
                raise ApiError(404, f"run {record['run_id']!r} has no stream parts kept any more")
            active = ActiveRun(record, done=True)  # ended long ago: nothing more to send
        start = None if last is None else int(last) + 1
        modes = {m for m in query.getlist("stream_mode") if m} or None  # the sdk sends ""
        if modes is not None:
            modes |= {"metadata", "error"}
            if "messages-tuple" in modes:  # its parts' event is "messages"
                modes.add("messages")
        cancel = query.get("cancel_on_disconnect") in ("true", "1")
        return self._stream(active, start, modes, cancel=cancel, headers={})

    async def wait_run(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/runs/wait``: the thread's values when the run ends."""
        active, _ = await self._start(request)
        return JSONResponse(await self._result(active), headers=_run_headers(active.record))

    async def join_run(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/runs/{run_id}/join``."""
        thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
        record = self._run_record(thread_id, run_id)
        active = await self.runner.going(record)  # only a run still going: its parts say how
        if active is not None:
            return JSONResponse(await self._result(active))
        graph = self.graph_of(self.thread_row(thread_id))
        snapshot = await _snapshot(graph, record["thread_id"])
        return JSONResponse(final_values(snapshot))

    async def _result(self, active: FollowedRun) -> Any:
        error = None
        async for _, event, data in active.follow():
            if event == "error":
                error = data
        if error is not None:
            return {"__error__": error}
        return active.result

    def _run_record(self, thread_id: str, run_id: str) -> dict[str, Any]:
        self.thread_row(thread_id)  # 404 for another user's thread
        record = self.store.run(thread_id, run_id)
        if record is None:
            raise ApiError(404, f"no run {run_id!r} on thread {thread_id!r}")
        return record

    async def get_run(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/runs/{run_id}``."""
        params = request.path_params
        return JSONResponse(_run_json(self._run_record(params["thread_id"], params["run_id"])))

    async def list_runs(self, request: Request) -> Response:
        """``GET /threads/{thread_id}/runs``: newest first."""
        thread_id = request.path_params["thread_id"]
        self.thread_row(thread_id)
        limit, offset = _page(dict(request.query_params))
        status = request.query_params.get("status")
        rows = self.store.runs(thread_id, limit=limit, offset=offset, status=status)
        return JSONResponse([_run_json(row) for row in rows])

    async def cancel_run(self, request: Request) -> Response:
        """``POST /threads/{thread_id}/runs/{run_id}/cancel[?wait=1]``."""
        params, query = request.path_params, request.query_params
        record = self._run_record(params["thread_id"], params["run_id"])
        action = query.get("action", "interrupt")
        if action not in ("interrupt", "rollback"):
            raise ApiError(422, f"action must be 'interrupt' or 'rollback', got {action!r:.80}")
        if action == "rollback" and record["status"] in ACTIVE:
            await self._rollback(record)
            return Response(status_code=204)
        cancelled = await self.runner.cancel(
            record["run_id"], wait=query.get("wait") in ("1", "true")
        )
        if not cancelled:
            raise ApiError(
                409, f"run {record['run_id']!r} is not running: it is {record['status']}"
            )
        return Response(status_code=204)

    async def not_served(self, request: Request) -> Response:
        """Any route the API has that graphnb does not serve yet: 501 naming it."""
        raise _unserved(f"{request.method} {request.url.path}")

    async def ok(self, request: Request) -> Response:
        """``GET /ok``: the server is up."""
        return JSONResponse({"ok": True})

    async def info(self, request: Request) -> Response:
        """``GET /info``: what serves this API."""
        from ..version import __version__

        return JSONResponse({"version": __version__, "server": "graphnb", "flags": {}})


def _json_schema(kind: Any) -> dict[str, Any]:
    """The JSON schema of a type; a plain object's for one with no JSON form."""
    from pydantic import PydanticUserError, TypeAdapter
    from pydantic.errors import PydanticInvalidForJsonSchema

    try:
        return TypeAdapter(kind).json_schema()
    except (PydanticInvalidForJsonSchema, PydanticUserError, TypeError):
        return {"type": "object", "title": getattr(kind, "__name__", "State")}


def _restricted(schema: dict[str, Any], fields: frozenset[str] | None) -> dict[str, Any]:
    """``schema`` with only the ``fields`` properties (all when ``None``)."""
    if fields is None or "properties" not in schema:
        return schema
    kept = {key: value for key, value in schema["properties"].items() if key in fields}
    required = [key for key in schema.get("required", []) if key in fields]
    return schema | {"properties": kept, "required": required}


def _check_thread_id(thread_id: Any) -> None:
    # '|' joins a subgraph's thread to its parent's in graphnb's savers: not a user's id
    if not isinstance(thread_id, str) or "|" in thread_id:
        raise ApiError(422, f"thread_id must be a string without '|', got {thread_id!r:.80}")


def _page(body: Mapping[str, Any]) -> tuple[int, int]:
    values = []
    for key, default in (("limit", 10), ("offset", 0)):
        value = body.get(key, default)
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if type(value) is not int or value < 0:
            raise ApiError(422, f"{key} must be a whole number, got {value!r:.80}")
        values.append(value)
    return values[0], values[1]


def _matches(metadata: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    wanted = body.get("metadata") or {}
    if not isinstance(wanted, dict):
        raise ApiError(422, f"metadata must be a JSON object, got {wanted!r:.80}")
    return all(metadata.get(key) == value for key, value in wanted.items())


def _only(body: Mapping[str, Any], allowed: frozenset[str] | set[str], what: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(422, f"unknown field(s) {unknown} in the {what}'s body")


def _object(value: Any, name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ApiError(422, f"{name} must be a JSON object, got {value!r:.80}")
    return dict(value)


def _modes(value: Any) -> list[str]:
    modes = [value] if isinstance(value, str) else value
    if not isinstance(modes, list) or not modes or not all(isinstance(m, str) for m in modes):
        raise ApiError(422, f"stream_mode must be a mode or a list of modes, got {value!r:.80}")
    unknown = [m for m in modes if m not in _MODES]
    if unknown:
        raise ApiError(
            422, f"stream_mode {unknown} is no stream mode (they are: {', '.join(_MODES)})"
        )
    return list(dict.fromkeys(modes))


def _command(command: dict[str, Any], graph: CompiledGraph[Any]) -> Command[Any]:
    """A run's ``command`` as a :class:`Command`, checked against ``graph``.

    ``resume``, ``update`` (an object or ``[key, value]`` pairs) and ``goto`` (a node, or
    a list of them).
    """
    _only(command, {"resume", "update", "goto"}, "command")
    update = command.get("update")
    if isinstance(update, list):
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in update):
            raise ApiError(
                422, f"a command's update pairs must be [key, value], got {update!r:.80}"
            )
        update = dict(update)
    update = None if update is None else _object(update, "a command's update")
    goto = command.get("goto")
    targets = [] if goto is None else goto if isinstance(goto, list) else [goto]
    for target in targets:  # a Send: {"node": ..., "input": {...}}, as langgraph-sdk sends it
        if isinstance(target, dict) and (
            set(target) - {"node", "input"} or not isinstance(target.get("input", {}), dict)
        ):
            raise ApiError(422, f"a command's Send is {{node, input}}, got {target!r:.80}")
    names = [t.get("node") if isinstance(t, dict) else t for t in targets]
    unknown = [t for t in names if not isinstance(t, str) or (t != END and t not in graph.nodes)]
    if unknown:
        raise ApiError(422, f"a command's goto names {unknown!r:.80}, not a node of {graph.name!r}")
    return Command(resume=command.get("resume"), update=update, goto=targets)


def _checkpoint_id(body: Mapping[str, Any]) -> str | None:
    checkpoint = body.get("checkpoint")
    if isinstance(checkpoint, dict):
        if checkpoint.get("checkpoint_ns"):
            raise _unserved("a subgraph's checkpoint ('checkpoint_ns')")
        value = checkpoint.get("checkpoint_id")
    else:
        value = body.get("checkpoint_id")
    if value is not None and not isinstance(value, str):
        raise ApiError(422, f"checkpoint_id must be a string, got {value!r:.80}")
    return value


async def _snapshot(
    graph: CompiledGraph[Any] | None, thread_id: str, checkpoint_id: str | None = None
) -> StateSnapshot[Any] | None:
    if graph is None:
        return None
    try:
        return await graph.aget_state(thread_id, checkpoint_id)
    except ThreadNotFoundError:
        return None


def _checkpoint(thread_id: str, checkpoint_id: str | None) -> dict[str, Any] | None:
    if checkpoint_id is None:
        return None
    return {
        "thread_id": thread_id,
        "checkpoint_ns": "",
        "checkpoint_id": checkpoint_id,
        "checkpoint_map": {},
    }


def _interrupt_list(snapshot: StateSnapshot[Any]) -> list[dict[str, Any]]:
    return [{"value": jsonable(i.value), "id": i.id} for i in snapshot.interrupts]


def _interrupts_by_task(snapshot: StateSnapshot[Any]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for i in snapshot.interrupts:
        grouped.setdefault(i.node, []).append({"value": jsonable(i.value), "id": i.id})
    return grouped


def _state_json(snapshot: StateSnapshot[Any]) -> dict[str, Any]:
    tasks = [
        {
            "id": name,
            "name": name,
            "path": [name],
            "error": None,
            "interrupts": [
                {"value": jsonable(i.value), "id": i.id}
                for i in snapshot.interrupts
                if i.node == name
            ],
            "checkpoint": None,
            "state": None,
            "result": None,
        }
        for name in snapshot.next
    ]
    metadata = jsonable(snapshot.metadata) | {"step": snapshot.step, "source": snapshot.source}
    return {
        "values": jsonable(snapshot.values),
        "next": list(snapshot.next),
        "checkpoint": _checkpoint(snapshot.thread_id, snapshot.checkpoint_id),
        "metadata": metadata,
        "created_at": _iso(snapshot.created_at),
        "parent_checkpoint": _checkpoint(snapshot.thread_id, snapshot.parent_id),
        "tasks": tasks,
        "interrupts": _interrupt_list(snapshot),
    }


def _empty_state(thread_id: str) -> dict[str, Any]:
    return {
        "values": {},
        "next": [],
        "checkpoint": None,
        "metadata": {},
        "created_at": None,
        "parent_checkpoint": None,
        "tasks": [],
        "interrupts": [],
    }


def _run_json(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "run_id": record["run_id"],
        "thread_id": record["thread_id"],
        "assistant_id": record["assistant_id"],
        "created_at": _iso(record["created_at"]),
        "updated_at": _iso(record["updated_at"]),
        "status": record["status"],
        "metadata": record["metadata"],
        "kwargs": {},
        "multitask_strategy": record["multitask_strategy"],
    }


def _run_headers(record: Mapping[str, Any]) -> dict[str, str]:
    # langgraph-sdk reads the run's id from Content-Location (its on_run_created callback)
    return {"Content-Location": f"/threads/{record['thread_id']}/runs/{record['run_id']}"}


def _sse(index: int, event: str, data: Any) -> bytes:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, default=repr)
    return f"event: {event}\ndata: {text}\nid: {index}\n\n".encode()


class AppOptions(TypedDict, total=False):
    """The keyword arguments of :func:`create_app`, for the functions that pass them on."""

    store: str
    auth_token: str | None
    auth: Auth | None
    body_limit: int
    broker: str | None
    jobs: int
    stalled_after: float


def create_app(
    graphs: Mapping[str, CompiledGraph[Any]] | Sequence[CompiledGraph[Any]],
    *,
    store: str = ":memory:",
    auth_token: str | None = None,
    auth: Auth | None = None,
    body_limit: int = DEFAULT_BODY_LIMIT,
    broker: str | None = None,
    jobs: int = 10,
    stalled_after: float = STALLED_AFTER,
) -> Starlette:
    """The ASGI application serving ``graphs``, one assistant each.

    Args:
        graphs: compiled graphs with a checkpointer (their threads live there), by
            assistant name, or a list named by each graph's name.
        store: where threads' metadata and runs live: a ``postgresql://`` URL,
            ``sqlite:///FILE``, a SQLite file's path, or ``":memory:"``.
        auth_token: when given, every request must send it (``x-api-key`` header, as
            ``langgraph-sdk`` does with ``api_key=``, or ``Authorization: Bearer``);
            the one token is one user: threads record no owner.
        auth: instead of a token, the user's own check (:data:`Auth`): the request's
            headers in, the user's identity out, or an exception to refuse it (401;
            :class:`PermissionError` 403). Each thread records its maker as ``owner``
            in its metadata, and a user sees and touches only their threads (another's
            answers 404).
        body_limit: largest request body accepted, in bytes.
        broker: a ``redis://`` URL: the runs go through the task queue in the
            ``postgresql://`` ``store`` and their parts through Redis, so other API
            processes and workers (:func:`~graphnb.serve.queue.work`) share them. Without
            it the runs are this process's asyncio tasks.
        jobs: with ``broker``, how many runs this process also executes at once as a
            worker (0: none, an API process only).
        stalled_after: with ``broker``, seconds without a worker's heartbeat after which
            its runs go to another worker.

    Raises:
        ThreadRequiredError: a graph has no checkpointer.
        ValueError: no graph, or two with one name; a ``broker`` without a
            ``postgresql://`` store; both ``auth_token`` and ``auth``.
    """
    if not isinstance(graphs, Mapping):
        named = {graph.name: graph for graph in graphs}
        if len(named) != len(graphs):
            raise ValueError("two served graphs have one name: pass them as {name: graph}")
        graphs = named
    if auth is not None and auth_token is not None:
        raise ValueError("give an auth token or an auth hook, not both")
    opened = open_store(store)
    runs: Runs | None = None
    if broker is not None:
        if not isinstance(opened, PostgresStore):
            opened.close()
            raise ValueError(
                f"a broker needs the threads in PostgreSQL (store='postgresql://...'), "
                f"got {store!r}"
            )
        runs = QueuedRuns(opened, db=store, broker=broker)
    api = Api(graphs, opened, auth_token=auth_token, body_limit=body_limit, runs=runs, auth=auth)
    g = api.guarded
    routes = [
        Route("/ok", g(api.ok), methods=["GET"]),
        Route("/info", g(api.info), methods=["GET"]),
        Route("/assistants/search", g(api.search_assistants), methods=["POST"]),
        Route("/assistants/{assistant_id}", g(api.get_assistant), methods=["GET"]),
        Route("/assistants/{assistant_id}/graph", g(api.get_assistant_graph), methods=["GET"]),
        Route("/assistants/{assistant_id}/schemas", g(api.get_assistant_schemas), methods=["GET"]),
        Route("/threads", g(api.create_thread), methods=["POST"]),
        Route("/threads/search", g(api.search_threads), methods=["POST"]),
        Route("/threads/count", g(api.count_threads), methods=["POST"]),
        Route("/threads/prune", g(api.prune_threads), methods=["POST"]),
        Route("/threads/{thread_id}/copy", g(api.copy_thread), methods=["POST"]),
        Route("/threads/{thread_id}", g(api.get_thread), methods=["GET"]),
        Route("/threads/{thread_id}", g(api.delete_thread), methods=["DELETE"]),
        Route("/threads/{thread_id}", g(api.patch_thread), methods=["PATCH"]),
        Route("/threads/{thread_id}/state", g(api.get_state), methods=["GET"]),
        Route("/threads/{thread_id}/state", g(api.update_state), methods=["POST"]),
        Route("/threads/{thread_id}/state/{checkpoint_id}", g(api.get_state), methods=["GET"]),
        Route("/threads/{thread_id}/history", g(api.history), methods=["POST"]),
        Route("/runs", g(api.create_run), methods=["POST"]),
        Route("/runs/stream", g(api.stream_run), methods=["POST"]),
        Route("/runs/wait", g(api.wait_run), methods=["POST"]),
        Route("/runs/batch", g(api.create_batch), methods=["POST"]),
        Route("/threads/{thread_id}/runs", g(api.create_run), methods=["POST"]),
        Route("/threads/{thread_id}/runs", g(api.list_runs), methods=["GET"]),
        Route("/threads/{thread_id}/runs/stream", g(api.stream_run), methods=["POST"]),
        Route("/threads/{thread_id}/runs/wait", g(api.wait_run), methods=["POST"]),
        Route("/threads/{thread_id}/runs/{run_id}", g(api.get_run), methods=["GET"]),
        Route("/threads/{thread_id}/runs/{run_id}/join", g(api.join_run), methods=["GET"]),
        Route("/threads/{thread_id}/runs/{run_id}/stream", g(api.join_stream), methods=["GET"]),
        Route("/threads/{thread_id}/runs/{run_id}/cancel", g(api.cancel_run), methods=["POST"]),
        # every other path and method: 501 naming it, not Starlette's plain-text 404
        Route("/{path:path}", g(api.not_served), methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await api.runner.open()
        worker = None
        if broker is not None and jobs > 0:
            working = work(
                graphs,
                db=store,
                broker=broker,
                jobs=jobs,
                stalled_after=stalled_after,
                install_signal_handlers=False,
            )
            worker = asyncio.create_task(working)
        try:
            yield
        finally:
            if worker is not None:
                worker.cancel()
                await asyncio.gather(worker, return_exceptions=True)
            await api.runner.shutdown()
            api.store.close()

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return JSONResponse({"detail": error.detail}, status_code=error.status_code)

    app = Starlette(
        routes=routes, lifespan=lifespan, exception_handlers={HTTPException: http_error}
    )
    app.state.api = api
    return app
