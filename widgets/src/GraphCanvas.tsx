// The canvas: React Flow with the graph's nodes and edges, wired to the editing hook.

import { Background, Controls, MiniMap, ReactFlow } from "@xyflow/react";
import type { ReactNode } from "react";
import { Disconnected } from "./Disconnected";
import { edgeTypes } from "./edges";
import { FIT } from "./flow";
import { useDrawnNodes, type CanvasEditing } from "./hooks/useCanvasEditing";
import type { Connection } from "./hooks/useConnection";
import { Canvas, type CanvasContext } from "./canvasContext";
import { allNodeTypes } from "./SubgraphNode";
import { CULL_FROM } from "./virtualise";
import { LightMiniMap } from "./LightMiniMap";

// The same objects on every render: React Flow subscribes its key handlers again for a new
// list of keys.
const DELETE_KEYS = ["Delete", "Backspace"];
const MULTI_SELECT_KEYS = ["Shift", "Meta", "Control"];
const PRO_OPTIONS = { hideAttribution: true };

export function GraphCanvas(props: {
  editing: CanvasEditing;
  context: CanvasContext;
  dark: boolean;
  connection: Connection;
  onMoveStart(event: MouseEvent | TouchEvent | null): void;
  /** Which run the badges show: the live one or a picked checkpoint (see RunView.tsx). */
  viewing?: "live" | "checkpoint";
  /** Drawn over the canvas (its corner buttons). */
  children?: ReactNode;
}) {
  const { editing } = props;
  const editable = props.connection.live;
  const nodes = useDrawnNodes(editing.nodes);
  return (
    <div className="graphnb-canvas" data-view={props.viewing ?? "live"} ref={editing.wrapper} onDoubleClick={editing.onCanvasDoubleClick}>
      <Canvas.Provider value={props.context}>
        <ReactFlow
          nodes={nodes}
          edges={editing.edges}
          nodeTypes={allNodeTypes}
          edgeTypes={edgeTypes}
          onNodesChange={editing.onNodesChange}
          onEdgesChange={editing.onEdgesChange}
          onNodeDragStop={editing.onNodeDragStop}
          onConnect={editing.onConnect}
          onConnectEnd={editing.onConnectEnd}
          onDelete={editing.onDelete}
          onMoveStart={props.onMoveStart}
          deleteKeyCode={editable ? DELETE_KEYS : null}
          nodesDraggable={editable}
          nodesConnectable={editable}
          multiSelectionKeyCode={MULTI_SELECT_KEYS}
          colorMode={props.dark ? "dark" : "light"}
          fitView
          fitViewOptions={FIT}
          zoomOnDoubleClick={false}
          minZoom={0.1}
          onlyRenderVisibleElements={nodes.length > CULL_FROM}
          proOptions={PRO_OPTIONS}
        >
          <Background />
          <Controls
            showInteractive={false}
            fitViewOptions={FIT}
            onZoomIn={editing.onUserMove}
            onZoomOut={editing.onUserMove}
            onFitView={editing.onUserMove}
          />
          {nodes.length > CULL_FROM ? <LightMiniMap /> : <MiniMap pannable zoomable style={{ width: 140, height: 100 }} />}
        </ReactFlow>
        <Disconnected connection={props.connection} />
        {props.children}
      </Canvas.Provider>
    </div>
  );
}
