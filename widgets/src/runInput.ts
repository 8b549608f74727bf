// The run input as typed in the run panel: a JSON object, or why it is not one; what each
// field holds that the state model would refuse; and why Run cannot start.

import type { Json, JsonSchema, ProblemInfo } from "./protocol";

export type ParsedInput = { value: Record<string, Json>; error: null } | { value: null; error: string };

/** Empty text is the empty object. */
export function parseRunInput(text: string): ParsedInput {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" && !Array.isArray(value)
      ? { value: value as Record<string, Json>, error: null }
      : { value: null, error: "the input must be a JSON object" };
  } catch (error) {
    return { value: null, error: String((error as Error).message) };
  }
}

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
/** The strings pydantic reads as a boolean. */
const BOOLEAN_WORDS = new Set(["0", "1", "f", "t", "n", "y", "no", "yes", "off", "on", "false", "true"]);

/**
 * What a number field's text puts in the input: nothing when empty, the number it reads
 * as, or the text itself (which the form then flags: a wrong type is shown, not dropped).
 */
export function numberFromText(text: string): Json | undefined {
  if (!text.trim()) return undefined;
  return NUMBER.test(text) && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** Whether `value` is one of the JSON schema type `type`, as pydantic's lax mode reads it
 * (`"5"` is an integer, `1` a boolean): the form never refuses what the run would take. */
function accepts(type: string, value: Json): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "string":
      return typeof value === "string";
    case "integer":
      if (typeof value === "string") return NUMBER.test(value) && Number.isInteger(Number(value));
      return typeof value === "boolean" || (typeof value === "number" && Number.isInteger(value));
    case "number":
      if (typeof value === "string") return NUMBER.test(value);
      return typeof value === "number" || typeof value === "boolean";
    case "boolean":
      if (typeof value === "string") return BOOLEAN_WORDS.has(value.trim().toLowerCase());
      return typeof value === "boolean" || value === 0 || value === 1;
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return true; // a type this check does not know: the run will say
  }
}

const TYPE_NAMES: Record<string, string> = {
  null: "null",
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
};

/** The JSON types a property allows, or null when any value may do (a `$ref`, no type). */
function allowedTypes(schema: JsonSchema): string[] | null {
  if (schema.type !== undefined) return Array.isArray(schema.type) ? schema.type : [schema.type];
  if (!schema.anyOf) return null;
  const types: string[] = [];
  for (const option of schema.anyOf) {
    const inner = allowedTypes(option);
    if (inner === null) return null;
    types.push(...inner);
  }
  return types;
}

/** Why `value` does not fit the property `schema`, or null when it does. */
export function valueError(schema: JsonSchema, value: Json): string | null {
  const shown = JSON.stringify(value);
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === shown)) {
    return `expected one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")}, got ${shown}`;
  }
  const types = allowedTypes(schema);
  if (types === null || types.some((type) => accepts(type, value))) return null;
  const names = [...new Set(types.map((type) => TYPE_NAMES[type] ?? type))];
  return `expected ${names.join(" or ")}, got ${shown}`;
}

/** What each field of the input holds that the state model would refuse, by field name. */
export function fieldErrors(schema: JsonSchema | null | undefined, input: Record<string, Json> | null): Record<string, string> {
  const errors: Record<string, string> = {};
  const properties = schema?.properties;
  if (!properties || !input) return errors;
  for (const [name, value] of Object.entries(input)) {
    const property = properties[name];
    if (!property) continue;
    const error = valueError(property, value);
    if (error) errors[name] = error;
  }
  return errors;
}

/** Why the run input cannot run: bad JSON first, else each wrong field; null when it can. */
export function inputError(parsed: ParsedInput, errors: Record<string, string>): string | null {
  if (parsed.error !== null) return parsed.error;
  const wrong = Object.entries(errors).map(([name, error]) => `${name}: ${error}`);
  return wrong.length ? wrong.join("; ") : null;
}

/** Why Run is disabled: `short` beside the toolbar's Run, `reason` in full. */
export type RunBlock = { short: string; reason: string };

/**
 * Why Run cannot start, or null when it can: the graph's problems (an exercise's points are
 * no reason) and the run input, each said the same way.
 */
export function runBlock(problems: ProblemInfo[], input: string | null): RunBlock | null {
  const blocking = problems.filter((p) => p.code !== "exercise");
  const shorts: string[] = [];
  const reasons: string[] = [];
  if (blocking.length === 1) {
    shorts.push("1 problem");
    reasons.push(`the graph cannot run: ${blocking[0].message}`);
  } else if (blocking.length > 1) {
    shorts.push(`${blocking.length} problems`);
    reasons.push(`the graph cannot run: ${blocking.length} problems (see Problems), first: ${blocking[0].message}`);
  }
  if (input !== null) {
    shorts.push("bad input");
    reasons.push(`fix the run input first: ${input}`);
  }
  return reasons.length ? { short: shorts.join(", "), reason: reasons.join("; ") } : null;
}

/** Why Run is off in a view that cannot reach its kernel (said on hover and on screen). */
export function disconnectedBlock(connection: { reason: string; final: boolean }): RunBlock {
  return {
    short: connection.final ? "disconnected" : "reconnecting",
    reason: connection.final
      ? `this view is disconnected (${connection.reason}): run the cell again to run the graph`
      : `this view is reconnecting (${connection.reason}): Run comes back with the connection`,
  };
}
