// The run panel's input: a JSON object or a reason it cannot run.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { JsonSchema, ProblemInfo } from "../src/protocol";
import { fieldErrors, inputError, numberFromText, parseRunInput, runBlock } from "../src/runInput";

test("empty text is the empty object", () => {
  assert.deepEqual(parseRunInput(""), { value: {}, error: null });
});

test("an object parses; anything else says why it cannot run", () => {
  assert.deepEqual(parseRunInput('{"topic": "x"}').value, { topic: "x" });
  assert.equal(parseRunInput("[1]").error, "the input must be a JSON object");
  assert.equal(parseRunInput("3").error, "the input must be a JSON object");
  assert.match(parseRunInput("{topic").error ?? "", /JSON/);
});

test("a number field's text is the number it reads as, or the text itself to be flagged", () => {
  assert.equal(numberFromText(""), undefined);
  assert.equal(numberFromText(" 12 "), 12);
  assert.equal(numberFromText("-1.5e2"), -150);
  assert.equal(numberFromText("12a"), "12a");
  assert.equal(numberFromText("abc"), "abc");
});

const SCHEMA: JsonSchema = {
  properties: {
    topic: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    done: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    maybe: { anyOf: [{ type: "integer" }, { type: "null" }] },
    nested: { $ref: "#/$defs/Inner" },
    mood: { enum: ["calm", "busy"] },
  },
};

test("each wrong-typed field says what it expected and what it got", () => {
  const errors = fieldErrors(SCHEMA, {
    topic: 5,
    count: "abc",
    ratio: "fast",
    done: "perhaps",
    tags: "x",
    maybe: 1.5,
    mood: "angry",
  });
  assert.deepEqual(Object.keys(errors).sort(), ["count", "done", "maybe", "mood", "ratio", "tags", "topic"]);
  assert.equal(errors.count, 'expected an integer, got "abc"');
  assert.equal(errors.topic, "expected a string, got 5");
  assert.equal(errors.maybe, "expected an integer or null, got 1.5");
  assert.equal(errors.mood, 'expected one of "calm", "busy", got "angry"');
});

test("what the state model accepts in lax mode is never flagged", () => {
  const errors = fieldErrors(SCHEMA, {
    topic: "x",
    count: "5",
    ratio: 2,
    done: "yes",
    tags: ["a"],
    maybe: null,
    nested: { anything: 1 },
    mood: "calm",
    unknown: "not in the schema",
  });
  assert.deepEqual(errors, {});
  assert.deepEqual(fieldErrors(null, { count: "abc" }), {});
  assert.deepEqual(fieldErrors(SCHEMA, null), {});
});

test("the input's reason: bad JSON first, else every wrong field", () => {
  assert.equal(inputError(parseRunInput("{x"), {}), parseRunInput("{x").error);
  assert.equal(inputError(parseRunInput("{}"), {}), null);
  assert.equal(
    inputError(parseRunInput('{"count": "a"}'), { count: "expected an integer", ratio: "expected a number" }),
    "count: expected an integer; ratio: expected a number",
  );
});

test("Run is blocked by the graph's problems and by the input, said the same way", () => {
  const unbound: ProblemInfo = { code: "unbound", message: "`a` is not bound to a callable.", nodes: ["a"] };
  const lost: ProblemInfo = { code: "unreachable", message: "`b` cannot be reached from START.", nodes: ["b"] };
  const exercise: ProblemInfo = { code: "exercise", message: "draw more", nodes: [] };
  assert.equal(runBlock([], null), null);
  assert.equal(runBlock([exercise], null), null, "an exercise's points never stop a run");
  assert.deepEqual(runBlock([unbound], null), {
    short: "1 problem",
    reason: "the graph cannot run: `a` is not bound to a callable.",
  });
  const both = runBlock([unbound, lost], "count: expected an integer");
  assert.equal(both?.short, "2 problems, bad input");
  assert.match(both?.reason ?? "", /2 problems \(see Problems\).*; fix the run input first: count: expected an integer$/);
  assert.deepEqual(runBlock([], "Unexpected token"), {
    short: "bad input",
    reason: "fix the run input first: Unexpected token",
  });
});
