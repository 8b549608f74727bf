// A callable's source in a dialog over the builder ("Open source" of the context menu).

import { useEffect, useRef } from "react";
import { useCallableInfo } from "../hooks/useCallableInfo";
import type { Inspect } from "../hooks/useKernel";
import type { CallableInfo } from "../protocol";

export function SourceDialog(props: { binding: string; callables: CallableInfo[]; inspect: Inspect; onClose(): void }) {
  const { info, error } = useCallableInfo(props.binding, props.callables, props.inspect);
  // The dialog takes focus, inside the builder, so Escape closes it at once: the menu item
  // that opened it is gone, and focus left on <body> would send the key to JupyterLab.
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus({ preventScroll: true }), []);
  return (
    <div className="graphnb-dialog" role="dialog" aria-label={`source of ${props.binding}`} data-testid="source-dialog">
      <header>
        <code>{info?.signature ?? props.binding}</code>
        <button ref={close} type="button" data-testid="source-dialog-close" onClick={props.onClose} title="close (Escape)">
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
