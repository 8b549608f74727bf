// The widget protocol, mirrored from graphnb/widget/messages.py (keep the two in step)
// and the GraphSpec JSON of graphnb/spec.py.

export const START = "__start__";
export const END = "__end__";
/** Spec metadata key holding the canvas positions of START and END. */
export const POSITIONS_KEY = "graphnb.widget.positions";

export type XY = { x: number; y: number };
export type EdgeKind = "direct" | "conditional" | "join" | "send";
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A node's retry policy (graphnb/spec.py RetrySpec). */
export type RetrySpec = {
  max_attempts: number;
  initial_interval: number;
  backoff_factor: number;
  max_interval: number;
  jitter: boolean;
  retry_on: string[] | null;
};
/** A node's cache policy (graphnb/spec.py CacheSpec). */
export type CacheSpec = {
  ttl: number | null;
  version: string;
  fields: string[] | null;
  /** Where results are kept; absent means "memory" (Python leaves the default out). */
  store?: "memory" | "saver";
};

export type NodeSpec = {
  id: string;
  label: string | null;
  binding: string | null;
  position: XY | null;
  metadata: Record<string, Json>;
  // Absent (or null) when unset, as Python writes them.
  retry?: RetrySpec | null;
  timeout?: number | null;
  cache?: CacheSpec | null;
  /** The child graph this node runs (spec version 2). */
  subgraph?: GraphSpec | null;
  inputs?: Record<string, string> | null;
  outputs?: Record<string, string> | null;
  /** Where the node's Command(goto=...) may go: node name -> edge label (or null). */
  destinations?: Record<string, string | null> | null;
};

export type EdgeSpec = {
  source: string;
  target: string;
  kind: EdgeKind;
  route: string | null;
  label: string | null;
  metadata: Record<string, Json>;
};

export type FieldSpec = {
  name: string;
  type: string;
  reducer: string;
  alias: string | null;
  streaming: boolean;
  required: boolean;
};

export type StateSpec = {
  kind: "model" | "typeddict" | "dict";
  binding: string | null;
  fields: FieldSpec[];
};

export type GraphSpec = {
  version: 1 | 2;
  name: string;
  nodes: NodeSpec[];
  edges: EdgeSpec[];
  routers: Record<string, string | null>;
  state: StateSpec;
  metadata: Record<string, Json>;
};

// -- trait payloads -----------------------------------------------------------------------

export type NodeStatus = "idle" | "pending" | "running" | "done" | "error" | "paused" | "waiting";
export type RunStatus = "idle" | "running" | "done" | "error" | "stopped" | "paused" | "waiting";

export type ProblemInfo = { code: string; message: string; nodes: string[] };

export type CallableInfo = {
  name: string;
  binding: string;
  kind: "function" | "async" | "generator" | "async-generator" | "callable";
  signature: string;
  doc: string;
  source: string;
};

export type ModelInfo = {
  name: string;
  binding: string;
  kind: "model" | "typeddict" | "dict";
  doc: string;
  fields: FieldSpec[];
  json_schema: JsonSchema;
};

export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: Json;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  enum?: Json[];
  items?: JsonSchema;
  $ref?: string;
};

/** A node's Send instances in the run: how many, and how they stand. */
export type SendCount = { total: number; running: number; done: number; failed: number };
/**
 * A node inside a subgraph is keyed by its path joined with "/" (`research/search`).
 * `step`, `writes`: the step of the node's last finished run and what it wrote there.
 */
export type NodeRun = {
  status: NodeStatus;
  duration: number | null;
  runs: number;
  instances?: SendCount;
  cache_hits?: number;
  retries?: number;
  step?: number;
  writes?: Record<string, Json>;
};
/** A graph in the notebook a node can run as its subgraph (`graphs` trait). */
export type GraphInfo = { name: string; kind: "StateGraph" | "CompiledGraph"; nodes: number; spec: GraphSpec };
export type StepRecord = {
  step: number;
  nodes: string[];
  state: Record<string, Json>;
  changed: string[];
};
/** `problems`: what is wrong with a graph that could not start (absent in older states). */
export type RunError = { node: string | null; message: string; traceback: string; problems?: ProblemInfo[] };

export type RunState = {
  id: string | null;
  status: RunStatus;
  thread_id: string | null;
  nodes: Record<string, NodeRun>;
  active: string[];
  steps: StepRecord[];
  chunks: string;
  field: string | null;
  error: RunError | null;
  elapsed: number | null;
};

/** The synced traits of graphnb.widget.Builder. */
export type Model = {
  spec: GraphSpec;
  problems: ProblemInfo[];
  callables: CallableInfo[];
  models: ModelInfo[];
  graphs: GraphInfo[];
  run_state: RunState;
  threads: boolean;
  saver: string;
  notice: string;
  export_status: string;
  height: number;
  /** Where runs pause, and the thread a run left paused (graphnb/widget/debugger.py). */
  breakpoints: Record<string, string[]>;
  paused: PauseInfo | Record<string, never>;
};

export type PauseInfo = {
  thread_id: string;
  checkpoint_id: string;
  step: number;
  next: string[];
  interrupts: { node: string; when: "before" | "after" | "during"; value: Json; id: string }[];
};

// -- front end -> Python ------------------------------------------------------------------

export type RunRequest = { type: "run"; input: Record<string, Json>; thread_id: string | null };
export type StopRequest = { type: "stop" };
/** `direction`: top-down or left-right (the current one when absent). */
export type LayoutRequest = { type: "layout"; direction?: "TB" | "LR" };
/** Spec metadata key holding the layout direction, "TB" or "LR" (graphnb/widget/direction.py). */
export const DIRECTION_KEY = "graphnb.widget.direction";
/** `overwrite`: replace the file when it exists (the user confirmed it). */
export type ExportRequest = { type: "export"; overwrite?: boolean };
export type InspectRequest = { type: "inspect"; request: number; binding: string };
export type RefreshRequest = { type: "refresh" };
export type UseModelRequest = { type: "use_model"; binding: string | null };
export type UseSaverRequest = { type: "use_saver"; url: string };

export type ClientMessage =
  | RunRequest
  | StopRequest
  | LayoutRequest
  | ExportRequest
  | InspectRequest
  | RefreshRequest
  | UseModelRequest
  | UseSaverRequest;

// -- Python -> front end ------------------------------------------------------------------

/** `sizes`: the length of each chunk the batch joins (absent from older kernels). */
export type ChunksMessage = { type: "chunks"; run: string; node: string; offset: number; text: string; sizes?: number[] };
/** The streamed text from `offset` on is now `text`: the run withdrew text it streamed. */
export type ChunksReplacedMessage = { type: "chunks_replaced"; run: string; node: string; offset: number; text: string };
export type InspectedMessage = {
  type: "inspected";
  request: number;
  binding: string;
  info: CallableInfo | null;
  error: string | null;
};

/** The export's file exists: ask before replacing it. */
export type ExportExistsMessage = { type: "export_exists"; path: string };

export type ServerMessage = ChunksMessage | ChunksReplacedMessage | ExportExistsMessage | InspectedMessage;
