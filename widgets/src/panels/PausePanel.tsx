// Breakpoints and pauses: toggle "pause before" / "pause after" on the selected node (its
// card shows a marker); a run that paused says where and why, with Continue, Step (one
// super-step) and Stop; a node's interrupt() waits here for its answer.

import { useEffect, useRef } from "react";
import type { Ask } from "../hooks/useKernel";
import type { Json, PauseInfo } from "../protocol";
import { InterruptAnswer } from "./InterruptPanel";
import { Panel } from "./Panel";
import { InSlot } from "../SidePanel";

export function PausePanel(props: {
  ask: Ask;
  selected: string | null;
  breakpoints: Record<string, string[]>;
  paused: PauseInfo | null;
  running: boolean;
  onNote(note: string): void;
}) {
  const { ask, selected, paused } = props;
  const whens = selected ? (props.breakpoints[selected] ?? []) : [];
  const toggle = async (when: "before" | "after") => {
    if (!selected) return;
    const reply = await ask({ type: "debug_breakpoint", node: selected, when, on: !whens.includes(when) });
    props.onNote(reply.error ?? "");
  };
  const go = async (step: boolean) => {
    if (!paused) return;
    const reply = await ask({ type: "debug_continue", thread_id: paused.thread_id, step });
    props.onNote(reply.error ?? "");
  };
  const answer = async (id: string, value: Json) => {
    if (!paused) return;
    const reply = await ask({ type: "debug_resume", thread_id: paused.thread_id, answers: { [id]: value } });
    props.onNote(reply.error ?? "");
  };
  const stops = paused?.interrupts.filter((i) => i.when !== "during") ?? [];
  const asking = paused?.interrupts.filter((i) => i.when === "during") ?? [];
  const listed = Object.entries(props.breakpoints);
  // What needs the user comes to the user: a new pause or question opens this panel,
  // scrolls it into the side panel's view and focuses its answer field (or Continue),
  // unless the user is typing outside the builder.
  const box = useRef<HTMLDivElement>(null);
  const waiting = paused
    ? `${paused.thread_id}:${paused.step}:${paused.interrupts.map((i) => `${i.node}.${i.when}.${i.id}`).join(",")}`
    : "";
  useEffect(() => {
    if (!waiting) return;
    const frame = requestAnimationFrame(() => bringToUser(box.current));
    return () => cancelAnimationFrame(frame);
  }, [waiting]);
  return (
    // The breakpoints are a node's, in the Node tab; a pause's form stays in the side
    // panel's head, whatever tab is open.
    <InSlot slot="breakpoints">
    <Panel id="panel-pause" title={titleOf(asking.length, stops.length)} reveal={waiting}>
      {selected ? (
        <div className="graphnb-row" data-testid="breakpoint-toggles">
          <span className="graphnb-muted">{selected}:</span>
          {(["before", "after"] as const).map((when) => (
            <button
              key={when}
              type="button"
              data-testid={`breakpoint-${when}`}
              aria-pressed={whens.includes(when)}
              className={whens.includes(when) ? "graphnb-step-chosen" : ""}
              onClick={() => void toggle(when)}
            >
              pause {when}
            </button>
          ))}
        </div>
      ) : (
        <p className="graphnb-muted">Select a node to pause runs before or after it.</p>
      )}
      {listed.length > 0 && (
        <p className="graphnb-muted" data-testid="breakpoint-list">
          {listed.map(([node, w]) => `${node} (${w.join(", ")})`).join(" · ")}
        </p>
      )}
      {paused && (
        <InSlot slot="attention">
        <div className="graphnb-paused" data-testid="paused" data-thread={paused.thread_id} ref={box}>
          {asking.length > 0 && <p className="graphnb-paused-title">{titleOf(asking.length, 0)}</p>}
          {stops.length > 0 && (
            <p data-testid="paused-where">
              Paused{" "}
              {stops.map((i) => `${i.when} ${i.node}`).join(", ")} on thread {paused.thread_id} (step {paused.step})
              {paused.next.length ? `; next: ${paused.next.join(", ")}` : ""}
            </p>
          )}
          {asking.map((pending) => (
            <InterruptAnswer key={pending.id || pending.node} pending={pending} disabled={props.running} onAnswer={(v) => void answer(pending.id, v)} />
          ))}
          {stops.length > 0 && (
            <div className="graphnb-row">
              <button type="button" data-testid="pause-continue" disabled={props.running} onClick={() => void go(false)}>
                Continue
              </button>
              <button type="button" data-testid="pause-step" disabled={props.running} onClick={() => void go(true)}>
                Step
              </button>
              <button
                type="button"
                data-testid="pause-stop"
                onClick={() => void ask({ type: "debug_stop" }).then((r) => props.onNote(r.error ?? ""))}
              >
                Stop
              </button>
            </div>
          )}
        </div>
        </InSlot>
      )}
    </Panel>
    </InSlot>
  );
}

/** Scroll `element` to the top of the side panel (its head, or a tab) and focus its first
 * field or button. */
function bringToUser(element: HTMLElement | null) {
  if (!element) return;
  const side = element.closest<HTMLElement>(".graphnb-side-head, .graphnb-side-scroll");
  if (side) {
    const box = element.getBoundingClientRect();
    const view = side.getBoundingClientRect();
    if (box.top < view.top || box.bottom > view.bottom) side.scrollTop += box.top - view.top - 8;
  }
  const builder = element.closest(".graphnb-builder");
  const active = document.activeElement;
  if (active && active !== document.body && !builder?.contains(active)) return;
  element.querySelector<HTMLElement>("textarea, input, select, button:not(:disabled)")?.focus({ preventScroll: true });
}

/** The panel's title says what waits for the user, if anything. */
function titleOf(questions: number, stops: number): string {
  if (questions) return `Waiting for ${questions === 1 ? "an answer" : `${questions} answers`}`;
  if (stops) return "Paused · breakpoints";
  return "Breakpoints";
}
