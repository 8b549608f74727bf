// The debugger's side panels, shown when runs belong to threads: the threads list and the
// picked thread's history. Both are read again when a run (not a checkpoint shown on the
// canvas, whose run id starts with "checkpoint:") ends.

import { useModelState } from "@anywidget/react";
import { useRef, useState } from "react";
import type { Ask } from "../hooks/useKernel";
import type { GraphSpec, Model, ModelInfo, PauseInfo, RunState } from "../protocol";
import { InSlot } from "../SidePanel";
import { HistoryPanel } from "./HistoryPanel";
import { PausePanel } from "./PausePanel";
import { ThreadsPanel } from "./ThreadsPanel";

export function DebugPanels(props: {
  ask: Ask;
  spec: GraphSpec;
  run: RunState;
  state: ModelInfo | null;
  selected: string | null;
}) {
  const { ask } = props;
  const [breakpoints] = useModelState<Record<string, string[]>>("breakpoints");
  const [pausedTrait] = useModelState<Model["paused"]>("paused");
  const paused = pausedTrait && "thread_id" in pausedTrait ? (pausedTrait as PauseInfo) : null;
  const [note, setNote] = useState("");
  const [picked, setPicked] = useState<string | null>(null);
  const { run } = props;
  const ended = useRef("");
  const real = run.id !== null && !run.id.startsWith("checkpoint:");
  if (real && run.status !== "running") ended.current = `${run.id}:${run.status}`;
  const running = run.status === "running";
  return (
    <>
      <PausePanel
        ask={ask}
        selected={props.selected}
        breakpoints={breakpoints ?? {}}
        paused={paused}
        running={run.status === "running"}
        onNote={setNote}
      />
      {/* What a pause's button or an answer met (a busy thread): said in the side panel's
          head, where those are, whatever tab is open. */}
      {note && (
        <InSlot slot="attention">
          <p className="graphnb-error-text" data-testid="debug-note">
            {note}
          </p>
        </InSlot>
      )}
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
