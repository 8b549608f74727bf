import assert from "node:assert/strict";
import { test } from "node:test";
import type { FieldSpec } from "../src/protocol";
import { editUpdate } from "../src/stateEdit";

const fields: FieldSpec[] = [
  { name: "topic", type: "str", reducer: "replace", alias: null, streaming: false, required: false },
  { name: "notes", type: "list[str]", reducer: "append", alias: null, streaming: false, required: false },
];

test("an edit sends only the changed fields", () => {
  const { update, errors } = editUpdate({ topic: "a", notes: ["x"] }, { topic: "b", notes: ["x"] }, fields);
  assert.deepEqual(update, { topic: "b" });
  assert.deepEqual(errors, {});
});

test("an append field sends the items added at its end", () => {
  const { update } = editUpdate({ notes: ["x"] }, { notes: ["x", "y", "z"] }, fields);
  assert.deepEqual(update, { notes: ["y", "z"] });
});

test("an append field refuses an edit of what it holds, at the field", () => {
  const { update, errors } = editUpdate({ notes: ["x"] }, { notes: ["changed"] }, fields);
  assert.deepEqual(update, {});
  assert.match(errors.notes, /append/);
});
