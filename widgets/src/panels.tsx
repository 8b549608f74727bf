// The side panels: binding, state model, run, state after each step, problems.

import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type {
  CallableInfo,
  EdgeKind,
  EdgeSpec,
  GraphSpec,
  Json,
  JsonSchema,
  ModelInfo,
  NodeSpec,
  ProblemInfo,
  RunState,
} from "./protocol";
import { formatDuration } from "./nodes";

export function Panel(props: { id: string; title: string; children: ReactNode; extra?: ReactNode }) {
  const [open, setOpen] = useState(true);
  return (
    <section className="graphnb-panel" data-testid={props.id}>
      <header className="graphnb-panel-header">
        <button type="button" className="graphnb-panel-toggle" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? "▾" : "▸"} {props.title}
        </button>
        {props.extra}
      </header>
      {open && <div className="graphnb-panel-body">{props.children}</div>}
    </section>
  );
}

// -- binding -------------------------------------------------------------------------------

export type Inspect = (binding: string) => Promise<{ info: CallableInfo | null; error: string | null }>;

function useCallableInfo(binding: string | null, callables: CallableInfo[], inspect: Inspect) {
  const listed = binding ? callables.find((c) => c.binding === binding) : undefined;
  const [remote, setRemote] = useState<{ binding: string; info: CallableInfo | null; error: string | null } | null>(null);
  useEffect(() => {
    if (!binding || listed) return;
    let live = true;
    inspect(binding).then((reply) => live && setRemote({ binding, ...reply }));
    return () => {
      live = false;
    };
  }, [binding, listed, inspect]);
  if (!binding) return { info: null, error: null };
  if (listed) return { info: listed, error: null };
  return remote?.binding === binding ? remote : { info: null, error: null };
}

function CallablePicker(props: {
  binding: string | null;
  callables: CallableInfo[];
  onBind(binding: string | null): void;
  testid: string;
}) {
  const [text, setText] = useState(props.binding ?? "");
  useEffect(() => setText(props.binding ?? ""), [props.binding]);
  const listed = props.callables.some((c) => c.binding === props.binding);
  return (
    <div className="graphnb-picker">
      <select
        data-testid={`${props.testid}-select`}
        value={listed ? (props.binding ?? "") : ""}
        onChange={(e) => props.onBind(e.target.value || null)}
      >
        <option value="">{props.callables.length ? "— pick a callable —" : "— no functions in the notebook —"}</option>
        {props.callables.map((c) => (
          <option key={c.binding} value={c.binding}>
            {c.signature}
          </option>
        ))}
      </select>
      <div className="graphnb-row">
        <input
          data-testid={`${props.testid}-input`}
          placeholder="module:function or notebook name"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && props.onBind(text.trim() || null)}
        />
        <button type="button" data-testid={`${props.testid}-apply`} onClick={() => props.onBind(text.trim() || null)}>
          Apply
        </button>
      </div>
    </div>
  );
}

function CallableDetails(props: { info: CallableInfo | null; error: string | null }) {
  const [showSource, setShowSource] = useState(false);
  if (props.error) return <p className="graphnb-error-text" data-testid="binding-error">{props.error}</p>;
  if (!props.info) return null;
  const { info } = props;
  return (
    <div className="graphnb-callable">
      <code data-testid="binding-signature" className="graphnb-signature">
        {info.kind !== "function" && <span className="graphnb-kind">{info.kind} </span>}
        {info.signature}
      </code>
      <p data-testid="binding-docstring" className="graphnb-doc">{info.doc || "(no docstring)"}</p>
      <button type="button" className="graphnb-link" onClick={() => setShowSource(!showSource)}>
        {showSource ? "hide source" : "show source"}
      </button>
      <pre data-testid="binding-source" className="graphnb-source" hidden={!showSource}>
        {info.source || "(source not available)"}
      </pre>
    </div>
  );
}

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

