// The builder: toolbar, canvas (React Flow) and side panels, wired to the Python model.

import { useModel, useModelState } from "@anywidget/react";
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type FinalConnectionState,
  type Node,
  type NodeChange,
  type OnSelectionChangeParams,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { edgeTypes, type GraphEdge } from "./edges";
import { Canvas, nodeTypes, type CanvasContext } from "./nodes";
import { BindingPanel, ProblemsPanel, RunPanel, StateModelPanel, StatePanel, type Inspect } from "./panels";
import {
  END,
  START,
  type ChunksMessage,
  type ClientMessage,
  type EdgeSpec,
  type GraphSpec,
  type Model,
  type ProblemInfo,
  type RunState,
  type ServerMessage,
  type XY,
} from "./protocol";
import * as edit from "./spec";
import { createStore } from "./store";

const IDLE_RUN: RunState = {
  id: null,
  status: "idle",
  thread_id: null,
  nodes: {},
  active: [],
  steps: [],
  chunks: "",
  field: null,
  error: null,
  elapsed: null,
};

const HISTORY_LIMIT = 200;
/** Every fit of the view (first render, Fit, the ⛶ control, a graph from Python): a small
 * graph is shown at its natural size, never blown up. */
const FIT = { padding: 0.15, maxZoom: 1 };
/** Where START and END sit across a node's column: they are narrower than a step. */
const TERMINAL_INSET = 50;
const CODE_KEY = "graphnb.widget.code";

/**
 * Keep JupyterLab's shortcuts out of the widget. Lumino skips a shortcut when, walking up
 * from the key's target, it meets `data-lm-suppress-shortcuts` *before* an element matching
 * the shortcut's selector; notebook selectors end in `:focus`, which the focused element
 * itself matches. So the focused element (a node, an edge, a button) carries it too.
 */
function suppressShortcuts(e: React.FocusEvent) {
  const target = e.target as Element;
  if (!target.hasAttribute("data-lm-suppress-shortcuts")) target.setAttribute("data-lm-suppress-shortcuts", "true");
}

function useDarkTheme(): boolean {
  const read = () => document.body.dataset.jpThemeLight === "false";
  const [dark, setDark] = useState(read);
  useEffect(() => {
    const observer = new MutationObserver(() => setDark(read()));
    observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
    return () => observer.disconnect();
  }, []);
  return dark;
}

/** Undo and redo over whole specs; changes from Python (layout, state model) count too. */
function useHistory(spec: GraphSpec, setSpec: (s: GraphSpec) => void, onRemote: () => void) {
  const undo = useRef<GraphSpec[]>([]);
  const redo = useRef<GraphSpec[]>([]);
  const seen = useRef(spec);
  const [, bump] = useState(0);
  useEffect(() => {
    if (spec === seen.current) return;
    if (JSON.stringify(spec) !== JSON.stringify(seen.current)) {
      undo.current = [...undo.current, seen.current].slice(-HISTORY_LIMIT);
      redo.current = [];
      bump((n) => n + 1);
      onRemote();
    }
    seen.current = spec;
  }, [spec, onRemote]);
  const commit = useCallback(
    (next: GraphSpec) => {
      if (next === seen.current) return;
      undo.current = [...undo.current, seen.current].slice(-HISTORY_LIMIT);
      redo.current = [];
      seen.current = next;
      setSpec(next);
      bump((n) => n + 1);
    },
    [setSpec],
  );
  const step = useCallback(
    (from: typeof undo, to: typeof redo) => {
      const previous = from.current.at(-1);
      if (!previous) return;
      from.current = from.current.slice(0, -1);
      to.current = [...to.current, seen.current];
      seen.current = previous;
      setSpec(previous);
      bump((n) => n + 1);
    },
    [setSpec],
  );
  return {
    commit,
    undo: () => step(undo, redo),
    redo: () => step(redo, undo),
    canUndo: undo.current.length > 0,
    canRedo: redo.current.length > 0,
  };
}

