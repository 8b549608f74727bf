// Keys: undo and redo here; Delete and Backspace are React Flow's.

import { useCallback } from "react";
import type { HistoryControls } from "./useHistory";

export function useUndoKeys(history: HistoryControls, keepFocus: () => void) {
  return useCallback(
    (e: React.KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === "z") {
        e.preventDefault();
        if (e.shiftKey) history.redo();
        else history.undo();
        keepFocus();
      } else if (mod && e.key.toLowerCase() === "y") {
        e.preventDefault();
        history.redo();
        keepFocus();
      }
    },
    [history, keepFocus],
  );
}
