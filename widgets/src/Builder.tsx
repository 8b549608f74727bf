// The builder: toolbar, canvas and side panels, wired to the Python model. State and
// message handling live in hooks/, the parts it draws in their own files.

import { useModel, useModelState } from "@anywidget/react";
import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { FIT } from "./flow";
import { GraphCanvas } from "./GraphCanvas";
import { useCanvasEditing } from "./hooks/useCanvasEditing";
import { useCanvasStores } from "./hooks/useCanvasStores";
import { useConnection } from "./hooks/useConnection";
import { useDarkTheme } from "./hooks/useDarkTheme";
import { gateShortcuts, useFocusKeeper } from "./hooks/useFocus";
import { useFitWhenShown } from "./hooks/useFitWhenShown";
import { useHistory } from "./hooks/useHistory";
import { useServerMessages } from "./hooks/useServerMessages";
import { useUndoKeys } from "./hooks/useUndoKeys";
import type { CanvasContext } from "./nodes";
import { BindingPanel } from "./panels/BindingPanel";
import { ChatPanel } from "./panels/ChatPanel";
import { TimelinePanel } from "./panels/TimelinePanel";
import { useBreakpointStore } from "./hooks/useBreakpoints";
import { DebugPanels } from "./panels/DebugPanels";
import { ProblemsPanel } from "./panels/ProblemsPanel";
import { RunPanel } from "./panels/RunPanel";
import { StateModelPanel } from "./panels/StateModelPanel";
import { StatePanel } from "./panels/StatePanel";
import type { ClientMessage, EdgeSpec, GraphSpec, Model, ProblemInfo, RunState } from "./protocol";
import { runBlock } from "./runInput";
import * as edit from "./spec";
import { Toolbar } from "./Toolbar";

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
  const connection = useConnection(model);
  const history = useHistory(spec, setSpec, refit, connection.live);
  const { run: runStore, problems: problemStore } = useCanvasStores(run, problems);
  const { chunks, inspect, exportExists, setExportExists } = useServerMessages(model, send, run);
  const { root, keepFocus } = useFocusKeeper();
  const editing = useCanvasEditing(spec, history, keepFocus);
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
  const { rename, setRoute } = editing;
  const breakpoints = useBreakpointStore();
  const canvas: CanvasContext = useMemo(
    () => ({ run: runStore, problems: problemStore, rename, setRoute, breakpoints }),
    [runStore, problemStore, rename, setRoute, breakpoints],
  );

  // The toolbar's Run runs with the run panel's current input ...
  const runWith = useRef<(() => void) | null>(null);
  // ... and both are disabled, saying why, while the graph has problems or that input
  // would be refused.
  const [inputError, setInputError] = useState<string | null>(null);
  const blocked = useMemo(() => runBlock(problems ?? [], inputError), [problems, inputError]);
  const { selection } = editing;
  const selectedNode = selection.nodes.length === 1 ? (spec.nodes.find((n) => n.id === selection.nodes[0]) ?? null) : null;
  const selectedEdge: EdgeSpec | null =
    !selectedNode && selection.edges.length === 1
      ? (spec.edges.find((e) => edit.edgeKey(e) === selection.edges[0]) ?? null)
      : null;
  const currentModel = models?.find((m) => m.binding === spec.state.binding) ?? null;
  const running = run.status === "running";

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
      data-connection={connection.live ? "live" : connection.final ? "lost" : "away"}
      onKeyDown={onKeyDown}
      onKeyDownCapture={gateShortcuts}
      style={{ height: `${height || 560}px` }}
    >
      <Toolbar
        editable={connection.live}
        spec={spec}
        history={history}
        nothingSelected={!selection.nodes.length && !selection.edges.length}
        running={running}
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
        onExport={(overwrite) => {
          setExportExists(null);
          send(overwrite ? { type: "export", overwrite } : { type: "export" });
        }}
        exportExists={exportExists}
        onCancelExport={() => setExportExists(null)}
      />
      <div className="graphnb-main">
        <GraphCanvas editing={editing} context={canvas} dark={dark} connection={connection} onMoveStart={onMoveStart} />
        <aside className="graphnb-side">
          <fieldset className="graphnb-editable" disabled={!connection.live}>
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
          <StateModelPanel spec={spec} models={models ?? []} onUse={(binding) => send({ type: "use_model", binding })} />
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
          />
          <StatePanel run={run} />
          <ChatPanel run={run} chunks={chunks} />
          <TimelinePanel run={run} />
          {threads && <DebugPanels model={model} spec={spec} run={run} state={currentModel} selected={selectedNode?.id ?? null} />}
          <ProblemsPanel problems={problems ?? []} onSelectNode={editing.selectNode} />
          </fieldset>
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
