// The run's timeline, as the page sees it: a bar per node run, from when the node was
// seen running to its end (its exact duration, measured by the engine, sets the width).
// Times are the page's, so a start is known to the run picture's pace (50 ms); a node
// never seen running (it ran between two pictures) is placed back from where it ended.

import { useRef } from "react";
import type { RunState } from "../protocol";

// A node that failed, or stopped in interrupt() or at a breakpoint: its bar ends there.
const STOPPED = new Set(["error", "waiting", "paused", "idle"]);

export type Bar = { node: string; index: number; start: number; end: number | null; status: string };

type Track = { run: string | null; t0: number; bars: Bar[]; runs: Record<string, number> };

export function useTimeline(run: RunState): { bars: Bar[]; now: number } {
  const track = useRef<Track>({ run: null, t0: 0, bars: [], runs: {} });
  const now = performance.now();
  const t = track.current;
  // A checkpoint shown from the history is no run: it has no timeline.
  if (run.id === null || run.id.startsWith("checkpoint:")) return { bars: [], now: 0 };
  if (t.run !== run.id) {
    track.current = { run: run.id, t0: now, bars: [], runs: {} };
  }
  const current = track.current;
  const at = now - current.t0;
  for (const [node, record] of Object.entries(run.nodes)) {
    const open = current.bars.find((b) => b.node === node && b.end === null);
    const finished = current.runs[node] ?? 0;
    if (record.status === "running" && !open) {
      current.bars.push({ node, index: finished, start: at, end: null, status: "running" });
    } else if (record.runs > finished || (open && STOPPED.has(record.status))) {
      const took = (record.duration ?? 0) * 1000;
      if (open) {
        open.end = open.start + (took || at - open.start);
        open.status = record.status;
      } else current.bars.push({ node, index: finished, start: Math.max(0, at - took), end: at, status: record.status });
      current.runs[node] = record.runs;
    }
  }
  return { bars: current.bars, now: at };
}
