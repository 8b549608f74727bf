// The state after each step of the last run, one step at a time.

import { useEffect, useState } from "react";
import type { RunState } from "../protocol";
import { FieldTable } from "./FieldTable";
import { Panel } from "./Panel";

export function StatePanel(props: { run: RunState }) {
  const steps = props.run.steps;
  const [chosen, setChosen] = useState<number | null>(null);
  useEffect(() => setChosen(null), [props.run.id]);
  const index = chosen ?? steps.length - 1;
  const step = steps[index];
  return (
    <Panel id="panel-state" title="State after each step">
      {!step ? (
        <p className="graphnb-muted">Run the graph to see its state after every step.</p>
      ) : (
        <>
          <div className="graphnb-steps" data-testid="state-steps">
            {steps.map((s, i) => (
              <button
                type="button"
                key={`${s.step}-${i}`}
                data-testid={`state-step-${s.step}`}
                className={i === index ? "graphnb-step-chosen" : ""}
                title={s.nodes.join(", ")}
                onClick={() => setChosen(i)}
              >
                {s.step < 0 ? "input" : s.step}
              </button>
            ))}
          </div>
          <p className="graphnb-muted">
            {step.step < 0 ? "the input, merged into the defaults" : `after ${step.nodes.join(", ")}`}
          </p>
          <FieldTable values={step.state} changed={step.changed} testid="state-field" />
        </>
      )}
    </Panel>
  );
}
