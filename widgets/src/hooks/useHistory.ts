// Undo and redo over whole specs; changes from Python (layout, state model) count too.

import { useCallback, useEffect, useRef, useState } from "react";
import * as steps from "../history";
import type { GraphSpec } from "../protocol";

export type HistoryControls = {
  commit(next: GraphSpec): void;
  undo(): void;
  redo(): void;
  canUndo: boolean;
  canRedo: boolean;
};

/**
 * `onRemote` runs when a spec that differs from the last one arrives from the model, with
 * the spec it replaces.
 * While `editable` is false (the view lost its kernel) edits, undo and redo do nothing.
 */
export function useHistory(
  spec: GraphSpec,
  setSpec: (s: GraphSpec) => void,
  onRemote: (before: GraphSpec, after: GraphSpec) => void,
  editable = true,
): HistoryControls {
  const history = useRef(steps.startHistory(spec));
  const enabled = useRef(editable);
  enabled.current = editable;
  const [, bump] = useState(0);
  useEffect(() => {
    const before = history.current.present;
    const received = steps.receive(history.current, spec);
    history.current = received.history;
    if (received.changed) {
      bump((n) => n + 1);
      onRemote(before, spec);
    }
  }, [spec, onRemote]);
  const commit = useCallback(
    (next: GraphSpec) => {
      if (!enabled.current) return;
      const after = steps.record(history.current, next);
      if (after === history.current) return;
      history.current = after;
      setSpec(next);
      bump((n) => n + 1);
    },
    [setSpec],
  );
  const move = useCallback(
    (step: (h: steps.History) => steps.History) => {
      if (!enabled.current) return;
      const after = step(history.current);
      if (after === history.current) return;
      history.current = after;
      setSpec(after.present);
      bump((n) => n + 1);
    },
    [setSpec],
  );
  return {
    commit,
    undo: () => move(steps.undo),
    redo: () => move(steps.redo),
    canUndo: editable && history.current.past.length > 0,
    canRedo: editable && history.current.future.length > 0,
  };
}
