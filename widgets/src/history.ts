// Undo and redo over whole specs, as pure steps: the hook (hooks/useHistory.ts) keeps one
// History and renders; these functions decide what the stacks hold.

import type { GraphSpec } from "./protocol";

/** How many earlier specs undo can go back to. */
export const HISTORY_LIMIT = 200;

export type History = { past: GraphSpec[]; present: GraphSpec; future: GraphSpec[] };

export function startHistory(present: GraphSpec): History {
  return { past: [], present, future: [] };
}

/** A new spec (an edit here, or a change from Python): the old one goes on the undo stack. */
export function record(history: History, next: GraphSpec): History {
  if (next === history.present) return history;
  return { past: [...history.past, history.present].slice(-HISTORY_LIMIT), present: next, future: [] };
}

/**
 * A spec from the model (Python's layout or state model, or the echo of an edit here): a
 * real change is recorded like an edit (`changed`); an equal copy only replaces the present.
 */
export function receive(history: History, spec: GraphSpec): { history: History; changed: boolean } {
  if (spec === history.present) return { history, changed: false };
  if (JSON.stringify(spec) === JSON.stringify(history.present)) return { history: { ...history, present: spec }, changed: false };
  return { history: record(history, spec), changed: true };
}

export function undo(history: History): History {
  const previous = history.past.at(-1);
  if (!previous) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [...history.future, history.present] };
}

export function redo(history: History): History {
  const next = history.future.at(-1);
  if (!next) return history;
  return { past: [...history.past, history.present], present: next, future: history.future.slice(0, -1) };
}
