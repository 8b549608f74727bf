// "New function" (the node menu) inserts a stub in a cell below the builder and binds the
// node to it; the function exists once that cell runs. Until then the node is waiting for
// its cell, not broken: its `unresolved` problem reads as waiting (the node says "runs once
// its cell runs", Run stays blocked saying why). The kernel rescans the notebook after every
// executed cell (`callables`, as the palette learns of new functions), so the wait ends
// when the function shows up there, and the node is then bound like any other.

import { useCallback, useMemo, useState } from "react";
import type { CallableInfo, GraphSpec, ProblemInfo } from "../protocol";

/** The problem code of a node waiting for its stub's cell to run (see nodes.tsx). */
export const WAITING = "waiting";

/** `problems` with the `unresolved` problem of each node still waiting for its cell as `waiting`. */
export function withWaiting(
  problems: ProblemInfo[],
  waiting: Record<string, string>,
  spec: GraphSpec,
  callables: CallableInfo[],
): ProblemInfo[] {
  const defined = new Set(callables.flatMap((c) => [c.name, c.binding]));
  const bound = new Map(spec.nodes.map((n) => [n.id, n.binding]));
  const waits = (id: string) => {
    const name = waiting[id];
    return name !== undefined && bound.get(id) === name && !defined.has(name);
  };
  return problems.map((p) =>
    p.code === "unresolved" && p.nodes.length === 1 && waits(p.nodes[0])
      ? { ...p, code: WAITING, message: `${p.nodes[0]} runs ${waiting[p.nodes[0]]} once its cell below the builder runs` }
      : p,
  );
}

export function useStubCells(
  problems: ProblemInfo[] | undefined,
  spec: GraphSpec | undefined,
  callables: CallableInfo[] | undefined,
) {
  const [waiting, setWaiting] = useState<Record<string, string>>({});
  const wait = useCallback((node: string, name: string) => setWaiting((w) => ({ ...w, [node]: name })), []);
  const shown = useMemo(
    () => (problems && spec ? withWaiting(problems, waiting, spec, callables ?? []) : problems),
    [problems, waiting, spec, callables],
  );
  return { problems: shown, wait };
}
