// Pure edits of a GraphSpec: every change the canvas makes goes through one of these,
// returns a new spec (the old one is never mutated) and so can be undone.

import { renameInGroups } from "./groups";
import { END, POSITIONS_KEY, START, type EdgeKind, type EdgeSpec, type GraphSpec, type XY } from "./protocol";

/** A node id not yet used: `node_1`, `node_2`, ... */
export function freshId(spec: GraphSpec, stem = "node"): string {
  const used = new Set(spec.nodes.map((n) => n.id));
  for (let i = 1; ; i++) {
    const id = `${stem}_${i}`;
    if (!used.has(id)) return id;
  }
}

/** Node ids are Python identifiers, so exports and bindings can name them. */
export function cleanId(text: string): string {
  const cleaned = text.trim().replace(/[^\p{L}\p{N}_]+/gu, "_").replace(/^_+|_+$/g, "");
  if (!cleaned) return "";
  return /^\p{N}/u.test(cleaned) ? `n_${cleaned}` : cleaned;
}

/** The place nearest `wanted`, trying rightwards first, where a new node overlaps none. */
export function freeSpot(spec: GraphSpec, wanted: XY, size: XY = { x: 170, y: 60 }): XY {
  const taken = [...spec.nodes.map((n) => n.position), ...Object.values(specialPositions(spec))].filter(
    (p): p is XY => p != null,
  );
  const free = (p: XY) => taken.every((t) => Math.abs(t.x - p.x) >= size.x || Math.abs(t.y - p.y) >= size.y);
  for (let row = 0; row < 20; row++) {
    for (let column = 0; column < 8; column++) {
      const p = { x: Math.round(wanted.x + column * size.x * 1.1), y: Math.round(wanted.y + row * size.y) };
      if (free(p)) return p;
    }
  }
  return { x: Math.round(wanted.x), y: Math.round(wanted.y) };
}

export function addNode(spec: GraphSpec, position: XY, id = freshId(spec)): GraphSpec {
  return {
    ...spec,
    nodes: [...spec.nodes, { id, label: null, binding: null, position, metadata: {} }],
  };
}

export function specialPositions(spec: GraphSpec): Record<string, XY> {
  const stored = spec.metadata[POSITIONS_KEY];
  return stored && typeof stored === "object" && !Array.isArray(stored)
    ? (stored as unknown as Record<string, XY>)
    : {};
}

/** Move nodes (START and END included) to new positions: one commit per drag. */
export function moveNodes(spec: GraphSpec, moved: Record<string, XY>): GraphSpec {
  const special = { ...specialPositions(spec) };
  let touchedSpecial = false;
  for (const id of [START, END]) {
    if (moved[id]) {
      special[id] = round(moved[id]);
      touchedSpecial = true;
    }
  }
  return {
    ...spec,
    nodes: spec.nodes.map((n) => (moved[n.id] ? { ...n, position: round(moved[n.id]) } : n)),
    metadata: touchedSpecial ? { ...spec.metadata, [POSITIONS_KEY]: special } : spec.metadata,
  };
}

function round(p: XY): XY {
  return { x: Math.round(p.x), y: Math.round(p.y) };
}

export function edgeKey(edge: Pick<EdgeSpec, "source" | "target">): string {
  return `${edge.source}->${edge.target}`;
}

/** Drop routers whose source has no conditional edge left. */
function pruneRouters(spec: GraphSpec): GraphSpec {
  const conditional = new Set(spec.edges.filter((e) => e.kind === "conditional").map((e) => e.source));
  const routers = Object.fromEntries(Object.entries(spec.routers).filter(([s]) => conditional.has(s)));
  return { ...spec, routers };
}

export function connect(spec: GraphSpec, source: string, target: string): GraphSpec {
  if (source === target || source === END || target === START) return spec;
  if (spec.edges.some((e) => e.source === source && e.target === target)) return spec;
  // A new edge from a node that already routes is one more route of its router.
  const routed = spec.edges.some((e) => e.source === source && e.kind === "conditional");
  const edge: EdgeSpec = {
    source,
    target,
    kind: routed ? "conditional" : "direct",
    route: routed ? target : null,
    label: null,
    metadata: {},
  };
  return { ...spec, edges: [...spec.edges, edge] };
}

