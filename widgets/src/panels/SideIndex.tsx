// The side panel's index: one row of links, one per section present, above the scrolling
// stack. A click (or Enter) brings that section to the top of the stack, opens it if it was
// collapsed and puts the focus on its header: every section is one click away at any
// width, and the notebook never scrolls. The section at the top of the stack is marked.

import { useCallback, useEffect, useRef, useState, type RefObject } from "react";

/** The sections the index offers, in the stack's order: panel test id, link text. */
const SECTIONS: readonly (readonly [string, string])[] = [
  ["panel-inspect", "Node"],
  ["panel-binding", "Binding"],
  ["panel-state-model", "Model"],
  ["panel-run", "Run"],
  ["panel-chat", "Chat"],
  ["panel-timeline", "Timeline"],
  ["panel-pause", "Breakpoints"],
  ["panel-threads", "Threads"],
  ["panel-history", "History"],
];

function sectionIn(stack: HTMLElement, id: string): HTMLElement | null {
  return stack.querySelector<HTMLElement>(`[data-testid="${id}"]`);
}

export function SideIndex(props: { stack: RefObject<HTMLDivElement | null> }) {
  const [present, setPresent] = useState<string[]>([]);
  const [current, setCurrent] = useState<string | null>(null);
  const { stack } = props;

  // Which sections the stack holds (a node selected adds its own, a thread picked its
  // history): read again whenever the stack's children change. A passive effect: the
  // stack, drawn after this index, has its ref by then.
  useEffect(() => {
    const box = stack.current;
    if (!box) return;
    const read = () => {
      const found = SECTIONS.map(([id]) => id).filter((id) => sectionIn(box, id) !== null);
      setPresent((old) => (old.join() === found.join() ? old : found));
    };
    read();
    const watcher = new MutationObserver(read);
    watcher.observe(box, { childList: true, subtree: true });
    return () => watcher.disconnect();
  }, [stack]);

  /** The section a link brought up, and where that left the stack's scroll. */
  const aimed = useRef<{ id: string; scrollTop: number } | null>(null);
  // The section the user went to, until the stack scrolls on; else the one whose header
  // is nearest the top of the stack's visible part (the last ones may not reach the top).
  const mark = useCallback(() => {
    const box = stack.current;
    if (!box) return;
    if (aimed.current && Math.abs(box.scrollTop - aimed.current.scrollTop) < 2) {
      setCurrent(aimed.current.id);
      return;
    }
    aimed.current = null;
    const top = box.getBoundingClientRect().top;
    let best: string | null = null;
    for (const [id] of SECTIONS) {
      const section = sectionIn(box, id);
      if (section && section.getBoundingClientRect().top - top <= 8) best = id;
    }
    setCurrent(best ?? present[0] ?? null);
  }, [stack, present]);
  useEffect(() => {
    const box = stack.current;
    if (!box) return;
    mark();
    box.addEventListener("scroll", mark, { passive: true });
    return () => box.removeEventListener("scroll", mark);
  }, [stack, mark]);

  const go = useRef((id: string) => {
    const box = stack.current;
    const section = box && sectionIn(box, id);
    if (!box || !section) return;
    const toggle = section.querySelector<HTMLButtonElement>(".graphnb-panel-toggle");
    if (toggle?.getAttribute("aria-expanded") === "false") toggle.click();
    // The stack's own scroll only: scrollIntoView would scroll the notebook as well.
    box.scrollTop += section.getBoundingClientRect().top - box.getBoundingClientRect().top;
    aimed.current = { id, scrollTop: box.scrollTop };
    setCurrent(id);
    toggle?.focus({ preventScroll: true });
  });

  if (present.length < 2) return null;
  return (
    <nav className="graphnb-side-index" aria-label="side panel sections" data-testid="side-index">
      {SECTIONS.filter(([id]) => present.includes(id)).map(([id, text]) => (
        <button
          key={id}
          type="button"
          className="graphnb-side-link"
          data-testid={`side-link-${id.slice("panel-".length)}`}
          aria-current={current === id ? "location" : undefined}
          onClick={() => go.current(id)}
        >
          {text}
        </button>
      ))}
    </nav>
  );
}