function toNodes(spec: GraphSpec, previous: Node[]): Node[] {
  const old = new Map(previous.map((n) => [n.id, n]));
  const special = edit.specialPositions(spec);
  const ys = spec.nodes.map((n) => n.position?.y ?? 0);
  const top = ys.length ? Math.min(...ys) : 0;
  const bottom = ys.length ? Math.max(...ys) : 0;
  // Without a stored place, START sits above the column of the first node it leads to (or
  // the first node), END below the last node that leads to it.
  const column = (id: string | undefined, fallback: GraphSpec["nodes"][number] | undefined) =>
    (spec.nodes.find((n) => n.id === id) ?? fallback)?.position?.x ?? 0;
  const startX = column(spec.edges.find((e) => e.source === START)?.target, spec.nodes[0]) + TERMINAL_INSET;
  const endX = column(spec.edges.filter((e) => e.target === END).at(-1)?.source, spec.nodes.at(-1)) + TERMINAL_INSET;
  const keep = (id: string, fresh: Node): Node => {
    const before = old.get(id);
    if (!before) return fresh;
    const samePlace = before.position.x === fresh.position.x && before.position.y === fresh.position.y;
    return {
      ...fresh,
      position: before.dragging ? before.position : samePlace ? before.position : fresh.position,
      selected: before.selected,
      measured: before.measured,
    };
  };
  const result: Node[] = [
    keep(START, {
      id: START,
      type: "terminal",
      position: special[START] ?? { x: startX, y: top - 110 },
      data: { label: "START" },
      deletable: false,
    }),
  ];
  spec.nodes.forEach((n, i) => {
    const position: XY = n.position ?? { x: (i % 5) * 200, y: 100 + Math.floor(i / 5) * 110 };
    result.push(
      keep(n.id, {
        id: n.id,
        type: "step",
        position,
        data: { label: n.label ?? n.id, binding: n.binding, code: typeof n.metadata?.[CODE_KEY] === "string" },
      }),
    );
  });
  result.push(
    keep(END, {
      id: END,
      type: "terminal",
      position: special[END] ?? { x: endX, y: bottom + 110 },
      data: { label: "END" },
      deletable: false,
    }),
  );
  return result;
}

function toEdges(spec: GraphSpec, previous: GraphEdge[]): GraphEdge[] {
  const selected = new Set(previous.filter((e) => e.selected).map((e) => e.id));
  return spec.edges.map((e) => {
    const id = edit.edgeKey(e);
    return {
      id,
      source: e.source,
      target: e.target,
      type: "graph",
      selected: selected.has(id),
      markerEnd: { type: MarkerType.ArrowClosed, width: 15, height: 15 },
      data: { kind: e.kind, route: e.route },
    };
  });
}

