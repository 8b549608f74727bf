// The streamed text of a run, put together from `chunks` messages (deltas at an offset),
// `chunks_replaced` messages (text the run withdrew, e.g. an agent's abandoned tokens) and
// the run_state trait's snapshot (the fallback when a message was missed).

import type { ChunksMessage, ChunksReplacedMessage } from "./protocol";

export type Chunks = { run: string | null; text: string };

/** A delta: appended when it continues the text; a new run starts over from offset 0. */
export function applyChunks(local: Chunks, message: ChunksMessage): Chunks {
  if (local.run !== message.run) return message.offset === 0 ? { run: message.run, text: message.text } : local;
  const end = message.offset + message.text.length;
  if (message.offset > local.text.length || end <= local.text.length) return local;
  return { run: message.run, text: local.text + message.text.slice(local.text.length - message.offset) };
}

/** A replacement: the text from its offset on is now its text; the text before stays. */
export function applyReplaced(local: Chunks, message: ChunksReplacedMessage): Chunks {
  if (local.run !== message.run || message.offset > local.text.length) return local;
  return { run: message.run, text: local.text.slice(0, message.offset) + message.text };
}

/** The trait's snapshot wins when it is of another run or holds more text. */
export function applySnapshot(local: Chunks, run: string | null, text: string): Chunks {
  return local.run !== run || text.length > local.text.length ? { run, text } : local;
}
