// Said on the canvas while the view cannot reach its widget in the kernel.

import type { Connection } from "./hooks/useConnection";

export function Disconnected(props: { connection: Connection }) {
  const { connection } = props;
  if (connection.live) return null;
  return (
    <div className="graphnb-disconnected" role="status" data-testid="disconnected" data-final={connection.final}>
      <strong>{connection.final ? "Disconnected" : "Reconnecting…"}</strong>: {connection.reason}.{" "}
      {connection.final
        ? "This view is read-only: run the cell again to edit the graph."
        : "Editing is paused until the connection is back."}
    </div>
  );
}
