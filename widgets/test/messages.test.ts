// Messages from Python: streamed chunk deltas and the trait's snapshot, put together.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyChunks, applyReplaced, applySnapshot } from "../src/chunks";
import type { ChunksMessage, ChunksReplacedMessage } from "../src/protocol";

const chunk = (run: string, offset: number, text: string): ChunksMessage => ({ type: "chunks", run, node: "draft", offset, text });

test("deltas append in order", () => {
  let local = { run: null as string | null, text: "" };
  local = applyChunks(local, chunk("r1", 0, "one "));
  local = applyChunks(local, chunk("r1", 4, "two "));
  assert.deepEqual(local, { run: "r1", text: "one two " });
});

test("a repeated or overlapping delta adds only what is new", () => {
  let local = { run: "r1" as string | null, text: "one two " };
  assert.equal(applyChunks(local, chunk("r1", 0, "one ")), local);
  local = applyChunks(local, chunk("r1", 4, "two three"));
  assert.equal(local.text, "one two three");
});

test("a delta past a gap waits for the snapshot", () => {
  const local = { run: "r1" as string | null, text: "one " };
  assert.equal(applyChunks(local, chunk("r1", 9, "four")), local);
  assert.deepEqual(applySnapshot(local, "r1", "one two four"), { run: "r1", text: "one two four" });
});

test("a new run starts over only from its first chunk", () => {
  const local = { run: "r1" as string | null, text: "old text" };
  assert.equal(applyChunks(local, chunk("r2", 3, "late")), local);
  assert.deepEqual(applyChunks(local, chunk("r2", 0, "new")), { run: "r2", text: "new" });
});

test("a shorter snapshot of the same run keeps the longer local text", () => {
  const local = { run: "r1" as string | null, text: "one two" };
  assert.equal(applySnapshot(local, "r1", "one"), local);
  assert.deepEqual(applySnapshot(local, "r2", ""), { run: "r2", text: "" });
});

const replaced = (run: string, offset: number, text: string): ChunksReplacedMessage => ({
  type: "chunks_replaced",
  run,
  node: "FAILED",
  offset,
  text,
});

test("a replacement withdraws the text from its offset on", () => {
  let local = { run: "r1" as string | null, text: "Plan: Half an " };
  local = applyReplaced(local, replaced("r1", 6, "Sorry."));
  assert.deepEqual(local, { run: "r1", text: "Plan: Sorry." });
  local = applyReplaced(local, replaced("r1", 6, ""));
  local = applyChunks(local, chunk("r1", 6, "Sunny."));
  assert.equal(local.text, "Plan: Sunny.");
});

test("a replacement of another run or past a gap changes nothing", () => {
  const local = { run: "r1" as string | null, text: "Half" };
  assert.equal(applyReplaced(local, replaced("r2", 0, "x")), local);
  assert.equal(applyReplaced(local, replaced("r1", 9, "x")), local);
});
