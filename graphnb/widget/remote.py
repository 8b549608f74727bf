"""A served graph's threads as the debugger's source (``Builder.connect``).

The debugger's panels read a thread source: the builder's compiled graph on its own saver
(local), or :class:`RemoteSource`, which asks a ``graphnb serve`` (or any server speaking
LangGraph's Agent Server API) through ``langgraph-sdk``'s sync client. Both answer the
same few calls (``threads_info``, ``get_state_history``, ``get_state``, ``update_state``)
with the engine's records, so the debugger has one code path; a remote source also
answers interrupts itself (:meth:`RemoteSource.resume`: ``runs.wait`` with
``command={"resume": ...}``), as its runs happen on the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, cast

from ..engine.threadlist import ThreadInfo
from ..records import Interrupt, StateSnapshot
from ..spec import EdgeSpec, GraphSpec, NodeSpec

__all__ = ["RemoteError", "RemoteSource"]

_STATUS = {"idle": "finished", "interrupted": "interrupted", "error": "failed", "busy": "pending"}


class RemoteError(RuntimeError):
    """The server did not answer as a graph server would (down, refused, unknown name)."""


def _time(text: Any) -> float:
    if not text:
        return 0.0
    if isinstance(text, datetime):
        return text.timestamp()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


class RemoteSource:
    """One assistant of a server, read and written through ``langgraph-sdk``.

    Args:
        url: the server's base URL.
        assistant: the assistant (graph) id.
        api_key: sent as ``x-api-key`` (``None``: no key).
        spec: the graph's drawing; read from ``GET /assistants/{id}/graph`` when omitted.

    Raises:
        RemoteError: nothing answers at ``url``, it refuses the key, or it serves no
            ``assistant``; the message names the URL and what was expected.
    """

    def __init__(
        self,
        url: str,
        assistant: str = "graph",
        *,
        api_key: str | None = None,
        spec: GraphSpec | None = None,
    ) -> None:
        from langgraph_sdk import get_sync_client

        self.url = url.rstrip("/")
        self.assistant = assistant
        self._client = get_sync_client(url=self.url, api_key=api_key)
        try:
            self._open(assistant, spec)
        except BaseException:
            self.close()
            raise

    def _open(self, assistant: str, spec: GraphSpec | None) -> None:
        with self._asking(f"assistant {assistant!r}"):
            found = self._client.assistants.get(assistant)
        self.graph_id: str = found.get("graph_id", assistant)
        if spec is None:
            with self._asking(f"the graph of assistant {assistant!r}"):
                drawn = self._client.assistants.get_graph(assistant)
            spec = _spec_of(drawn, self.graph_id)
        self.spec = spec
        self.name = spec.name
        self.nodes = {node.id: node for node in spec.nodes}

    def close(self) -> None:
        """Close the client's connections."""
        self._client.http.client.close()

    @contextmanager
    def _asking(self, what: str) -> Iterator[None]:
        import httpx

        try:
            yield
        except httpx.HTTPStatusError as error:
            code = error.response.status_code
            if code in (401, 403):
                raise RemoteError(
                    f"{self.url} refused the request for {what} ({code}): it expects an API "
                    "key it accepts (Builder.connect(..., api_key=...))"
                ) from None
            if code == 404:
                raise RemoteError(f"{self.url} knows no {what} ({code}); {self._known()}") from None
            raise RemoteError(
                f"{self.url} answered {code} for {what}: {error.response.text[:200]}"
            ) from None
        except httpx.TransportError as error:
            raise RemoteError(
                f"no graph server answers at {self.url} ({type(error).__name__}: {error}); "
                "expected a running `graphnb serve` (LangGraph's Agent Server API)"
            ) from None

    def _known(self) -> str:
        try:
            names = sorted({a["graph_id"] for a in self._client.assistants.search(limit=100)})
        except Exception:
            return "it lists no assistants"
        return f"it serves: {', '.join(map(repr, names)) or 'none'}"

    # -- what the debugger reads -----------------------------------------------------

    def _snapshot(self, state: dict[str, Any], parent: dict[str, Any] | None) -> StateSnapshot[Any]:
        checkpoint = state.get("checkpoint") or {}
        parent_checkpoint = state.get("parent_checkpoint") or {}
        metadata = dict(state.get("metadata") or {})
        interrupts = tuple(
            Interrupt(node=task["name"], when="during", value=i.get("value"), id=i.get("id", ""))
            for task in state.get("tasks") or []
            for i in task.get("interrupts") or []
        )
        # The API says what a step runs next, not what it ran: the parent's next did.
        ran = tuple(parent.get("next") or ()) if parent is not None else ()
        values = state.get("values")
        return StateSnapshot(
            values=values if isinstance(values, dict) else {"value": values},
            next=tuple(state.get("next") or ()),
            thread_id=checkpoint.get("thread_id", ""),
            checkpoint_id=checkpoint.get("checkpoint_id", ""),
            parent_id=parent_checkpoint.get("checkpoint_id"),
            step=int(metadata.get("step", -1)),
            source=metadata.get("source", "loop"),
            ran=ran,
            interrupts=interrupts,
            metadata=metadata,
            created_at=_time(state.get("created_at")),
        )

    def _state(self, thread_id: str, checkpoint_id: str | None) -> dict[str, Any]:
        with self._asking(f"thread {thread_id!r}"):
            return dict(self._client.threads.get_state(thread_id, checkpoint_id=checkpoint_id))

    def get_state(self, thread_id: str, checkpoint_id: str | None = None) -> StateSnapshot[Any]:
        """The thread's state at ``checkpoint_id`` (its latest when omitted)."""
        state = self._state(thread_id, checkpoint_id)
        parent_id = (state.get("parent_checkpoint") or {}).get("checkpoint_id")
        parent = self._state(thread_id, parent_id) if parent_id else None
        return self._snapshot(state, parent)

    def get_state_history(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[StateSnapshot[Any]]:
        """The thread's checkpoints, newest first."""
        with self._asking(f"the history of thread {thread_id!r}"):
            found = self._client.threads.get_history(
                thread_id,
                limit=(limit or 1000) + 1,
                before=before,
            )
        states = [cast("dict[str, Any]", s) for s in found]
        by_id = {(s.get("checkpoint") or {}).get("checkpoint_id"): s for s in states}
        page = states[:limit] if limit is not None else states
        snapshots = []
        for state in page:
            parent_id = (state.get("parent_checkpoint") or {}).get("checkpoint_id")
            parent = by_id.get(parent_id) if parent_id else None
            if parent is None and parent_id:
                parent = self._state(thread_id, parent_id)
            snapshots.append(self._snapshot(state, parent))
        return snapshots

    def threads_info(
        self, *, search: str | None = None, limit: int = 50, after: str | None = None
    ) -> list[ThreadInfo]:
        """A page of the server's threads of this graph, newest first.

        ``after`` is the last thread id of the page before; ``search`` keeps the ids
        containing it.
        """
        infos: list[ThreadInfo] = []
        offset, passed = 0, after is None
        while len(infos) < limit:
            with self._asking("its threads"):
                threads = self._client.threads.search(
                    limit=100, offset=offset, sort_by="updated_at", sort_order="desc"
                )
            if not threads:
                break
            offset += len(threads)
            for thread in threads:
                thread_id = thread["thread_id"]
                if not passed:
                    passed = thread_id == after
                    continue
                if search and search not in thread_id:
                    continue
                state = self._state(thread_id, None)
                checkpoint = state.get("checkpoint") or {}
                if not checkpoint:
                    continue  # a thread with no run yet has nothing to debug
                infos.append(
                    ThreadInfo(
                        thread_id=thread_id,
                        checkpoint_id=checkpoint["checkpoint_id"],
                        step=int((state.get("metadata") or {}).get("step", -1)),
                        status=_STATUS.get(thread.get("status", ""), "finished"),  # type: ignore[arg-type]
                        updated_at=_time(cast("Any", thread).get("updated_at")),
                    )
                )
                if len(infos) == limit:
                    break
        return infos

    def update_state(
        self,
        thread_id: str,
        values: dict[str, Any],
        *,
        as_node: str | None = None,
        checkpoint_id: str | None = None,
    ) -> str:
        """A fork: ``values`` written at ``checkpoint_id``; the new checkpoint's id."""
        with self._asking(f"an update of thread {thread_id!r}"):
            written = self._client.threads.update_state(
                thread_id, values, as_node=as_node, checkpoint_id=checkpoint_id
            )
        return str(written["checkpoint"]["checkpoint_id"])

    def resume(self, thread_id: str, answer: Any) -> Any:
        """Answer the thread's pending interrupt on the server (``runs.wait``)."""
        with self._asking(f"a run resuming thread {thread_id!r}"):
            return self._client.runs.wait(thread_id, self.assistant, command={"resume": answer})


def _spec_of(drawn: dict[str, Any], name: str) -> GraphSpec:
    """A drawing of ``GET /assistants/{id}/graph`` (nodes and edges, no code)."""
    ends = {"__start__", "__end__"}
    nodes = [NodeSpec(id=n["id"]) for n in drawn.get("nodes", []) if n["id"] not in ends]
    edges = [
        EdgeSpec(
            source=e["source"],
            target=e["target"],
            kind="conditional" if e.get("conditional") else "direct",
            route=e.get("data") if isinstance(e.get("data"), str) else None,
        )
        for e in drawn.get("edges", [])
    ]
    return GraphSpec(name=name, nodes=nodes, edges=edges)
