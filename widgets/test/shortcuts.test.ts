// Which key presses the widget keeps and which go on to JupyterLab.
import assert from "node:assert/strict";
import { test } from "node:test";
import { goesToJupyterLab } from "../src/shortcuts";

const key = (k: string, mods: { ctrl?: boolean; meta?: boolean; alt?: boolean } = {}) => ({
  key: k,
  shiftKey: k.length === 1 && k !== k.toLowerCase(),
  ctrlKey: Boolean(mods.ctrl),
  metaKey: Boolean(mods.meta),
  altKey: Boolean(mods.alt),
});

test("modifier shortcuts the widget does not use go to JupyterLab", () => {
  assert.equal(goesToJupyterLab(key("s", { ctrl: true })), true);
  assert.equal(goesToJupyterLab(key("S", { meta: true })), true);
  assert.equal(goesToJupyterLab(key("C", { ctrl: true })), true, "Ctrl+Shift+C: the command palette");
  assert.equal(goesToJupyterLab(key("b", { ctrl: true })), true);
});

test("plain keys, undo, editing and Enter stay in the widget", () => {
  for (const k of ["d", "a", "Enter", "ArrowUp", "Delete", "Backspace", "z", "?"]) assert.equal(goesToJupyterLab(key(k)), false, k);
  for (const k of ["z", "Z", "y", "a", "c", "v", "x", "d", "f", "Enter", "Control"])
    assert.equal(goesToJupyterLab(key(k, { ctrl: true })), false, `Ctrl+${k}`);
  assert.equal(goesToJupyterLab(key("Enter", { alt: true })), false);
});
