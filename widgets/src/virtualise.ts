// Large graphs: only the cards on screen are ever drawn.
//
// React Flow draws every node that has not been measured yet, to measure it, and culls by
// the viewport only after. A 1,000-node graph thus mounted 1,000 cards on display (1-2 s
// of main thread) only to unmount 900 of them a frame later. Past CULL_FROM nodes, each
// node not yet measured is given an estimated size and handle places (the card as drawn
// fitted out, names only): React Flow takes them as measured, so it culls from the first
// frame, fits the view without waiting, and measures a card for real when it comes on
// screen. The real measure replaces the estimate (its handles are dropped, React Flow keeps
// the ones it read from the page).

import type { Node, NodeHandle } from "@xyflow/react";
import { Position } from "@xyflow/react";

/** From this many nodes the canvas draws only what is on screen (GraphCanvas.tsx). */
export const CULL_FROM = 150;

type Size = { width: number; height: number };
/** A step's card and START/END, as measured in Chromium at the fitted zoom (names only). */
const STEP: Size = { width: 162, height: 39 };
const TERMINAL: Size = { width: 70, height: 23 };
/** Handles are 12 px boxes (style.css) centred on the card's border. */
const HANDLE = 12;

const ESTIMATED = new WeakSet<object>();

function handles(size: Size, lr: boolean, kinds: ("source" | "target")[]): NodeHandle[] {
  const half = HANDLE / 2 - 1;
  return kinds.map((type) => {
    const start = type === "target";
    const place = lr
      ? { x: start ? -half : size.width - HANDLE + half, y: (size.height - HANDLE) / 2 }
      : { x: (size.width - HANDLE) / 2, y: start ? -half : size.height - HANDLE + half };
    const position = lr ? (start ? Position.Left : Position.Right) : start ? Position.Top : Position.Bottom;
    return { type, position, width: HANDLE, height: HANDLE, ...place };
  });
}

function estimate(node: Node): Node | null {
  const lr = Boolean((node.data as { lr?: boolean } | undefined)?.lr);
  if (node.type === "step") {
    const measured = { ...STEP };
    ESTIMATED.add(measured);
    return { ...node, measured, handles: handles(STEP, lr, ["target", "source"]) };
  }
  if (node.type === "terminal" && !node.parentId) {
    const measured = { ...TERMINAL };
    ESTIMATED.add(measured);
    const start = (node.data as { label?: string } | undefined)?.label === "START";
    return { ...node, measured, handles: handles(TERMINAL, lr, [start ? "source" : "target"]) };
  }
  return null;
}

/** Whether `node` carries an estimate rather than React Flow's measure of its card. */
export function isEstimated(node: Node): boolean {
  return Boolean(node.measured && ESTIMATED.has(node.measured));
}

/**
 * `nodes` ready for culling: past CULL_FROM nodes, the unmeasured ones get an estimated
 * size and handles; measured ones lose estimated handles. Unchanged nodes keep their
 * object (the array too, when nothing changed), so React Flow and the memoised cards skip them.
 */
export function sizeForCulling(nodes: Node[]): Node[] {
  const culling = nodes.length > CULL_FROM;
  let changed = false;
  const result = nodes.map((node) => {
    if (node.handles && !isEstimated(node)) {
      // Measured for real since: React Flow's own handle bounds win.
      changed = true;
      const { handles: _estimated, ...measured } = node;
      return measured;
    }
    if (!culling || node.measured?.width !== undefined) return node;
    const sized = estimate(node);
    if (!sized) return node;
    changed = true;
    return sized;
  });
  return changed ? result : nodes;
}

/**
 * `nodes` with each node equal to the one of the same id in `previous` replaced by that
 * one: a spec change (a drop, the kernel's echo) then gives React Flow new objects only
 * for the nodes it touched, and React Flow redraws only those.
 */
export function keepUnchanged(nodes: Node[], previous: Map<string, Node>): Node[] {
  return nodes.map((node) => {
    const before = previous.get(node.id);
    return before && sameNode(node, before) ? before : node;
  });
}

function sameNode(node: Node, before: Node): boolean {
  const now = node as unknown as Record<string, unknown>;
  const then = before as unknown as Record<string, unknown>;
  for (const key of Object.keys(now)) {
    if (key === "position") {
      if (node.position.x !== before.position.x || node.position.y !== before.position.y) return false;
    } else if (!Object.is(now[key], then[key])) return false;
  }
  // What React Flow or the estimate added (dragging: false, estimated handles) may stay.
  for (const key of Object.keys(then)) if (!(key in now) && key !== "handles" && then[key]) return false;
  return true;
}
