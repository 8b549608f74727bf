// Requests to the kernel: every one goes through anywidget's command channel (invoke) to
// the builder's one dispatcher and comes back as its typed reply (graphnb/widget/protocol.py).

import { useExperimental } from "@anywidget/react";
import { useCallback, useMemo } from "react";
import type { CallableInfo, Protocol, Reply, Request } from "../protocol";

/** The kernel's command every request goes through (checked against Python's by tsc). */
const COMMAND: Protocol["command"] = "_graphnb_request";
/** How long a request may wait for its reply: a dead kernel must not hang a panel. */
const PATIENCE_MS = 120_000;

export type Ask = <R extends Request>(request: R) => Promise<Reply<R["type"]>>;

export type Inspected = { info: CallableInfo | null; error: string | null };
/** Ask Python about a binding that is not among the notebook's callables. */
export type Inspect = (binding: string) => Promise<Inspected>;

/** Send requests; a request the kernel could not take or answer comes back refused. */
export function useAsk(): Ask {
  const { invoke } = useExperimental();
  return useCallback(
    async <R extends Request>(request: R): Promise<Reply<R["type"]>> => {
      try {
        const [reply] = await invoke<Reply<R["type"]>>(COMMAND, request, { signal: AbortSignal.timeout(PATIENCE_MS) });
        return reply;
      } catch (error) {
        return { error: `the kernel did not answer: ${String(error)}`, field: null };
      }
    },
    [invoke],
  );
}

/** Describe a binding (its signature, doc and source), or say why it names nothing. */
export function useInspect(ask: Ask): Inspect {
  return useMemo(
    () => async (binding: string) => {
      const reply = await ask({ type: "inspect", binding });
      return reply.error === null ? { info: reply.info, error: null } : { info: null, error: reply.error };
    },
    [ask],
  );
}
