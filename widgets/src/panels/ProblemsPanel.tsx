// The graph's problems; a problem that names a node selects it.

import type { ProblemInfo } from "../protocol";
import { Panel } from "./Panel";
import { ProblemList } from "./ProblemList";

export function ProblemsPanel(props: { problems: ProblemInfo[]; onSelectNode(id: string): void }) {
  return (
    <Panel id="panel-problems" title={`Problems (${props.problems.length})`}>
      {props.problems.length === 0 ? (
        <p className="graphnb-muted">No problems: the graph can run.</p>
      ) : (
        <ProblemList problems={props.problems} onSelectNode={props.onSelectNode} testid="problems-list" />
      )}
    </Panel>
  );
}
