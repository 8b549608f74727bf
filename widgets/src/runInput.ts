// The run input as typed in the run panel: a JSON object, or why it is not one.

import type { Json } from "./protocol";

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
