// A callable's source in a dialog over the builder ("Open source" of the context menu).

import { useCallableInfo } from "../hooks/useCallableInfo";
import type { Inspect } from "../hooks/useServerMessages";
import type { CallableInfo } from "../protocol";

export function SourceDialog(props: { binding: string; callables: CallableInfo[]; inspect: Inspect; onClose(): void }) {
  const { info, error } = useCallableInfo(props.binding, props.callables, props.inspect);
  return (
    <div className="graphnb-dialog" role="dialog" aria-label={`source of ${props.binding}`} data-testid="source-dialog">
      <header>
        <code>{info?.signature ?? props.binding}</code>
        <button type="button" data-testid="source-dialog-close" onClick={props.onClose} title="close (Escape)">
          ×
        </button>
      </header>
      {error ? (
        <p className="graphnb-error-text">{error}</p>
      ) : (
        <pre className="graphnb-source" data-testid="source-dialog-text">
          {info ? info.source || "(source not available)" : "…"}
        </pre>
      )}
    </div>
  );
}
