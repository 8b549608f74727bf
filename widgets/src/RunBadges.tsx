// A node's run counters, under its card: Send instances, cache hits, retries.

import type { ReactElement } from "react";
import type { RunState } from "./protocol";
import { type Store, useSelect } from "./store";

/**
 * Counters of a node's run: `3/5 sent` while Send instances run (`5 sent ✓` when all are
 * done, `✗` if one failed), `cached ×2`, `retried ×1`. Nothing for a plain run.
 */
export function RunBadges({ run, id }: { run: Store<RunState>; id: string }) {
  const sends = useSelect(run, (r) => {
    const n = r.nodes[id]?.instances;
    return n ? `${n.total}\u0000${n.running}\u0000${n.done}\u0000${n.failed}` : null;
  });
  const hits = useSelect(run, (r) => r.nodes[id]?.cache_hits ?? 0);
  const retries = useSelect(run, (r) => r.nodes[id]?.retries ?? 0);
  if (!sends && !hits && !retries) return null;
  let send: ReactElement | null = null;
  if (sends) {
    const [total, running, done, failed] = sends.split("\u0000").map(Number);
    const status = failed ? "error" : running ? "running" : "done";
    send = (
      <span
        className={`graphnb-badge graphnb-badge-send graphnb-status-text-${status}`}
        data-testid={`send-count-${id}`}
        data-status={status}
        data-total={total}
        data-done={done}
        title={`${total} Send instances: ${running} running, ${done} done, ${failed} failed`}
      >
        {running ? `${done}/${total} sent` : `${total} sent ${failed ? "✗" : "✓"}`}
      </span>
    );
  }
  return (
    <div className="graphnb-run-badges">
      {send}
      {hits > 0 && (
        <span className="graphnb-badge graphnb-badge-cache" data-testid={`cache-hits-${id}`} title="results from the node's cache">
          cached ×{hits}
        </span>
      )}
      {retries > 0 && (
        <span className="graphnb-badge graphnb-badge-retry" data-testid={`retries-${id}`} title="attempts run again by the retry policy">
          retried ×{retries}
        </span>
      )}
    </div>
  );
}

