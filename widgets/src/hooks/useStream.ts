// What the kernel pushes unasked: a run's streamed text, as chunk deltas and replacements
// (with the run_state trait's snapshot as the fallback), and chunk by chunk, so a click on
// the stream can list its chunks. One listener for every push (graphnb/widget/protocol.py).

import type { AnyModel } from "@anywidget/types";
import { useEffect, useState } from "react";
import { applyChunks, applyReplaced, applySnapshot, type Chunks } from "../chunks";
import type { ChunksMessage, Model, RunState, ServerMessage } from "../protocol";

/** Chunks kept per run; a longer stream keeps its last ones. */
const LIMIT = 2000;

export type Piece = { node: string; text: string };
export type Pieces = { run: string | null; pieces: Piece[]; dropped: number };

function addPieces(old: Pieces, message: ChunksMessage): Pieces {
  const base = old.run === message.run ? old : { run: message.run, pieces: [], dropped: 0 };
  const sizes = message.sizes?.length ? message.sizes : [message.text.length];
  const added: Piece[] = [];
  let at = 0;
  for (const size of sizes) {
    added.push({ node: message.node, text: message.text.slice(at, at + size) });
    at += size;
  }
  const pieces = [...base.pieces, ...added];
  const extra = Math.max(0, pieces.length - LIMIT);
  return { run: message.run, pieces: extra ? pieces.slice(extra) : pieces, dropped: base.dropped + extra };
}

/** The current run's streamed text, and its chunks one by one. */
export function useStream(model: AnyModel<Model>, run: RunState) {
  const [chunks, setChunks] = useState<Chunks>({ run: run.id, text: run.chunks });
  const [pieces, setPieces] = useState<Pieces>({ run: null, pieces: [], dropped: 0 });
  useEffect(() => {
    // Snapshots are applied in the order they arrive among the messages, not in an effect
    // after the next render: a snapshot older than a `chunks_replaced` must not undo it.
    const onRun = () => {
      const latest = model.get("run_state");
      setChunks((local) => applySnapshot(local, latest.id, latest.chunks));
    };
    const onPush = (message: ServerMessage) => {
      if (message.type === "chunks") {
        setChunks((local) => applyChunks(local, message));
        setPieces((old) => addPieces(old, message));
      } else if (message.type === "chunks_replaced") setChunks((local) => applyReplaced(local, message));
    };
    onRun(); // what changed before this effect subscribed
    model.on("change:run_state", onRun);
    model.on("msg:custom", onPush);
    return () => {
      model.off("change:run_state", onRun);
      model.off("msg:custom", onPush);
    };
  }, [model]);
  /** The streamed text of the current run. */
  const text = chunks.run === run.id ? chunks.text : run.chunks;
  return { chunks: text, pieces };
}
