// The debugger's requests to Python (graphnb/widget/debugger.py): each `debug_*` request
// carries a number that its reply repeats, so a panel awaits exactly its own answer.

import type { AnyModel } from "@anywidget/types";
import { useCallback, useEffect, useRef } from "react";
import type { Json, Model } from "../protocol";

export type ThreadStatus = "finished" | "interrupted" | "failed" | "pending" | "damaged";

/** A thread as the threads panel lists it. */
export type ThreadItem = {
  thread_id: string;
  step: number;
  status: ThreadStatus;
  updated_at: number;
  checkpoint_id: string;
  error: string | null;
};

/** A checkpoint as the history panel lists it. */
export type CheckpointItem = {
  checkpoint_id: string;
  parent_id: string | null;
  step: number;
  source: string;
  ran: string[];
  next: string[];
  values: Record<string, Json>;
  changed: string[];
  created_at: number;
  error: string | null;
  interrupts: { node: string; when: string; value: Json; id: string }[];
};

export type DebugRequest =
  | { type: "debug_threads"; search: string; limit: number; after: string | null }
  | { type: "debug_history"; thread_id: string; limit: number; before: string | null }
  | { type: "debug_show"; thread_id: string; checkpoint_id: string }
  | { type: "debug_fork"; thread_id: string; checkpoint_id: string; values: Record<string, Json>; as_node: string | null }
  | { type: "debug_rerun"; thread_id: string; checkpoint_id: string }
  | { type: "debug_breakpoint"; node: string; when: "before" | "after"; on: boolean }
  | { type: "debug_continue"; thread_id: string; step: boolean }
  | { type: "debug_stop" }
  | { type: "debug_resume"; thread_id: string; answers: Record<string, Json> };

/** What every reply holds; `error` (and the refused `field`) when the request failed. */
export type DebugReply = {
  type: string;
  request: number;
  error: string | null;
  field?: string | null;
  items?: (ThreadItem | CheckpointItem)[];
  after?: string | null;
  before?: string | null;
  checkpoint_id?: string;
};

export type Ask = (request: DebugRequest) => Promise<DebugReply>;

export function useDebugger(model: AnyModel<Model>): Ask {
  const pending = useRef(new Map<number, (reply: DebugReply) => void>());
  const counter = useRef(0);
  useEffect(() => {
    const onMessage = (message: { type?: unknown; request?: unknown }) => {
      if (typeof message.type !== "string" || !message.type.startsWith("debug_")) return;
      const reply = message as DebugReply;
      pending.current.get(reply.request)?.(reply);
      pending.current.delete(reply.request);
    };
    model.on("msg:custom", onMessage);
    return () => model.off("msg:custom", onMessage);
  }, [model]);
  return useCallback(
    (request) =>
      new Promise<DebugReply>((resolve) => {
        const number = ++counter.current;
        pending.current.set(number, resolve);
        model.send({ ...request, request: number } as never);
      }),
    [model],
  );
}
