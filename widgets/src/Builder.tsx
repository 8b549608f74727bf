// The builder: toolbar, canvas and side panels, wired to the Python model. State and
// message handling live in hooks/, the parts it draws in their own files.

import { useModel, useModelState } from "@anywidget/react";
import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { FIT, isNewDrawing } from "./flow";
import { setCollapsed } from "./groups";
import { GraphCanvas } from "./GraphCanvas";
import { useCanvasEditing } from "./hooks/useCanvasEditing";
import { useCanvasStores } from "./hooks/useCanvasStores";
import { useConnection } from "./hooks/useConnection";
import { useDarkTheme } from "./hooks/useDarkTheme";
import { gateShortcuts, useFocusKeeper } from "./hooks/useFocus";
import { useFitWhenShown } from "./hooks/useFitWhenShown";
import { useHistory } from "./hooks/useHistory";
import { useAsk, useInspect } from "./hooks/useKernel";
import { useStream } from "./hooks/useStream";
import { useUndoKeys } from "./hooks/useUndoKeys";
import { scopeKeys, useSubgraphScope } from "./hooks/useSubgraphScope";
import { useEditorTools } from "./hooks/useEditorTools";
import { useLevelOfDetail } from "./hooks/useLevelOfDetail";
import { useKeptDrawing } from "./hooks/useKeptDrawing";
import { useStubCells } from "./hooks/useStubCells";
import { usePaletteDrop } from "./hooks/usePaletteDrop";
import { useRoom } from "./hooks/useRoom";
import { CanvasCorner } from "./panels/CanvasCorner";
import { EditorOverlays } from "./panels/EditorOverlays";
import { InspectPanel } from "./panels/InspectPanel";
import { KeptDrawing } from "./panels/KeptDrawing";
import { Palette } from "./panels/Palette";
import type { CanvasContext } from "./canvasContext";
import { BindingPanel } from "./panels/BindingPanel";
import { PolicyFields } from "./panels/PolicyFields";
import { SubgraphPanel } from "./panels/SubgraphPanel";
import { setPolicies } from "./policy";
import { ScopeBar } from "./ScopeBar";
import { Groups } from "./SubgraphNode";
import { bindSubgraph, detachSubgraph, scopeRun } from "./subgraphs";
import { ChatPanel } from "./panels/ChatPanel";
import { TimelinePanel } from "./panels/TimelinePanel";
import { useBreakpointStore } from "./hooks/useBreakpoints";
import { DebugPanels } from "./panels/DebugPanels";
import { ProblemsPanel } from "./panels/ProblemsPanel";
import { RunPanel } from "./panels/RunPanel";
import { StateModelPanel } from "./panels/StateModelPanel";
import { StatePanel } from "./panels/StatePanel";
import { DIRECTION_KEY, type Request, type EdgeSpec, type GraphInfo, type GraphSpec, type Model, type ProblemInfo, type RunState } from "./protocol";
import { disconnectedBlock, runBlock } from "./runInput";
import * as edit from "./spec";
import { NoThreads, SidePanel } from "./SidePanel";
import { Toolbar } from "./Toolbar";
import { RunViewBar, useRunView } from "./RunView";

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

