// Copy, paste and duplicate of a selection, as pure edits of a GraphSpec.
//
// A copied selection is its nodes, the edges between them and their routers, as JSON. It
// travels between builders through localStorage (every builder of the JupyterLab page, and
// of other tabs of the same server, reads the same key) and is also written to the system
// clipboard as text when the browser allows it, so it can be pasted into a cell.

import { END, START, type EdgeSpec, type GraphSpec, type NodeSpec, type XY } from "./protocol";
import { cleanId } from "./spec";

export const CLIP_KEY = "graphnb.clipboard";

export type Clip = {
  graphnb: "selection";
  version: 1;
  nodes: NodeSpec[];
  edges: EdgeSpec[];
  routers: Record<string, string | null>;
};

/** The selected nodes, the edges among them, and their routers. */
export function copySelection(spec: GraphSpec, nodeIds: string[]): Clip | null {
  const ids = new Set(nodeIds.filter((id) => id !== START && id !== END));
  const nodes = spec.nodes.filter((n) => ids.has(n.id));
  if (!nodes.length) return null;
  const edges = spec.edges.filter((e) => ids.has(e.source) && ids.has(e.target));
  const routers = Object.fromEntries(Object.entries(spec.routers).filter(([source]) => ids.has(source)));
  return { graphnb: "selection", version: 1, nodes, edges, routers };
}

/** A clip read back from text; null when the text is not one. */
export function parseClip(text: string | null): Clip | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<Clip>;
    if (value.graphnb !== "selection" || !Array.isArray(value.nodes) || !Array.isArray(value.edges)) return null;
    return { graphnb: "selection", version: 1, nodes: value.nodes, edges: value.edges, routers: value.routers ?? {} };
  } catch {
    return null;
  }
}

/** An id like `stem` not used yet: `stem` itself when free, else `stem_2`, `stem_3`, ... */
export function freeIdLike(used: Set<string>, stem: string): string {
  const base = cleanId(stem) || "node";
  if (!used.has(base) && base !== START && base !== END) return base;
  for (let i = 2; ; i++) if (!used.has(`${base}_${i}`)) return `${base}_${i}`;
}

/**
 * Add a clip's nodes to `spec`: ids that clash get a fresh one (edges and routers follow),
 * positions move by `offset`, or are placed around `at` when given.
 */
export function pasteClip(spec: GraphSpec, clip: Clip, place: { offset?: XY; at?: XY }): { spec: GraphSpec; ids: string[] } {
  const used = new Set(spec.nodes.map((n) => n.id));
  const renamed = new Map<string, string>();
  for (const node of clip.nodes) {
    const id = freeIdLike(used, node.id);
    used.add(id);
    renamed.set(node.id, id);
  }
  const xs = clip.nodes.map((n) => n.position?.x ?? 0);
  const ys = clip.nodes.map((n) => n.position?.y ?? 0);
  const shift: XY = place.at
    ? { x: place.at.x - Math.min(...xs), y: place.at.y - Math.min(...ys) }
    : (place.offset ?? { x: 40, y: 40 });
  const nodes: NodeSpec[] = clip.nodes.map((n, i) => ({
    ...n,
    id: renamed.get(n.id) ?? n.id,
    position: { x: Math.round(xs[i] + shift.x), y: Math.round(ys[i] + shift.y) },
    metadata: { ...n.metadata },
  }));
  const edges: EdgeSpec[] = clip.edges
    .filter((e) => renamed.has(e.source) && renamed.has(e.target))
    .map((e) => ({ ...e, source: renamed.get(e.source)!, target: renamed.get(e.target)!, metadata: { ...e.metadata } }));
  const routers = { ...spec.routers };
  for (const [source, binding] of Object.entries(clip.routers)) {
    const id = renamed.get(source);
    if (id) routers[id] = binding;
  }
  return {
    spec: { ...spec, nodes: [...spec.nodes, ...nodes], edges: [...spec.edges, ...edges], routers },
    ids: nodes.map((n) => n.id),
  };
}

/** A node named after a callable and bound to it, at `position`. */
export function addBoundNode(spec: GraphSpec, name: string, binding: string, position: XY): { spec: GraphSpec; id: string } {
  const id = freeIdLike(new Set(spec.nodes.map((n) => n.id)), name);
  const node: NodeSpec = { id, label: null, binding, position: { x: Math.round(position.x), y: Math.round(position.y) }, metadata: {} };
  return { spec: { ...spec, nodes: [...spec.nodes, node] }, id };
}

/** A Python stub for a node's function: its name, the state it takes, a docstring. */
export function functionStub(name: string, stateType: string | null): string {
  const fn = cleanId(name) || "step";
  const annotation = stateType ? `: ${stateType}` : "";
  return [
    `def ${fn}(state${annotation}) -> dict:`,
    `    """What the ${fn} node does: return the fields it writes."""`,
    "    return {}",
    "",
  ].join("\n");
}
