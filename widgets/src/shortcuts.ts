// Which keys stay in the widget and which go on to JupyterLab.
//
// Plain keys stay: JupyterLab's notebook shortcuts (A, B, D D, Enter, arrows ...) would
// act on the cell holding the builder. Modifier shortcuts go on (Ctrl+S saves the
// notebook, Ctrl+Shift+C opens the palette), except those the widget uses itself: undo
// and redo, text editing, and Ctrl/Shift/Alt+Enter, which would run the builder's cell.

/** Keys (lower case) the widget keeps with any modifier: Enter would run the cell. */
const KEPT = new Set([
  "enter",
  "backspace",
  "delete",
  "tab",
  "escape",
  " ",
  "arrowup",
  "arrowdown",
  "arrowleft",
  "arrowright",
  "control",
  "meta",
  "alt",
  "shift",
]);
/** Undo, redo, text editing, duplicate (D) and find a node (F): kept without Shift (Ctrl+Shift+C is the command palette),
 * and Ctrl+Shift+Z is redo. */
const EDITING = new Set(["z", "y", "a", "c", "v", "x", "d", "f", "g"]);

export type KeyLike = { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean };

/** Whether JupyterLab should see this key press (it is none of the widget's). */
export function goesToJupyterLab(event: KeyLike): boolean {
  if (!(event.ctrlKey || event.metaKey || event.altKey)) return false;
  const key = event.key.toLowerCase();
  if (KEPT.has(key)) return false;
  return !(EDITING.has(key) && (!event.shiftKey || key === "z"));
}
