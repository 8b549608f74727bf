// The side panel (issue 31): a fixed head over four tabs, so that what matters during a
// run is never below the fold. The head keeps the run's controls and status and, when the
// run is paused or waits for an answer, the pause's form (Continue, the answer fields),
// whatever tab is open. Below it, a tab strip (Node, Run, State, Threads), each tab's
// content scrolling on its own: the layout of n8n's and LangGraph Studio's side panels
// rather than one long stack of collapsible sections.
//
// Panels drawn inside a tab can put a part of themselves into the head (or another tab)
// with <InSlot>: a portal, so the part keeps its component's state and props.
//
// Keyboard (the WAI-ARIA tabs pattern): Tab reaches the selected tab, the arrow keys move
// between tabs (and open them), Home and End go to the first and the last; Tab again goes
// into the open tab's content.

import { createContext, useCallback, useContext, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";

export const SIDE_TABS = ["node", "run", "state", "threads"] as const;
export type SideTab = (typeof SIDE_TABS)[number];

const LABELS: Record<SideTab, string> = { node: "Node", run: "Run", state: "State", threads: "Threads" };
const HINTS: Record<SideTab, string> = {
  node: "the selected node or edge: its last run, binding, breakpoints and policies",
  run: "the run's input and streamed output, problems, chat and timeline",
  state: "the state model and the state after each step",
  threads: "saved threads and their history",
};

/** Where panels may put parts of themselves: the head's two rows and the Node tab's slot. */
type Slots = { status: HTMLElement | null; attention: HTMLElement | null; breakpoints: HTMLElement | null };
const SlotContext = createContext<Slots>({ status: null, attention: null, breakpoints: null });
/** Opens a tab (for panels that send the user elsewhere, e.g. to the Run tab's saver). */
const ShowTabContext = createContext<(tab: SideTab) => void>(() => {});

/** Draws `children` in the side panel's `slot` when there is one, else where it stands. */
export function InSlot(props: { slot: keyof Slots; children: ReactNode }) {
  const target = useContext(SlotContext)[props.slot];
  return target ? createPortal(props.children, target) : <>{props.children}</>;
}

export function useShowTab() {
  return useContext(ShowTabContext);
}

export function SidePanel(props: {
  node: ReactNode;
  run: ReactNode;
  state: ReactNode;
  threads: ReactNode;
  /** Short marks after a tab's name (problems on the Run tab, a history picked). */
  badges?: Partial<Record<SideTab, string>>;
  /** Changes when the user selects a node or an edge on the canvas ("" when none). */
  selection: string;
  /** The running run's id, else null. */
  running: string | null;
  width: number;
  hidden: boolean;
  /** False in a disconnected view: every control is off, the tabs still switch. */
  editable: boolean;
}) {
  const [tab, setTab] = useState<SideTab>("run");
  const [slots, setSlots] = useState<Slots>({ status: null, attention: null, breakpoints: null });
  const side = useRef<HTMLElement>(null);
  const tabs = useRef<Partial<Record<SideTab, HTMLButtonElement | null>>>({});
  const base = useId();
  const tabId = (t: SideTab) => `${base}-tab-${t}`;
  const panelId = (t: SideTab) => `${base}-panel-${t}`;

  // The slots are elements of this component: known once drawn (portals need them).
  const status = useRef<HTMLDivElement>(null);
  const attention = useRef<HTMLDivElement>(null);
  const breakpoints = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    setSlots({ status: status.current, attention: attention.current, breakpoints: breakpoints.current });
  }, []);

  // A node or an edge selected on the canvas opens the Node tab; a selection made from
  // the side panel itself (a problem's link, the run error's node) leaves the tab open.
  useEffect(() => {
    if (!props.selection) return;
    const active = document.activeElement;
    if (side.current && active && side.current.contains(active)) return;
    setTab("node");
  }, [props.selection]);
  // A run started while the Node tab is open brings the Run tab (its streamed text); the
  // State and Threads tabs stay, the user went there to watch the state or the history.
  useEffect(() => {
    if (props.running) setTab((t) => (t === "node" ? "run" : t));
  }, [props.running]);

  const show = useCallback((t: SideTab) => setTab(t), []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    const at = SIDE_TABS.indexOf(tab);
    const to =
      e.key === "ArrowRight" || e.key === "ArrowDown"
        ? SIDE_TABS[(at + 1) % SIDE_TABS.length]
        : e.key === "ArrowLeft" || e.key === "ArrowUp"
          ? SIDE_TABS[(at + SIDE_TABS.length - 1) % SIDE_TABS.length]
          : e.key === "Home"
            ? SIDE_TABS[0]
            : e.key === "End"
              ? SIDE_TABS[SIDE_TABS.length - 1]
              : null;
    if (!to || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    setTab(to);
    tabs.current[to]?.focus({ preventScroll: true });
  };
  const content: Record<SideTab, ReactNode> = { node: props.node, run: props.run, state: props.state, threads: props.threads };

  return (
    <aside ref={side} className="graphnb-side" style={{ width: props.width }} hidden={props.hidden} data-testid="side-panel" data-tab={tab}>
      <SlotContext.Provider value={slots}>
        <ShowTabContext.Provider value={show}>
          {/* The controls are off in a disconnected view; the tabs still switch. */}
          <div className="graphnb-side-head" data-testid="side-head">
            <fieldset className="graphnb-editable" disabled={!props.editable}>
              <div ref={status} className="graphnb-side-status" />
              <div ref={attention} className="graphnb-side-attention" />
            </fieldset>
          </div>
          <div className="graphnb-side-tabs" role="tablist" aria-label="side panel" data-testid="side-tabs" onKeyDown={onKeyDown}>
            {SIDE_TABS.map((t) => (
              <button
                key={t}
                ref={(el) => {
                  tabs.current[t] = el;
                }}
                type="button"
                role="tab"
                id={tabId(t)}
                className="graphnb-side-tab"
                data-testid={`side-tab-${t}`}
                aria-selected={tab === t}
                aria-controls={panelId(t)}
                tabIndex={tab === t ? 0 : -1}
                title={HINTS[t]}
                onClick={() => setTab(t)}
              >
                {LABELS[t]}
                {props.badges?.[t] && <span className="graphnb-side-badge">{props.badges[t]}</span>}
              </button>
            ))}
          </div>
          {SIDE_TABS.map((t) => (
            <div
              key={t}
              role="tabpanel"
              id={panelId(t)}
              aria-labelledby={tabId(t)}
              className="graphnb-side-scroll"
              data-testid={`side-tabpanel-${t}`}
              tabIndex={0}
              hidden={tab !== t}
            >
              <fieldset className="graphnb-editable" disabled={!props.editable}>
                {content[t]}
                {t === "node" && <div ref={breakpoints} className="graphnb-side-slot" />}
              </fieldset>
            </div>
          ))}
        </ShowTabContext.Provider>
      </SlotContext.Provider>
    </aside>
  );
}

/** The Threads tab while runs are not saved: where to set a saver. */
export function NoThreads() {
  const show = useShowTab();
  return (
    <p className="graphnb-muted graphnb-side-empty" data-testid="threads-none">
      Runs are not saved, so there are no threads to list.{" "}
      <button
        type="button"
        className="graphnb-link"
        data-testid="threads-set-saver"
        onClick={(e) => {
          show("run");
          // The saver's box is in the Run tab, shown once React has drawn it.
          const side = e.currentTarget.closest(".graphnb-side");
          requestAnimationFrame(() => side?.querySelector<HTMLElement>('[data-testid="run-saver"]')?.focus({ preventScroll: false }));
        }}
      >
        Set a saver
      </button>{" "}
      (a checkpointer URL such as sqlite:///threads.db) to keep each run as a thread with its history.
    </p>
  );
}
