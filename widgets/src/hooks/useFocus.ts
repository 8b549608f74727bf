// Keep keyboard focus inside the widget, and its keys away from JupyterLab.

import { useCallback, useRef } from "react";

/**
 * Keep JupyterLab's shortcuts out of the widget. Lumino skips a shortcut when, walking up
 * from the key's target, it meets `data-lm-suppress-shortcuts` *before* an element matching
 * the shortcut's selector; notebook selectors end in `:focus`, which the focused element
 * itself matches. So the focused element (a node, an edge, a button) carries it too.
 */
export function suppressShortcuts(e: React.FocusEvent) {
  const target = e.target as Element;
  if (!target.hasAttribute("data-lm-suppress-shortcuts")) target.setAttribute("data-lm-suppress-shortcuts", "true");
}

/**
 * The widget's root and `keepFocus`: deleting the focused node drops focus on <body>,
 * where keys reach JupyterLab (and Ctrl+Z would undo a cell), so focus goes back to the root.
 */
export function useFocusKeeper() {
  const root = useRef<HTMLDivElement>(null);
  const keepFocus = useCallback(() => {
    requestAnimationFrame(() => {
      const active = document.activeElement;
      if (root.current && (!active || active === document.body || !root.current.contains(active)))
        root.current.focus({ preventScroll: true });
    });
  }, []);
  return { root, keepFocus };
}
