// Which run the canvas and the run panels show: the live run (the last one started, from
// here or from code) or a checkpoint picked in a thread's history. Said in words on the
// canvas, with one click to switch back (issue 31: a run never loses its picture).

import { useEffect, useRef, useState } from "react";
import type { RunState } from "./protocol";

/** A checkpoint drawn as a run (graphnb/widget/debugger.py's picture) has an id like this. */
export function isCheckpoint(run: RunState): boolean {
  return run.id !== null && run.id.startsWith("checkpoint:");
}

export type RunView = {
  /** What the canvas and the run panels draw. */
  shown: RunState;
  /** The live run, kept while a checkpoint is on screen. */
  live: RunState;
  /** The picked checkpoint, or null when none was picked. */
  checkpoint: RunState | null;
  viewing: "live" | "checkpoint";
  show(which: "live" | "checkpoint"): void;
};

/** `run`: the run trait, which holds either the live run or the checkpoint picked last. */
export function useRunView(run: RunState, idle: RunState): RunView {
  const live = useRef(idle);
  if (!isCheckpoint(run)) live.current = run;
  const checkpoint = isCheckpoint(run) ? run : null;
  const [wanted, setWanted] = useState<"live" | "checkpoint">("checkpoint");
  // A new picture (a checkpoint picked, a run started) is shown as it arrives.
  useEffect(() => setWanted("checkpoint"), [run.id]);
  const viewing = checkpoint && wanted === "checkpoint" ? "checkpoint" : "live";
  return { shown: viewing === "checkpoint" && checkpoint ? checkpoint : live.current, live: live.current, checkpoint, viewing, show: setWanted };
}

function stepOf(run: RunState): number | null {
  return run.steps.at(-1)?.step ?? null;
}

export function RunViewBar(props: { view: RunView }) {
  const { view } = props;
  const { checkpoint } = view;
  if (!checkpoint) return null;
  const step = stepOf(checkpoint);
  const where = `thread ${checkpoint.thread_id ?? "?"}${step === null ? "" : `, step ${step}`}`;
  if (view.viewing === "checkpoint")
    return (
      <div className="graphnb-run-view graphnb-run-view-history nodrag nopan" role="status" data-testid="run-view" data-view="checkpoint">
        <strong>History</strong>: a saved checkpoint of {where}, not the live run.{" "}
        {view.live.id !== null && (
          <button type="button" data-testid="run-view-live" onClick={() => view.show("live")}>
            Show the live run
          </button>
        )}
      </div>
    );
  return (
    <div className="graphnb-run-view nodrag nopan" role="status" data-testid="run-view" data-view="live">
      <strong>Live run</strong>{view.live.thread_id ? ` of thread ${view.live.thread_id}` : ""}.{" "}
      <button type="button" data-testid="run-view-checkpoint" onClick={() => view.show("checkpoint")}>
        Show the checkpoint ({where})
      </button>
    </div>
  );
}
