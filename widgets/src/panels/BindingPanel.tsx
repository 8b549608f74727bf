// The binding panel: what the selected node runs, or the selected edge's kind, route and router.

import { useCallableInfo } from "../hooks/useCallableInfo";
import type { Inspect } from "../hooks/useKernel";
import type { CallableInfo, EdgeKind, EdgeSpec, GraphSpec, NodeSpec } from "../protocol";
import { CallableDetails } from "./CallableDetails";
import { CallablePicker } from "./CallablePicker";
import { Panel } from "./Panel";
import { RouteInput } from "./RouteInput";

export function BindingPanel(props: {
  spec: GraphSpec;
  node: NodeSpec | null;
  edge: EdgeSpec | null;
  callables: CallableInfo[];
  inspect: Inspect;
  onBind(node: string, binding: string | null): void;
  onBindRouter(source: string, binding: string | null): void;
  onEdgeKind(edge: EdgeSpec, kind: EdgeKind): void;
  onRoute(edge: EdgeSpec, route: string): void;
  onRefresh(): void;
}) {
  const { node, edge } = props;
  const nodeInfo = useCallableInfo(node?.binding ?? null, props.callables, props.inspect);
  const routerSource = edge && edge.kind === "conditional" ? edge.source : null;
  const routerBinding = routerSource ? (props.spec.routers[routerSource] ?? null) : null;
  const routerInfo = useCallableInfo(routerBinding, props.callables, props.inspect);
  const refresh = (
    <button type="button" className="graphnb-link" title="scan the notebook again" onClick={props.onRefresh}>
      ⟳
    </button>
  );
  return (
    <Panel id="panel-binding" title="Binding" extra={refresh}>
      {node ? (
        <>
          <p className="graphnb-muted">
            Node <strong>{node.id}</strong> runs:
          </p>
          <CallablePicker
            testid="binding"
            binding={node.binding}
            callables={props.callables}
            onBind={(b) => props.onBind(node.id, b)}
          />
          <CallableDetails {...nodeInfo} />
        </>
      ) : edge ? (
        <>
          <p className="graphnb-muted">
            Edge <strong>{edge.source === "__start__" ? "START" : edge.source}</strong> →{" "}
            <strong>{edge.target === "__end__" ? "END" : edge.target}</strong>
          </p>
          <label className="graphnb-field">
            kind
            <select
              data-testid="edge-kind-select"
              value={edge.kind}
              onChange={(e) => props.onEdgeKind(edge, e.target.value as EdgeKind)}
            >
              <option value="direct">direct (always taken)</option>
              <option value="conditional">conditional (a router picks it)</option>
              <option value="join">join (wait for all sources)</option>
            </select>
          </label>
          {edge.kind === "conditional" && (
            <>
              <RouteInput edge={edge} onRoute={props.onRoute} />
              <p className="graphnb-muted">
                Router of <strong>{edge.source}</strong> (returns a route):
              </p>
              <CallablePicker
                testid="router"
                binding={routerBinding}
                callables={props.callables}
                onBind={(b) => props.onBindRouter(edge.source, b)}
              />
              <CallableDetails {...routerInfo} />
            </>
          )}
        </>
      ) : (
        <p className="graphnb-muted">Select a node to bind it to a function, or an edge to make it conditional.</p>
      )}
    </Panel>
  );
}
