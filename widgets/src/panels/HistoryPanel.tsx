// A thread's history: a slider and a list over its checkpoints (newest at the right of
// the slider, at the top of the list), the state after each one with the fields it
// changed highlighted, the nodes that ran lit on the canvas, forks marked as branches.
// "Run again from here" forks by running from the checkpoint; "Edit state" forks with
// update_state, acting as a chosen node. Pages of 200 are read as the slider needs them.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Ask } from "../hooks/useKernel";
import type { CheckpointItem } from "../protocol";
import { pageToAsk, sliderSpan, within } from "../historyPages";
import { editUpdate } from "../stateEdit";
import type { FieldSpec, Json, JsonSchema } from "../protocol";
import { fieldErrors } from "../runInput";
import { InputForm } from "./InputForm";
import { FieldTable } from "./FieldTable";
import { Panel } from "./Panel";

export const HISTORY_PAGE = 200;
/** List rows drawn around the chosen one; the slider covers the rest. */
const WINDOW = 40;
/** Read the next page when the slider comes this close to the oldest loaded checkpoint. */
const PREFETCH = 100;

function label(item: CheckpointItem): string {
  if (item.source === "input") return "input";
  if (item.source === "seed") return "seed";
  if (item.source === "update") return `edit${item.ran.length ? ` as ${item.ran.join(", ")}` : ""}`;
  if (item.source === "error") return "failed";
  if (item.source === "interrupt") return "interrupted";
  return item.ran.join(", ") || "step";
}

