// Subgraph nodes: the child edited inside its parent, groups drawn open or shut, the run
// seen from inside a subgraph, and the policy fields' checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Node } from "@xyflow/react";
import { BOUNDS, parseField, setPolicies } from "../src/policy";
import { END, START, type GraphSpec, type RunState } from "../src/protocol";
import * as edit from "../src/spec";
import * as sub from "../src/subgraphs";

function chain(name: string, ids: string[]): GraphSpec {
  let spec: GraphSpec = { version: 1, name, nodes: [], edges: [], routers: {}, state: { kind: "dict", binding: null, fields: [] }, metadata: {} };
  ids.forEach((id, i) => (spec = edit.addNode(spec, { x: 0, y: i * 100 }, id)));
  let previous = START;
  for (const id of [...ids, END]) {
    spec = edit.connect(spec, previous, id);
    previous = id;
  }
  return spec;
}

function composed(): GraphSpec {
  const inner = chain("inner", ["deep"]);
  const child = sub.bindSubgraph(chain("research", ["search", "nest"]), "nest", inner, "inner");
  return sub.bindSubgraph(chain("top", ["research", "write"]), "research", child, "research_graph");
}

test("binding a graph copies its spec into the node, drops the callable, makes the spec v2", () => {
  const spec = composed();
  const node = spec.nodes.find((n) => n.id === "research");
  assert.equal(spec.version, 2);
  assert.equal(node?.binding, null);
  assert.equal(node?.subgraph?.name, "research");
  assert.equal(node?.metadata[sub.GRAPH_KEY], "research_graph");
});

test("an edit inside a subgraph is written back into the parent at any depth", () => {
  const spec = composed();
  const deep = sub.childAt(spec, ["research", "nest"]);
  assert.equal(deep?.nodes[0].id, "deep");
  const renamed = edit.renameNode(deep as GraphSpec, "deep", "deeper") as GraphSpec;
  const after = sub.withChild(spec, ["research", "nest"], renamed);
  assert.deepEqual(sub.childAt(after, ["research", "nest"])?.nodes.map((n) => n.id), ["deeper"]);
  assert.equal(sub.childAt(spec, ["research", "nest"])?.nodes[0].id, "deep", "the old spec is unchanged");
  assert.equal(sub.childAt(spec, ["write"]), null);
});

test("detaching a subgraph leaves a plain step", () => {
  const spec = sub.detachSubgraph(composed(), "research");
  const node = spec.nodes.find((n) => n.id === "research");
  assert.equal(node?.subgraph, undefined);
  assert.equal(node?.metadata[sub.GRAPH_KEY], undefined);
});

test("a collapsed group is one node; an expanded one holds its child's nodes and edges", () => {
  const spec = composed();
  const base: Node[] = spec.nodes.map((n) => ({ id: n.id, type: "step", position: { x: 0, y: 0 }, data: {} }));
  const shut = sub.composeNodes(base, spec, new Set());
  assert.deepEqual(shut.map((n) => n.type), ["subgraph", "step"]);
  const open = sub.composeNodes(base, spec, new Set(["research"]));
  const inner = open.filter((n) => n.parentId === "research").map((n) => n.id);
  assert.deepEqual(inner, ["research/__start__", "research/search", "research/nest", "research/__end__"]);
  assert.ok(open.findIndex((n) => n.id === "research") < open.findIndex((n) => n.id === "research/search"), "parent first");
  const edges = sub.composeEdges([], spec, new Set(["research"]));
  assert.deepEqual(edges.map((e) => `${e.source}>${e.target}`), [
    "research/__start__>research/search",
    "research/search>research/nest",
    "research/nest>research/__end__",
  ]);
  const places = sub.innerLayout(sub.childAt(spec, ["research"]) as GraphSpec);
  assert.ok(places.search.y < places.nest.y && places.nest.y < places[END].y, "rows follow the flow");
});

test("the run seen from inside a subgraph keeps its own nodes, unprefixed", () => {
  const run = {
    nodes: {
      research: { status: "running", duration: null, runs: 0 },
      "research/search": { status: "done", duration: 0.1, runs: 1 },
      "research/nest/deep": { status: "running", duration: null, runs: 0 },
    },
    active: ["research"],
    error: null,
  } as unknown as RunState;
  const inside = sub.scopeRun(run, ["research"]);
  assert.deepEqual(Object.keys(inside.nodes), ["search", "nest/deep"]);
  assert.deepEqual(sub.scopeRun(run, ["research", "nest"]).active, ["deep"]);
  assert.equal(sub.scopeRun(run, []), run);
});

test("policy fields take what the spec allows and name the field and bound otherwise", () => {
  assert.deepEqual(parseField("max_attempts", "4"), { ok: true, value: 4 });
  assert.deepEqual(parseField("timeout", ""), { ok: true, value: null });
  const bad = parseField("max_attempts", "2.5");
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? "" : bad.error, /^max_attempts: expected a whole number of attempts, at least 1, got "2.5"/);
  assert.equal(parseField("timeout", "0").ok, false);
  assert.equal(parseField("timeout", "abc").ok, false);
  assert.equal(parseField("backoff_factor", "0.5").ok, false);
  assert.equal(parseField("initial_interval", "0").ok, true);
  assert.equal(parseField("ttl", "-1").ok, false);
  assert.ok(Object.keys(BOUNDS).length >= 6);
});

test("policies are written into the node and unset ones left out", () => {
  const spec = chain("g", ["a"]);
  const set = setPolicies(spec, "a", { retry: null, timeout: 2, cache: { ttl: 60, version: "v1", fields: null } });
  assert.equal(set.nodes[0].timeout, 2);
  assert.equal(set.nodes[0].cache?.version, "v1");
  assert.equal("retry" in set.nodes[0], false);
  const cleared = setPolicies(set, "a", { retry: null, timeout: null, cache: null });
  assert.deepEqual(Object.keys(cleared.nodes[0]).sort(), ["binding", "id", "label", "metadata", "position"]);
});

test("an expanded group pushes the nodes below it down, in the drawing only", () => {
  const spec = composed();
  const base: Node[] = [
    { id: "research", type: "step", position: { x: 0, y: 0 }, data: {} },
    { id: "write", type: "step", position: { x: 0, y: 100 }, data: {} },
  ];
  const open = sub.composeNodes(base, spec, new Set(["research"]));
  const write = open.find((n) => n.id === "write") as Node;
  const group = open.find((n) => n.id === "research") as Node;
  assert.ok(write.position.y >= (group.height ?? 0), `write at ${write.position.y} sits below the group`);
  assert.deepEqual(sub.specPosition(write), { x: 0, y: 100 }, "the spec keeps its place");
  const moved = { ...write, position: { x: 10, y: write.position.y + 5 } };
  assert.deepEqual(sub.specPosition(moved), { x: 10, y: 105 });
});
