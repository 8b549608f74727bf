// Room to work: the builder maximised over the page, a side panel that resizes (drag its
// edge) or collapses, a palette that collapses. Widths and what is open are remembered
// in localStorage for the next builder.

import { useCallback, useEffect, useLayoutEffect, useState } from "react";

const KEY = "graphnb.room";
export const SIDE_MIN = 220;
export const SIDE_MAX = 720;

type Saved = { side: number; sideOpen: boolean; paletteOpen: boolean };
// The palette starts folded to a strip at the canvas's left edge, leaving the canvas the
// width it always had; opened once, it stays open (remembered) for later builders.
const DEFAULTS: Saved = { side: 330, sideOpen: true, paletteOpen: false };

function load(): Saved {
  try {
    return { ...DEFAULTS, ...(JSON.parse(window.localStorage.getItem(KEY) ?? "{}") as Partial<Saved>) };
  } catch {
    return DEFAULTS;
  }
}

export function useRoom(root: React.RefObject<HTMLElement | null>) {
  const [saved, setSaved] = useState<Saved>(load);
  const [maximised, setMaximised] = useState(false);
  const update = useCallback((change: Partial<Saved>) => {
    setSaved((old) => {
      const next = { ...old, ...change };
      try {
        window.localStorage.setItem(KEY, JSON.stringify(next));
      } catch {
        /* not remembered: fine */
      }
      return next;
    });
  }, []);
  // Maximised, the view's host element moves to the page's body: JupyterLab's notebook
  // contains its cells (CSS containment), which would hold a fixed element inside the cell.
  // A placeholder keeps its place; the host (not the React tree) moves, so nothing remounts.
  useLayoutEffect(() => {
    const host = root.current?.parentElement;
    const parent = host?.parentElement;
    if (!maximised || !host || !parent) return;
    const place = document.createComment("graphnb: the maximised builder's place");
    parent.insertBefore(place, host);
    document.body.appendChild(host);
    root.current?.focus({ preventScroll: true });
    return () => {
      if (place.parentNode) place.parentNode.replaceChild(host, place);
    };
  }, [maximised, root]);
  // Escape leaves the maximised view, wherever focus is.
  useEffect(() => {
    if (!maximised) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !(e.target as Element).closest?.(".graphnb-menu, .graphnb-dialog, input, textarea")) {
        setMaximised(false);
      }
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, [maximised]);

  /** Drag the side panel's left edge: wider to the left. */
  const onSplitterDown = useCallback(
    (e: React.PointerEvent) => {
      e.preventDefault();
      const startX = e.clientX;
      const startWidth = saved.side;
      const el = e.currentTarget as HTMLElement;
      el.setPointerCapture(e.pointerId);
      const move = (m: PointerEvent) => {
        const width = Math.min(SIDE_MAX, Math.max(SIDE_MIN, startWidth + (startX - m.clientX)));
        update({ side: Math.round(width), sideOpen: true });
      };
      const up = () => {
        el.removeEventListener("pointermove", move);
        el.removeEventListener("pointerup", up);
      };
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", up);
    },
    [saved.side, update],
  );

  return {
    maximised,
    toggleMaximised: () => setMaximised((m) => !m),
    sideWidth: saved.side,
    sideOpen: saved.sideOpen,
    toggleSide: () => update({ sideOpen: !saved.sideOpen }),
    paletteOpen: saved.paletteOpen,
    togglePalette: () => update({ paletteOpen: !saved.paletteOpen }),
    onSplitterDown,
  };
}

export type Room = ReturnType<typeof useRoom>;
