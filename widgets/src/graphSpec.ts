// The GraphSpec JSON of graphnb/spec.py, mirrored by hand (keep the two in step; the
// pydantic models there are the source). The kernel's messages are in protocol.ts.

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

/** A JSON Schema, as far as the input form reads one (pydantic's model_json_schema). */
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

/** Spec metadata key holding the layout direction, "TB" or "LR" (graphnb/widget/direction.py). */
export const DIRECTION_KEY = "graphnb.widget.direction";
