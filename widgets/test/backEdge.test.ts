// A loop's way back is drawn around the nodes, not straight through them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { backEdgePath } from "../src/backEdge";

const down = { sourcePosition: "bottom", targetPosition: "top" };

test("an edge up to a node above bends out to the side of both ends", () => {
  const [path, x, y] = backEdgePath({ ...down, sourceX: 81, sourceY: 245, targetX: 81, targetY: 93 })!;
  assert.equal(path, "M81,245 C81,285 201,285 201,169 S81,53 81,93");
  assert.deepEqual([x, y], [201, 169]);
});

test("an edge back to the left in a left-to-right drawing bends out below", () => {
  const ends = { sourcePosition: "right", targetPosition: "left", sourceX: 400, sourceY: 50, targetX: 100, targetY: 60 };
  const [path, x, y] = backEdgePath(ends)!;
  assert.ok(path.startsWith("M400,50 C440,50 440,130 250,130"));
  assert.deepEqual([x, y], [250, 130]);
});

test("edges along the flow keep React Flow's bezier", () => {
  assert.equal(backEdgePath({ ...down, sourceX: 0, sourceY: 50, targetX: 0, targetY: 150 }), null);
  const across = { sourcePosition: "right", targetPosition: "left", sourceX: 0, sourceY: 0, targetX: 200, targetY: 0 };
  assert.equal(backEdgePath(across), null);
});
