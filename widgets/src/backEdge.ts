// The way back of a loop: an edge drawn against the flow (from a node's bottom handle up
// to a top handle above it, or from a right handle to a left one behind it). A plain
// bezier between such handles runs straight through the nodes it passes, hidden under
// them; this one bends out around their side, past the widest card.

export type EdgeEnds = {
  sourceX: number;
  sourceY: number;
  targetX: number;
  targetY: number;
  sourcePosition: string;
  targetPosition: string;
};

const OUT = 40; // how far the curve leaves a handle, in its own direction, before turning
const CLEAR_X = 120; // past the handles' x: clear of half a card (they are 160-200 px wide)
const CLEAR_Y = 70; // below the handles' y in a left-to-right drawing: clear of half a card

/** The path of a back edge and its middle (for the label), or `null` for any other edge. */
export function backEdgePath(e: EdgeEnds): [string, number, number] | null {
  const { sourceX: sx, sourceY: sy, targetX: tx, targetY: ty } = e;
  if (e.sourcePosition === "bottom" && e.targetPosition === "top" && ty < sy) {
    const x = Math.max(sx, tx) + CLEAR_X;
    const y = (sy + ty) / 2;
    return [`M${sx},${sy} C${sx},${sy + OUT} ${x},${sy + OUT} ${x},${y} S${tx},${ty - OUT} ${tx},${ty}`, x, y];
  }
  if (e.sourcePosition === "right" && e.targetPosition === "left" && tx < sx) {
    const x = (sx + tx) / 2;
    const y = Math.max(sy, ty) + CLEAR_Y;
    return [`M${sx},${sy} C${sx + OUT},${sy} ${sx + OUT},${y} ${x},${y} S${tx - OUT},${ty} ${tx},${ty}`, x, y];
  }
  return null;
}
