// Subgraph nodes on the canvas: the child spec inside its parent's (a lens for editing a
// child in place), groups that expand in place, and the run seen from inside a subgraph.
// Pure functions: the hook (hooks/useSubgraphScope.ts) and the canvas call them.

import { MarkerType, type Node } from "@xyflow/react";
import type { GraphEdge } from "./edges";
import { END, START, type GraphSpec, type NodeRun, type RunState, type XY } from "./protocol";
import * as edit from "./spec";

/** Node metadata naming the notebook graph a subgraph node was bound to (graphnb/widget/composition.py). */
export const GRAPH_KEY = "graphnb.widget.graph";
/** Separates the levels of a node's path in ids and run keys: `research/search`. */
export const SEP = "/";

/** Size of an inner node and the group's frame around them, in canvas pixels. */
const INNER = { width: 150, height: 44, gapX: 20, gapY: 36 };
const FRAME = { pad: 16, header: 64 };
/** About the size of a collapsed group's card: what an expanded one adds is pushed aside. */
const CARD = { width: 180, height: 70 };

export type SubgraphData = {
  label: string;
  graph: string | null;
  count: number;
  expanded: boolean;
};
export type InnerData = { label: string; binding: string | null; subgraph: boolean };

/** The child spec at `path` (node ids from the top), or null when a level is gone. */
export function childAt(spec: GraphSpec, path: readonly string[]): GraphSpec | null {
  let current: GraphSpec = spec;
  for (const id of path) {
    const child = current.nodes.find((n) => n.id === id)?.subgraph;
    if (!child) return null;
    current = child;
  }
  return current;
}

/** `spec` with the child at `path` replaced by `child` (every level a new object). */
export function withChild(spec: GraphSpec, path: readonly string[], child: GraphSpec): GraphSpec {
  if (!path.length) return child;
  const [id, ...rest] = path;
  const node = spec.nodes.find((n) => n.id === id);
  if (!node?.subgraph) return spec;
  const replaced = withChild(node.subgraph, rest, child);
  return {
    ...spec,
    version: 2,
    nodes: spec.nodes.map((n) => (n.id === id ? { ...n, subgraph: replaced } : n)),
  };
}

/** Node `id` runs `child` (a copy of a notebook graph's spec, named `name`) as its subgraph. */
export function bindSubgraph(spec: GraphSpec, id: string, child: GraphSpec, name: string | null): GraphSpec {
  return {
    ...spec,
    version: 2,
    nodes: spec.nodes.map((n) => {
      if (n.id !== id) return n;
      const metadata = { ...n.metadata };
      if (name) metadata[GRAPH_KEY] = name;
      else delete metadata[GRAPH_KEY];
      // A subgraph node runs its child, not a callable of its own.
      return { ...n, binding: null, subgraph: structuredClone(child), metadata };
    }),
  };
}

/** Node `id` is a plain step again (its child graph dropped). */
export function detachSubgraph(spec: GraphSpec, id: string): GraphSpec {
  const nodes = spec.nodes.map((n) => {
    if (n.id !== id || !n.subgraph) return n;
    const { subgraph: _child, inputs: _in, outputs: _out, ...rest } = n;
    const metadata = { ...n.metadata };
    delete metadata[GRAPH_KEY];
    return { ...rest, metadata };
  });
  const version = nodes.some((n) => n.subgraph) ? 2 : spec.version;
  return { ...spec, version, nodes };
}

/** The run as seen from inside the subgraph at `path`: its nodes' records, keys unprefixed. */
export function scopeRun(run: RunState, path: readonly string[]): RunState {
  if (!path.length) return run;
  const prefix = path.join(SEP) + SEP;
  const nodes: Record<string, NodeRun> = {};
  for (const [key, record] of Object.entries(run.nodes)) {
    if (key.startsWith(prefix)) nodes[key.slice(prefix.length)] = record;
  }
  const active = Object.entries(nodes)
    .filter(([, r]) => r.status === "running")
    .map(([k]) => k);
  const error = run.error && run.error.node !== null && run.error.node === path[0] ? run.error : null;
  return { ...run, nodes, active, error };
}

/**
 * Places for a child's nodes, START and END inside an expanded group: rows by distance
 * from START (a breadth-first walk), so the group reads top to bottom like the canvas.
 */
export function innerLayout(child: GraphSpec): Record<string, { x: number; y: number }> {
  const depth = new Map<string, number>([[START, 0]]);
  const queue = [START];
  while (queue.length) {
    const at = queue.shift() as string;
    for (const e of child.edges) {
      if (e.source === at && !depth.has(e.target) && e.target !== END) {
        depth.set(e.target, (depth.get(at) ?? 0) + 1);
        queue.push(e.target);
      }
    }
  }
  let deepest = 0;
  for (const n of child.nodes) {
    if (!depth.has(n.id)) depth.set(n.id, 1); // not reached from START: first row
    deepest = Math.max(deepest, depth.get(n.id) ?? 0);
  }
  depth.set(END, deepest + 1);
  const rows = new Map<number, string[]>();
  for (const id of [START, ...child.nodes.map((n) => n.id), END]) {
    const row = depth.get(id) ?? 0;
    rows.set(row, [...(rows.get(row) ?? []), id]);
  }
  const widest = Math.max(...[...rows.values()].map((r) => r.length));
  const places: Record<string, { x: number; y: number }> = {};
  for (const [row, ids] of rows) {
    const offset = ((widest - ids.length) * (INNER.width + INNER.gapX)) / 2;
    ids.forEach((id, i) => {
      const terminal = id === START || id === END;
      places[id] = {
        x: FRAME.pad + offset + i * (INNER.width + INNER.gapX) + (terminal ? (INNER.width - 70) / 2 : 0),
        y: FRAME.header + row * (INNER.height + INNER.gapY),
      };
    });
  }
  return places;
}

