// The run panel: Run and Stop, the streamed text, the error, the input, saver and thread.

import { useEffect, useMemo, useRef, useState } from "react";
import { formatDuration } from "../format";
import type { Json, ModelInfo, RunState } from "../protocol";
import { fieldErrors, inputError, parseRunInput, type RunBlock } from "../runInput";
import type { Piece } from "../hooks/useStream";
import { Chunks } from "./Chunks";
import { InputForm } from "./InputForm";
import { Panel } from "./Panel";
import { ProblemList } from "./ProblemList";
import { SaverInput } from "./SaverInput";
import { InSlot } from "../SidePanel";

/** What the run panel says for a run that stopped without ending: never "done". */
const RUN_STATUS_TEXT: Partial<Record<RunState["status"], string>> = {
  paused: "paused",
  waiting: "waiting for an answer",
};

export function RunPanel(props: {
  run: RunState;
  chunks: string;
  model: ModelInfo | null;
  threads: boolean;
  saver: string;
  onSaver(url: string): void;
  onRun(input: Record<string, Json>, threadId: string | null): void;
  onStop(): void;
  onSelectNode(id: string): void;
  registerRun(run: () => void): void;
  /** Why the input cannot run (not a JSON object, a field of the wrong type), or null. */
  onInputError(error: string | null): void;
  /** Why Run cannot start (the graph's problems, this panel's input), or null. */
  blocked: RunBlock | null;
  /** The stream chunk by chunk, for the list a click on the streamed text shows. */
  pieces?: Piece[];
}) {
  const [text, setText] = useState("{}");
  const [threadId, setThreadId] = useState("");
  const [showTrace, setShowTrace] = useState(false);
  const parsed = useMemo(() => parseRunInput(text), [text]);
  const schema = props.model?.json_schema ?? null;
  const errors = useMemo(() => fieldErrors(schema, parsed.value), [schema, parsed.value]);
  const why = inputError(parsed, errors);
  const { run, blocked } = props;
  const running = run.status === "running";
  useEffect(() => setShowTrace(false), [run.id]);
  const start = () => {
    if (!blocked && !running && parsed.value) props.onRun(parsed.value, threadId.trim() || null);
  };
  const { registerRun, onInputError } = props;
  useEffect(() => {
    registerRun(start);
  });
  useEffect(() => onInputError(why), [why, onInputError]);
  // A run starts: bring the panel's head (the streamed text) into the tab's view, whatever
  // the panels above it hold. Only the tab scrolls.
  const head = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!running) return;
    const el = head.current;
    const side = el?.closest(".graphnb-side-scroll");
    const section = el?.closest("section");
    if (!side || !section) return;
    side.scrollTop += section.getBoundingClientRect().top - side.getBoundingClientRect().top;
  }, [run.id, running]);
  const disabledWhy = blocked ? blocked.reason : running ? "a run is in progress" : "run with this input";
  const problems = run.error?.problems ?? [];
  return (
    <Panel id="panel-run" title="Run" anchor={head}>
      {/* Run, Stop and the status stay in the side panel's head, whatever tab is open. */}
      <InSlot slot="status">
      <div className="graphnb-row graphnb-run-controls" data-testid="run-controls">
        <button
          type="button"
          className="graphnb-primary"
          data-testid="run-start"
          disabled={running || blocked !== null || !parsed.value}
          title={disabledWhy}
          onClick={start}
        >
          ▶ Run
        </button>
        <button type="button" data-testid="run-stop" disabled={!running} onClick={props.onStop}>
          ■ Stop
        </button>
        <span className={`graphnb-run-status graphnb-run-${run.status}`} data-testid="run-status" data-status={run.status}>
          {RUN_STATUS_TEXT[run.status] ?? run.status}
        </span>
        {run.elapsed != null && <span className="graphnb-muted">{formatDuration(run.elapsed)}</span>}
      </div>
      </InSlot>
      {blocked && !running && (
        <p className="graphnb-error-text graphnb-run-blocked" data-testid="run-blocked" role="status">
          Run is disabled: {blocked.reason}
        </p>
      )}
      {/* The headline: the streamed text, right under Run and Stop, following its end. */}
      <div className="graphnb-muted">streamed{run.field ? ` into ${run.field}` : ""}:</div>
      <Chunks text={props.chunks} live={running} pieces={props.pieces} />
      {run.error && (
        <div className="graphnb-run-error" data-testid="run-error">
          {run.error.node && (
            <button type="button" className="graphnb-link" onClick={() => props.onSelectNode(run.error!.node!)}>
              at {run.error.node}:
            </button>
          )}{" "}
          {problems.length ? (
            <>
              {/* The headline; the problems follow one a line, each linked to its node. */}
              <span className="graphnb-run-error-message">{run.error.message.split("\n")[0]}</span>
              <ProblemList problems={problems} onSelectNode={props.onSelectNode} testid="run-error-problems" />
            </>
          ) : (
            <span className="graphnb-run-error-message">{run.error.message}</span>
          )}
          <div>
            <button type="button" className="graphnb-link" data-testid="run-traceback-toggle" onClick={() => setShowTrace(!showTrace)}>
              {showTrace ? "hide traceback" : "show traceback"}
            </button>
          </div>
          {showTrace && (
            <pre className="graphnb-traceback" data-testid="run-traceback">
              {run.error.traceback}
            </pre>
          )}
        </div>
      )}
      <div className="graphnb-run-inputs">
        {props.model?.json_schema?.properties && (
          <InputForm
            schema={props.model.json_schema}
            skip={props.model.fields.filter((f) => f.streaming).map((f) => f.name)}
            value={parsed.value ?? {}}
            errors={errors}
            onChange={(v) => setText(JSON.stringify(v, null, 2))}
          />
        )}
        <label className="graphnb-field">
          input (JSON)
          <textarea
            data-testid="run-input-json"
            className={why !== null ? "graphnb-invalid" : ""}
            aria-invalid={why !== null || undefined}
            rows={3}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        {why !== null && (
          <p className="graphnb-error-text" data-testid="run-input-error">
            {why}
          </p>
        )}
        <SaverInput saver={props.saver} onSaver={props.onSaver} />
        <label
          className="graphnb-field"
          title={props.threads ? "the thread this run continues; empty: a new thread" : "set a saver above to run in threads"}
        >
          thread id
          <div className="graphnb-row">
            <input
              data-testid="run-thread-id"
              disabled={!props.threads}
              placeholder={props.threads ? "new thread" : "needs a saver"}
              value={threadId}
              onChange={(e) => setThreadId(e.target.value)}
            />
            {props.threads && run.thread_id && run.thread_id !== threadId && (
              <button
                type="button"
                className="graphnb-link"
                data-testid="run-thread-continue"
                title="continue the last run's thread"
                onClick={() => setThreadId(run.thread_id ?? "")}
              >
                use {run.thread_id}
              </button>
            )}
          </div>
        </label>
      </div>
    </Panel>
  );
}
