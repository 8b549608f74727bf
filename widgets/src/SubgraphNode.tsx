// Subgraph nodes on the canvas: a group that shows as one card (collapsed) or as a frame
// holding its child's nodes (expanded in place); double-click opens it for editing. Inner
// nodes are views of the child's nodes, lit while they run; run badges count a node's
// Send instances, cache hits and retries.

import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { createContext, memo, useContext } from "react";
import { RunBadges } from "./RunBadges";
import { Elapsed } from "./Elapsed";
import { useCanvas } from "./canvasContext";
import { nodeTypes } from "./nodes";
import type { NodeStatus, RunState } from "./protocol";
import { STATUS_ICON } from "./runStatus";
import { type Store, useSelect } from "./store";
import type { InnerData, SubgraphData } from "./subgraphs";

/** What a group can do: expand or collapse in place, open for editing. */
export type GroupControls = { toggle(id: string): void; open(id: string): void };
export const Groups = createContext<GroupControls | null>(null);

function useGroups(): GroupControls {
  const groups = useContext(Groups);
  if (!groups) throw new Error("[graphnb] subgraph node rendered outside the canvas");
  return groups;
}



function useStatus(run: Store<RunState>, id: string): NodeStatus {
  return useSelect(run, (r) => (r.nodes[id]?.status ?? "idle") as NodeStatus);
}

function SubgraphView({ id, data, selected }: NodeProps<Node<SubgraphData, "subgraph">>) {
  const canvas = useCanvas();
  const groups = useGroups();
  const status = useStatus(canvas.run, id);
  const problem = useSelect(canvas.problems, (p) => p[id]?.map((x) => x.message).join("\n") || null);
  const classes = ["graphnb-node", "graphnb-subgraph", `graphnb-status-${status}`];
  if (data.expanded) classes.push("graphnb-subgraph-expanded");
  if (status === "running") classes.push("graphnb-active");
  if (problem) classes.push("graphnb-has-problem");
  if (selected) classes.push("graphnb-selected");
  return (
    <div
      className={classes.join(" ")}
      data-testid={`node-${id}`}
      data-status={status}
      data-expanded={data.expanded ? "true" : "false"}
      title={problem ?? `runs the subgraph ${data.graph ?? ""} (double-click to open it)`}
      onDoubleClick={(e) => {
        e.stopPropagation();
        groups.open(id);
      }}
    >
      <Handle type="target" position={Position.Top} />
      <div className="graphnb-subgraph-header">
        <button
          type="button"
          className="graphnb-subgraph-toggle nodrag"
          data-testid={`subgraph-toggle-${id}`}
          aria-expanded={data.expanded}
          title={data.expanded ? "collapse to one node" : "expand in place"}
          onClick={(e) => {
            e.stopPropagation();
            groups.toggle(id);
          }}
          onDoubleClick={(e) => e.stopPropagation()}
        >
          {data.expanded ? "▾" : "▸"}
        </button>
        <span className="graphnb-node-label" data-testid={`node-label-${id}`}>
          {data.label}
        </span>
        <button
          type="button"
          className="graphnb-link graphnb-subgraph-open nodrag"
          data-testid={`subgraph-open-${id}`}
          title="open the subgraph to edit it"
          onClick={(e) => {
            e.stopPropagation();
            groups.open(id);
          }}
          onDoubleClick={(e) => e.stopPropagation()}
        >
          ⤢
        </button>
      </div>
      <div className="graphnb-node-meta">
        <span className="graphnb-node-binding" data-testid={`node-binding-${id}`}>
          {status !== "idle" && <span className={`graphnb-status-icon graphnb-icon-${status}`}>{STATUS_ICON[status]}</span>}
          subgraph {data.graph ? `${data.graph} · ` : ""}
          {data.count} node{data.count === 1 ? "" : "s"}
        </span>
        {status === "running" && !data.expanded && <Elapsed testid={`node-elapsed-${id}`} />}
      </div>
      <RunBadges run={canvas.run} id={id} />
      {problem && <span className="graphnb-node-badge" aria-label={problem}>!</span>}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

function InnerView({ id, data }: NodeProps<Node<InnerData, "inner">>) {
  const canvas = useCanvas();
  const status = useStatus(canvas.run, id);
  const classes = ["graphnb-node", "graphnb-inner", `graphnb-status-${status}`];
  if (status === "running") classes.push("graphnb-active");
  return (
    <div className={classes.join(" ")} data-testid={`node-${id}`} data-status={status} title={`${id}${data.binding ? `: runs ${data.binding}` : ""}`}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="graphnb-node-label">
        {status !== "idle" && <span className={`graphnb-status-icon graphnb-icon-${status}`}>{STATUS_ICON[status]} </span>}
        {data.label}
        {data.subgraph ? " ⧉" : ""}
      </div>
      <RunBadges run={canvas.run} id={id} />
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

/** Every node type the canvas draws: steps and terminals, subgraph groups, inner nodes. */
export const allNodeTypes = { ...nodeTypes, subgraph: memo(SubgraphView), inner: memo(InnerView) };
