// Which subgraph the canvas shows and edits (the scope: node ids from the top graph), and
// which groups are expanded in place. Edits made inside a subgraph are committed as the
// whole top spec with that child replaced, so undo, redo and the Python side see one spec.

import { useCallback, useEffect, useMemo, useState } from "react";
import type { GraphSpec, NodeSpec } from "../protocol";
import { childAt, withChild } from "../subgraphs";
import type { HistoryControls } from "./useHistory";

export type SubgraphScope = {
  /** The spec the canvas shows: the top one, or the opened child. */
  spec: GraphSpec;
  /** The history, its commits writing the child back into the top spec. */
  history: HistoryControls;
  /** Node ids from the top graph down to the opened subgraph; empty at the top. */
  path: string[];
  expanded: ReadonlySet<string>;
  toggle(id: string): void;
  open(id: string): void;
  /** Go up to the level at `depth` (0: the top graph). */
  up(depth: number): void;
};

export function useSubgraphScope(root: GraphSpec, rootHistory: HistoryControls, onScope: () => void): SubgraphScope {
  const [path, setPath] = useState<string[]>([]);
  const [expandedByScope, setExpanded] = useState<Record<string, string[]>>({});
  // A child that disappeared (undo, a spec from Python) takes the canvas up to what is left.
  const reachable = useMemo(() => {
    for (let depth = path.length; depth > 0; depth--) if (childAt(root, path.slice(0, depth))) return path.slice(0, depth);
    return [];
  }, [root, path]);
  useEffect(() => {
    if (reachable.length !== path.length) setPath(reachable);
  }, [reachable, path.length]);
  const spec = childAt(root, reachable) ?? root;
  const key = reachable.join("/");
  const expanded = useMemo(() => new Set(expandedByScope[key] ?? []), [expandedByScope, key]);
  const commit = useCallback(
    (next: GraphSpec) => rootHistory.commit(reachable.length ? withChild(root, reachable, next) : next),
    [rootHistory, root, reachable],
  );
  const history = useMemo(() => ({ ...rootHistory, commit }), [rootHistory, commit]);
  const toggle = useCallback(
    (id: string) =>
      setExpanded((all) => {
        const now = new Set(all[key] ?? []);
        if (now.has(id)) now.delete(id);
        else now.add(id);
        return { ...all, [key]: [...now] };
      }),
    [key],
  );
  const open = useCallback(
    (id: string) => {
      if (!spec.nodes.find((n) => n.id === id)?.subgraph) return;
      setPath([...reachable, id]);
      onScope();
    },
    [spec, reachable, onScope],
  );
  const up = useCallback(
    (depth: number) => {
      if (depth >= reachable.length) return;
      setPath(reachable.slice(0, depth));
      onScope();
    },
    [reachable, onScope],
  );
  return { spec, history, path: reachable, expanded, toggle, open, up };
}

/**
 * Keys for subgraphs, on the canvas (not in a text field): Enter opens the selected
 * subgraph node, Escape goes up one level from an opened subgraph.
 */
export function scopeKeys(e: React.KeyboardEvent, scope: SubgraphScope, selected: NodeSpec | null, keepFocus: () => void) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
  if ((e.target as HTMLElement).closest("input, textarea, select, button, [contenteditable]")) return;
  if (e.key === "Enter" && selected?.subgraph) {
    e.preventDefault();
    scope.open(selected.id);
    keepFocus();
  } else if (e.key === "Escape" && scope.path.length) {
    e.preventDefault();
    scope.up(scope.path.length - 1);
    keepFocus();
  }
}
