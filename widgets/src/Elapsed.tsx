// The time a running node has worked so far, ticking while it runs.

import { useEffect, useState } from "react";
import { formatDuration } from "./format";

/** Counts from when it is first drawn: mount it when the node starts running. */
export function Elapsed(props: { testid: string }) {
  const [started] = useState(() => performance.now());
  const [now, setNow] = useState(started);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(performance.now()), 100);
    return () => window.clearInterval(timer);
  }, []);
  return (
    <span className="graphnb-node-duration graphnb-node-elapsed" data-testid={props.testid}>
      {formatDuration((now - started) / 1000)}
    </span>
  );
}
