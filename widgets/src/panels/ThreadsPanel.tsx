// The saver's threads, newest first: a search box and pages of 50 read on demand (the
// engine's keyset listing, so 10,000 threads open as fast as 50). Picking one opens its
// history and shows its last checkpoint on the canvas.

import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { Ask } from "../hooks/useKernel";
import type { ThreadItem } from "../protocol";
import { Panel } from "./Panel";
import "./debugger.css";

export const THREAD_PAGE = 50;

function when(seconds: number): string {
  const date = new Date(seconds * 1000);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

export function ThreadsPanel(props: {
  ask: Ask;
  picked: string | null;
  onPick(thread: ThreadItem): void;
  /** Changes when a run ended: the list is read again. */
  refresh: string;
}) {
  const { ask, onPick } = props;
  const [search, setSearch] = useState("");
  const [items, setItems] = useState<ThreadItem[]>([]);
  const [after, setAfter] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);

  const load = useCallback(
    async (text: string, cursor: string | null) => {
      const mine = ++latest.current;
      setLoading(true);
      const reply = await ask({ type: "debug_threads", search: text, limit: THREAD_PAGE, after: cursor });
      if (mine !== latest.current) return; // a newer search answered first, or will
      setLoading(false);
      setError(reply.error);
      if (reply.error !== null) return;
      const page = reply.items;
      setItems((old) => (cursor === null ? page : [...old, ...page]));
      setAfter(reply.after);
    },
    [ask],
  );

  useEffect(() => {
    const timer = window.setTimeout(() => void load(search, null), search ? 150 : 0);
    return () => window.clearTimeout(timer);
  }, [search, load, props.refresh]);

  const list = useRef<HTMLUListElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const buttons = Array.from(list.current?.querySelectorAll<HTMLButtonElement>("button.graphnb-thread") ?? []);
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, at + (event.key === "ArrowDown" ? 1 : -1)))];
    next?.focus();
    event.preventDefault();
  };

  return (
    <Panel id="panel-threads" title="Threads">
      <input
        type="search"
        data-testid="threads-search"
        placeholder="search thread ids"
        aria-label="search thread ids"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      {error && (
        <p className="graphnb-error-text" data-testid="threads-error">
          {error}
        </p>
      )}
      {!error && !items.length && !loading && <p className="graphnb-muted">No threads yet.</p>}
      <ul className="graphnb-threads" data-testid="threads-list" data-loading={loading} ref={list} onKeyDown={onKeyDown}>
        {items.map((item) => (
          <li key={item.thread_id}>
            <button
              type="button"
              className={`graphnb-thread graphnb-thread-${item.status}${item.thread_id === props.picked ? " graphnb-step-chosen" : ""}`}
              data-testid={`thread-${item.thread_id}`}
              data-status={item.status}
              aria-pressed={item.thread_id === props.picked}
              title={item.error ?? `${item.status} at step ${item.step}`}
              onClick={() => onPick(item)}
            >
              <span className="graphnb-thread-id">{item.thread_id}</span>
              <span className={`graphnb-thread-status graphnb-thread-status-${item.status}`}>{item.status}</span>
              <span className="graphnb-muted">
                step {item.step} · {when(item.updated_at)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {after && (
        <button type="button" data-testid="threads-more" disabled={loading} onClick={() => void load(search, after)}>
          More threads
        </button>
      )}
    </Panel>
  );
}
