// A drawing is never lost silently across a kernel restart. Every builder keeps its
// drawing in the metadata of its notebook cell (key `graphnb`, one entry per builder the
// cell shows), written through the notebook's shared model, so it is saved with the
// notebook. When the cell runs again in a new kernel and its builder comes up with another
// drawing, the kept one is restored at once if the new builder is empty (a plain
// `Builder()`), or the user is asked when the new one has a drawing of its own.

import type { AnyModel } from "@anywidget/types";
import { useCallback, useEffect, useRef, useState } from "react";
import { cellOf } from "../notebook";
import type { GraphSpec, Json } from "../protocol";

export const KEPT_KEY = "graphnb";

export type Kept = { drawings: Record<string, GraphSpec> };

/** JSON with sorted keys: two specs are the same drawing whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

export function isEmpty(spec: GraphSpec): boolean {
  return spec.nodes.length === 0 && spec.edges.length === 0;
}

/** Runs `work` when the page is idle (within a second at the latest); returns the cancel. */
function whenIdle(work: () => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const handle = requestIdleCallback(work, { timeout: 1000 });
    return () => cancelIdleCallback(handle);
  }
  const handle = setTimeout(work, 50);
  return () => clearTimeout(handle);
}

export type KeptChoice = { kept: GraphSpec; restore(): void; dismiss(): void };

export function useKeptDrawing(opts: {
  model: AnyModel<object>;
  root: React.RefObject<HTMLDivElement | null>;
  spec: GraphSpec;
  live: boolean;
  /** Put the kept drawing back (an undoable edit). */
  restore(spec: GraphSpec): void;
}) {
  const { model, root, spec, live } = opts;
  const [decided, setDecided] = useState(false);
  const [question, setQuestion] = useState<GraphSpec | null>(null);
  const [restored, setRestored] = useState<number | null>(null);
  const restore = useRef(opts.restore);
  restore.current = opts.restore;

  const slot = useCallback(() => {
    const el = root.current;
    const cell = el?.closest(".jp-Cell");
    const views = cell ? Array.from(cell.querySelectorAll(".graphnb-builder")) : [];
    return String(Math.max(0, el ? views.indexOf(el) : 0));
  }, [root]);
  const read = useCallback((): GraphSpec | null => {
    const cell = root.current ? cellOf(model, root.current) : null;
    const kept = cell?.getMetadata(KEPT_KEY) as Kept | undefined;
    const drawing = kept?.drawings?.[slot()];
    return drawing && Array.isArray(drawing.nodes) ? drawing : null;
  }, [model, root, slot]);

  // Once, when the view comes up: compare with what the cell kept.
  useEffect(() => {
    if (decided || !live) return;
    const kept = read();
    if (kept && !isEmpty(kept) && canonical(kept) !== canonical(spec)) {
      if (isEmpty(spec)) {
        restore.current(kept);
        setRestored(kept.nodes.length);
      } else {
        setQuestion(kept);
        return; // nothing is written over the kept drawing until the user chose
      }
    }
    setDecided(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- decided once, on the first spec
  }, [live, decided]);

  // Then keep every change (of a live view: a dead one's drawing is the kept one), when
  // the page is idle: comparing and writing a 1,000-node drawing takes tens of ms, which
  // would otherwise land in the frame that drops a dragged node (and again for the
  // kernel's echo of it); a burst of changes is written once.
  useEffect(() => {
    if (!decided || !live || !root.current) return;
    return whenIdle(() => {
      const cell = root.current ? cellOf(model, root.current) : null;
      if (!cell) return;
      const kept = (cell.getMetadata(KEPT_KEY) as Kept | undefined) ?? { drawings: {} };
      const key = slot();
      if (kept.drawings?.[key] && canonical(kept.drawings[key]) === canonical(spec)) return;
      cell.setMetadata(KEPT_KEY, { drawings: { ...(kept.drawings ?? {}), [key]: spec as unknown as Json } });
    });
  }, [spec, decided, live, model, root, slot]);

  const choice: KeptChoice | null = question
    ? {
        kept: question,
        restore: () => {
          restore.current(question);
          setQuestion(null);
          setDecided(true);
        },
        dismiss: () => {
          setQuestion(null);
          setDecided(true);
        },
      }
    : null;
  return { choice, restored, clearRestored: () => setRestored(null) };
}
