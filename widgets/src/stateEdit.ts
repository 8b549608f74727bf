// What an "Edit state" form means as an update_state call: the fields the user changed,
// and for an append field only the items added at its end (its reducer appends them).

import type { FieldSpec, Json } from "./protocol";

export function same(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The update an edit means: changed fields only; an append field gets its new items. */
export function editUpdate(
  before: Record<string, Json>,
  after: Record<string, Json>,
  fields: FieldSpec[],
): { update: Record<string, Json>; errors: Record<string, string> } {
  const update: Record<string, Json> = {};
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(after)) {
    const old = before[name];
    if (same(old, value)) continue;
    const field = fields.find((f) => f.name === name);
    if (field?.reducer === "append") {
      const kept = Array.isArray(old) ? old : [];
      if (!Array.isArray(value) || !same(value.slice(0, kept.length), kept)) {
        errors[name] = "an append field only takes new items at its end";
        continue;
      }
      update[name] = value.slice(kept.length);
    } else update[name] = value;
  }
  return { update, errors };
}

