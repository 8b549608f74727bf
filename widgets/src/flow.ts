// The spec as React Flow draws it: nodes (with START and END placed) and edges.

import { MarkerType, type Node } from "@xyflow/react";
import type { GraphEdge } from "./edges";
import { DIRECTION_KEY, END, START, type GraphSpec, type XY } from "./protocol";
import * as edit from "./spec";
import { GROUP_PREFIX, groupPosition, groupsOf, standIns } from "./groups";
import { keepUnchanged } from "./virtualise";

/** Every fit of the view (first render, Fit, the ⛶ control, a graph from Python): a small
 * graph is shown at its natural size, never blown up. */
export const FIT = { padding: 0.15, maxZoom: 1 };
/**
 * Whether a spec from Python is a new drawing, which is fitted into view: another graph
 * (its name, or none of its nodes, in common with the one shown), a turn of direction, or
 * a layout (most of the nodes moved). Anything else (a state model picked, a binding, a
 * node added or dragged, from this view or another) leaves the user's pan and zoom alone.
 */
export function isNewDrawing(before: GraphSpec, after: GraphSpec): boolean {
  if (before.name !== after.name) return true;
  if (before.metadata?.[DIRECTION_KEY] !== after.metadata?.[DIRECTION_KEY]) return true;
  const placed = new Map(before.nodes.map((n) => [n.id, n.position]));
  const kept = after.nodes.filter((n) => placed.has(n.id));
  if (!kept.length) return after.nodes.length > 0;
  const moved = kept.filter((n) => {
    const was = placed.get(n.id);
    return was?.x !== n.position?.x || was?.y !== n.position?.y;
  });
  return kept.length > 1 && moved.length * 2 > kept.length;
}

/** Where START and END sit across a node's column: they are narrower than a step. */
const TERMINAL_INSET = 50;
const CODE_KEY = "graphnb.widget.code";

export function toNodes(spec: GraphSpec, previous: Node[]): Node[] {
  const old = new Map(previous.map((n) => [n.id, n]));
  const special = edit.specialPositions(spec);
  const ys = spec.nodes.map((n) => n.position?.y ?? 0);
  const top = ys.length ? Math.min(...ys) : 0;
  const bottom = ys.length ? Math.max(...ys) : 0;
  // Without a stored place, START sits above the column of the first node it leads to (or
  // the first node), END below the last node that leads to it.
  const column = (id: string | undefined, fallback: GraphSpec["nodes"][number] | undefined) =>
    (spec.nodes.find((n) => n.id === id) ?? fallback)?.position?.x ?? 0;
  const startX = column(spec.edges.find((e) => e.source === START)?.target, spec.nodes[0]) + TERMINAL_INSET;
  const endX = column(spec.edges.filter((e) => e.target === END).at(-1)?.source, spec.nodes.at(-1)) + TERMINAL_INSET;
  const keep = (id: string, fresh: Node): Node => {
    const before = old.get(id);
    if (!before) return fresh;
    const samePlace = before.position.x === fresh.position.x && before.position.y === fresh.position.y;
    return {
      ...fresh,
      position: before.dragging ? before.position : samePlace ? before.position : fresh.position,
      selected: before.selected,
      measured: before.measured,
      // The same data object when nothing in it changed: the memoised node components then
      // skip re-rendering, so an edit of a 1,000-node graph redraws only what it touched.
      data: sameData(before.data, fresh.data) ? before.data : fresh.data,
    };
  };
  // Left-right graphs take edges in on the left and out on the right.
  const lr = spec.metadata?.[DIRECTION_KEY] === "LR";
  const result: Node[] = [
    keep(START, {
      id: START,
      type: "terminal",
      position: special[START] ?? { x: startX, y: top - 110 },
      data: { label: "START", lr },
      deletable: false,
    }),
  ];
  spec.nodes.forEach((n, i) => {
    const position: XY = n.position ?? { x: (i % 5) * 200, y: 100 + Math.floor(i / 5) * 110 };
    result.push(
      keep(n.id, {
        id: n.id,
        type: "step",
        position,
        data: { label: n.label ?? n.id, binding: n.binding, code: typeof n.metadata?.[CODE_KEY] === "string", lr },
      }),
    );
  });
  // Collapsed groups: their members hidden, one box each in their place.
  const hidden = standIns(spec);
  if (hidden.size) {
    for (const node of result) if (hidden.has(node.id)) node.hidden = true;
    for (const g of groupsOf(spec).filter((x) => x.collapsed))
      // Kept as the other nodes are (its measured size above all): a box redrawn without
      // one is hidden until measured again, so the second click of a double-click that
      // selected it fell on the pane and the group never opened.
      result.push(
        keep(GROUP_PREFIX + g.id, {
          id: GROUP_PREFIX + g.id,
          type: "collapsed",
          position: groupPosition(spec, g),
          data: { label: g.label, count: g.nodes.length, lr, group: g.id },
          draggable: false,
          deletable: false,
        }),
      );
  }
  result.push(
    keep(END, {
      id: END,
      type: "terminal",
      position: special[END] ?? { x: endX, y: bottom + 110 },
      data: { label: "END", lr },
      deletable: false,
    }),
  );
  return keepUnchanged(result, old);
}

