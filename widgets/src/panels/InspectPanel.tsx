// Inspect a node: select a node that ran to see its input (the state before its step),
// what it wrote and how long it took in the last run, and the chunks it streamed.

import { useEffect, useRef } from "react";
import type { Pieces } from "../hooks/useStream";
import type { RunState } from "../protocol";
import { formatDuration } from "../format";
import { FieldTable } from "./FieldTable";
import { Panel } from "./Panel";

export function InspectPanel(props: { run: RunState; node: string; pieces: Pieces }) {
  const { run, node } = props;
  const record = run.nodes[node];
  // A click on a node that ran brings its record into the side panel's view.
  const anchor = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const side = anchor.current?.closest(".graphnb-side-scroll");
    if (side) side.scrollTop = 0;
  }, [node]);
  if (!record || record.step === undefined || !record.writes) {
    if (record?.status === "running" || record?.status === "error")
      return (
        <Panel id="panel-inspect" title={`Last run of ${node}`}>
          <p className="graphnb-muted" data-testid="inspect-status">
            {record.status === "running" ? "running…" : "failed: see the run panel"}
          </p>
        </Panel>
      );
    return null;
  }
  // The input: the state after the step before the node's (the input step for the first).
  const index = run.steps.findIndex((s) => s.step === record.step);
  const before = index > 0 ? run.steps[index - 1].state : index === 0 ? {} : null;
  const chunks = props.pieces.run === run.id ? props.pieces.pieces.filter((p) => p.node === node) : [];
  return (
    <Panel id="panel-inspect" title={`Last run of ${node}`}>
      <p className="graphnb-muted" data-testid="inspect-summary">
        <span ref={anchor} />
        step {record.step} · took <strong data-testid="inspect-duration">{formatDuration(record.duration ?? 0)}</strong>
        {record.runs > 1 ? ` · ran ${record.runs}×, the last shown` : ""}
      </p>
      <div className="graphnb-inspect-title">input</div>
      {before ? <FieldTable values={before} testid="inspect-input" empty="nothing" /> : <p className="graphnb-muted">not kept (an older step)</p>}
      <div className="graphnb-inspect-title">writes</div>
      <FieldTable values={record.writes} testid="inspect-writes" empty="nothing" />
      {chunks.length > 0 && (
        <>
          <div className="graphnb-inspect-title">streamed {chunks.length} chunks</div>
          <ol className="graphnb-chunk-list" data-testid="inspect-chunks">
            {chunks.slice(-200).map((c, i) => (
              <li key={i}>
                <code>{JSON.stringify(c.text)}</code>
              </li>
            ))}
          </ol>
        </>
      )}
    </Panel>
  );
}
