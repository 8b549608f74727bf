// A node bound to a stub whose cell has not run yet is waiting, not unresolved.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WAITING, withWaiting } from "../src/hooks/useStubCells";
import type { CallableInfo, GraphSpec, ProblemInfo } from "../src/protocol";

const spec: GraphSpec = {
  version: 1,
  name: "g",
  nodes: [
    { id: "a", label: null, binding: "a", position: null, metadata: {} },
    { id: "b", label: null, binding: "other", position: null, metadata: {} },
  ],
  edges: [],
  routers: {},
  state: { kind: "dict", binding: null, fields: [] },
  metadata: {},
};
const unresolved = (id: string): ProblemInfo => ({ code: "unresolved", message: `${id}: no such name`, nodes: [id] });
const fn = (name: string): CallableInfo => ({ name, binding: name, kind: "function", signature: "", doc: "", source: "" });

test("the unresolved problem of a node waiting for its stub's cell reads as waiting", () => {
  const shown = withWaiting([unresolved("a"), unresolved("b")], { a: "a" }, spec, []);
  assert.equal(shown[0].code, WAITING);
  assert.match(shown[0].message, /a runs a once its cell below the builder runs/);
  assert.deepEqual(shown[1], unresolved("b"), "a node that waits for no stub keeps its problem");
});

test("once the function is defined, or the node is bound elsewhere, the problem is the kernel's", () => {
  assert.equal(withWaiting([unresolved("a")], { a: "a" }, spec, [fn("a")])[0].code, "unresolved");
  assert.equal(withWaiting([unresolved("b")], { b: "b" }, spec, [])[0].code, "unresolved");
});