function sameData(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.is(a[key], b[key]));
}

export function toEdges(spec: GraphSpec, previous: GraphEdge[]): GraphEdge[] {
  const selected = new Set(previous.filter((e) => e.selected).map((e) => e.id));
  const old = new Map(previous.map((e) => [e.id, e]));
  const hidden = standIns(spec);
  const crossing: GraphEdge[] = [];
  if (hidden.size) {
    // Edges into, out of or inside a collapsed group: drawn once between the boxes.
    const seen = new Set<string>();
    for (const e of spec.edges) {
      if (!hidden.has(e.source) && !hidden.has(e.target)) continue;
      const source = hidden.get(e.source) ?? e.source;
      const target = hidden.get(e.target) ?? e.target;
      const id = `${GROUP_PREFIX}${source}->${target}`;
      if (source === target || seen.has(id)) continue;
      seen.add(id);
      crossing.push({
        id,
        source,
        target,
        type: "graph",
        selectable: false,
        deletable: false,
        markerEnd: { type: MarkerType.ArrowClosed, width: 15, height: 15 },
        data: { kind: "direct", route: null },
      });
    }
  }
  const drawn = spec.edges.filter((e) => !hidden.has(e.source) && !hidden.has(e.target)).map((e): GraphEdge => {
    const id = edit.edgeKey(e);
    // Unchanged edges keep their object, so the memoised edge components skip redrawing.
    const before = old.get(id);
    if (before && before.source === e.source && before.target === e.target && before.data?.kind === e.kind && before.data?.route === e.route) {
      return before;
    }
    return {
      id,
      source: e.source,
      target: e.target,
      type: "graph",
      selected: selected.has(id),
      markerEnd: { type: MarkerType.ArrowClosed, width: 15, height: 15 },
      data: { kind: e.kind, route: e.route },
    };
  });
  // A node's declared Command destinations: dashed, drawn from the node, not editable as
  // edges (they live on the node: NodeSpec.destinations).
  const commands: GraphEdge[] = [];
  for (const node of spec.nodes) {
    for (const [target, label] of Object.entries(node.destinations ?? {})) {
      if (hidden.has(node.id) || hidden.has(target)) continue;
      const id = `${COMMAND_PREFIX}${node.id}->${target}`;
      const before = old.get(id);
      if (before && before.data?.route === (label ?? null)) {
        commands.push(before);
        continue;
      }
      commands.push({
        id,
        source: node.id,
        target,
        type: "graph",
        selectable: false,
        deletable: false,
        markerEnd: { type: MarkerType.ArrowClosed, width: 15, height: 15 },
        data: { kind: "conditional", route: label ?? null, command: true },
      });
    }
  }
  return crossing.length || commands.length ? [...drawn, ...crossing, ...commands] : drawn;
}

/** Id prefix of the edges drawn for Command destinations. */
export const COMMAND_PREFIX = "command:";
