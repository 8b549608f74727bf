// The drawing kept in a cell's metadata: the same drawing whatever its keys' order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonical, isEmpty } from "../src/hooks/useKeptDrawing";
import type { GraphSpec } from "../src/protocol";

const empty: GraphSpec = {
  version: 1,
  name: "g",
  nodes: [],
  edges: [],
  routers: {},
  state: { kind: "dict", binding: null, fields: [] },
  metadata: {},
};

test("two specs differing only in key order are the same drawing; a moved node is not", () => {
  const a = { ...empty, nodes: [{ id: "x", label: null, binding: null, position: { x: 1, y: 2 }, metadata: {} }] };
  const b = JSON.parse('{"metadata":{},"state":{"fields":[],"binding":null,"kind":"dict"},"routers":{},"edges":[],' +
    '"nodes":[{"metadata":{},"position":{"y":2,"x":1},"binding":null,"label":null,"id":"x"}],"name":"g","version":1}');
  assert.equal(canonical(a), canonical(b));
  const moved = { ...a, nodes: [{ ...a.nodes[0], position: { x: 5, y: 2 } }] };
  assert.notEqual(canonical(a), canonical(moved));
  assert.equal(isEmpty(empty), true);
  assert.equal(isEmpty(a), false);
});
