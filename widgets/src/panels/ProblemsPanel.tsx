// The graph's problems; a problem that names a node selects it.

import type { ProblemInfo } from "../protocol";
import { Panel } from "./Panel";

export function ProblemsPanel(props: { problems: ProblemInfo[]; onSelectNode(id: string): void }) {
  return (
    <Panel id="panel-problems" title={`Problems (${props.problems.length})`}>
      {props.problems.length === 0 ? (
        <p className="graphnb-muted">No problems: the graph can run.</p>
      ) : (
        <ul className="graphnb-problems">
          {props.problems.map((p, i) => (
            <li key={i} data-testid={`problem-${p.code}`}>
              <span className="graphnb-tag">{p.code}</span>{" "}
              {p.nodes.length ? (
                <button type="button" className="graphnb-link" onClick={() => props.onSelectNode(p.nodes[0])}>
                  {p.message}
                </button>
              ) : (
                p.message
              )}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