function Editor() {
  const model = useModel<Model>();
  const [rootSpec] = useModelState<GraphSpec>("spec");
  const [graphs] = useModelState<GraphInfo[]>("graphs");
  const [reported] = useModelState<ProblemInfo[]>("problems");
  const [callables] = useModelState<Model["callables"]>("callables");
  // A node bound to a stub whose cell has not run yet waits for it (see useStubCells).
  const stubs = useStubCells(reported, rootSpec, callables);
  const { problems } = stubs;
  const [models] = useModelState<Model["models"]>("models");
  const [runTrait] = useModelState<RunState>("run_state");
  const [threads] = useModelState<boolean>("saves_threads");
  const [saver] = useModelState<string>("saver");
  const [notice] = useModelState<string>("notice");
  const [exportStatus] = useModelState<string>("export_status");
  const [height] = useModelState<number>("height");
  const runPicture = runTrait && runTrait.status ? runTrait : IDLE_RUN;
  // The live run or the checkpoint picked in a thread's history, as the user chose.
  const runView = useRunView(runPicture, IDLE_RUN);
  const run = runView.shown;
  const flow = useReactFlow();
  const dark = useDarkTheme();

  // Every request goes to the kernel's one dispatcher and gets its typed reply (useKernel);
  // the canvas's own actions tell a failure in the notice, so their replies are not read.
  const ask = useAsk();
  const send = useCallback((request: Request) => void ask(request), [ask]);
  const inspect = useInspect(ask);
  /** The file an export would replace, awaiting the user's choice; null when none. */
  const [exportExists, setExportExists] = useState<string | null>(null);
  /** Whether the export awaiting that choice is for serving. */
  const exportServe = useRef(false);
  const exportGraph = useCallback(
    async (overwrite: boolean, serve: boolean) => {
      setExportExists(null);
      exportServe.current = serve;
      const reply = await ask({ type: "export", ...(overwrite && { overwrite }), ...(serve && { serve }) });
      if (reply.error === null) setExportExists(reply.exists);
    },
    [ask],
  );
  const setSpec = useCallback(
    (next: GraphSpec) => {
      model.set("spec", next);
      model.save_changes();
    },
    [model],
  );
  // The view moves only when the user asks: Fit, Layout, opening a subgraph, or a new
  // drawing from Python (another graph, a layout), fitted once its nodes are measured. A
  // state model picked or a binding made leaves the user's pan and zoom as they were.
  const refit = useCallback(() => {
    window.setTimeout(() => flow.fitView({ ...FIT, duration: 200 }), 60);
  }, [flow]);
  const refitNewDrawing = useCallback(
    (before: GraphSpec, after: GraphSpec) => {
      if (isNewDrawing(before, after)) refit();
    },
    [refit],
  );
  const connection = useConnection(model);
  const rootHistory = useHistory(rootSpec, setSpec, refitNewDrawing, connection.live);
  // The canvas shows (and edits) the top graph or an opened subgraph: see useSubgraphScope.
  const scope = useSubgraphScope(rootSpec, rootHistory, refit);
  const { spec, history } = scope;
  const scopedRun = useMemo(() => scopeRun(run, scope.path), [run, scope.path]);
  const { run: runStore, problems: problemStore } = useCanvasStores(scopedRun, scope.path.length ? [] : problems);
  const { chunks, pieces } = useStream(model, run);
  const { root, keepFocus } = useFocusKeeper();
  const editing = useCanvasEditing(spec, history, keepFocus, scope.expanded);
  const onKeyDown = useUndoKeys(history, keepFocus);
  const onFitMoveStart = useFitWhenShown(editing.wrapper);
  const { onUserMove } = editing;
  const onMoveStart = useCallback(
    (event: MouseEvent | TouchEvent | null) => {
      onFitMoveStart(event);
      if (event) onUserMove(); // a move by the user (programmatic moves have no event)
    },
    [onFitMoveStart, onUserMove],
  );
  // What the cards and edges read besides their props. Stable across renders: a new context
  // re-renders every card and edge drawn (a click at 1,000 nodes re-rendered the 300 on
  // screen), and the history and the edits made new functions on every render. So its
  // functions call the latest ones.
  const latest = useRef({ spec, editing, commit: history.commit });
  latest.current = { spec, editing, commit: history.commit };
  const breakpoints = useBreakpointStore();
  const canvas: CanvasContext = useMemo(
    () => ({
      run: runStore,
      problems: problemStore,
      rename: (from, to) => latest.current.editing.rename(from, to),
      setRoute: (source, target, route) => latest.current.editing.setRoute(source, target, route),
      expandGroup: (id) => latest.current.commit(setCollapsed(latest.current.spec, id, false)),
      breakpoints,
    }),
    [runStore, problemStore, breakpoints],
  );

  // The toolbar's Run runs with the run panel's current input ...
  const runWith = useRef<(() => void) | null>(null);
  // ... and both are disabled, saying why, while the graph has problems or that input
  // would be refused.
  const [inputError, setInputError] = useState<string | null>(null);
  const blocked = useMemo(
    () => (connection.live ? runBlock(problems ?? [], inputError) : disconnectedBlock(connection)),
    [problems, inputError, connection],
  );
  const { selection } = editing;
  const selectedNode = selection.nodes.length === 1 ? (spec.nodes.find((n) => n.id === selection.nodes[0]) ?? null) : null;
  const selectedEdge: EdgeSpec | null =
    !selectedNode && selection.edges.length === 1
      ? (spec.edges.find((e) => edit.edgeKey(e) === selection.edges[0]) ?? null)
      : null;
  const currentModel = models?.find((m) => m.binding === spec.state.binding) ?? null;
  const running = run.status === "running";
  const groups = useMemo(() => ({ toggle: scope.toggle, open: scope.open }), [scope.toggle, scope.open]);
  // The editor's tools (issue 13): palette, menus, clipboard, shortcuts, inspection, room.
  const room = useRoom(root);
  const useModelBinding = useCallback((binding: string) => send({ type: "use_model", binding }), [send]);
  // The node menu's "Set breakpoint" toggles "pause before", as the Breakpoints panel does.
  const toggleBreakpoint = useCallback(
    (node: string) => {
      const on = !(breakpoints.get()[node] ?? []).includes("before");
      void ask({ type: "debug_breakpoint", node, when: "before", on });
    },
    [ask, breakpoints],
  );
  const tools = useEditorTools({
    model,
    root,
    spec,
    history,
    editing,
    editable: connection.live,
    keepFocus,
    useModel: useModelBinding,
    onBreakpoint: threads ? toggleBreakpoint : undefined, // breakpoints pause saved threads
    onStub: stubs.wait,
  });
  usePaletteDrop(editing.wrapper, spec, history, connection.live, useModelBinding);
  useLevelOfDetail(editing.wrapper);
  const kept = useKeptDrawing({ model, root, spec, live: connection.live, restore: history.commit });

  useEffect(() => {
    console.debug(`[graphnb] builder ready: ${spec.nodes.length} nodes, ${spec.edges.length} edges`);
  }, []);

  return (
    <div
      ref={root}
      tabIndex={-1}
      className={`graphnb-builder${room.maximised ? " graphnb-maximised" : ""}`}
      data-testid="graphnb-builder"
      data-lm-suppress-shortcuts="true"
      data-run-status={run.status}
      data-connection={connection.live ? "live" : connection.final ? "lost" : "away"}
      onKeyDown={(e) => {
        scopeKeys(e, scope, selectedNode, keepFocus);
        if (!e.defaultPrevented) tools.onKeyDown(e);
        if (!e.defaultPrevented) onKeyDown(e);
      }}
      onKeyDownCapture={gateShortcuts}
      style={{ height: `${height || 560}px` }}
    >
      <Toolbar
        editable={connection.live}
        spec={spec}
        history={history}
        nothingSelected={!selection.nodes.length && !selection.edges.length}
        running={running}
        run={runView.live /* the live run, also while a checkpoint is shown */}
        blocked={blocked}
        exportStatus={exportStatus}
        notice={notice}
        onAddNode={editing.addNode}
        onDelete={() => editing.deleteSelected(selection.nodes, selection.edges)}
        onLayout={() => send({ type: "layout" })}
        onFit={() => {
          editing.onUserMove();
          void flow.fitView({ ...FIT, duration: 300 });
        }}
        onRun={() => runWith.current?.()}
        onStop={() => send({ type: "stop" })}
        onExport={(serve) => void exportGraph(false, serve)}
        onOverwriteExport={() => void exportGraph(true, exportServe.current)}
        exportExists={exportExists}
        onCancelExport={() => setExportExists(null)}
      />
      <ScopeBar top={rootSpec.name} path={scope.path} onUp={scope.up} />
      <div className="graphnb-main">
        <Palette
          callables={callables ?? []}
          models={models ?? []}
          open={room.paletteOpen}
          onToggle={room.togglePalette}
          onAdd={tools.addFromPalette}
        />
        <Groups.Provider value={groups}>
        <GraphCanvas
          editing={editing}
          context={canvas}
          dark={dark}
          connection={connection}
          onMoveStart={onMoveStart}
          viewing={runView.viewing}
        >
          <RunViewBar view={runView} />
          <CanvasCorner
            room={room}
            message={tools.message}
            onSearch={() => tools.setDialog({ kind: "search" })}
            onShortcuts={() => tools.setDialog({ kind: "shortcuts" })}
            leftRight={spec.metadata?.[DIRECTION_KEY] === "LR"}
            onTurn={() => send({ type: "layout", direction: spec.metadata?.[DIRECTION_KEY] === "LR" ? "TB" : "LR" })}
          />
          <KeptDrawing
            choice={kept.choice}
            restored={kept.restored}
            onUndo={() => {
              history.undo();
              kept.clearRestored();
            }}
            onClose={kept.clearRestored}
          />
        </GraphCanvas>
        </Groups.Provider>
        <div
          className="graphnb-splitter"
          data-testid="side-splitter"
          role="separator"
          aria-orientation="vertical"
          title="drag to resize the side panel"
          hidden={!room.sideOpen}
          onPointerDown={room.onSplitterDown}
        />
        <SidePanel
          width={room.sideWidth}
          hidden={!room.sideOpen}
          editable={connection.live}
          selection={selectedNode ? `node:${selectedNode.id}` : selectedEdge ? `edge:${edit.edgeKey(selectedEdge)}` : ""}
          running={runPicture.status === "running" ? runPicture.id : null}
          badges={{ run: problems?.length ? `⚠ ${problems.length}` : undefined }}
          node={
            <>
              {selectedNode && <InspectPanel run={run} node={selectedNode.id} pieces={pieces} />}
              <BindingPanel
                spec={spec}
                node={selectedNode}
                edge={selectedEdge}
                callables={callables ?? []}
                inspect={inspect}
                onBind={(id, b) => history.commit(edit.bindNode(spec, id, b))}
                onBindRouter={(s, b) => history.commit(edit.bindRouter(spec, s, b))}
                onEdgeKind={(e, kind) => history.commit(edit.setEdgeKind(spec, edit.edgeKey(e), kind))}
                onRoute={(e, text) => {
                  const route = edit.routeFromText(e, text);
                  if (route !== null) history.commit(edit.setRoute(spec, edit.edgeKey(e), route));
                }}
                onRefresh={() => send({ type: "refresh" })}
              />
              {selectedNode && (
                <SubgraphPanel
                  node={selectedNode}
                  graphs={graphs ?? []}
                  onBind={(g) => history.commit(bindSubgraph(spec, selectedNode.id, g.spec, g.name))}
                  onDetach={() => history.commit(detachSubgraph(spec, selectedNode.id))}
                  onOpen={() => scope.open(selectedNode.id)}
                  onRename={(to) => editing.rename(selectedNode.id, to)}
                />
              )}
              {selectedNode && !selectedNode.subgraph && (
                <PolicyFields node={selectedNode} onChange={(p) => history.commit(setPolicies(spec, selectedNode.id, p))} />
              )}
            </>
          }
          run={
            <>
              {/* Problems first while there are any (they keep Run off), else last. */}
              {problems?.length ? <ProblemsPanel problems={problems} onSelectNode={editing.selectNode} /> : null}
              <RunPanel
                run={run}
                chunks={chunks}
                model={currentModel}
                threads={threads}
                saver={saver ?? ""}
                onSaver={(url) => send({ type: "use_saver", url })}
                registerRun={(fn) => {
                  runWith.current = fn;
                }}
                onInputError={setInputError}
                blocked={blocked}
                onRun={(input, threadId) => send({ type: "run", input, thread_id: threadId })}
                onStop={() => send({ type: "stop" })}
                onSelectNode={editing.selectNode}
                pieces={pieces.run === run.id ? pieces.pieces : undefined}
              />
              <ChatPanel run={run} chunks={chunks} />
              <TimelinePanel run={run} />
              {!problems?.length && <ProblemsPanel problems={[]} onSelectNode={editing.selectNode} />}
            </>
          }
          state={
            <>
              <StateModelPanel spec={spec} models={models ?? []} onUse={(binding) => send({ type: "use_model", binding })} />
              <StatePanel run={run} />
            </>
          }
          threads={
            threads ? (
              <DebugPanels ask={ask} spec={spec} run={runPicture} state={currentModel} selected={selectedNode?.id ?? null} />
            ) : (
              <NoThreads />
            )
          }
        />
      </div>
      <EditorOverlays
        tools={tools}
        spec={spec}
        selected={selection.nodes}
        callables={callables ?? []}
        inspect={inspect}
        onSelectNode={editing.selectNode}
      />
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
