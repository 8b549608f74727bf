// Edge labels go where they cover no node.
import assert from "node:assert/strict";
import { test } from "node:test";
import { labelSize, placeLabel, pointsOnPath } from "../src/labelPlace";

test("points on a cubic path: its ends and its middle", () => {
  const [start, middle, end] = pointsOnPath("M0,0 C0,50 100,50 100,100", [0, 0.5, 1]);
  assert.deepEqual(start, { x: 0, y: 0 });
  assert.deepEqual(middle, { x: 50, y: 50 });
  assert.deepEqual(end, { x: 100, y: 100 });
});

test("an S segment reflects the control point before it", () => {
  const [, end] = pointsOnPath("M0,0 C0,10 10,10 10,0 S20,-10 20,0", [0.5, 1]);
  assert.deepEqual(end, { x: 20, y: 0 });
});

test("a label at a free middle stays there", () => {
  const at = placeLabel("M0,0 C0,100 0,100 0,200", { x: 0, y: 100 }, "yes", [{ x: 200, y: 0, width: 100, height: 40 }]);
  assert.deepEqual(at, { x: 0, y: 100 });
});

test("a label whose middle falls on a node moves along its path, off the node", () => {
  const node = { x: -80, y: 80, width: 160, height: 40 };
  const path = "M0,0 C0,100 0,100 0,300";
  const at = placeLabel(path, { x: 0, y: 100 }, "search", [node]);
  const { width, height } = labelSize("search");
  const overlaps =
    at.x + width / 2 > node.x && at.x - width / 2 < node.x + node.width &&
    at.y + height / 2 > node.y && at.y - height / 2 < node.y + node.height;
  assert.equal(overlaps, false, `label at ${JSON.stringify(at)} covers the node`);
  assert.equal(at.x, 0, "still on the path");
});

test("a label with nowhere free keeps the middle", () => {
  const everywhere = { x: -1000, y: -1000, width: 2000, height: 2000 };
  assert.deepEqual(placeLabel("M0,0 C0,10 0,10 0,20", { x: 0, y: 10 }, "x", [everywhere]), { x: 0, y: 10 });
});
