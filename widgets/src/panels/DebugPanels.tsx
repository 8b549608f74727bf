// The debugger's side panels, shown when runs belong to threads: the threads list and the
// picked thread's history. Both are read again when a run (not a checkpoint shown on the
// canvas, whose run id starts with "checkpoint:") ends.

import type { AnyModel } from "@anywidget/types";
import { useRef, useState } from "react";
import { useDebugger } from "../hooks/useDebugger";
import type { GraphSpec, Model, ModelInfo, RunState } from "../protocol";
import { HistoryPanel } from "./HistoryPanel";
import { ThreadsPanel } from "./ThreadsPanel";

export function DebugPanels(props: { model: AnyModel<Model>; spec: GraphSpec; run: RunState; state: ModelInfo | null }) {
  const ask = useDebugger(props.model);
  const [picked, setPicked] = useState<string | null>(null);
  const { run } = props;
  const ended = useRef("");
  const real = run.id !== null && !run.id.startsWith("checkpoint:");
  if (real && run.status !== "running") ended.current = `${run.id}:${run.status}`;
  const running = run.status === "running";
  return (
    <>
      <ThreadsPanel ask={ask} picked={picked} onPick={(t) => setPicked(t.thread_id)} refresh={ended.current} />
      {picked && (
        <HistoryPanel
          key={picked}
          ask={ask}
          threadId={picked}
          schema={props.state?.json_schema ?? null}
          fields={props.state?.fields ?? []}
          nodes={props.spec.nodes.map((n) => n.id)}
          running={running}
          refresh={ended.current}
        />
      )}
    </>
  );
}