function RouteInput(props: { edge: EdgeSpec; onRoute(edge: EdgeSpec, route: string): void }) {
  const [text, setText] = useState(props.edge.route ?? props.edge.target);
  useEffect(() => setText(props.edge.route ?? props.edge.target), [props.edge.route, props.edge.target]);
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

// -- state model ---------------------------------------------------------------------------

export function StateModelPanel(props: { spec: GraphSpec; models: ModelInfo[]; onUse(binding: string | null): void }) {
  const { state } = props.spec;
  const known = props.models.some((m) => m.binding === state.binding);
  return (
    <Panel id="panel-state-model" title="State model">
      <select
        data-testid="state-model-select"
        value={state.binding ?? ""}
        onChange={(e) => props.onUse(e.target.value || null)}
      >
        <option value="">dict (untyped)</option>
        {!known && state.binding && <option value={state.binding}>{state.binding}</option>}
        {props.models.map((m) => (
          <option key={m.binding} value={m.binding}>
            {m.name}
          </option>
        ))}
      </select>
      <table className="graphnb-fields" data-testid="state-model-fields">
        <thead>
          <tr>
            <th>field</th>
            <th>type</th>
            <th>merge</th>
            <th>alias</th>
          </tr>
        </thead>
        <tbody>
          {state.fields.map((f) => (
            <tr key={f.name} data-testid={`state-model-field-${f.name}`} className={f.streaming ? "graphnb-streaming" : ""}>
              <td>
                {f.name}
                {f.required && <span title="required">*</span>}
                {f.streaming && (
                  <span className="graphnb-tag" title="receives streamed results">
                    streaming
                  </span>
                )}
              </td>
              <td>
                <code>{f.type}</code>
              </td>
              <td>{f.reducer}</td>
              <td>{f.alias ?? ""}</td>
            </tr>
          ))}
          {!state.fields.length && (
            <tr>
              <td colSpan={4} className="graphnb-muted">
                no declared fields: nodes read and write a plain dict
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </Panel>
  );
}

// -- run -----------------------------------------------------------------------------------

function schemaType(schema: JsonSchema): string {
  const t = schema.type ?? schema.anyOf?.map((s) => s.type).find((x) => x && x !== "null");
  return Array.isArray(t) ? (t.find((x) => x !== "null") ?? "") : (t ?? "");
}

function InputForm(props: {
  schema: JsonSchema;
  skip: string[];
  value: Record<string, Json>;
  onChange(v: Record<string, Json>): void;
}) {
  const properties = props.schema.properties ?? {};
  const required = new Set(props.schema.required ?? []);
  // The streaming field is written by the run; it can still be seeded in the raw JSON.
  const names = Object.keys(properties).filter((name) => !props.skip.includes(name));
  if (!names.length) return null;
  const set = (name: string, value: Json | undefined) => {
    const next = { ...props.value };
    if (value === undefined) delete next[name];
    else next[name] = value;
    props.onChange(next);
  };
  return (
    <div className="graphnb-form" data-testid="run-input-form">
      {names.map((name) => {
        const schema = properties[name];
        const type = schemaType(schema);
        const value = props.value[name];
        const label = (
          <span>
            {schema.title ?? name}
            {required.has(name) && "*"}
          </span>
        );
        if (type === "boolean")
          return (
            <label key={name} className="graphnb-field graphnb-check">
              <input
                type="checkbox"
                data-testid={`run-field-${name}`}
                checked={Boolean(value ?? schema.default)}
                onChange={(e) => set(name, e.target.checked)}
              />
              {label}
            </label>
          );
        if (type === "string" || type === "integer" || type === "number")
          return (
            <label key={name} className="graphnb-field">
              {label}
              <input
                type={type === "string" ? "text" : "number"}
                data-testid={`run-field-${name}`}
                placeholder={schema.default != null ? String(schema.default) : ""}
                value={value == null ? "" : String(value)}
                onChange={(e) => {
                  const raw = e.target.value;
                  if (raw === "") set(name, undefined);
                  else set(name, type === "string" ? raw : Number(raw));
                }}
              />
            </label>
          );
        return (
          <label key={name} className="graphnb-field">
            {label} <span className="graphnb-muted">(JSON)</span>
            <JsonField value={value} onChange={(v) => set(name, v)} testid={`run-field-${name}`} />
          </label>
        );
      })}
    </div>
  );
}

function JsonField(props: { value: Json | undefined; onChange(v: Json | undefined): void; testid: string }) {
  const [text, setText] = useState(props.value === undefined ? "" : JSON.stringify(props.value));
  const [bad, setBad] = useState(false);
  return (
    <input
      data-testid={props.testid}
      className={bad ? "graphnb-invalid" : ""}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        if (!e.target.value.trim()) {
          setBad(false);
          props.onChange(undefined);
          return;
        }
        try {
          props.onChange(JSON.parse(e.target.value));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

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
  /** Why the input cannot run (not a JSON object), or null: the toolbar's Run follows it. */
  onInputError(error: string | null): void;
}) {
  const [text, setText] = useState("{}");
  const [threadId, setThreadId] = useState("");
  const [showTrace, setShowTrace] = useState(false);
  const parsed = useMemo(() => {
    try {
      const value = JSON.parse(text || "{}");
      return value && typeof value === "object" && !Array.isArray(value)
        ? { value: value as Record<string, Json>, error: null }
        : { value: null, error: "the input must be a JSON object" };
    } catch (error) {
      return { value: null, error: String((error as Error).message) };
    }
  }, [text]);
  const { run } = props;
  const running = run.status === "running";
  useEffect(() => setShowTrace(false), [run.id]);
  const start = () => parsed.value && props.onRun(parsed.value, threadId.trim() || null);
  const { registerRun, onInputError } = props;
  useEffect(() => {
    registerRun(start);
  });
  useEffect(() => onInputError(parsed.error), [parsed.error, onInputError]);
  // A run starts: bring the panel's head (Run, Stop, the streamed text) into the side
  // panel's view, whatever the binding panel above it holds. Only the side panel scrolls.
  const head = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!running) return;
    const el = head.current;
    const side = el?.closest(".graphnb-side");
    const section = el?.closest("section");
    if (!side || !section) return;
    side.scrollTop += section.getBoundingClientRect().top - side.getBoundingClientRect().top;
  }, [run.id, running]);
  const disabledWhy = parsed.error !== null ? `fix the input first: ${parsed.error}` : running ? "a run is in progress" : "run with this input";
  return (
    <Panel id="panel-run" title="Run">
      <div ref={head} className="graphnb-row graphnb-run-controls">
        <button
          type="button"
          className="graphnb-primary"
          data-testid="run-start"
          disabled={running || !parsed.value}
          title={disabledWhy}
          onClick={start}
        >
          ▶ Run
        </button>
        <button type="button" data-testid="run-stop" disabled={!running} onClick={props.onStop}>
          ■ Stop
        </button>
        <span className={`graphnb-run-status graphnb-run-${run.status}`} data-testid="run-status">
          {run.status}
        </span>
        {run.elapsed != null && <span className="graphnb-muted">{formatDuration(run.elapsed)}</span>}
      </div>
      {/* The headline: the streamed text, right under Run and Stop, following its end. */}
      <div className="graphnb-muted">streamed{run.field ? ` into ${run.field}` : ""}:</div>
      <Chunks text={props.chunks} live={running} />
      {run.error && (
        <div className="graphnb-run-error" data-testid="run-error">
          {run.error.node && (
            <button type="button" className="graphnb-link" onClick={() => props.onSelectNode(run.error!.node!)}>
              at {run.error.node}:
            </button>
          )}{" "}
          {run.error.message}
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
            onChange={(v) => setText(JSON.stringify(v, null, 2))}
          />
        )}
        <label className="graphnb-field">
          input (JSON)
          <textarea
            data-testid="run-input-json"
            className={parsed.error ? "graphnb-invalid" : ""}
            rows={3}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        {parsed.error && (
          <p className="graphnb-error-text" data-testid="run-input-error">
            {parsed.error}
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

/** The streamed text; follows the end while it grows, unless the user scrolled up. */
function Chunks(props: { text: string; live: boolean }) {
  const box = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  const length = useRef(0);
  useEffect(() => {
    const el = box.current;
    if (props.text.length < length.current) following.current = true; // a new run
    length.current = props.text.length;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [props.text]);
  return (
    <pre
      ref={box}
      className={`graphnb-chunks${props.live ? " graphnb-chunks-live" : ""}`}
      data-testid="run-chunks"
      onScroll={(e) => {
        const el = e.currentTarget;
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {props.text}
    </pre>
  );
}

function SaverInput(props: { saver: string; onSaver(url: string): void }) {
  const [text, setText] = useState(props.saver);
  useEffect(() => setText(props.saver), [props.saver]);
  const apply = () => text.trim() !== props.saver && props.onSaver(text.trim());
  return (
    <label className="graphnb-field" title="where runs save their threads: memory://, sqlite:///threads.db, postgresql://..., mysql://...">
      saver (checkpointer URL)
      <input
        data-testid="run-saver"
        placeholder="none: runs are not saved"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => e.key === "Enter" && apply()}
      />
    </label>
  );
}

// -- state after each step ----------------------------------------------------------------

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
          <table className="graphnb-fields">
            <tbody>
              {Object.entries(step.state).map(([name, value]) => {
                const changed = step.changed.includes(name);
                return (
                  <tr key={name} data-testid={`state-field-${name}`} data-changed={changed} className={changed ? "graphnb-changed" : ""}>
                    <td>{name}</td>
                    <td>
                      <code>{JSON.stringify(value)}</code>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </Panel>
  );
}

// -- problems ------------------------------------------------------------------------------

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
