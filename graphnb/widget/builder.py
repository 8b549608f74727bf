"""The visual builder: a canvas in the notebook whose drawing *is* the graph.

Example:
    >>> from graphnb.widget import Builder
    >>> builder = Builder(name="hello")
    >>> builder.spec.name, builder.spec.nodes
    ('hello', [])
"""

from __future__ import annotations

import asyncio
import logging
import operator
import shlex
import types
import uuid
from collections import ChainMap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError

from ..binding import binding_of, resolve
from ..engine.compiled import CompiledGraph
from ..engine.policy import is_unnamed
from ..errors import BindingError
from ..export.module import replace_text
from ..graph import StateGraph
from ..spec import START, GraphSpec, StateSpec
from . import namespace as ns
from ._deps import anywidget, traitlets
from .background import Background
from .bundle import COMMAND, LOADER, bundle_reply
from .composition import (
    attach_children,
    bind_children,
    find_graphs,
    lay_out_children,
    subgraph_problems,
)
from .debugger import Debugger, breakpoints_after_edit
from .direction import DIRECTION_KEY, Direction, direction_of, settle_terminals
from .exporting import ExportExistsError, binding_modules, check_target, imported_modules
from .layout import apply_layout, layout, place
from .livecheck import LiveCheck
from .offload import guard_router, off_loop
from .picture import picture
from .protocol import (
    REQUEST_COMMAND,
    Done,
    ExportReply,
    ExportRequest,
    InspectReply,
    InspectRequest,
    LayoutRequest,
    ProblemInfo,
    RefreshRequest,
    Refused,
    RunError,
    RunRequest,
    RunState,
    ServerMessage,
    StopRequest,
    UseModelRequest,
    UseSaverRequest,
    explain,
    read_request,
)
from .redact import MASK, mask_url, scrub, secrets_in
from .run_picture import idle_run
from .runner import RunController

if TYPE_CHECKING:
    from ..checkpoint import BaseSaver
    from ..engine.feed import Watch
    from ..schema import StateSchema
    from .watching import LiveView

__all__ = ["Builder", "serve_command"]

log = logging.getLogger("graphnb.widget")
_BINDING = operator.attrgetter("binding")
_SUBGRAPH = operator.attrgetter("subgraph")
_RETRY = operator.attrgetter("retry")

STATIC = Path(__file__).resolve().parent.parent / "static"
"""Where the built front end lives (``widget.js``, ``widget.css``)."""

CODE_KEY = "graphnb.widget.code"
"""Node metadata naming the callable (and router) a node was given in code.

A graph opened from code may hold callables no binding can name (lambdas, closures). The
builder keeps them under a key stamped into the node's metadata, which the front end
carries along when the node is renamed (renaming only changes the id), so the callable
follows its node.
"""

FRONT_END_TRAITS = frozenset({"spec"})
"""The traits the front end may change (by editing the drawing); the others are Python's."""

GraphSource = (
    GraphSpec | StateGraph[Any] | CompiledGraph[Any] | types.ModuleType | Mapping[str, Any]
)


def _spec_to_json(spec: GraphSpec, widget: Any) -> dict[str, Any]:
    return spec.to_dict()


def _read_drawing(path: Path) -> GraphSpec:
    """The spec saved at ``path``, or an error naming the file (which is left as it is)."""
    try:
        return GraphSpec.from_json(path.read_bytes())
    except IsADirectoryError:
        raise ValueError(
            f"{str(path)!r} is a folder; a builder saves its drawing to a file "
            "(such as flow.graph.json)"
        ) from None
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, problem['loc'])) or 'the file'}: {problem['msg']}"
            for problem in error.errors(include_url=False)[:3]
        )
        raise ValueError(
            f"{str(path)!r} is not a saved graph drawing (a GraphSpec's JSON): {problems}. "
            "The file is left as it is; give the builder another path."
        ) from None


def _spec_from_json(data: Any, widget: Any) -> GraphSpec:
    return GraphSpec.model_validate(data)


