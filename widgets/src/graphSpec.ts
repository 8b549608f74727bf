// The graph spec of graphnb/spec.py: its types are generated from the pydantic models there
// (spec.generated.ts); this module adds the names and constants the front end uses with them.
// The kernel's messages are in protocol.ts.

export const START = "__start__";
export const END = "__end__";
/** Spec metadata key holding the canvas positions of START and END. */
export const POSITIONS_KEY = "graphnb.widget.positions";

export type {
  CacheSpec,
  EdgeSpec,
  FieldSpec,
  GraphSpec,
  Json,
  NodeSpec,
  RetrySpec,
  StateSpec,
} from "./spec.generated";
import type { EdgeSpec, Json, Position } from "./spec.generated";
export type EdgeKind = EdgeSpec["kind"];
/** A canvas position; a plain object type, so it fits in JSON metadata. */
export type XY = Pick<Position, "x" | "y">;

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
