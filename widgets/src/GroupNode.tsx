// A collapsed group on the canvas: its name and how many nodes it holds; the ▸ button (or
// the box's context menu) opens it again. Its node type is "collapsed", not React Flow's
// built-in "group", whose default style would frame it.

import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { useCanvas } from "./canvasContext";

export type GroupData = { label: string; count: number; lr?: boolean; group: string };
export type GroupBox = Node<GroupData, "collapsed">;

function GroupView({ data }: NodeProps<GroupBox>) {
  const canvas = useCanvas();
  return (
    <div
      className="graphnb-group"
      data-testid={`group-${data.group}`}
      title={`${data.count} nodes: double-click to open`}
      onDoubleClick={(e) => {
        e.stopPropagation();
        canvas.expandGroup?.(data.group);
      }}
    >
      <Handle type="target" position={data.lr ? Position.Left : Position.Top} isConnectable={false} />
      <button
        type="button"
        className="graphnb-group-open nodrag"
        data-testid={`group-open-${data.group}`}
        title="open the group"
        onClick={() => canvas.expandGroup?.(data.group)}
      >
        ▸
      </button>
      <span className="graphnb-node-label">{data.label}</span>
      <span className="graphnb-group-count">group · {data.count} nodes</span>
      <Handle type="source" position={data.lr ? Position.Right : Position.Bottom} isConnectable={false} />
    </div>
  );
}

export const GroupNodeView = memo(GroupView);