class Builder(anywidget.AnyWidget):
    """Draw, bind, run and export a graph in a notebook.

    Args:
        source: what to open: a :class:`~graphnb.StateGraph`, a compiled graph, a
            :class:`~graphnb.GraphSpec` (or its dict), or a module holding a graph. An empty
            canvas when omitted.
        name: the graph's name (the exported module is called after it).
        namespace: where bare bindings (names defined in the notebook) are looked up;
            IPython's ``user_ns`` when omitted, else ``__main__``.
        path: a JSON file the drawing is saved to on every change (and loaded from, when
            it exists and no source is given), so it outlives kernel restarts.
        checkpointer: a saver (or its URL, such as ``"sqlite:///threads.db"``) that runs
            save their threads to; the run panel then takes a thread id.
        height: the canvas height in pixels.
    """

    _esm = LOADER  # the bundle itself is sent on request, never kept in the state

    spec = traitlets.Instance(
        GraphSpec,
        args=(),
        help="The graph as drawn: a GraphSpec, synced as its JSON. Assign a new one to change it.",
    ).tag(sync=True, to_json=_spec_to_json, from_json=_spec_from_json)
    problems = traitlets.List(traitlets.Dict(), help="Live validation problems.").tag(sync=True)
    callables = traitlets.List(
        traitlets.Dict(), help="Callables defined in the notebook, for the binding panel."
    ).tag(sync=True)
    models = traitlets.List(
        traitlets.Dict(), help="State models in the notebook, for the state-model panel."
    ).tag(sync=True)
    graphs = traitlets.List(
        traitlets.Dict(), help="Graphs in the notebook a node can run as its subgraph."
    ).tag(sync=True)
    run_state = traitlets.Dict(help="The current run, as the run panel shows it.").tag(sync=True)
    saves_threads = traitlets.Bool(
        False, help="Whether runs belong to threads (a checkpointer is set)."
    ).tag(sync=True)
    saver = traitlets.Unicode(
        "",
        help="The checkpointer runs save to: its URL with the password masked, or its repr "
        "when given as an object. The password itself never leaves the kernel.",
    ).tag(sync=True)
    notice = traitlets.Unicode("", help="The outcome of the last action that failed.").tag(
        sync=True
    )
    export_status = traitlets.Unicode("", help="Where the last export was written.").tag(sync=True)
    height = traitlets.Int(560, help="Canvas height in pixels.").tag(sync=True)
    breakpoints = traitlets.Dict(
        help="Nodes runs pause at: node -> ['before'] / ['after'] / both (see debugger.py)."
    ).tag(sync=True)
    paused = traitlets.Dict(
        help="The thread a run left paused (breakpoints, interrupt()): PauseInfo, or {}."
    ).tag(sync=True)

    def __init__(
        self,
        source: GraphSource | None = None,
        *,
        name: str | None = None,
        namespace: Mapping[str, Any] | None = None,
        path: str | Path | None = None,
        checkpointer: BaseSaver | str | None = None,
        height: int = 560,
    ) -> None:
        self._namespace = namespace
        self._checkpointer: BaseSaver | None = None
        self._path = Path(path) if path is not None else None
        self._known: dict[str, Callable[..., Any]] = {}
        self._known_routers: dict[str, Callable[..., Any]] = {}
        # retry_on predicates given in code that no binding names (lambdas, closures)
        self._known_retry: dict[str, Callable[..., Any]] = {}
        self._given: dict[str, Any] = {}
        self._children: dict[str, Any] = {}  # subgraph nodes' child graphs given in code
        self._state_type: type[Any] | None = None
        self._run_options: dict[str, Any] = {}  # compile options of the graph opened
        self._opened_schema: StateSchema[Any] | None = None
        self._notice_source = ""  # which action the notice is about
        self._secrets: set[str] = set()  # saver passwords, scrubbed from all shown text
        self._pinned: list[dict[str, Any]] = []  # an exercise's missed points, see pin_problems
        self._layouts = Background("layout")  # the Layout button's work, off the kernel's loop
        self._check = LiveCheck(require_bindings=True)  # checks again only what an edit touched
        self._lookups: dict[str, str | None] = {}  # binding -> why it does not resolve, or None
        if source is None and self._path is not None and self._path.exists():
            source = _read_drawing(self._path)
        spec = self._open(source)
        if name is not None:
            spec.name = name
        if spec.nodes and all(node.position is None for node in spec.nodes):
            spec = place(spec, layout(spec))  # _open's spec is a copy of the builder's own
        spec = lay_out_children(spec)
        super().__init__(spec=spec, height=height)
        self._runner = RunController(self._publish_run, self._send_message)
        self._watching: LiveView | None = None  # Builder.watch
        self._debugger = Debugger(self, self._publish_run, lambda: self._runner.running)
        # One dispatcher: the handler of every request type (protocol.Replies lists them).
        self._handlers: dict[str, Callable[[Any], Any]] = {
            "run": self._run_request,
            "stop": self._stop_request,
            "layout": self._layout_request,
            "export": self._export_request,
            "inspect": self._inspect,
            "refresh": self._refresh_request,
            "use_model": self._use_model_request,
            "use_saver": self._use_saver_request,
            **self._debugger.handlers,
        }
        self.on_msg(self._on_message)
        self.refresh()
        self.run_state = cast("dict[str, Any]", idle_run([node.id for node in spec.nodes]))
        if checkpointer is not None:
            self.use_saver(checkpointer)
        if self._path is not None and not self._path.exists():
            self.save()
        self._hook = self._watch_cells()

    # -- opening and saving ------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, **options: Any) -> Builder:
        """Open the drawing saved at ``path`` (and keep saving to it).

        Raises:
            FileNotFoundError: nothing is saved at ``path`` (``Builder(path=...)`` starts
                a new drawing there).
            ValueError: the file is not a saved drawing; it is left as it is.
        """
        if not Path(path).exists():
            raise FileNotFoundError(
                f"no drawing is saved at {str(path)!r}; Builder(path={str(path)!r}) starts "
                "a new one there"
            )
        return cls(path=path, **options)

    @classmethod
    def connect(
        cls,
        url: str,
        source: GraphSource | None = None,
        *,
        assistant: str = "graph",
        api_key: str | None = None,
        **options: Any,
    ) -> Builder:
        """Open a served graph (``graphnb serve``) with the server's threads in the debugger.

        The Threads tab lists the server's threads of ``assistant``; their history, a
        checkpoint's state (time travel), a fork (``update_state`` at a past checkpoint)
        and the answer to a pending ``interrupt()`` (a run on the server, with
        ``command={"resume": ...}``) all go through ``langgraph-sdk``. The drawing is
        ``source`` when given (the same graph, loaded here), else the server's
        ``GET /assistants/{assistant}/graph`` (nodes and edges, no code).

        Raises:
            RemoteError: nothing answers at ``url``, it refuses ``api_key``, or it serves
                no ``assistant``.
        """
        from .remote import RemoteSource

        remote = RemoteSource(url, assistant, api_key=api_key)
        builder = cls(source if source is not None else remote.spec, **options)
        if source is not None:
            remote.spec = builder.spec
        builder._debugger.source = remote
        builder.saves_threads = True
        builder.saver = remote.url
        return builder

    def save(self, path: str | Path | None = None) -> Path:
        """Write the spec as JSON to ``path`` (default: the builder's own path).

        Raises:
            ValueError: no path given and the builder has none.
        """
        target = Path(path) if path is not None else self._path
        if target is None:
            raise ValueError("Builder.save() needs a path: the builder was opened without one")
        replace_text(target, self.spec.to_json())  # a kernel dying mid-write keeps the last
        return target

    def _open(self, source: GraphSource | None) -> GraphSpec:
        if source is None:
            return GraphSpec()
        if isinstance(source, GraphSpec):
            return source.model_copy(deep=True)
        if isinstance(source, StateGraph):
            self._known = {k: v for k, v in source.callables.items() if v is not None}
            self._known_routers = source.routers
            self._known_retry = _unnamed_predicates(
                {name: retry for name, (retry, _, _) in source.policies.items()}
            )
            self._state_type = source.schema.state_type
            self._opened_schema = source.schema
            self._children = source.subgraphs
            # A graph imported from LangGraph runs with LangGraph's recursion limit; its
            # breakpoints and saver are the builder's own business.
            defaults = getattr(source, "compile_defaults", {})
            self._run_options = {k: v for k, v in defaults.items() if k == "recursion_limit"}
            return self._stamp(source.spec)
        if isinstance(source, CompiledGraph):
            self._known = {name: node.fn for name, node in source.nodes.items()}
            self._known_routers = {name: router.fn for name, router in source.routers.items()}
            self._known_retry = _unnamed_predicates(
                {
                    name: getattr(node.fn, "graphnb_retry", None)
                    for name, node in source.nodes.items()
                }
            )
            self._state_type = source.schema.state_type
            self._opened_schema = source.schema
            return self._stamp(source.spec.model_copy(deep=True))
        if isinstance(source, types.ModuleType):
            return self._open(_graph_in(source))
        if isinstance(source, Mapping):
            return GraphSpec.model_validate(source)
        from ..diagram import from_networkx, is_networkx

        if is_networkx(source):  # a user's own DiGraph: its nodes, edges and labels
            return from_networkx(source)
        from ..interop import from_langgraph, is_langgraph

        if is_langgraph(source):  # raises listing what graphnb cannot map
            return self._open(from_langgraph(source))
        raise TypeError(
            "Builder() opens a StateGraph, a CompiledGraph, a GraphSpec (or its dict), a "
            "LangGraph StateGraph, a networkx graph or a module holding a graph; got "
            f"{type(source).__name__}"
        )

    def _stamp(self, spec: GraphSpec) -> GraphSpec:
        """Mark the nodes whose callable or router was given in code (see CODE_KEY).

        Also remember what the bindings the code gave name, so they resolve even when the
        builder's namespace lacks them (an explicit ``namespace=``, a script's functions).
        """
        for node in spec.nodes:
            known = (self._known, self._known_routers, self._known_retry)
            if any(node.id in given for given in known):
                node.metadata[CODE_KEY] = node.id
            if node.binding is not None and node.id in self._known:
                self._given[node.binding] = self._known[node.id]
        for source, binding in spec.routers.items():
            if binding is not None and source in self._known_routers:
                self._given[binding] = self._known_routers[source]
        return spec

    def _code_keys(self, spec: GraphSpec) -> dict[str, str]:
        """Each node's key in the callables given in code, by node id.

        A node carries its key in its metadata; a node without one (a spec assigned from
        Python) uses its id, unless another node already carries that key.
        """
        claimed = {
            node.metadata[CODE_KEY]
            for node in spec.nodes
            if isinstance(node.metadata.get(CODE_KEY), str)
        }
        keys: dict[str, str] = {}
        for node in spec.nodes:
            key = node.metadata.get(CODE_KEY)
            if isinstance(key, str):
                keys[node.id] = key
            elif node.id not in claimed:
                keys[node.id] = node.id
        return keys

    # -- the notebook ------------------------------------------------------------------

    @property
    def namespace(self) -> Mapping[str, Any]:
        """Where bindings resolve: the given namespace, or the notebook's."""
        return self._namespace if self._namespace is not None else ns.notebook_namespace()

    def refresh(self) -> None:
        """Scan the namespace again for callables and state models, and revalidate."""
        space = self.namespace
        self.callables = [dict(info) for info in ns.find_callables(space)]
        self.models = [dict(info) for info in ns.find_models(space)]
        self.graphs = [dict(info) for info in find_graphs(space)]
        self._lookups.clear()  # names may have been defined, redefined or deleted
        self._validate()

    def _watch_cells(self) -> Callable[..., None] | None:
        """Rescan after every executed cell, so new functions appear in the panels."""
        if self._namespace is not None:
            return None
        shell = ns.ipython_shell()
        if shell is None:
            return None

        def after_cell(*_: Any) -> None:
            if self.comm is None:
                return
            try:
                self.refresh()
            except Exception:  # a hook that raises would print into every later cell
                log.exception("[graphnb] rescanning the notebook failed")

        shell.events.register("post_run_cell", after_cell)
        return after_cell

    def close(self) -> None:
        """Stop any run, stop watching cells and close the widget."""
        runner: RunController | None = getattr(self, "_runner", None)  # None: __init__ failed
        if runner is not None:
            runner.stop()
        hook = getattr(self, "_hook", None)
        if hook is not None:
            shell = ns.ipython_shell()
            if shell is not None:
                shell.events.unregister("post_run_cell", hook)
            self._hook = None
        debugger: Debugger | None = getattr(self, "_debugger", None)
        if debugger is not None and debugger.source is not None:
            debugger.source.close()
            debugger.source = None
        super().close()

    # -- the graph ---------------------------------------------------------------------

    def _scope(self, *, readonly: bool = False) -> tuple[GraphSpec, Mapping[str, Any]]:
        """The spec with code-given callables bound under private names, and its namespace.

        A graph opened from code may hold callables no binding can name (lambdas,
        closures); they stay usable until the user binds the node to something else.
        ``readonly``: the caller will not change the spec, which is then not copied: only
        the nodes whose binding is filled in are (a check after an edit copies no more).
        """
        spec = self.spec if readonly else self.spec.model_copy(deep=True)
        overlay: dict[str, Any] = {}
        if self._known or self._known_routers or self._known_retry:
            keys = self._code_keys(spec)
            nodes = list(spec.nodes)
            for index, node in enumerate(nodes):
                key = keys.get(node.id)
                if node.binding is None and key in self._known:
                    private = f"_graphnb_node_{len(overlay)}"
                    # Read-only: a copy of this node alone (a whole copy of a 1,000-node
                    # spec took most of a check after an edit).
                    nodes[index] = node.model_copy(update={"binding": private})
                    overlay[private] = self._known[key]
                retry = node.retry
                if key in self._known_retry and retry is not None and retry.retry_on:
                    # a lambda the code gave stays the node's predicate, under a private
                    # name, while the spec names it only as <unnamed ...>
                    private = f"_graphnb_retry_on_{len(overlay)}"
                    overlay[private] = self._known_retry[key]
                    names = [private if is_unnamed(b) else b for b in retry.retry_on]
                    nodes[index] = nodes[index].model_copy(
                        update={"retry": retry.model_copy(update={"retry_on": names})}
                    )
            routers = dict(spec.routers)
            for source, binding in spec.routers.items():
                key = keys.get(source, source if source == START else None)
                if binding is None and key in self._known_routers:
                    private = f"_graphnb_router_{len(overlay)}"
                    routers[source] = private
                    overlay[private] = self._known_routers[key]
            if readonly:
                spec = spec.model_copy(update={"nodes": nodes, "routers": routers})
            else:
                spec.nodes, spec.routers = nodes, routers
        if self._state_type is not None and spec.state.binding:
            overlay.setdefault(spec.state.binding, self._state_type)
        # The namespace wins: a name redefined in the notebook means its new definition.
        return spec, ChainMap(overlay, cast("dict[str, Any]", self.namespace), self._given)

    def _from_spec(self, spec: GraphSpec, namespace: Mapping[str, Any]) -> StateGraph[Any]:
        """The graph of ``spec``, on the state the builder opened while the spec names it.

        A module binding resolves by importing its module, which gives the class the
        binding names, not the type graphnb runs: a LangGraph graph's dataclass or model
        state is run as a GraphState made from it (graphnb.interop), named the same. Its
        TypedDict fields keep the start values the opened graph gave them (a LangGraph
        reducer's empty list), which a spec does not hold.
        """
        opened = self._opened_schema
        same = opened is not None and binding_of(opened.state_type) == spec.state.binding
        state = opened.state_type if same and opened is not None else None
        graph = StateGraph.from_spec(spec, namespace=namespace, state=state)
        if same and opened is not None and opened.model is None:
            for name, field in graph.schema.fields.items():
                start = opened.fields.get(name)
                if field.default is None and start is not None:
                    field.default = start.default
        return graph

    def to_graph(self) -> StateGraph[Any]:
        """The drawing as a :class:`~graphnb.StateGraph`, every binding resolved.

        Raises:
            BindingError: a binding names nothing in the notebook or its module.
        """
        spec, scope = self._scope()
        spec, space, children = bind_children(spec, scope, self._children)
        graph = self._from_spec(spec, space)
        return attach_children(graph, children)

    def compile(self, **options: Any) -> CompiledGraph[Any]:
        """Compile the drawing (options as :meth:`StateGraph.compile`).

        The builder's checkpointer, when it has one, is used unless one is given.

        Raises:
            BindingError: a binding names nothing.
            GraphValidationError: listing every problem of the graph.
        """
        if self._checkpointer is not None:
            options.setdefault("checkpointer", self._checkpointer)
        return self.to_graph().compile(**{**self._run_options, **options})

    def _compile_for_run(self) -> CompiledGraph[Any]:
        """:meth:`compile`, each node wrapped to run off the kernel's loop (see offload)."""
        spec, scope = self._scope()
        spec, scope, children = bind_children(spec, scope, self._children)
        wrapped: dict[str, Any] = {}
        for index, node in enumerate(spec.nodes):
            if node.binding is not None:
                private = f"_graphnb_run_node_{index}"
                wrapped[private] = off_loop(resolve(node.binding, scope))
                node.binding = private
        for index, (source, binding) in enumerate(list(spec.routers.items())):
            if binding is not None:
                private = f"_graphnb_run_router_{index}"
                wrapped[private] = guard_router(resolve(binding, scope))
                spec.routers[source] = private
        graph = self._from_spec(spec, ChainMap(wrapped, cast("Any", scope)))
        attach_children(graph, children)
        if self._checkpointer is not None:
            return graph.compile(checkpointer=self._checkpointer, **self._run_options)
        return graph.compile(**self._run_options)

    @traitlets.observe("spec")
    def _spec_changed(self, change: dict[str, Any]) -> None:
        if not hasattr(self, "_runner"):  # still in __init__
            return
        self._pinned = []  # an exercise's points were about the drawing before this edit
        self._validate()
        old, new = change["old"], change["new"]
        new_ids = [node.id for node in new.nodes]
        old_ids = None if old is None else [node.id for node in old.nodes]
        if old_ids != new_ids:
            self._runner.reset(new_ids)
            if old_ids is not None and self.breakpoints:
                kept = breakpoints_after_edit(self.breakpoints, old_ids, new_ids)
                if kept != self.breakpoints:
                    self.breakpoints = kept
        if self._path is not None:
            self.save()

    def _validate(self) -> None:
        spec, scope = self._scope(readonly=True)
        found = [
            ProblemInfo(code=p.code, message=p.message, nodes=list(p.nodes))
            for p in self._check.check(spec)
        ]
        # Each pass over 10,000 nodes costs milliseconds: these two run in C.
        bindings = set(map(_BINDING, spec.nodes))
        bindings.discard(None)
        if any(self._unresolved(binding, scope) for binding in bindings if binding):
            for node in spec.nodes:
                why = self._unresolved(node.binding, scope) if node.binding else None
                if why is not None:
                    found.append(ProblemInfo(code="unresolved", message=why, nodes=[node.id]))
        for source, binding in spec.routers.items():
            if binding is not None:
                why = self._unresolved(binding, scope)
                if why is not None:
                    found.append(ProblemInfo(code="unresolved", message=why, nodes=[source]))
        if spec.state.binding:
            _, why = ns.try_lookup(spec.state.binding, scope)
            if why is not None:
                found.append(ProblemInfo(code="unresolved", message=why, nodes=[]))
        if any(map(_RETRY, spec.nodes)):
            for node in spec.nodes:
                unnamed = (
                    [b for b in (node.retry.retry_on or []) if is_unnamed(b)] if node.retry else []
                )
                found.extend(
                    ProblemInfo(
                        code="unresolved",
                        message=f"the retry policy of `{node.id}` retries on {binding}, a lambda "
                        "or a closure that was given in code and cannot be named here; define "
                        "the predicate as a module-level function and name it",
                        nodes=[node.id],
                    )
                    for binding in unnamed
                )
        if any(map(_SUBGRAPH, spec.nodes)):
            kept = bind_children(spec, scope, self._children)[2]
            found.extend(subgraph_problems(spec, scope, skip=kept))
        self.problems = [dict(problem) for problem in found] + self._pinned

    def _unresolved(self, binding: str, scope: Mapping[str, Any]) -> str | None:
        """Why ``binding`` does not resolve (``None``: it does), remembered until a refresh.

        The namespace changes only when a cell runs, which refreshes the builder: an edit
        of a 10,000-node drawing then looks up no binding again.
        """
        if binding in self._lookups:
            return self._lookups[binding]
        why = ns.try_lookup(binding, scope)[1]
        if not binding.startswith("_graphnb_"):  # private names follow the node order
            self._lookups[binding] = why
        return why

    def pin_problems(self, problems: list[dict[str, Any]]) -> None:
        """Pin more problems on the canvas (an exercise's missed points) until the next edit.

        Each is a dict with ``code``, ``message`` and ``nodes``, as :attr:`problems` holds.
        """
        self._pinned = [dict(problem) for problem in problems]
        self._validate()

    def use_model(self, binding: str | None) -> None:
        """Run the graph on the state model ``binding`` names (``None``: a dict state).

        Raises:
            BindingError: ``binding`` names nothing.
            TypeError: it names something that is not a state model.
        """
        if binding is None:
            state = StateSpec()
        else:
            model = ns.try_lookup(binding, self._scope()[1])
            if model[1] is not None:
                raise BindingError(model[1], binding=binding)
            info = ns.describe_model(model[0], binding=binding)
            state = StateSpec.model_validate(
                {"kind": info["kind"], "binding": binding, "fields": info["fields"]}
            )
            self._state_type = model[0]
        spec = self.spec.model_copy(deep=True)
        spec.state = state
        self.spec = spec

    def use_saver(self, checkpointer: BaseSaver | str | None) -> None:
        """Save runs to ``checkpointer`` (a saver or its URL); ``None`` or ``""``: no threads.

        The URL's password stays in the kernel: the widget shows and syncs the URL with
        the password masked (``postgresql://app:***@host/db``), and that masked URL, given
        back, means the saver in use.

        Raises:
            SaverSetupError: the URL names no saver graphnb knows, or holds a masked
                password other than the current saver's.
        """
        from ..checkpoint import SaverSetupError, as_saver

        if checkpointer is None or checkpointer == "":
            self._checkpointer, self.saver, self.saves_threads = None, "", False
            return
        if isinstance(checkpointer, str):
            if checkpointer == self.saver and self._checkpointer is not None:
                return  # the masked URL the widget shows: the saver in use
            self._secrets.update(secrets_in(checkpointer))
            if f":{MASK}@" in checkpointer or f"={MASK}" in checkpointer:
                raise SaverSetupError(
                    f"{mask_url(checkpointer)} shows the password masked ({MASK}); "
                    "type the password itself"
                )
        try:
            saver = as_saver(checkpointer)
        except SaverSetupError as error:  # its text may quote the URL, password and all
            raise SaverSetupError(scrub(str(error), self._secrets)) from None
        self._checkpointer = saver
        self.saver = mask_url(checkpointer) if isinstance(checkpointer, str) else repr(saver)
        self.saves_threads = True

    def layout(self, direction: Direction | None = None) -> None:
        """Place every node (and START, END) with the diagrams' layout.

        Args:
            direction: ``"TB"`` top-down or ``"LR"`` left-right; the current one (kept in
                the spec's metadata) when omitted.

        Raises:
            ValueError: ``direction`` is neither.
        """
        chosen = self._direction(direction)
        self.spec = self._placed(layout(self.spec, chosen), chosen)

    def _layout_in_background(self, direction: Direction | None = None) -> None:
        """The canvas's Layout button: :meth:`layout`, computed off the kernel's loop."""
        spec, chosen = self.spec, self._direction(direction)
        self._layouts.submit(
            lambda: layout(spec, chosen),
            lambda positions: setattr(self, "spec", self._placed(positions, chosen)),
            lambda error: self._tell(f"layout failed: {error}", "layout"),
        )

    def _direction(self, direction: Direction | None) -> Direction:
        if direction is not None and direction not in ("TB", "LR"):
            raise ValueError(f"layout direction must be 'TB' or 'LR', got {direction!r}")
        return direction or direction_of(self.spec)

    def _placed(self, positions: dict[str, tuple[float, float]], direction: Direction) -> GraphSpec:
        """The current spec with ``positions`` applied, drawn ``direction``."""
        spec = apply_layout(self.spec, positions)
        if direction == "LR":
            settle_terminals(spec, -50.0, 12.0)  # apply_layout centred them across a column
        spec.metadata[DIRECTION_KEY] = direction
        return spec

    # -- running -----------------------------------------------------------------------

    @property
    def last_run(self) -> RunState:
        """The current or last run, as the run panel shows it."""
        return self._runner.state

    def run(
        self,
        input: Mapping[str, Any] | None = None,
        *,
        thread_id: str | None = None,
        checkpoint_id: str | None = None,
        interrupt_before: list[str] | None = None,
        interrupt_after: list[str] | None = None,
    ) -> asyncio.Task[Any]:
        """Start a run in the background, as the Run button does; returns its task.

        ``await builder.run({...})`` gives the final state (``None`` if the run failed;
        see :attr:`last_run`). Needs a running event loop, as in a notebook. With a
        checkpointer, the run continues thread ``thread_id`` (a new thread when omitted),
        from its checkpoint ``checkpoint_id`` when given (a fork; input ``None`` runs the
        nodes that checkpoint runs next; a :class:`~graphnb.Command` answers interrupts).
        The run pauses at the :attr:`breakpoints` (and at ``interrupt_before`` /
        ``interrupt_after``), and :attr:`paused` then says where.

        Raises:
            RuntimeError: a run is already going on, or no event loop runs here.
        """
        if self._runner.running:
            # Checked before compiling: a drawing that does not compile must not replace
            # the run panel's picture of the run that is going on.
            raise RuntimeError("a run is already going on; stop it before starting another")
        try:
            graph = self._compile_for_run()
        except Exception as error:
            # What the Problems panel lists is why it did not compile: the run panel lists
            # it too, each problem linked to its node (an exercise's points are no reason).
            problems = [p for p in self.problems if p.get("code") != "exercise"]
            self._runner.fail([node.id for node in self.spec.nodes], error, problems)
            loop = asyncio.get_running_loop()
            failed: asyncio.Future[Any] = loop.create_future()
            failed.set_result(None)
            return cast("asyncio.Task[Any]", failed)
        if self._checkpointer is not None and not thread_id:
            thread_id = uuid.uuid4().hex[:12]  # a new thread; the run panel shows its id
        before = [n for n, whens in self.breakpoints.items() if "before" in whens]
        after = [n for n, whens in self.breakpoints.items() if "after" in whens]
        self.paused = {}
        task = self._runner.start(
            graph,
            input,
            thread_id=thread_id,
            checkpoint_id=checkpoint_id,
            interrupt_before=[*before, *(interrupt_before or ())],
            interrupt_after=[*after, *(interrupt_after or ())],
        )
        task.add_done_callback(lambda _: self._debugger.after_run(thread_id))
        return task

    def watch(self, thread_id: str | None = None) -> Watch:
        """Draw the runs of ``thread_id`` (``None``: every thread) live on the canvas.

        Runs started from code in this process (``app = builder.compile()`` then
        ``app.invoke(..., thread_id=...)`` in another cell) light their nodes and stream
        their text as a run started with Run does. Returns the subscription: ``close()``
        it to stop. See :mod:`graphnb.widget.watching`.
        """
        from .watching import LiveView

        if self._watching is None:
            self._watching = LiveView(
                lambda: [node.id for node in self.spec.nodes],
                lambda: self._runner.running,
                self._publish_run,
                self._send_message,
            )
        return self._watching.watch(thread_id)

    def stop(self) -> bool:
        """Cancel the current run; ``False`` when none was going on."""
        return self._runner.stop()

    def _publish_run(self, state: RunState) -> None:
        error = state["error"]
        if error is not None and self._secrets:  # a driver's error may quote the URL
            scrubbed = RunError(
                node=error["node"],
                message=scrub(error["message"], self._secrets),
                traceback=scrub(error["traceback"], self._secrets),
                problems=error["problems"],
            )
            state = {**state, "error": scrubbed}  # the picture itself is never changed
        self.run_state = cast("dict[str, Any]", state)

    def _send_message(self, message: ServerMessage) -> None:
        if self.comm is not None:
            self.send(message)

    # -- exporting ---------------------------------------------------------------------

    def export(self, path: str | Path | None = None, *, overwrite: bool = False) -> Path:
        """Write the graph as a standalone Python module; returns the file written.

        Args:
            path: the file; ``<graph name>.py`` next to the notebook (or the builder's
                JSON file) when omitted.
            overwrite: replace the file when it exists.

        Raises:
            ExportNameError: the file's name is that of a module it would shadow (of the
                standard library, an installed one, or one the graph's nodes come from).
            ExportExistsError: the file exists and ``overwrite`` is false.
            ExportError: the graph cannot be exported (listing why).
        """
        from ..export import to_module

        spec, scope = self._scope()
        text = to_module(self, namespace=dict(scope))
        folder = self._path.parent if self._path is not None else Path.cwd()
        target = Path(path) if path is not None else folder / f"{_module_name(spec.name)}.py"
        bindings = [node.binding for node in self.spec.nodes]
        bindings += [*self.spec.routers.values(), self.spec.state.binding]
        given = (*self._known.values(), *self._known_routers.values())
        defined_in = {getattr(fn, "__module__", None) for fn in given}
        modules = imported_modules(text) | binding_modules(bindings)
        modules |= {name.partition(".")[0] for name in defined_in if isinstance(name, str)}
        check_target(target, imports=modules, overwrite=overwrite)
        replace_text(target, text)
        self.export_status = str(target.resolve())
        return target

    # -- requests from the front end ----------------------------------------------------

    @anywidget.experimental.command
    def _graphnb_bundle(
        self, message: Any, buffers: list[bytes]
    ) -> tuple[dict[str, str], list[bytes]]:
        """Send the front end to a view that asks for it (see :mod:`graphnb.widget.bundle`)."""
        return bundle_reply(message)

    @anywidget.experimental.command
    def _graphnb_request(self, content: Any, buffers: list[bytes]) -> tuple[Any, list[bytes]]:
        """Answer one request of the front end (``protocol.Request``): its reply, or why not.

        The canvas's own actions (run, export, a state model ...) also tell a failure in
        the widget's notice, where the user sees it; the debugger's panels show theirs.
        Nothing raised here is lost in the kernel's log.
        """
        return self.answer(content), []

    def answer(self, content: Any) -> dict[str, Any]:
        """The reply to ``content``, a request as the front end sends it.

        The reply is the request type's entry of :class:`~graphnb.widget.protocol.Replies`
        with ``error: None``, or :class:`~graphnb.widget.protocol.Refused`.
        """
        try:
            request = read_request(content)
        except ValueError as error:
            self._tell(f"the builder ignored a request from the canvas: {error}", "message")
            return dict(Refused(error=str(error), field=None))
        kind = request["type"]
        told = kind not in self._debugger.handlers  # the debugger's panels tell their own
        if told:
            self._tell("", kind)  # an action clears the notice of the one before
        try:
            reply = self._handlers[kind](request)
        except Exception as error:
            text = scrub(f"{type(error).__name__}: {error}", self._secrets)
            if told:
                self._tell(f"{kind} failed: {error}", kind)
            if kind == "export":
                self.export_status = scrub(f"export failed: {error}", self._secrets)
            field = getattr(error, "field", None)
            return dict(Refused(error=text, field=field if isinstance(field, str) else None))
        return {"error": None, **reply}

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The widget view, with an SVG picture of the graph for viewers without widgets."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        return {**data, "image/svg+xml": picture(self.spec)}, metadata

    def _on_message(self, widget: Any, content: Any, buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "anywidget-command":
            name = content.get("name")
            if name not in (REQUEST_COMMAND, COMMAND):  # anywidget answers the known ones
                self._tell(f"the builder ignored an unknown command {name!r}", "message")
            return
        self._tell(
            "the builder ignored a message from the canvas: requests come through the "
            f"`{REQUEST_COMMAND}` command, got {str(content)[:120]}",
            "message",
        )

    def _tell(self, text: str, source: str) -> None:
        """Show ``text`` in the widget's notice (``""``: clear it), and log it."""
        if text:
            text = scrub(text, self._secrets)
            log.warning("[graphnb] %s", text)
            self.notice, self._notice_source = text, source
        elif source == self._notice_source or source != "spec":
            # A successful action clears the notice; an edit of the drawing clears only
            # a notice about an earlier edit, not one about a failed run or export.
            self.notice, self._notice_source = "", ""

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """Apply trait changes from the front end, which may change the drawing only.

        A change that fails (a spec that is not a valid graph, a trait the front end does
        not own) is told in the notice, and the front end is sent Python's values back.
        """
        refused = sorted(n for n in sync_data if n in self.keys and n not in FRONT_END_TRAITS)
        allowed = {name: value for name, value in sync_data.items() if name not in refused}
        told = []
        if refused:
            names = ", ".join(f"`{name}`" for name in refused)
            told.append(f"the canvas may not change {names}; the builder kept its own")
        try:
            super().set_state(allowed)
        except (ValidationError, traitlets.TraitError) as error:
            why = explain(error) if isinstance(error, ValidationError) else str(error)
            told.append(f"the builder kept the drawing it had: the canvas sent {why}")
            refused.extend(name for name in allowed if name in self.keys)
        except Exception as error:  # the drawing changed, what followed failed (saving it)
            told.append(f"the drawing changed, but {type(error).__name__}: {error}")
        if told:
            self._tell("; ".join(told), "spec")
        elif "spec" in allowed:
            self._tell("", "spec")
        if refused:
            self.send_state(refused)

    def _stop_request(self, request: StopRequest) -> Done:
        self.stop()
        return Done()

    def _refresh_request(self, request: RefreshRequest) -> Done:
        self.refresh()
        return Done()

    def _run_request(self, request: RunRequest) -> Done:
        self.run(request["input"], thread_id=request["thread_id"] or None)
        return Done()

    def _layout_request(self, request: LayoutRequest) -> Done:
        self._layout_in_background(request.get("direction"))
        return Done()

    def _export_request(self, request: ExportRequest) -> ExportReply:
        try:
            written = self.export(overwrite=request.get("overwrite", False))
        except ExportExistsError as error:  # the canvas asks whether to replace it
            self._tell(f"export failed: {error}", "export")
            self.export_status = scrub(f"export failed: {error}", self._secrets)
            return ExportReply(written=None, exists=str(error.path), command=None)
        command = None
        if request.get("serve", False):
            command = serve_command(written)
            self.export_status = command  # the module's path is in it
        return ExportReply(written=str(written), exists=None, command=command)

    def _use_model_request(self, request: UseModelRequest) -> Done:
        self.use_model(request["binding"])
        return Done()

    def _use_saver_request(self, request: UseSaverRequest) -> Done:
        self.use_saver(request["url"] or None)
        return Done()

    def _inspect(self, request: InspectRequest) -> InspectReply:
        binding = request["binding"]
        found, why = ns.try_lookup(binding, self._scope()[1])
        if why is not None:
            raise LookupError(why)
        try:
            return InspectReply(info=ns.describe_callable(found, binding=binding))
        except TypeError as error:
            raise TypeError(f"binding {binding!r}: {error}") from None


def _unnamed_predicates(policies: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """The ``retry_on`` predicates of these retry policies that no binding names."""
    found = {}
    for name, retry in policies.items():
        chosen = getattr(retry, "retry_on", None)
        if callable(chosen) and not isinstance(chosen, type) and binding_of(chosen) is None:
            found[name] = chosen
    return found


def _graph_in(module: types.ModuleType) -> StateGraph[Any] | CompiledGraph[Any]:
    """The graph a module defines: its ``graph`` attribute, else its only graph."""
    preferred = getattr(module, "graph", None)
    if isinstance(preferred, (StateGraph, CompiledGraph)):
        return preferred
    found = [v for v in vars(module).values() if isinstance(v, (StateGraph, CompiledGraph))]
    if len(found) != 1:
        raise TypeError(
            f"module {module.__name__!r} defines {len(found)} graphs; Builder() needs exactly "
            "one, or one named `graph`"
        )
    return found[0]


def serve_command(module: Path) -> str:
    """The command line that serves an exported module with ``graphnb serve``.

    Its threads go to a SQLite file beside the module, as ``graphnb serve`` keeps them by
    default; the assistant is the module's ``graph``.
    """
    module = module.resolve()
    db = f"sqlite:///{module.with_name(module.stem + '-threads.db')}"
    return shlex.join(["graphnb", "serve", f"{module}:graph", "--db", db])


def _module_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in name.strip()) or "graph"
    return cleaned if not cleaned[0].isdigit() else f"graph_{cleaned}"
