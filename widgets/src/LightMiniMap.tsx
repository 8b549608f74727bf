// The minimap of a large graph: every node drawn as one SVG path, the view as a window in
// a mask. React Flow's MiniMap draws a component per node, each subscribed to the store: at
// 1,000 nodes every frame of a drag ran a thousand selectors. This one subscribes once and
// redraws one path. Like React Flow's, a click or drag on it moves the view there and the
// wheel zooms.

import { Panel, useReactFlow, useStore, type ReactFlowState } from "@xyflow/react";
import { useMemo, useRef } from "react";

const SIZE = { width: 140, height: 100 };
const DEFAULT = { width: 162, height: 39 };

const selectView = (s: ReactFlowState) => `${s.transform[0]} ${s.transform[1]} ${s.transform[2]} ${s.width} ${s.height}`;

export function LightMiniMap() {
  const flow = useReactFlow();
  // The user's nodes change (as an array) whenever a node moves, appears or goes.
  const nodes = useStore((s) => s.nodes);
  const lookup = useStore((s) => s.nodeLookup);
  const view = useStore(selectView);
  const drawn = useMemo(() => {
    let path = "";
    let x1 = Infinity;
    let y1 = Infinity;
    let x2 = -Infinity;
    let y2 = -Infinity;
    for (const node of nodes) {
      const internal = lookup.get(node.id);
      if (!internal || internal.hidden || node.parentId) continue;
      const { x, y } = internal.internals.positionAbsolute;
      const w = internal.measured.width ?? DEFAULT.width;
      const h = internal.measured.height ?? DEFAULT.height;
      path += `M${x},${y}h${w}v${h}h${-w}z`;
      x1 = Math.min(x1, x);
      y1 = Math.min(y1, y);
      x2 = Math.max(x2, x + w);
      y2 = Math.max(y2, y + h);
    }
    return { path, box: Number.isFinite(x1) ? { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } : null };
  }, [nodes, lookup]);
  const [tx, ty, zoom, width, height] = view.split(" ").map(Number);
  const seen = { x: -tx / zoom, y: -ty / zoom, width: width / zoom, height: height / zoom };
  const box = drawn.box ?? seen;
  const x1 = Math.min(box.x, seen.x);
  const y1 = Math.min(box.y, seen.y);
  const w = Math.max(box.x + box.width, seen.x + seen.width) - x1;
  const h = Math.max(box.y + box.height, seen.y + seen.height) - y1;
  const scale = Math.max(w / SIZE.width, h / SIZE.height);
  const vw = SIZE.width * scale;
  const vh = SIZE.height * scale;
  const offset = 5 * scale;
  const vx = x1 - (vw - w) / 2 - offset;
  const vy = y1 - (vh - h) / 2 - offset;
  const svg = useRef<SVGSVGElement>(null);
  const dragging = useRef(false);

  const moveTo = (event: React.PointerEvent<SVGSVGElement>) => {
    const rect = svg.current?.getBoundingClientRect();
    if (!rect) return;
    const fx = vx + ((event.clientX - rect.left) / rect.width) * (vw + offset * 2);
    const fy = vy + ((event.clientY - rect.top) / rect.height) * (vh + offset * 2);
    void flow.setCenter(fx, fy, { zoom: flow.getZoom() });
  };
  return (
    <Panel position="bottom-right" className="react-flow__minimap graphnb-light-minimap" style={SIZE}>
      <svg
        ref={svg}
        width={SIZE.width}
        height={SIZE.height}
        viewBox={`${vx} ${vy} ${vw + offset * 2} ${vh + offset * 2}`}
        className="react-flow__minimap-svg nopan nodrag"
        data-testid="light-minimap"
        onPointerDown={(e) => {
          dragging.current = true;
          e.currentTarget.setPointerCapture(e.pointerId);
          moveTo(e);
        }}
        onPointerMove={(e) => dragging.current && moveTo(e)}
        onPointerUp={() => {
          dragging.current = false;
        }}
        onWheel={(e) => void flow.zoomTo(flow.getZoom() * (e.deltaY < 0 ? 1.2 : 1 / 1.2))}
      >
        <path className="react-flow__minimap-node" d={drawn.path} />
        <path
          className="react-flow__minimap-mask"
          d={`M${vx},${vy}h${vw + offset * 2}v${vh + offset * 2}h${-(vw + offset * 2)}z
              M${seen.x},${seen.y}h${seen.width}v${seen.height}h${-seen.width}z`}
          fillRule="evenodd"
          pointerEvents="none"
        />
      </svg>
    </Panel>
  );
}
