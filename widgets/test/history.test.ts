// Undo and redo: what the stacks hold after edits, remote changes, undos and redos.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HISTORY_LIMIT, receive, record, redo, startHistory, undo } from "../src/history";
import type { GraphSpec } from "../src/protocol";
import * as edit from "../src/spec";

const empty: GraphSpec = {
  version: 1,
  name: "g",
  nodes: [],
  edges: [],
  routers: {},
  state: { kind: "dict", binding: null, fields: [] },
  metadata: {},
};

test("undo walks back through edits and redo forward again", () => {
  const one = edit.addNode(empty, { x: 0, y: 0 }, "a");
  const two = edit.addNode(one, { x: 0, y: 100 }, "b");
  let history = record(record(startHistory(empty), one), two);
  history = undo(history);
  assert.equal(history.present, one);
  history = undo(history);
  assert.equal(history.present, empty);
  assert.equal(undo(history), history, "nothing left to undo");
  history = redo(redo(history));
  assert.equal(history.present, two);
  assert.equal(redo(history), history, "nothing left to redo");
});

test("an edit after an undo drops the redo stack", () => {
  const one = edit.addNode(empty, { x: 0, y: 0 }, "a");
  const other = edit.addNode(empty, { x: 0, y: 0 }, "z");
  const history = record(undo(record(startHistory(empty), one)), other);
  assert.deepEqual(history.future, []);
  assert.deepEqual(history.past, [empty]);
});

test("recording the present spec again changes nothing", () => {
  const history = startHistory(empty);
  assert.equal(record(history, empty), history);
});

test("a spec from Python counts as a change only when it differs", () => {
  const history = startHistory(empty);
  const echo = receive(history, JSON.parse(JSON.stringify(empty)) as GraphSpec);
  assert.equal(echo.changed, false);
  assert.deepEqual(echo.history.past, []);
  const laidOut = edit.addNode(empty, { x: 5, y: 5 }, "a");
  const remote = receive(history, laidOut);
  assert.equal(remote.changed, true);
  assert.equal(remote.history.present, laidOut);
  assert.equal(undo(remote.history).present, empty, "a layout from Python can be undone");
});

test("the undo stack keeps only the last HISTORY_LIMIT specs", () => {
  let history = startHistory(empty);
  for (let i = 0; i < HISTORY_LIMIT + 5; i++) history = record(history, edit.addNode(history.present, { x: i, y: 0 }));
  assert.equal(history.past.length, HISTORY_LIMIT);
});
