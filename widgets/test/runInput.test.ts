// The run panel's input: a JSON object or a reason it cannot run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRunInput } from "../src/runInput";

test("empty text is the empty object", () => {
  assert.deepEqual(parseRunInput(""), { value: {}, error: null });
});

test("an object parses; anything else says why it cannot run", () => {
  assert.deepEqual(parseRunInput('{"topic": "x"}').value, { topic: "x" });
  assert.equal(parseRunInput("[1]").error, "the input must be a JSON object");
  assert.equal(parseRunInput("3").error, "the input must be a JSON object");
  assert.match(parseRunInput("{topic").error ?? "", /JSON/);
});
