// Keep keyboard focus inside the widget, and its keys away from JupyterLab.

import { useCallback, useRef } from "react";
import { goesToJupyterLab } from "../shortcuts";

const SUPPRESS = "data-lm-suppress-shortcuts";

/**
 * Keep JupyterLab's shortcuts out of the widget, except the ones meant for it (see
 * shortcuts.ts). Lumino skips a shortcut when, walking up from the key's target, it meets
 * `data-lm-suppress-shortcuts` *before* an element matching the shortcut's selector;
 * notebook selectors end in `:focus`, which the target itself matches, so the target
 * carries the mark too. Lumino reads keys as they bubble to the document, after this
 * (capture) handler: a key for JupyterLab goes with the marks lifted for that one event.
 */
export function gateShortcuts(e: React.KeyboardEvent) {
  const target = e.target as Element;
  const root = e.currentTarget as Element;
  if (!goesToJupyterLab(e)) {
    target.setAttribute(SUPPRESS, "true");
    return;
  }
  const marked = [target, root].filter((el) => el.hasAttribute(SUPPRESS));
  for (const el of marked) el.removeAttribute(SUPPRESS);
  window.setTimeout(() => {
    for (const el of marked) el.setAttribute(SUPPRESS, "true");
  }, 0);
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
