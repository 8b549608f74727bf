// Large graphs: unmeasured nodes get an estimated size so React Flow culls from the first
// frame; a real measure drops the estimate's handles; small graphs are left alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Node } from "@xyflow/react";
import { CULL_FROM, isEstimated, sizeForCulling } from "../src/virtualise";

function steps(count: number, lr = false): Node[] {
  const nodes: Node[] = [{ id: "__start__", type: "terminal", position: { x: 0, y: 0 }, data: { label: "START", lr } }];
  for (let i = 0; i < count; i++) nodes.push({ id: `n${i}`, type: "step", position: { x: 0, y: i * 100 }, data: { label: `n${i}`, lr } });
  nodes.push({ id: "__end__", type: "terminal", position: { x: 0, y: count * 100 }, data: { label: "END", lr } });
  return nodes;
}

test("a small graph is left as it is: React Flow measures every card", () => {
  const nodes = steps(10);
  assert.equal(sizeForCulling(nodes), nodes);
});

test("past CULL_FROM nodes every card gets a size and handles on its borders", () => {
  const sized = sizeForCulling(steps(CULL_FROM));
  const step = sized[1];
  assert.ok(isEstimated(step));
  assert.deepEqual(step.measured, { width: 162, height: 39 });
  const [target, source] = step.handles ?? [];
  assert.deepEqual([target.type, target.position, target.x, target.y], ["target", "top", 75, -5]);
  assert.deepEqual([source.type, source.position, source.x, source.y], ["source", "bottom", 75, 32]);
  // START has only a source handle, END only a target one.
  assert.deepEqual(sized[0].handles?.map((h) => h.type), ["source"]);
  assert.deepEqual(sized.at(-1)?.handles?.map((h) => h.type), ["target"]);
  // Left-right graphs take edges in on the left and out on the right.
  const lr = sizeForCulling(steps(CULL_FROM, true))[1].handles ?? [];
  assert.deepEqual(lr.map((h) => [h.position, h.x, h.y]), [["left", -5, 13.5], ["right", 155, 13.5]]);
});

test("estimated nodes keep their objects; a real measure drops the estimated handles", () => {
  const sized = sizeForCulling(steps(CULL_FROM));
  assert.equal(sizeForCulling(sized), sized);
  // React Flow measured n3's card (applyNodeChanges gives it a new `measured`).
  const measured = sized.map((n) => (n.id === "n3" ? { ...n, measured: { width: 180, height: 52 } } : n));
  const after = sizeForCulling(measured);
  const n3 = after.find((n) => n.id === "n3");
  assert.equal(n3?.handles, undefined);
  assert.deepEqual(n3?.measured, { width: 180, height: 52 });
  assert.ok(!isEstimated(n3 as Node));
  assert.equal(after[1], sized[1]);
});

test("a spec change gives new node objects only to the nodes it touched", async () => {
  const { toNodes } = await import("../src/flow");
  const edit = await import("../src/spec");
  let spec = edit.addNode(
    { version: 1, name: "g", nodes: [], edges: [], routers: {}, state: { kind: "dict", binding: null, fields: [] }, metadata: {} },
    { x: 0, y: 0 },
    "a",
  );
  spec = edit.addNode(spec, { x: 0, y: 200 }, "b");
  const first = toNodes(spec, []);
  const moved = toNodes(edit.moveNodes(spec, { b: { x: 40, y: 200 } }), first);
  const byId = (nodes: Node[], id: string) => nodes.find((n) => n.id === id);
  assert.equal(byId(moved, "a"), byId(first, "a"));
  assert.notEqual(byId(moved, "b"), byId(first, "b"));
  assert.deepEqual(byId(moved, "b")?.position, { x: 40, y: 200 });
  // A node that React Flow marked (dragging: false) is still the same node.
  const marked = first.map((n) => (n.id === "a" ? { ...n, dragging: false } : n));
  assert.equal(byId(toNodes(spec, marked), "a"), byId(marked, "a"));
  // A renamed label is a change.
  const renamed = toNodes({ ...spec, nodes: spec.nodes.map((n) => (n.id === "a" ? { ...n, label: "A" } : n)) }, first);
  assert.notEqual(byId(renamed, "a"), byId(first, "a"));
});
