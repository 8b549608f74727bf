// The run's status in words, for the toolbar: what the run is doing, never more hopeful
// than the kernel's picture (a paused run is not "done", a waiting node does not run).

import { formatDuration } from "./format";
import type { NodeStatus, RunState } from "./protocol";

/** A node's status as an icon before its binding. */
export const STATUS_ICON: Record<NodeStatus, string> = {
  idle: "",
  pending: "…",
  running: "●",
  done: "✓",
  error: "✗",
  paused: "‖",
  waiting: "?",
};

/** What a stopped node says under its name instead of its duration. */
export const STOPPED_TEXT: Partial<Record<NodeStatus, string>> = {
  paused: "paused before it",
  waiting: "waiting for an answer",
};

export type RunSummary = { text: string; tone: RunState["status"] } | null;

function nodesWith(run: RunState, status: NodeStatus): string[] {
  return Object.entries(run.nodes)
    .filter(([, record]) => record.status === status)
    .map(([name]) => name);
}

function listed(names: string[]): string {
  return names.length > 3 ? `${names.slice(0, 3).join(", ")} +${names.length - 3}` : names.join(", ");
}

/** One line saying where the run is; null when no run has happened yet. */
export function runSummary(run: RunState): RunSummary {
  const tone = run.status;
  switch (run.status) {
    case "running":
      return { text: run.active.length ? `running ${listed(run.active)}` : "running", tone };
    case "paused": {
      const at = nodesWith(run, "paused");
      return { text: at.length ? `paused before ${listed(at)}` : "paused", tone };
    }
    case "waiting": {
      const at = nodesWith(run, "waiting");
      const n = Math.max(at.length, 1);
      return { text: `waiting for ${n === 1 ? "an answer" : `${n} answers`}${at.length ? ` from ${listed(at)}` : ""}`, tone };
    }
    case "error":
      return { text: run.error?.node ? `failed at ${run.error.node}` : "failed", tone };
    case "stopped":
      return { text: "stopped", tone };
    case "done":
      return { text: run.elapsed != null ? `done · ${formatDuration(run.elapsed)}` : "done", tone };
    default:
      return null;
  }
}
