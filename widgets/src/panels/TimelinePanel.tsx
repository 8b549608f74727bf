// The trace timeline: a bar per node run over the run's time (parallel nodes side by
// side, each on its row), its duration, failures in the error colour. Clicking a bar
// shows the state after the step that node ran in.

import { useState } from "react";
import { formatDuration } from "../format";
import { useTimeline } from "../hooks/useTimeline";
import type { NodeRun, RunState } from "../protocol";
import { Panel } from "./Panel";
import "./debugger.css";

/** How often a node's retry policy ran it again and its cache answered for it, this run. */
function PolicyMarks(props: { node: string; record: NodeRun | undefined }) {
  const { node, record } = props;
  return (
    <span className="graphnb-timeline-marks">
      {!!record?.retries && (
        <span data-testid={`timeline-retries-${node}`} title="attempts run again by the retry policy">
          retried ×{record.retries}
        </span>
      )}
      {!!record?.cache_hits && (
        <span data-testid={`timeline-cache-${node}`} title="results from the node's cache">
          cached ×{record.cache_hits}
        </span>
      )}
    </span>
  );
}

export function TimelinePanel(props: { run: RunState }) {
  const { run } = props;
  const { bars, now } = useTimeline(run);
  const [picked, setPicked] = useState<string | null>(null);
  if (!bars.length) return null;
  const span = Math.max(now, ...bars.map((b) => b.end ?? now), 1);
  const rows = [...new Set(bars.map((b) => b.node))];
  const chosen = bars.find((b) => `${b.node}#${b.index}` === picked) ?? null;
  // The step the chosen run of the node belongs to: its index-th step naming it.
  const step = chosen ? run.steps.filter((s) => s.nodes.includes(chosen.node))[chosen.index] : undefined;
  return (
    <Panel id="panel-timeline" title="Timeline">
      <div className="graphnb-timeline" data-testid="timeline">
        {rows.map((node) => (
          <div key={node} className="graphnb-timeline-row">
            <span className="graphnb-timeline-name" title={node}>
              {node}
            </span>
            <div className="graphnb-timeline-track">
              {bars
                .filter((b) => b.node === node)
                .map((b) => {
                  const end = b.end ?? now;
                  return (
                    <button
                      type="button"
                      key={b.index}
                      data-testid={`timeline-bar-${b.node}-${b.index}`}
                      data-status={b.status}
                      className={`graphnb-timeline-bar graphnb-bar-${b.status}`}
                      style={{ left: `${(100 * b.start) / span}%`, width: `${Math.max(1, (100 * (end - b.start)) / span)}%` }}
                      title={`${b.node}: ${formatDuration((end - b.start) / 1000)}`}
                      onClick={() => setPicked(`${b.node}#${b.index}`)}
                    />
                  );
                })}
            </div>
            <PolicyMarks node={node} record={run.nodes[node]} />
          </div>
        ))}
      </div>
      {chosen && (
        <div data-testid="timeline-detail">
          <p className="graphnb-muted">
            {chosen.node} · {chosen.status} · {formatDuration(((chosen.end ?? now) - chosen.start) / 1000)}
          </p>
          {step && (
            <code className="graphnb-timeline-state" data-testid="timeline-state">
              {JSON.stringify(step.state)}
            </code>
          )}
        </div>
      )}
    </Panel>
  );
}