function Editor() {
  const model = useModel<Model>();
  const [spec] = useModelState<GraphSpec>("spec");
  const [problems] = useModelState<ProblemInfo[]>("problems");
  const [callables] = useModelState<Model["callables"]>("callables");
  const [models] = useModelState<Model["models"]>("models");
  const [runTrait] = useModelState<RunState>("run_state");
  const [threads] = useModelState<boolean>("threads");
  const [saver] = useModelState<string>("saver");
  const [notice] = useModelState<string>("notice");
  const [exportStatus] = useModelState<string>("export_status");
  const [height] = useModelState<number>("height");
  const run = runTrait && runTrait.status ? runTrait : IDLE_RUN;
  const flow = useReactFlow();
  const dark = useDarkTheme();

  const send = useCallback((message: ClientMessage) => model.send(message), [model]);
  const setSpec = useCallback(
    (next: GraphSpec) => {
      model.set("spec", next);
      model.save_changes();
    },
    [model],
  );
  // A graph that arrives from Python (a new spec, a layout) is fitted into view once its
  // nodes are measured; the user's own edits never move the view.
  const refit = useCallback(() => {
    window.setTimeout(() => flow.fitView({ ...FIT, duration: 200 }), 60);
  }, [flow]);
  const history = useHistory(spec, setSpec, refit);

  // -- stores the nodes subscribe to --------------------------------------------------------
  const runStore = useMemo(() => createStore<RunState>(IDLE_RUN), []);
  const problemStore = useMemo(() => createStore<Record<string, ProblemInfo[]>>({}), []);
  useEffect(() => runStore.set(run), [run, runStore]);
  useEffect(() => {
    const byNode: Record<string, ProblemInfo[]> = {};
    for (const p of problems ?? []) for (const id of p.nodes) (byNode[id] ??= []).push(p);
    problemStore.set(byNode);
  }, [problems, problemStore]);

  // -- streamed chunks: deltas from messages, the trait's snapshot as the fallback ------------
  const [chunks, setChunks] = useState({ run: run.id, text: run.chunks });
  useEffect(() => {
    setChunks((local) =>
      local.run !== run.id || run.chunks.length > local.text.length ? { run: run.id, text: run.chunks } : local,
    );
  }, [run.id, run.chunks]);
  const pending = useRef(new Map<number, (reply: { info: Model["callables"][number] | null; error: string | null }) => void>());
  useEffect(() => {
    const onMessage = (message: ServerMessage) => {
      if (message.type === "chunks") {
        const m: ChunksMessage = message;
        setChunks((local) => {
          if (local.run !== m.run) return m.offset === 0 ? { run: m.run, text: m.text } : local;
          const end = m.offset + m.text.length;
          if (m.offset > local.text.length || end <= local.text.length) return local;
          return { run: m.run, text: local.text + m.text.slice(local.text.length - m.offset) };
        });
      } else if (message.type === "inspected") {
        pending.current.get(message.request)?.({ info: message.info, error: message.error });
        pending.current.delete(message.request);
      }
    };
    model.on("msg:custom", onMessage);
    return () => model.off("msg:custom", onMessage);
  }, [model]);
  const requests = useRef(0);
  const inspect: Inspect = useCallback(
    (binding) =>
      new Promise((resolve) => {
        const request = ++requests.current;
        pending.current.set(request, resolve);
        send({ type: "inspect", request, binding });
      }),
    [send],
  );

  // -- canvas state ---------------------------------------------------------------------------
  const [nodes, setNodes] = useState<Node[]>(() => toNodes(spec, []));
  const [edges, setEdges] = useState<GraphEdge[]>(() => toEdges(spec, []));
  useEffect(() => {
    setNodes((previous) => toNodes(spec, previous));
    setEdges((previous) => toEdges(spec, previous));
  }, [spec]);
  const [selection, setSelection] = useState<{ nodes: string[]; edges: string[] }>({ nodes: [], edges: [] });

  const onNodesChange = useCallback((changes: NodeChange[]) => {
    // Removals go through onDelete (one commit for nodes and their edges).
    setNodes((current) => applyNodeChanges(changes.filter((c) => c.type !== "remove"), current));
  }, []);
  const onEdgesChange = useCallback((changes: EdgeChange<GraphEdge>[]) => {
    setEdges((current) => applyEdgeChanges(changes.filter((c) => c.type !== "remove"), current));
  }, []);
  const onNodeDragStop = useCallback(
    (_: unknown, __: Node, dragged: Node[]) => {
      const moved: Record<string, XY> = {};
      for (const n of dragged) moved[n.id] = n.position;
      history.commit(edit.moveNodes(spec, moved));
    },
    [spec, history],
  );
  const onConnect = useCallback(
    (c: Connection) => history.commit(edit.connect(spec, c.source, c.target)),
    [spec, history],
  );
  // A connection dropped on the empty canvas: a new node there, already connected.
  const onConnectEnd = useCallback(
    (event: MouseEvent | TouchEvent, connection: FinalConnectionState) => {
      if (connection.isValid || connection.toNode || !connection.fromNode) return;
      if (connection.fromHandle?.type !== "source") return;
      const point = "changedTouches" in event ? event.changedTouches[0] : event;
      if (document.elementFromPoint(point.clientX, point.clientY)?.closest(".react-flow__node")) return;
      const at = flow.screenToFlowPosition({ x: point.clientX, y: point.clientY });
      const id = edit.freshId(spec);
      const added = edit.addNode(spec, { x: Math.round(at.x - 80), y: Math.round(at.y) }, id);
      history.commit(edit.connect(added, connection.fromNode.id, id));
    },
    [flow, spec, history],
  );
  // Deleting the focused node drops focus on <body>, where keys reach JupyterLab (and
  // Ctrl+Z would undo a cell): keep focus inside the widget.
  const root = useRef<HTMLDivElement>(null);
  const keepFocus = useCallback(() => {
    requestAnimationFrame(() => {
      const active = document.activeElement;
      if (root.current && (!active || active === document.body || !root.current.contains(active)))
        root.current.focus({ preventScroll: true });
    });
  }, []);
  const deleteSelected = useCallback(
    (nodeIds: string[], edgeIds: string[]) => {
      if (!nodeIds.length && !edgeIds.length) return;
      history.commit(edit.remove(spec, nodeIds, edgeIds));
      keepFocus();
    },
    [spec, history, keepFocus],
  );
  const onDelete = useCallback(
    ({ nodes: ns, edges: es }: { nodes: Node[]; edges: GraphEdge[] }) =>
      deleteSelected(
        ns.map((n) => n.id),
        es.map((e) => e.id),
      ),
    [deleteSelected],
  );
  const onSelectionChange = useCallback(
    (params: OnSelectionChangeParams) =>
      setSelection({ nodes: params.nodes.map((n) => n.id), edges: params.edges.map((e) => e.id) }),
    [],
  );
  const selectNode = useCallback(
    (id: string) => {
      setNodes((current) => current.map((n) => ({ ...n, selected: n.id === id })));
      setEdges((current) => current.map((e) => ({ ...e, selected: false })));
      const node = flow.getNode(id);
      if (node) flow.setCenter(node.position.x + 80, node.position.y + 30, { duration: 300, zoom: flow.getZoom() });
    },
    [flow],
  );

  const addNode = useCallback(() => {
    const box = wrapper.current?.getBoundingClientRect();
    const center = box
      ? flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
      : { x: 0, y: 0 };
    history.commit(edit.addNode(spec, edit.freeSpot(spec, { x: center.x - 80, y: center.y - 25 })));
  }, [flow, spec, history]);

  // Double-click on the empty canvas: a new node right there.
  const onCanvasDoubleClick = useCallback(
    (e: React.MouseEvent) => {
      if (!(e.target as HTMLElement).classList.contains("react-flow__pane")) return;
      const at = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      history.commit(edit.addNode(spec, { x: Math.round(at.x - 80), y: Math.round(at.y - 25) }));
    },
    [flow, spec, history],
  );

  const rename = useCallback(
    (from: string, to: string) => {
      const next = edit.renameNode(spec, from, edit.cleanId(to));
      if (!next) return false;
      history.commit(next);
      return true;
    },
    [spec, history],
  );
  const setRoute = useCallback(
    (source: string, target: string, route: string) => {
      const key = edit.edgeKey({ source, target });
      const edge = spec.edges.find((e) => edit.edgeKey(e) === key);
      if (edge && route !== edge.route) history.commit(edit.setRoute(spec, key, route));
    },
    [spec, history],
  );
  const canvas: CanvasContext = useMemo(
    () => ({ run: runStore, problems: problemStore, rename, setRoute }),
    [runStore, problemStore, rename, setRoute],
  );

  // -- keys: undo/redo here; Delete/Backspace are React Flow's ------------------------------
  const onKeyDown = useCallback(
    (e: React.KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === "z") {
        e.preventDefault();
        if (e.shiftKey) history.redo();
        else history.undo();
        keepFocus();
      } else if (mod && e.key.toLowerCase() === "y") {
        e.preventDefault();
        history.redo();
        keepFocus();
      }
    },
    [history, keepFocus],
  );

  const wrapper = useRef<HTMLDivElement>(null);
  // The toolbar's Run runs with the run panel's current input.
  const runWith = useRef<(() => void) | null>(null);
  // ... and is disabled, like the panel's, while that input is not a JSON object.
  const [inputError, setInputError] = useState<string | null>(null);
  const selectedNode = selection.nodes.length === 1 ? (spec.nodes.find((n) => n.id === selection.nodes[0]) ?? null) : null;
  const selectedEdge: EdgeSpec | null =
    !selectedNode && selection.edges.length === 1
      ? (spec.edges.find((e) => edit.edgeKey(e) === selection.edges[0]) ?? null)
      : null;
  const currentModel = models?.find((m) => m.binding === spec.state.binding) ?? null;
  const running = run.status === "running";
  const nothingSelected = !selection.nodes.length && !selection.edges.length;

  useEffect(() => {
    console.debug(`[graphnb] builder ready: ${spec.nodes.length} nodes, ${spec.edges.length} edges`);
  }, []);

  return (
    <div
      ref={root}
      tabIndex={-1}
      className="graphnb-builder"
      data-testid="graphnb-builder"
      data-lm-suppress-shortcuts="true"
      data-run-status={run.status}
      onKeyDown={onKeyDown}
      onFocus={suppressShortcuts}
      style={{ height: `${height || 560}px` }}
    >
      <div className="graphnb-toolbar" role="toolbar">
        <input
          className="graphnb-name"
          aria-label="graph name"
          data-testid="graph-name"
          defaultValue={spec.name}
          key={spec.name}
          onBlur={(e) => e.target.value !== spec.name && history.commit(edit.rename(spec, edit.cleanId(e.target.value)))}
          onKeyDown={(e) => e.key === "Enter" && (e.target as HTMLInputElement).blur()}
        />
        <button type="button" data-testid="toolbar-add-node" onClick={addNode} title="add a node">
          + Node
        </button>
        <button
          type="button"
          data-testid="toolbar-delete"
          disabled={nothingSelected}
          onClick={() => deleteSelected(selection.nodes, selection.edges)}
          title="delete the selection (Delete)"
        >
          Delete
        </button>
        <span className="graphnb-sep" />
        <button type="button" data-testid="toolbar-undo" disabled={!history.canUndo} onClick={history.undo} title="undo (Ctrl+Z)">
          ↶
        </button>
        <button type="button" data-testid="toolbar-redo" disabled={!history.canRedo} onClick={history.redo} title="redo (Ctrl+Shift+Z)">
          ↷
        </button>
        <span className="graphnb-sep" />
        <button type="button" data-testid="toolbar-layout" onClick={() => send({ type: "layout" })} title="auto-layout">
          Layout
        </button>
        <button type="button" data-testid="toolbar-fit" onClick={() => flow.fitView({ ...FIT, duration: 300 })} title="fit the graph in view">
          Fit
        </button>
        <span className="graphnb-sep" />
        <button
          type="button"
          className="graphnb-primary"
          data-testid="toolbar-run"
          disabled={running || inputError !== null}
          onClick={() => runWith.current?.()}
          title={
            inputError !== null
              ? `fix the run input first (run panel): ${inputError}`
              : running
                ? "a run is in progress"
                : "run with the input of the run panel"
          }
        >
          ▶ Run
        </button>
        <button type="button" data-testid="toolbar-stop" disabled={!running} onClick={() => send({ type: "stop" })} title="stop the run">
          ■ Stop
        </button>
        <span className="graphnb-sep" />
        <button type="button" data-testid="toolbar-export" onClick={() => send({ type: "export" })} title="export as a Python module">
          Export
        </button>
        <span className="graphnb-export-status" data-testid="export-status" title={exportStatus}>
          {exportStatus}
        </span>
        {notice && (
          <span className="graphnb-notice" data-testid="notice" title={notice}>
            {notice}
          </span>
        )}
      </div>
      <div className="graphnb-main">
        <div className="graphnb-canvas" ref={wrapper} onDoubleClick={onCanvasDoubleClick}>
          <Canvas.Provider value={canvas}>
            <ReactFlow
              nodes={nodes}
              edges={edges}
              nodeTypes={nodeTypes}
              edgeTypes={edgeTypes}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onNodeDragStop={onNodeDragStop}
              onConnect={onConnect}
              onConnectEnd={onConnectEnd}
              onDelete={onDelete}
              onSelectionChange={onSelectionChange}
              deleteKeyCode={["Delete", "Backspace"]}
              multiSelectionKeyCode={["Shift", "Meta", "Control"]}
              colorMode={dark ? "dark" : "light"}
              fitView
              fitViewOptions={FIT}
              zoomOnDoubleClick={false}
              minZoom={0.1}
              onlyRenderVisibleElements={nodes.length > 150}
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls showInteractive={false} fitViewOptions={FIT} />
              <MiniMap pannable zoomable style={{ width: 140, height: 100 }} />
            </ReactFlow>
          </Canvas.Provider>
        </div>
        <aside className="graphnb-side">
          <BindingPanel
            spec={spec}
            node={selectedNode}
            edge={selectedEdge}
            callables={callables ?? []}
            inspect={inspect}
            onBind={(id, b) => history.commit(edit.bindNode(spec, id, b))}
            onBindRouter={(s, b) => history.commit(edit.bindRouter(spec, s, b))}
            onEdgeKind={(e, kind) => history.commit(edit.setEdgeKind(spec, edit.edgeKey(e), kind))}
            onRoute={(e, route) => route !== e.route && history.commit(edit.setRoute(spec, edit.edgeKey(e), route))}
            onRefresh={() => send({ type: "refresh" })}
          />
          <StateModelPanel spec={spec} models={models ?? []} onUse={(binding) => send({ type: "use_model", binding })} />
          <RunPanel
            run={run}
            chunks={chunks.run === run.id ? chunks.text : run.chunks}
            model={currentModel}
            threads={threads}
            saver={saver ?? ""}
            onSaver={(url) => send({ type: "use_saver", url })}
            registerRun={(fn) => {
              runWith.current = fn;
            }}
            onInputError={setInputError}
            onRun={(input, threadId) => send({ type: "run", input, thread_id: threadId })}
            onStop={() => send({ type: "stop" })}
            onSelectNode={selectNode}
          />
          <StatePanel run={run} />
          <ProblemsPanel problems={problems ?? []} onSelectNode={selectNode} />
        </aside>
      </div>
    </div>
  );
}

export function Builder() {
  return (
    <ReactFlowProvider>
      <Editor />
    </ReactFlowProvider>
  );
}
