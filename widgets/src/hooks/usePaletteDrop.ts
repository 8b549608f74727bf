// Drops from the palette onto the canvas: a function on empty canvas is a new node named
// after it and bound to it; on a node, that node's binding; on an edge, the router of the
// edge's source (the edge made conditional); a model anywhere on the canvas, the state.
// Listeners go on the canvas's own element, so the canvas component needs no change.

import { useReactFlow } from "@xyflow/react";
import { useEffect, useRef } from "react";
import { addBoundNode } from "../clip";
import { isPaletteDrag, readPaletteItem } from "../panels/Palette";
import type { GraphSpec } from "../protocol";
import * as edit from "../spec";
import type { HistoryControls } from "./useHistory";

export type DropTarget = { kind: "node"; id: string } | { kind: "edge"; key: string } | { kind: "pane" };

/** What lies under a point of the page: a node, an edge or the empty canvas. */
export function targetAt(x: number, y: number): DropTarget {
  const under = document.elementFromPoint(x, y);
  const node = under?.closest(".react-flow__node");
  if (node?.getAttribute("data-id")) return { kind: "node", id: node.getAttribute("data-id")! };
  const edge = under?.closest(".react-flow__edge");
  if (edge?.getAttribute("data-id")) return { kind: "edge", key: edge.getAttribute("data-id")! };
  return { kind: "pane" };
}

export function usePaletteDrop(
  wrapper: React.RefObject<HTMLDivElement | null>,
  spec: GraphSpec,
  history: HistoryControls,
  editable: boolean,
  useModel: (binding: string) => void,
) {
  const flow = useReactFlow();
  const latest = useRef({ spec, history, editable, useModel });
  latest.current = { spec, history, editable, useModel };
  useEffect(() => {
    const el = wrapper.current;
    if (!el) return;
    const over = (e: DragEvent) => {
      if (!isPaletteDrag(e.dataTransfer) || !latest.current.editable) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
      el.dataset.dropping = "true";
    };
    const leave = () => delete el.dataset.dropping;
    const drop = (e: DragEvent) => {
      delete el.dataset.dropping;
      const item = readPaletteItem(e.dataTransfer);
      if (!item || !latest.current.editable) return;
      e.preventDefault();
      const { spec: current, history: h } = latest.current;
      if (item.kind === "model") {
        latest.current.useModel(item.binding);
        return;
      }
      const target = targetAt(e.clientX, e.clientY);
      if (target.kind === "node" && current.nodes.some((n) => n.id === target.id)) {
        h.commit(edit.bindNode(current, target.id, item.binding));
      } else if (target.kind === "edge") {
        const edge = current.edges.find((x) => edit.edgeKey(x) === target.key);
        if (!edge || edge.source === "__start__") return;
        const conditional = edit.setEdgeKind(current, target.key, "conditional");
        h.commit(edit.bindRouter(conditional, edge.source, item.binding));
      } else {
        const at = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
        h.commit(addBoundNode(current, item.name, item.binding, { x: at.x - 80, y: at.y - 25 }).spec);
      }
    };
    el.addEventListener("dragover", over);
    el.addEventListener("dragleave", leave);
    el.addEventListener("drop", drop);
    return () => {
      el.removeEventListener("dragover", over);
      el.removeEventListener("dragleave", leave);
      el.removeEventListener("drop", drop);
    };
  }, [wrapper, flow]);
}
