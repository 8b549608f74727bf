// Pure spec edits: what the canvas does to the GraphSpec.
import assert from "node:assert/strict";
import { test } from "node:test";
import { END, START, type GraphSpec } from "../src/protocol";
import * as groups from "../src/groups";
import * as edit from "../src/spec";

function graph(): GraphSpec {
  let spec: GraphSpec = {
    version: 1,
    name: "g",
    nodes: [],
    edges: [],
    routers: {},
    state: { kind: "dict", binding: null, fields: [] },
    metadata: {},
  };
  spec = edit.addNode(spec, { x: 0, y: 0 }, "a");
  spec = edit.addNode(spec, { x: 0, y: 100 }, "b");
  spec = edit.connect(spec, START, "a");
  spec = edit.connect(spec, "a", "b");
  return edit.connect(spec, "b", END);
}

test("fresh ids skip the ones in use", () => {
  const spec = edit.addNode(graph(), { x: 0, y: 0 }, "node_1");
  assert.equal(edit.freshId(spec), "node_2");
});

test("edits return a new spec and never mutate the old one", () => {
  const before = graph();
  const copy = JSON.stringify(before);
  edit.remove(before, ["a"], []);
  edit.renameNode(before, "a", "x");
  edit.moveNodes(before, { a: { x: 5, y: 5 } });
  assert.equal(JSON.stringify(before), copy);
});

test("connect refuses self loops, duplicates, edges out of END and into START", () => {
  const spec = graph();
  assert.equal(edit.connect(spec, "a", "a"), spec);
  assert.equal(edit.connect(spec, "a", "b"), spec);
  assert.equal(edit.connect(spec, END, "a"), spec);
  assert.equal(edit.connect(spec, "b", START), spec);
  assert.equal(edit.connect(spec, "b", "a").edges.length, spec.edges.length + 1);
});

test("removing a node removes its edges and its router", () => {
  let spec = edit.setEdgeKind(graph(), "a->b", "conditional");
  assert.deepEqual(spec.routers, { a: null });
  spec = edit.remove(spec, ["a", START], []);
  assert.deepEqual(
    spec.nodes.map((n) => n.id),
    ["b"],
  );
  assert.deepEqual(
    spec.edges.map((e) => edit.edgeKey(e)),
    ["b->__end__"],
  );
  assert.deepEqual(spec.routers, {});
});

test("rename follows edges and routers, keeps the routes its router returns, and refuses taken or reserved names", () => {
  let spec = edit.setEdgeKind(graph(), "a->b", "conditional");
  spec = edit.renameNode(spec, "b", "c")!;
  assert.deepEqual(
    spec.edges.map((e) => [e.source, e.target, e.route]),
    [
      [START, "a", null],
      ["a", "c", "b"],
      ["c", END, null],
    ],
  );
  // A route left to default to its target's name keeps the old name too.
  const implicit = { ...graph(), edges: graph().edges.map((e) => (e.target === "b" ? { ...e, kind: "conditional" as const, route: null } : e)) };
  assert.deepEqual(edit.renameNode(implicit, "b", "c")!.edges.find((e) => e.target === "c")?.route, "b");
  const routed = edit.renameNode(spec, "a", "z")!;
  assert.deepEqual(routed.routers, { z: null });
  assert.equal(edit.renameNode(spec, "a", "c"), null);
  assert.equal(edit.renameNode(spec, "a", END), null);
});

test("clean ids are Python identifiers", () => {
  assert.equal(edit.cleanId(" my step! "), "my_step");
  assert.equal(edit.cleanId("2nd"), "n_2nd");
  assert.equal(edit.cleanId("***"), "");
});

test("a conditional edge makes all of its source's edges routes of one router", () => {
  let spec = edit.connect(graph(), "a", END);
  spec = edit.setEdgeKind(spec, "a->b", "conditional");
  const out = spec.edges.filter((e) => e.source === "a");
  assert.deepEqual(
    out.map((e) => [e.kind, e.route]),
    [
      ["conditional", "b"],
      ["conditional", END],
    ],
  );
  // A new edge from a routed node is one more route.
  spec = edit.addNode(spec, { x: 0, y: 0 }, "c");
  assert.equal(edit.connect(spec, "a", "c").edges.at(-1)!.kind, "conditional");
  // Back to direct: the router goes when no conditional edge is left.
  spec = edit.setEdgeKind(spec, "a->b", "direct");
  spec = edit.setEdgeKind(spec, "a->__end__", "direct");
  assert.deepEqual(spec.routers, {});
});

test("a route label shows only when it differs from the target", () => {
  let spec = edit.setEdgeKind(graph(), "a->b", "conditional");
  spec = edit.setRoute(spec, "a->b", "yes");
  assert.deepEqual([spec.edges[1].route, spec.edges[1].label], ["yes", "yes"]);
  spec = edit.setRoute(spec, "a->b", "");
  assert.deepEqual([spec.edges[1].route, spec.edges[1].label], ["b", null]);
});

test("moving START and END keeps their positions in the metadata", () => {
  const spec = edit.moveNodes(graph(), { [START]: { x: 1.4, y: 2.6 }, a: { x: 10, y: 20 } });
  assert.deepEqual(edit.specialPositions(spec)[START], { x: 1, y: 3 });
  assert.deepEqual(spec.nodes[0].position, { x: 10, y: 20 });
});

test("a new node goes where it overlaps no other node", () => {
  const spec = graph();
  const spot = edit.freeSpot(spec, { x: 0, y: 0 });
  for (const node of spec.nodes) {
    const p = node.position!;
    assert.ok(Math.abs(p.x - spot.x) >= 170 || Math.abs(p.y - spot.y) >= 60);
  }
});

test("rename keeps the node's metadata: a callable given in code follows its node", () => {
  const spec = graph();
  const marked = { ...spec, nodes: spec.nodes.map((n) => (n.id === "a" ? { ...n, metadata: { "graphnb.widget.code": "a" } } : n)) };
  const renamed = edit.renameNode(marked, "a", "renamed")!;
  assert.deepEqual(renamed.nodes.find((n) => n.id === "renamed")?.metadata, { "graphnb.widget.code": "a" });
});

test("a route to END reads END, and typing what it reads changes nothing", () => {
  assert.equal(edit.routeText({ route: null, target: END }), "END");
  assert.equal(edit.routeText({ route: END, target: END }), "END");
  assert.equal(edit.routeText({ route: null, target: "b" }), "b");
  assert.equal(edit.routeText({ route: "done", target: END }), "done");
  assert.equal(edit.routeFromText({ route: END, target: END }, " END "), null);
  assert.equal(edit.routeFromText({ route: null, target: "b" }, "b"), null);
  assert.equal(edit.routeFromText({ route: "done", target: END }, "END"), END);
  assert.equal(edit.routeFromText({ route: null, target: "b" }, "again"), "again");
});

test("a renamed node stays in its group", () => {
  const spec = graph();
  const grouped = groups.group(spec, ["a", "b"])!.spec;
  const renamed = edit.renameNode(grouped, "a", "first")!;
  assert.deepEqual(groups.groupsOf(renamed).map((g) => g.nodes), [["first", "b"]]);
});
