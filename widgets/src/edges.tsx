// The edge component: a bezier arrow; conditional edges are dashed and carry their route.

import { BaseEdge, EdgeLabelRenderer, getBezierPath, type Edge, type EdgeProps } from "@xyflow/react";
import { memo } from "react";
import type { EdgeKind } from "./protocol";

export type GraphEdgeData = { kind: EdgeKind; route: string | null };
export type GraphEdge = Edge<GraphEdgeData, "graph">;

function GraphEdgeView(props: EdgeProps<GraphEdge>) {
  const { source, target, data, markerEnd, selected } = props;
  const [path, labelX, labelY] = getBezierPath(props);
  const kind = data?.kind ?? "direct";
  const label = kind === "conditional" ? (data?.route ?? target) : kind === "join" ? "join" : null;
  return (
    <>
      <BaseEdge
        path={path}
        markerEnd={markerEnd}
        className={`graphnb-edge graphnb-edge-${kind}${selected ? " graphnb-edge-selected" : ""}`}
      />
      {/* A dot at the middle: a grip to click, and it gives straight (vertical) edges a
          non-empty box, so they count as visible. */}
      <circle className="graphnb-edge-dot" cx={labelX} cy={labelY} r={selected ? 4 : 2.5} />
      {label !== null && (
        <EdgeLabelRenderer>
          <div
            className={`graphnb-edge-label graphnb-edge-label-${kind} nopan`}
            data-testid={`edge-label-${source}-${target}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          >
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export const edgeTypes = { graph: memo(GraphEdgeView) };
