// The canvas: React Flow with the graph's nodes and edges, wired to the editing hook.

import { Background, Controls, MiniMap, ReactFlow } from "@xyflow/react";
import { edgeTypes } from "./edges";
import { FIT } from "./flow";
import type { CanvasEditing } from "./hooks/useCanvasEditing";
import { Canvas, nodeTypes, type CanvasContext } from "./nodes";

export function GraphCanvas(props: { editing: CanvasEditing; context: CanvasContext; dark: boolean }) {
  const { editing } = props;
  return (
    <div className="graphnb-canvas" ref={editing.wrapper} onDoubleClick={editing.onCanvasDoubleClick}>
      <Canvas.Provider value={props.context}>
        <ReactFlow
          nodes={editing.nodes}
          edges={editing.edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onNodesChange={editing.onNodesChange}
          onEdgesChange={editing.onEdgesChange}
          onNodeDragStop={editing.onNodeDragStop}
          onConnect={editing.onConnect}
          onConnectEnd={editing.onConnectEnd}
          onDelete={editing.onDelete}
          onSelectionChange={editing.onSelectionChange}
          deleteKeyCode={["Delete", "Backspace"]}
          multiSelectionKeyCode={["Shift", "Meta", "Control"]}
          colorMode={props.dark ? "dark" : "light"}
          fitView
          fitViewOptions={FIT}
          zoomOnDoubleClick={false}
          minZoom={0.1}
          onlyRenderVisibleElements={editing.nodes.length > 150}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} fitViewOptions={FIT} />
          <MiniMap pannable zoomable style={{ width: 140, height: 100 }} />
        </ReactFlow>
      </Canvas.Provider>
    </div>
  );
}
