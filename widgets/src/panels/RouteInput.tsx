// The route of a conditional edge: what its source's router returns to take it.

import { useEffect, useState } from "react";
import type { EdgeSpec } from "../protocol";
import { routeText } from "../spec";

export function RouteInput(props: { edge: EdgeSpec; onRoute(edge: EdgeSpec, route: string): void }) {
  const [text, setText] = useState(routeText(props.edge));
  const { route, target } = props.edge;
  useEffect(() => setText(routeText({ route, target })), [route, target]);
  return (
    <label className="graphnb-field">
      route (the router's return value)
      <input
        data-testid="edge-route-input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => props.onRoute(props.edge, text.trim())}
        onKeyDown={(e) => e.key === "Enter" && props.onRoute(props.edge, text.trim())}
      />
    </label>
  );
}