function groupSize(places: Record<string, { x: number; y: number }>): { width: number; height: number } {
  const xs = Object.values(places).map((p) => p.x);
  const ys = Object.values(places).map((p) => p.y);
  return {
    width: Math.max(220, Math.max(...xs) + INNER.width + FRAME.pad),
    height: Math.max(...ys) + INNER.height + FRAME.pad,
  };
}

/**
 * React Flow's nodes with every subgraph node drawn as a group: one card when collapsed,
 * a frame holding its child's nodes when its id is in `expanded`. Inner nodes are views
 * (not draggable, selectable or deletable): the child is edited by opening it.
 */
export function composeNodes(nodes: Node[], spec: GraphSpec, expanded: ReadonlySet<string>): Node[] {
  if (!spec.nodes.some((n) => n.subgraph)) return nodes;
  const result: Node[] = [];
  for (const node of nodes) {
    const child = spec.nodes.find((n) => n.id === node.id)?.subgraph;
    if (!child) {
      result.push(node);
      continue;
    }
    const specNode = spec.nodes.find((n) => n.id === node.id);
    const graph = specNode?.metadata?.[GRAPH_KEY];
    const open = expanded.has(node.id);
    const data: SubgraphData = {
      label: specNode?.label ?? node.id,
      graph: typeof graph === "string" ? graph : child.name,
      count: child.nodes.length,
      expanded: open,
    };
    if (!open) {
      const { style: _style, width: _w, height: _h, ...rest } = node;
      result.push({ ...rest, type: "subgraph", data });
      continue;
    }
    const places = innerLayout(child);
    const size = groupSize(places);
    result.push({ ...node, type: "subgraph", data, style: { width: size.width, height: size.height }, width: size.width, height: size.height });
    const inner = (id: string) => `${node.id}${SEP}${id}`;
    const common = { parentId: node.id, extent: "parent" as const, draggable: false, selectable: false, deletable: false, connectable: false, focusable: false };
    result.push({ ...common, id: inner(START), type: "terminal", position: places[START], data: { label: "START" } });
    for (const n of child.nodes) {
      const innerData: InnerData = { label: n.label ?? n.id, binding: n.binding, subgraph: Boolean(n.subgraph) };
      result.push({ ...common, id: inner(n.id), type: "inner", position: places[n.id], data: innerData });
    }
    result.push({ ...common, id: inner(END), type: "terminal", position: places[END], data: { label: "END" } });
  }
  return makeRoom(result);
}

/**
 * Expanding in place: the nodes below an expanded group move down by what it grew, the
 * ones beside it (on its row, to its right) move right. Only the drawing moves; the spec
 * keeps its positions, so collapsing puts everything back.
 */
function makeRoom(nodes: Node[]): Node[] {
  const groups = nodes
    .filter((n) => n.type === "subgraph" && (n.data as SubgraphData).expanded)
    .sort((a, b) => a.position.y - b.position.y);
  if (!groups.length) return nodes;
  const moved = new Map(nodes.filter((n) => !n.parentId).map((n) => [n.id, { ...n.position }]));
  for (const group of groups) {
    const at = moved.get(group.id) as XY;
    const grewY = Math.max(0, (group.height ?? CARD.height) - CARD.height);
    const grewX = Math.max(0, (group.width ?? CARD.width) - CARD.width);
    for (const [id, p] of moved) {
      if (id === group.id) continue;
      if (p.y > at.y + CARD.height / 2) p.y += grewY;
      else if (Math.abs(p.y - at.y) <= CARD.height / 2 && p.x > at.x) p.x += grewX;
    }
  }
  return nodes.map((n) => {
    const p = moved.get(n.id);
    if (!p || (p.x === n.position.x && p.y === n.position.y)) return n;
    const room = { x: p.x - n.position.x, y: p.y - n.position.y };
    return { ...n, position: p, data: { ...n.data, [ROOM]: room } };
  });
}

const ROOM = "graphnb.room";

/** Where a node dragged on the canvas sits in the spec: its place minus the room it made. */
export function specPosition(node: Pick<Node, "position" | "data">): XY {
  const room = (node.data as Record<string, unknown> | undefined)?.[ROOM] as XY | undefined;
  return room ? { x: node.position.x - room.x, y: node.position.y - room.y } : node.position;
}

/** React Flow's edges plus, for each expanded group, its child's edges drawn inside it. */
export function composeEdges(edges: GraphEdge[], spec: GraphSpec, expanded: ReadonlySet<string>): GraphEdge[] {
  const extra: GraphEdge[] = [];
  for (const node of spec.nodes) {
    if (!node.subgraph || !expanded.has(node.id)) continue;
    for (const e of node.subgraph.edges) {
      const source = `${node.id}${SEP}${e.source}`;
      const target = `${node.id}${SEP}${e.target}`;
      extra.push({
        id: `${node.id}${SEP}${edit.edgeKey(e)}`,
        source,
        target,
        type: "graph",
        selectable: false,
        deletable: false,
        focusable: false,
        zIndex: 1,
        markerEnd: { type: MarkerType.ArrowClosed, width: 12, height: 12 },
        data: { kind: e.kind, route: e.route },
      });
    }
  }
  return extra.length ? [...edges, ...extra] : edges;
}
