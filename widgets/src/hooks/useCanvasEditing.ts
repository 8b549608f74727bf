// The canvas's state (React Flow's nodes, edges, selection) and every edit made on it,
// each committed to the history as a whole new spec.

import {
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  useUpdateNodeInternals,
  type Connection,
  type EdgeChange,
  type FinalConnectionState,
  type Node,
  type NodeChange,
  type Viewport,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { GraphEdge } from "../edges";
import { toEdges, toNodes } from "../flow";
import { DIRECTION_KEY, type GraphSpec, type XY } from "../protocol";
import { createStore, useSelect, type Store } from "../store";
import * as edit from "../spec";
import { composeEdges, composeNodes, specPosition } from "../subgraphs";
import { sizeForCulling } from "../virtualise";
import type { HistoryControls } from "./useHistory";

export type Selection = { nodes: string[]; edges: string[] };

const NO_GROUPS: ReadonlySet<string> = new Set();

/** `expanded`: the subgraph nodes drawn open, their child's nodes inside them (subgraphs.ts). */
export function useCanvasEditing(
  spec: GraphSpec,
  history: HistoryControls,
  keepFocus: () => void,
  expanded: ReadonlySet<string> = NO_GROUPS,
) {
  const flow = useReactFlow();
  const wrapper = useRef<HTMLDivElement>(null);
  // The nodes live in a store that only the canvas reads (useDrawnNodes): a drag changes
  // them every frame, and with state here each frame re-rendered the whole builder.
  const nodes = useMemo(() => createStore<Node[]>(sizeForCulling(composeNodes(toNodes(spec, []), spec, expanded))), []);
  const setNodes = useCallback((update: (current: Node[]) => Node[]) => nodes.set(update(nodes.get())), [nodes]);
  const [edges, setEdges] = useState<GraphEdge[]>(() => composeEdges(toEdges(spec, []), spec, expanded));
  // The first pass gives React Flow new lists even when nothing changed: it queues the
  // initial fit after taking the nodes, and fits on the next list it is given. (Keeping
  // the edges on this pass failed a Notebook 7 browser test, for a reason not yet found.)
  const mounted = useRef(false);
  useEffect(() => {
    const keep = mounted.current ? sameOrNew : <T,>(next: T[]) => next;
    mounted.current = true;
    setNodes((previous) => keep(sizeForCulling(composeNodes(toNodes(spec, previous), spec, expanded)), previous));
    setEdges((previous) => keep(composeEdges(toEdges(spec, previous), spec, expanded), previous));
  }, [spec, expanded, setNodes]);
  // What is selected is what the canvas draws selected, read from the nodes and edges
  // themselves: a second copy kept in step by React Flow's selection events could lag
  // behind the node store (after an undo or a change of scope, Enter on a selected
  // subgraph node sometimes found no selection).
  const selectedNodes = useSelect(nodes, selectedIds);
  const selection = useMemo<Selection>(
    () => ({ nodes: selectedNodes ? selectedNodes.split("\n") : [], edges: edges.filter((e) => e.selected).map((e) => e.id) }),
    [selectedNodes, edges],
  );

  const onNodesChange = useCallback(
    (changes: NodeChange[]) => {
      // Removals go through onDelete (one commit for nodes and their edges).
      setNodes((current) => sizeForCulling(applyNodeChanges(changes.filter((c) => c.type !== "remove"), current)));
    },
    [setNodes],
  );
  const onEdgesChange = useCallback((changes: EdgeChange<GraphEdge>[]) => {
    setEdges((current) => applyEdgeChanges(changes.filter((c) => c.type !== "remove"), current));
  }, []);
  // The handlers React Flow keeps in its store read the latest spec and history: a new
  // function on each render (the history is new on each) was one more update of its store,
  // each running the selectors of every node and edge drawn.
  const latest = useRef({ spec, history });
  latest.current = { spec, history };
  const onNodeDragStop = useCallback((_: unknown, __: Node, dragged: Node[]) => {
    const moved: Record<string, XY> = {};
    for (const n of dragged) moved[n.id] = specPosition(n);
    latest.current.history.commit(edit.moveNodes(latest.current.spec, moved));
  }, []);
  const onConnect = useCallback(
    (c: Connection) => latest.current.history.commit(edit.connect(latest.current.spec, c.source, c.target)),
    [],
  );
  // A connection dropped on the empty canvas: a new node there, already connected.
  const onConnectEnd = useCallback(
    (event: MouseEvent | TouchEvent, connection: FinalConnectionState) => {
      const { spec, history } = latest.current;
      if (connection.isValid || connection.toNode || !connection.fromNode) return;
      if (connection.fromHandle?.type !== "source") return;
      const point = "changedTouches" in event ? event.changedTouches[0] : event;
      if (document.elementFromPoint(point.clientX, point.clientY)?.closest(".react-flow__node")) return;
      const at = flow.screenToFlowPosition({ x: point.clientX, y: point.clientY });
      const id = edit.freshId(spec);
      const added = edit.addNode(spec, { x: Math.round(at.x - 80), y: Math.round(at.y) }, id);
      history.commit(edit.connect(added, connection.fromNode.id, id));
    },
    [flow],
  );
  const deleteSelected = useCallback(
    (nodeIds: string[], edgeIds: string[]) => {
      if (!nodeIds.length && !edgeIds.length) return;
      latest.current.history.commit(edit.remove(latest.current.spec, nodeIds, edgeIds));
      keepFocus();
    },
    [keepFocus],
  );
  const onDelete = useCallback(
    ({ nodes: ns, edges: es }: { nodes: Node[]; edges: GraphEdge[] }) =>
      deleteSelected(
        ns.map((n) => n.id),
        es.map((e) => e.id),
      ),
    [deleteSelected],
  );
  // Where the view was before a problem (or an error) centred it on a node. Deleting that
  // node gives the view back, rather than leave it panned onto empty canvas; a move of the
  // user's own makes the view theirs and forgets it.
  const beforeCentring = useRef<{ node: string; viewport: Viewport } | null>(null);
  const selectNode = useCallback(
    (id: string) => {
      setNodes((current) => current.map((n) => ({ ...n, selected: n.id === id })));
      setEdges((current) => current.map((e) => ({ ...e, selected: false })));
      const node = flow.getInternalNode(id);
      if (!node) return;
      beforeCentring.current = { node: id, viewport: beforeCentring.current?.viewport ?? flow.getViewport() };
      const { x, y } = node.internals.positionAbsolute;
      const width = node.measured.width ?? 160;
      const height = node.measured.height ?? 50;
      void flow.setCenter(x + width / 2, y + height / 2, { duration: 300, zoom: flow.getZoom() });
    },
    [flow, setNodes],
  );
  useEffect(() => {
    const before = beforeCentring.current;
    if (!before || spec.nodes.some((n) => n.id === before.node)) return;
    beforeCentring.current = null;
    void flow.setViewport(before.viewport, { duration: 300 });
  }, [spec, flow]);
  const onUserMove = useCallback(() => {
    beforeCentring.current = null;
  }, []);
  const addNode = useCallback(() => {
    const box = wrapper.current?.getBoundingClientRect();
    const center = box
      ? flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
      : { x: 0, y: 0 };
    history.commit(edit.addNode(spec, edit.freeSpot(spec, { x: center.x - 80, y: center.y - 25 })));
  }, [flow, spec, history]);
  // Double-click on the empty canvas: a new node right there.
  const onCanvasDoubleClick = useCallback(
    (e: React.MouseEvent) => {
      if (!(e.target as HTMLElement).classList.contains("react-flow__pane")) return;
      const at = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      history.commit(edit.addNode(spec, { x: Math.round(at.x - 80), y: Math.round(at.y - 25) }));
    },
    [flow, spec, history],
  );
  // React Flow measures a card's handles when the card's size changes, and draws edges
  // from what it measured. Two edits move handles without that: a rename (a new card
  // under the new id: its edges were sometimes left undrawn until the next pan) and a
  // turn between top-down and left-right (every handle moves to other sides: edges kept
  // leaving from the old ones). The cards concerned are measured again once drawn.
  // (Asking for every card as it mounts would let the first card trigger the initial fit
  // before the others are measured.)
  const updateNodeInternals = useUpdateNodeInternals();
  const toMeasure = useRef<string[] | "all" | null>(null);
  const direction = useRef(spec.metadata?.[DIRECTION_KEY]);
  if (spec.metadata?.[DIRECTION_KEY] !== direction.current) {
    direction.current = spec.metadata?.[DIRECTION_KEY];
    toMeasure.current = "all";
  }
  useEffect(
    () =>
      nodes.subscribe(() => {
        const wanted = toMeasure.current;
        if (wanted === null) return;
        const drawn = nodes.get().map((n) => n.id);
        const ids = wanted === "all" ? drawn : wanted.filter((id) => drawn.includes(id));
        if (!ids.length) return;
        toMeasure.current = null;
        requestAnimationFrame(() => updateNodeInternals(ids));
      }),
    [nodes, updateNodeInternals],
  );
  const rename = useCallback(
    (from: string, to: string) => {
      const id = edit.cleanId(to);
      const next = edit.renameNode(spec, from, id);
      if (!next) return false;
      if (id !== from) toMeasure.current = [id];
      history.commit(next);
      return true;
    },
    [spec, history],
  );
  const setRoute = useCallback(
    (source: string, target: string, route: string) => {
      const key = edit.edgeKey({ source, target });
      const edge = spec.edges.find((e) => edit.edgeKey(e) === key);
      const typed = edge ? edit.routeFromText(edge, route) : null;
      if (typed !== null) history.commit(edit.setRoute(spec, key, typed));
    },
    [spec, history],
  );

  return {
    wrapper,
    nodes,
    edges,
    selection,
    onNodesChange,
    onEdgesChange,
    onNodeDragStop,
    onConnect,
    onConnectEnd,
    onDelete,
    onCanvasDoubleClick,
    deleteSelected,
    selectNode,
    onUserMove,
    addNode,
    rename,
    setRoute,
  };
}

export type CanvasEditing = ReturnType<typeof useCanvasEditing>;

/** The nodes React Flow draws, for the canvas alone (see `nodes` above). */
export function useDrawnNodes(nodes: Store<Node[]>): Node[] {
  return useSyncExternalStore(nodes.subscribe, nodes.get);
}

/**
 * `previous` when `next` holds the very same items: a drop of a dragged node, or the
 * kernel's echo of a spec, changes no node React Flow draws, and a new list alone made it
 * adopt every node and edge again and run every selector (most of a drop's 100 ms frame
 * at 1,000 nodes).
 */
function sameOrNew<T>(next: T[], previous: T[]): T[] {
  return next.length === previous.length && next.every((item, i) => item === previous[i]) ? previous : next;
}

const SELECTED = new WeakMap<Node[], string>();

/**
 * The ids of the selected nodes, one per line (node ids hold no line break). Remembered
 * per node list: React asks again on every change of the store and every render, each time
 * a pass over all the nodes.
 */
function selectedIds(nodes: Node[]): string {
  let ids = SELECTED.get(nodes);
  if (ids === undefined) {
    ids = nodes
      .filter((n) => n.selected)
      .map((n) => n.id)
      .join("\n");
    SELECTED.set(nodes, ids);
  }
  return ids;
}
