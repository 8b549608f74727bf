// A bound callable's signature, docstring and source (or why it cannot be found).

import { useState } from "react";
import type { CallableInfo } from "../protocol";

export function CallableDetails(props: { info: CallableInfo | null; error: string | null }) {
  const [showSource, setShowSource] = useState(false);
  if (props.error) return <p className="graphnb-error-text" data-testid="binding-error">{props.error}</p>;
  if (!props.info) return null;
  const { info } = props;
  return (
    <div className="graphnb-callable">
      <code data-testid="binding-signature" className="graphnb-signature">
        {info.kind !== "function" && <span className="graphnb-kind">{info.kind} </span>}
        {info.signature}
      </code>
      <p data-testid="binding-docstring" className="graphnb-doc">{info.doc || "(no docstring)"}</p>
      <button type="button" className="graphnb-link" onClick={() => setShowSource(!showSource)}>
        {showSource ? "hide source" : "show source"}
      </button>
      <pre data-testid="binding-source" className="graphnb-source" hidden={!showSource}>
        {info.source || "(source not available)"}
      </pre>
    </div>
  );
}