export function HistoryPanel(props: {
  ask: Ask;
  threadId: string;
  schema: JsonSchema | null;
  fields: FieldSpec[];
  nodes: string[];
  running: boolean;
  /** Changes when a run on this thread ended: the history is read again. */
  refresh: string;
}) {
  const { ask, threadId } = props;
  const [items, setItems] = useState<CheckpointItem[]>([]); // newest first
  const [before, setBefore] = useState<string | null>(null);
  const [picked, setChosen] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<Record<string, Json>>({});
  const [asNode, setAsNode] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [note, setNote] = useState("");
  // The older page asked for last (asked once: its reply may still be on its way), and
  // which first read the replies belong to: a reply to a read made before the history was
  // read again (a run ended) is dropped.
  const asked = useRef<string | null>(null);
  const reading = useRef(0);
  // The canvas shows a checkpoint only when the user picks one (the thread, a row, the
  // slider, a fork): a history read again because a run ended, or a run's end itself,
  // never replaces the run just made on screen (issue 31, defect 3).
  const userPick = useRef(true);
  const mounted = useRef(false);
  const choose = useCallback((i: number) => {
    userPick.current = true;
    setChosen(i);
  }, []);

  const load = useCallback(
    async (cursor: string | null) => {
      if (cursor === null) reading.current += 1;
      const mine = reading.current;
      asked.current = cursor;
      const reply = await ask({ type: "debug_history", thread_id: threadId, limit: HISTORY_PAGE, before: cursor });
      if (mine !== reading.current) return;
      setError(reply.error);
      if (reply.error !== null) {
        asked.current = null; // the next move of the slider asks again
        return;
      }
      const page = reply.items;
      setItems((old) => (cursor === null ? page : [...old, ...page]));
      setBefore(reply.before);
      if (cursor === null) setChosen(0);
    },
    [ask, threadId],
  );
  useEffect(() => {
    setEditing(false);
    setNote("");
    userPick.current = !mounted.current; // the thread's first read: the user just picked it
    mounted.current = true;
    void load(null);
  }, [load, props.refresh]);

  // The slider reaches a page past the loaded rows while older ones remain (historyPages.ts).
  const span = sliderSpan(items.length, before !== null, HISTORY_PAGE, picked);
  const chosen = within(picked, span);
  const item = items[chosen] as CheckpointItem | undefined;
  // Light the chosen checkpoint on the canvas: one request in flight, the latest wins.
  const showing = useRef<{ busy: boolean; wanted: string | null }>({ busy: false, wanted: null });
  const show = useCallback(
    async (checkpoint: string) => {
      const state = showing.current;
      state.wanted = checkpoint;
      if (state.busy) return;
      state.busy = true;
      while (state.wanted) {
        const next = state.wanted;
        state.wanted = null;
        await ask({ type: "debug_show", thread_id: threadId, checkpoint_id: next });
      }
      state.busy = false;
    },
    [ask, threadId],
  );
  useEffect(() => {
    if (props.running) userPick.current = false; // its end shows the run, not the history
  }, [props.running]);
  useEffect(() => {
    if (item && !props.running && userPick.current) void show(item.checkpoint_id);
  }, [item?.checkpoint_id, props.running, show]);
  // The slider nears the oldest loaded checkpoint: read the next page ahead of it.
  useEffect(() => {
    const cursor = pageToAsk({ before, asked: asked.current, chosen, loaded: items.length, ahead: PREFETCH });
    if (cursor !== null) void load(cursor);
  }, [chosen, before, items.length, load]);

  const byId = useMemo(() => new Map(items.map((it, i) => [it.checkpoint_id, i])), [items]);
  const forkOf = (i: number): CheckpointItem | null => {
    const it = items[i];
    const older = items[i + 1];
    if (!it?.parent_id || !older || it.parent_id === older.checkpoint_id) return null;
    const at = byId.get(it.parent_id);
    return at === undefined ? null : items[at];
  };

  const startEdit = () => {
    if (!item) return;
    setDraft({ ...item.values });
    setErrors({});
    setAsNode("");
    setNote("");
    setEditing(true);
  };
  const fork = async () => {
    if (!item) return;
    const { update, errors: wrong } = editUpdate(item.values, draft, props.fields);
    const typed = fieldErrors(props.schema, update);
    const all = { ...typed, ...wrong };
    setErrors(all);
    if (Object.keys(all).length) return;
    if (!Object.keys(update).length && !asNode) {
      setNote("nothing changed: edit a field, or choose the node the edit acts as");
      return;
    }
    const reply = await ask({
      type: "debug_fork",
      thread_id: threadId,
      checkpoint_id: item.checkpoint_id,
      values: update,
      as_node: asNode || null,
    });
    if (reply.error !== null) {
      if (reply.field) setErrors({ [reply.field]: reply.error });
      else setNote(reply.error);
      return;
    }
    setEditing(false);
    setNote(`forked: new checkpoint ${reply.checkpoint_id.slice(0, 8)} after step ${item.step}`);
    userPick.current = true; // the fork made is shown
    await load(null);
  };
  const rerun = async () => {
    if (!item) return;
    const reply = await ask({ type: "debug_rerun", thread_id: threadId, checkpoint_id: item.checkpoint_id });
    setNote(reply.error ?? `running again from step ${item.step}`);
  };

  // Keep the chosen row in the list's view (its own scroll only: never the notebook's).
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const box = list.current;
    const row = box?.querySelector<HTMLElement>('[aria-pressed="true"]');
    if (!box || !row) return;
    const top = row.offsetTop; // the list is positioned: offsets are within it
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + row.offsetHeight > box.scrollTop + box.clientHeight)
      box.scrollTop = top + row.offsetHeight - box.clientHeight;
  }, [chosen, items]);

  const position = span - 1 - chosen; // the slider: oldest at the left
  const start = Math.max(0, Math.min(chosen, items.length - 1) - WINDOW / 2);
  const shown = items.slice(start, start + WINDOW);
  const branch = forkOf(chosen);
  return (
    <Panel id="panel-history" title={`History of ${threadId}`}>
      {error && (
        <p className="graphnb-error-text" data-testid="history-error">
          {error}
        </p>
      )}
      {items.length > 0 && (
        <>
          <input
            type="range"
            data-testid="history-slider"
            aria-label="checkpoint"
            min={0}
            max={span - 1}
            value={position}
            onChange={(e) => choose(span - 1 - Number(e.target.value))}
          />
          <p className="graphnb-muted" data-testid="history-count">
            {items.length}
            {before ? "+" : ""} checkpoints
          </p>
          <ol className="graphnb-history" data-testid="history-list" ref={list}>
            {shown.map((it, k) => {
              const i = start + k;
              const parent = forkOf(i);
              return (
                <li key={it.checkpoint_id}>
                  <button
                    type="button"
                    data-testid={`history-item-${i}`}
                    data-checkpoint={it.checkpoint_id}
                    data-source={it.source}
                    className={i === chosen ? "graphnb-step-chosen" : ""}
                    aria-pressed={i === chosen}
                    onClick={() => choose(i)}
                  >
                    {parent && (
                      <span className="graphnb-fork" data-testid={`history-fork-${i}`} title="a branch of the history">
                        ⑂ fork of step {parent.step}{" "}
                      </span>
                    )}
                    <span>
                      {it.step < 0 ? "" : `${it.step} · `}
                      {label(it)}
                    </span>
                  </button>
                </li>
              );
            })}
          </ol>
        </>
      )}
      {!item && chosen > 0 && (
        <p className="graphnb-muted" data-testid="history-detail" data-step="">
          reading older checkpoints…
        </p>
      )}
      {item && (
        <div data-testid="history-detail" data-checkpoint={item.checkpoint_id} data-step={item.step}>
          <p className="graphnb-muted">
            step {item.step} · {item.source}
            {item.ran.length ? ` · ran ${item.ran.join(", ")}` : ""}
            {item.next.length ? ` · next ${item.next.join(", ")}` : " · the end"}
            {branch ? ` · a fork of step ${branch.step}` : ""}
          </p>
          {item.error && (
            <p className="graphnb-error-text" data-testid="history-failure">
              {item.error}
            </p>
          )}
          {!editing && (
            <FieldTable values={item.values} changed={item.changed} testid="history-field" />
          )}
          <div className="graphnb-row">
            <button type="button" data-testid="history-rerun" disabled={props.running} onClick={() => void rerun()}>
              Run again from here
            </button>
            <button type="button" data-testid="history-edit" disabled={props.running} onClick={startEdit}>
              Edit state
            </button>
          </div>
          {editing && (
            <div data-testid="history-edit-form" className="graphnb-form">
              {props.schema ? (
                <InputForm schema={props.schema} skip={[]} value={draft} errors={errors} onChange={setDraft} />
              ) : (
                <p className="graphnb-muted">The state has no model: edit it with update_state from code.</p>
              )}
              <label className="graphnb-field">
                <span>acts as node</span>
                <select data-testid="history-as-node" value={asNode} onChange={(e) => setAsNode(e.target.value)}>
                  <option value="">(none: the next nodes stay)</option>
                  {props.nodes.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              </label>
              <div className="graphnb-row">
                <button type="button" data-testid="history-fork" onClick={() => void fork()}>
                  Fork with this state
                </button>
                <button type="button" data-testid="history-cancel" onClick={() => setEditing(false)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </div>
      )}
      {note && (
        <p className="graphnb-muted" data-testid="history-note">
          {note}
        </p>
      )}
    </Panel>
  );
}
