// Copy, paste and duplicate of selections, and nodes made from the palette.
import assert from "node:assert/strict";
import { test } from "node:test";
import { addBoundNode, copySelection, functionStub, parseClip, pasteClip } from "../src/clip";
import type { GraphSpec } from "../src/protocol";

const spec: GraphSpec = {
  version: 1,
  name: "g",
  nodes: [
    { id: "a", label: null, binding: "fa", position: { x: 0, y: 0 }, metadata: {} },
    { id: "b", label: null, binding: "fb", position: { x: 0, y: 100 }, metadata: {} },
    { id: "c", label: null, binding: null, position: { x: 200, y: 100 }, metadata: {} },
  ],
  edges: [
    { source: "__start__", target: "a", kind: "direct", route: null, label: null, metadata: {} },
    { source: "a", target: "b", kind: "conditional", route: "b", label: null, metadata: {} },
    { source: "a", target: "c", kind: "conditional", route: "c", label: null, metadata: {} },
  ],
  routers: { a: "pick" },
  state: { kind: "dict", binding: null, fields: [] },
  metadata: {},
};

test("a copy keeps the edges among the selected nodes and their routers, never START", () => {
  const clip = copySelection(spec, ["a", "b", "__start__"])!;
  assert.deepEqual(clip.nodes.map((n) => n.id), ["a", "b"]);
  assert.deepEqual(clip.edges.map((e) => [e.source, e.target]), [["a", "b"]]);
  assert.deepEqual(clip.routers, { a: "pick" });
  assert.equal(copySelection(spec, ["__start__"]), null);
});

test("pasting renames clashing ids, and edges and routers follow; positions shift", () => {
  const clip = parseClip(JSON.stringify(copySelection(spec, ["a", "b"])))!;
  const { spec: next, ids } = pasteClip(spec, clip, { offset: { x: 40, y: 40 } });
  assert.deepEqual(ids, ["a_2", "b_2"]);
  assert.deepEqual(next.nodes.at(-1)!.position, { x: 40, y: 140 });
  assert.ok(next.edges.some((e) => e.source === "a_2" && e.target === "b_2" && e.kind === "conditional"));
  assert.equal(next.routers.a_2, "pick");
  assert.equal(next.nodes.length, 5);
  // In another builder, where the ids are free, they stay.
  const empty = { ...spec, nodes: [], edges: [], routers: {} };
  assert.deepEqual(pasteClip(empty, clip, { at: { x: 500, y: 500 } }).ids, ["a", "b"]);
  assert.deepEqual(pasteClip(empty, clip, { at: { x: 500, y: 500 } }).spec.nodes[0].position, { x: 500, y: 500 });
});

test("text that is not a copied selection pastes nothing", () => {
  for (const text of [null, "", "not json", '{"graphnb": "other"}', "[1, 2]"]) assert.equal(parseClip(text), null, String(text));
});

test("a node from the palette is named after its function and bound to it", () => {
  const first = addBoundNode(spec, "research", "research", { x: 10.4, y: 20.6 });
  assert.equal(first.id, "research");
  assert.deepEqual(first.spec.nodes.at(-1), { id: "research", label: null, binding: "research", position: { x: 10, y: 21 }, metadata: {} });
  assert.equal(addBoundNode(first.spec, "research", "research", { x: 0, y: 0 }).id, "research_2");
});

test("a new function's stub takes the state model and returns a dict", () => {
  assert.equal(functionStub("write", "Story").split("\n")[0], "def write(state: Story) -> dict:");
  assert.equal(functionStub("9 lives", null).split("\n")[0], "def n_9_lives(state) -> dict:");
});

test("a group collapses its members into one box; edges crossing it are drawn to the box", async () => {
  const { group, groupsOf, setCollapsed, standIns, ungroup } = await import("../src/groups");
  const { toEdges, toNodes } = await import("../src/flow");
  const made = group(spec, ["b", "c"])!;
  assert.equal(made.id, "group_1");
  assert.deepEqual(groupsOf(made.spec), [{ id: "group_1", label: "group_1", nodes: ["b", "c"], collapsed: true }]);
  assert.deepEqual([...standIns(made.spec).keys()], ["b", "c"]);
  const nodes = toNodes(made.spec, []);
  assert.deepEqual(nodes.filter((n) => n.hidden).map((n) => n.id), ["b", "c"]);
  assert.ok(nodes.some((n) => n.id === "group:group_1" && n.type === "collapsed"));
  const edges = toEdges(made.spec, []);
  assert.deepEqual(edges.map((e) => [e.source, e.target]), [["__start__", "a"], ["a", "group:group_1"]]);
  const open = setCollapsed(made.spec, "group_1", false);
  assert.equal(toNodes(open, []).filter((n) => n.hidden).length, 0);
  assert.equal(group(spec, ["a"]), null, "a group needs two nodes");
  assert.deepEqual(groupsOf(ungroup(made.spec, "group_1")), []);
  assert.equal(ungroup(made.spec, "group_1").metadata["graphnb.widget.groups"], undefined);
});
