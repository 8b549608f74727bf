// The streamed text chunk by chunk: each `chunks` message says which node streamed it and
// how long each chunk was, so a click on the stream can list its chunks.

import type { AnyModel } from "@anywidget/types";
import { useEffect, useState } from "react";
import type { ServerMessage } from "../protocol";

/** Chunks kept per run; a longer stream keeps its last ones. */
const LIMIT = 2000;

export type Piece = { node: string; text: string };
export type Pieces = { run: string | null; pieces: Piece[]; dropped: number };

export function usePieces(model: AnyModel<object>): Pieces {
  const [state, setState] = useState<Pieces>({ run: null, pieces: [], dropped: 0 });
  useEffect(() => {
    const onMessage = (message: ServerMessage) => {
      if (message.type !== "chunks") return;
      setState((old) => {
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
      });
    };
    model.on("msg:custom", onMessage);
    return () => model.off("msg:custom", onMessage);
  }, [model]);
  return state;
}
