import assert from "node:assert/strict";
import { test } from "node:test";
import { pageToAsk, sliderSpan, within } from "../src/historyPages";

test("while older checkpoints remain the slider reaches a page past the loaded rows", () => {
  // 200 loaded, more to come: a press at the oldest loaded row still moves the slider.
  const span = sliderSpan(200, true, 200, 199);
  assert.equal(span, 400);
  assert.equal(within(200, span), 200);
  // Presses that outrun the pages still move it: one more position is always left.
  assert.equal(sliderSpan(200, true, 200, 450), 452);
  // The oldest page in: the slider ends at the oldest row.
  assert.equal(sliderSpan(1000, false, 200, 999), 1000);
});

test("a position past a short last page is brought back to the oldest row", () => {
  // Chosen at 350 while the page was read; it held 90 rows and no more.
  assert.equal(within(350, sliderSpan(290, false, 200, 350)), 289);
  assert.equal(within(0, sliderSpan(0, false, 200, 0)), 0);
});

test("the older page is asked for when the slider comes near the oldest loaded row", () => {
  assert.equal(pageToAsk({ before: "p2", asked: null, chosen: 99, loaded: 200, ahead: 100 }), null);
  assert.equal(pageToAsk({ before: "p2", asked: null, chosen: 100, loaded: 200, ahead: 100 }), "p2");
  // Past the loaded rows (the slider went on while the page was read): still that page.
  assert.equal(pageToAsk({ before: "p2", asked: null, chosen: 250, loaded: 200, ahead: 100 }), "p2");
});

test("a page is asked for once, and nothing once the oldest page is in", () => {
  assert.equal(pageToAsk({ before: "p2", asked: "p2", chosen: 150, loaded: 200, ahead: 100 }), null);
  assert.equal(pageToAsk({ before: "p3", asked: "p2", chosen: 301, loaded: 400, ahead: 100 }), "p3");
  assert.equal(pageToAsk({ before: null, asked: "p5", chosen: 999, loaded: 1000, ahead: 100 }), null);
});