export function remove(spec: GraphSpec, nodeIds: string[], edgeKeys: string[]): GraphSpec {
  const nodes = new Set(nodeIds.filter((id) => id !== START && id !== END));
  const edges = new Set(edgeKeys);
  const routers = Object.fromEntries(Object.entries(spec.routers).filter(([s]) => !nodes.has(s)));
  return pruneRouters({
    ...spec,
    nodes: spec.nodes.filter((n) => !nodes.has(n.id)),
    edges: spec.edges.filter(
      (e) => !edges.has(edgeKey(e)) && !nodes.has(e.source) && !nodes.has(e.target),
    ),
    routers,
  });
}

/** Rename a node, following every edge and router that names it. Null if the id is taken. */
export function renameNode(spec: GraphSpec, from: string, to: string): GraphSpec | null {
  if (from === to) return spec;
  if (!to || to === START || to === END || spec.nodes.some((n) => n.id === to)) return null;
  const swap = (id: string) => (id === from ? to : id);
  const grouped = renameInGroups(spec, from, to);
  return {
    ...grouped,
    nodes: spec.nodes.map((n) => (n.id === from ? { ...n, id: to } : n)),
    edges: spec.edges.map((e) => ({
      ...e,
      source: swap(e.source),
      target: swap(e.target),
      // A route is the value the router returns, and renaming a node does not change the
      // router's code: a route that was the old name (explicitly or by default) stays it.
      route: e.kind === "conditional" && e.route == null && e.target === from ? from : e.route,
    })),
    routers: Object.fromEntries(Object.entries(spec.routers).map(([s, b]) => [swap(s), b])),
  };
}

export function bindNode(spec: GraphSpec, id: string, binding: string | null): GraphSpec {
  return {
    ...spec,
    nodes: spec.nodes.map((n) => (n.id === id ? { ...n, binding: binding || null } : n)),
  };
}

export function bindRouter(spec: GraphSpec, source: string, binding: string | null): GraphSpec {
  return { ...spec, routers: { ...spec.routers, [source]: binding || null } };
}

/**
 * Change an edge's kind. A conditional edge makes its source routed: all its outgoing
 * edges become routes of one router, as the engine requires.
 */
export function setEdgeKind(spec: GraphSpec, key: string, kind: EdgeKind): GraphSpec {
  const edge = spec.edges.find((e) => edgeKey(e) === key);
  if (!edge || edge.kind === kind) return spec;
  let edges: EdgeSpec[];
  if (kind === "conditional") {
    edges = spec.edges.map((e) =>
      e.source === edge.source && e.kind !== "join"
        ? { ...e, kind: "conditional" as const, route: e.route ?? e.target }
        : e,
    );
    const routers = edge.source in spec.routers ? spec.routers : { ...spec.routers, [edge.source]: null };
    return { ...spec, edges, routers };
  }
  edges = spec.edges.map((e) =>
    edgeKey(e) === key ? { ...e, kind, route: null, label: kind === "join" ? null : e.label } : e,
  );
  return pruneRouters({ ...spec, edges });
}

/**
 * How a conditional edge's route reads: the value its router returns (the target's name by
 * default), with START and END named as the canvas names them, never `__end__`.
 */
export function routeText(edge: Pick<EdgeSpec, "route" | "target">): string {
  const route = edge.route ?? edge.target;
  return route === END ? "END" : route === START ? "START" : route;
}

/**
 * The route typed for an edge, or null when the text reads as its route already (nothing
 * to change). `END` typed on an edge into END is the router returning END.
 */
export function routeFromText(edge: Pick<EdgeSpec, "route" | "target">, text: string): string | null {
  const typed = text.trim();
  if (typed === routeText(edge)) return null;
  if (typed === "END" && edge.target === END) return END;
  return typed;
}

export function setRoute(spec: GraphSpec, key: string, route: string): GraphSpec {
  return {
    ...spec,
    edges: spec.edges.map((e) =>
      edgeKey(e) === key ? { ...e, route: route || e.target, label: route && route !== e.target ? route : null } : e,
    ),
  };
}

export function rename(spec: GraphSpec, name: string): GraphSpec {
  return { ...spec, name: name || "graph" };
}
