// The stores the canvas's nodes subscribe to: each node re-renders only when its own
// slice of the run or of the problems changes.

import { useEffect, useMemo } from "react";
import type { ProblemInfo, RunState } from "../protocol";
import { createStore } from "../store";

/** Problems by the id of each node they name. */
export function problemsByNode(problems: ProblemInfo[]): Record<string, ProblemInfo[]> {
  const byNode: Record<string, ProblemInfo[]> = {};
  for (const p of problems) for (const id of p.nodes) (byNode[id] ??= []).push(p);
  return byNode;
}

export function useCanvasStores(run: RunState, problems: ProblemInfo[] | undefined) {
  const runStore = useMemo(() => createStore<RunState>(run), []);
  const problemStore = useMemo(() => createStore<Record<string, ProblemInfo[]>>({}), []);
  useEffect(() => runStore.set(run), [run, runStore]);
  useEffect(() => problemStore.set(problemsByNode(problems ?? [])), [problems, problemStore]);
  return { run: runStore, problems: problemStore };
}
