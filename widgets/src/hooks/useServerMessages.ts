// Messages from Python: streamed chunks (deltas and replacements, with the run_state
// trait's snapshot as the fallback), the replies to `inspect` requests, and an
// export's "the file exists".

import type { AnyModel } from "@anywidget/types";
import { useCallback, useEffect, useRef, useState } from "react";
import { applyChunks, applyReplaced, applySnapshot, type Chunks } from "../chunks";
import type { CallableInfo, ClientMessage, Model, RunState, ServerMessage } from "../protocol";

export type Inspected = { info: CallableInfo | null; error: string | null };
/** Ask Python about a binding that is not among the notebook's callables. */
export type Inspect = (binding: string) => Promise<Inspected>;

export function useServerMessages(model: AnyModel<Model>, send: (message: ClientMessage) => void, run: RunState) {
  const [chunks, setChunks] = useState<Chunks>({ run: run.id, text: run.chunks });

  /** The file an export would replace, awaiting the user's choice; null when none. */
  const [exportExists, setExportExists] = useState<string | null>(null);
  const pending = useRef(new Map<number, (reply: Inspected) => void>());
  useEffect(() => {
    // Snapshots are applied in the order they arrive among the messages, not in an effect
    // after the next render: a snapshot older than a `chunks_replaced` must not undo it.
    const onRun = () => {
      const latest = model.get("run_state");
      setChunks((local) => applySnapshot(local, latest.id, latest.chunks));
    };
    const onMessage = (message: ServerMessage) => {
      if (message.type === "chunks") setChunks((local) => applyChunks(local, message));
      else if (message.type === "chunks_replaced") setChunks((local) => applyReplaced(local, message));
      else if (message.type === "export_exists") setExportExists(message.path);
      else if (message.type === "inspected") {
        pending.current.get(message.request)?.({ info: message.info, error: message.error });
        pending.current.delete(message.request);
      }
    };
    onRun(); // what changed before this effect subscribed
    model.on("change:run_state", onRun);
    model.on("msg:custom", onMessage);
    return () => {
      model.off("change:run_state", onRun);
      model.off("msg:custom", onMessage);
    };
  }, [model]);

  const requests = useRef(0);
  const inspect: Inspect = useCallback(
    (binding) =>
      new Promise((resolve) => {
        const request = ++requests.current;
        pending.current.set(request, resolve);
        send({ type: "inspect", request, binding });
      }),
    [send],
  );
  /** The streamed text of the current run. */
  const text = chunks.run === run.id ? chunks.text : run.chunks;
  return { chunks: text, inspect, exportExists, setExportExists };
}
