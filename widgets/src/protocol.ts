// The widget protocol. Its one home is graphnb/widget/protocol.py: the types of every
// trait payload, request, reply and push are generated from it (protocol.generated.ts, by
// `npm run protocol`); this file names the unions and says how the traits and replies fit.

import type { GraphSpec } from "./graphSpec";
import type {
  CallableInfo,
  GraphInfo,
  ModelInfo,
  NodeRun,
  PauseInfo,
  ProblemInfo,
  Protocol,
  Refused,
  Replies,
  RunState,
} from "./protocol.generated";

export * from "./graphSpec";
export * from "./protocol.generated";

/** Every request the front end makes (anywidget's invoke of the kernel's one command). */
export type Request = Protocol["request"];
/** What the kernel pushes unasked: streamed text. */
export type ServerMessage = Protocol["push"];
export type NodeStatus = NodeRun["status"];
export type RunStatus = RunState["status"];
/** A request type's reply: its answer (`error: null`), or why it was refused. */
export type Reply<K extends Request["type"]> = (Replies[K] & { error: null }) | Refused;

/** The synced traits of graphnb.widget.Builder. */
export type Model = {
  spec: GraphSpec;
  problems: ProblemInfo[];
  callables: CallableInfo[];
  models: ModelInfo[];
  graphs: GraphInfo[];
  run_state: RunState;
  saves_threads: boolean;
  saver: string;
  notice: string;
  export_status: string;
  height: number;
  /** Where runs pause, and the thread a run left paused (graphnb/widget/debugger.py). */
  breakpoints: Record<string, string[]>;
  paused: PauseInfo | Record<string, never>;
};
