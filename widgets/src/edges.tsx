// The edge component: a bezier arrow (a loop's way back bends around the nodes); conditional
// edges are dashed and carry their route, placed on the path where it covers no node.

import {
  BaseEdge,
  EdgeLabelRenderer,
  getBezierPath,
  useStore,
  type Edge,
  type EdgeProps,
  type ReactFlowState,
} from "@xyflow/react";
import { memo, useCallback, useMemo, useState } from "react";
import { backEdgePath } from "./backEdge";
import { useCanvas } from "./canvasContext";
import { labelSize, placeLabel, pointsOnPath, type Box } from "./labelPlace";
import type { EdgeKind, XY } from "./protocol";
import { routeText } from "./spec";

/** The nodes drawn (not hidden) whose boxes reach into `area`. */
function boxesIn(state: ReactFlowState, area: Box): Box[] {
  const found: Box[] = [];
  for (const node of state.nodeLookup.values()) {
    const { width, height } = node.measured;
    if (node.hidden || !width || !height) continue;
    const { x, y } = node.internals.positionAbsolute;
    if (x > area.x + area.width || x + width < area.x || y > area.y + area.height || y + height < area.y) continue;
    found.push({ x, y, width, height });
  }
  return found;
}

const samePoint = (a: XY | null, b: XY | null) => a === b || (a !== null && b !== null && a.x === b.x && a.y === b.y);

/** `command`: a declared destination of the source's Command(goto=...), not a spec edge. */
export type GraphEdgeData = { kind: EdgeKind; route: string | null; command?: boolean };
export type GraphEdge = Edge<GraphEdgeData, "graph">;

function GraphEdgeView(props: EdgeProps<GraphEdge>) {
  const { source, target, data, markerEnd, selected } = props;
  const [path, labelX, labelY] = backEdgePath(props) ?? getBezierPath(props);
  const kind = data?.kind ?? "direct";
  const command = data?.command === true;
  const label = command
    ? (data?.route ?? null)
    : kind === "conditional"
      ? routeText({ route: data?.route ?? null, target })
      : kind === "join"
        ? "join"
        : kind === "send"
          ? "Send ×n"
          : null;
  const canvas = useCanvas();
  const [editing, setEditing] = useState<string | null>(null);
  // Where the label may go: around the points of the path it is tried at.
  const area = useMemo(() => {
    if (label === null) return null;
    const points = pointsOnPath(path, [0, 0.18, 0.5, 0.82, 1]);
    const { width, height } = labelSize(label);
    const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
    const x = Math.min(...xs) - width, y = Math.min(...ys) - height;
    return { x, y, width: Math.max(...xs) + width - x, height: Math.max(...ys) + height - y };
  }, [path, label]);
  const placed = useStore(
    useCallback(
      (state: ReactFlowState) =>
        label === null || area === null ? null : placeLabel(path, { x: labelX, y: labelY }, label, boxesIn(state, area)),
      [path, label, area, labelX, labelY],
    ),
    samePoint,
  );
  const at = placed ?? { x: labelX, y: labelY };
  return (
    <>
      <BaseEdge
        path={path}
        markerEnd={markerEnd}
        className={`graphnb-edge graphnb-edge-${kind}${command ? " graphnb-edge-command" : ""}${selected ? " graphnb-edge-selected" : ""}`}
      />
      {/* A dot at the middle: a grip to click, and it gives straight (vertical) edges a
          non-empty box, so they count as visible. */}
      <circle className="graphnb-edge-dot" cx={labelX} cy={labelY} r={selected ? 4 : 2.5} />
      {label !== null && (
        <EdgeLabelRenderer>
          <div
            className={`graphnb-edge-label graphnb-edge-label-${kind} nopan`}
            data-testid={`edge-label-${source}-${target}`}
            style={{ transform: `translate(-50%, -50%) translate(${at.x}px, ${at.y}px)` }}
            title={
              command
                ? "a Command(goto=...) of the source may go here"
                : kind === "conditional"
                ? "the route: what the router returns to take this edge (double-click to edit)"
                : kind === "send"
                  ? "map-reduce: the router sends items here, one run of the target per item"
                  : "waits for all join sources"
            }
            onDoubleClick={(e) => {
              e.stopPropagation();
              if (kind === "conditional" && !command) setEditing(label);
            }}
          >
            {editing === null ? (
              label
            ) : (
              <input
                className="graphnb-route-input nodrag"
                data-testid={`edge-label-input-${source}-${target}`}
                value={editing}
                autoFocus
                size={Math.max(4, editing.length)}
                onChange={(e) => setEditing(e.target.value)}
                onKeyDown={(e) => {
                  e.stopPropagation();
                  if (e.key === "Enter") {
                    canvas.setRoute(source, target, editing.trim());
                    setEditing(null);
                  } else if (e.key === "Escape") setEditing(null);
                }}
                onBlur={() => setEditing(null)}
              />
            )}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export const edgeTypes = { graph: memo(GraphEdgeView) };
