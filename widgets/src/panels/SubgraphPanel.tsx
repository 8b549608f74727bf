// The subgraph panel: run the selected node as a graph of the notebook (any StateGraph or
// compiled graph there), open the child it runs, or make it a plain step again.

import { useEffect, useState } from "react";
import type { GraphInfo, NodeSpec } from "../protocol";
import { GRAPH_KEY } from "../subgraphs";
import { Panel } from "./Panel";

export function SubgraphPanel(props: {
  node: NodeSpec;
  graphs: GraphInfo[];
  onBind(graph: GraphInfo): void;
  onDetach(): void;
  onOpen(): void;
  /** Rename the node; false when the name is taken (double-click opens a group, so its
   * name is edited here). */
  onRename(to: string): boolean;
}) {
  const { node, graphs } = props;
  const bound = node.metadata?.[GRAPH_KEY];
  const [choice, setChoice] = useState<string>("");
  useEffect(() => setChoice(typeof bound === "string" ? bound : (graphs[0]?.name ?? "")), [node.id, bound, graphs]);
  const picked = graphs.find((g) => g.name === choice) ?? null;
  return (
    <Panel id="panel-subgraph" title="Subgraph">
      {node.subgraph && (
        <label className="graphnb-field">
          node name
          <input
            data-testid="subgraph-rename"
            defaultValue={node.id}
            key={node.id}
            onKeyDown={(e) => {
              if (e.key !== "Enter") return;
              const input = e.target as HTMLInputElement;
              const ok = input.value === node.id || props.onRename(input.value);
              input.classList.toggle("graphnb-invalid", !ok);
            }}
          />
        </label>
      )}
      {node.subgraph ? (
        <p className="graphnb-muted" data-testid="subgraph-summary">
          <strong>{node.id}</strong> runs the graph <strong>{typeof bound === "string" ? bound : node.subgraph.name}</strong> ({node.subgraph.nodes.length} nodes).{" "}
          <button type="button" className="graphnb-link" data-testid="subgraph-open" onClick={props.onOpen}>
            open
          </button>{" "}
          ·{" "}
          <button type="button" className="graphnb-link" data-testid="subgraph-detach" onClick={props.onDetach}>
            make it a step
          </button>
        </p>
      ) : (
        <p className="graphnb-muted">Run a graph of the notebook as this node:</p>
      )}
      {graphs.length ? (
        <div className="graphnb-row">
          <select data-testid="subgraph-select" value={choice} onChange={(e) => setChoice(e.target.value)}>
            {graphs.map((g) => (
              <option key={g.name} value={g.name}>
                {g.name} ({g.nodes} node{g.nodes === 1 ? "" : "s"})
              </option>
            ))}
          </select>
          <button type="button" data-testid="subgraph-bind" disabled={!picked} onClick={() => picked && props.onBind(picked)}>
            {node.subgraph ? "Replace" : "Use"}
          </button>
        </div>
      ) : (
        <p className="graphnb-muted" data-testid="subgraph-none">
          no graph in the notebook yet: build a StateGraph in a cell and it shows here
        </p>
      )}
    </Panel>
  );
}
