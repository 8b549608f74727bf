// The streamed text of a run. A click on it lists the chunks it was streamed in (which
// node sent each), and a click on the list goes back to the text.

import { useEffect, useRef, useState } from "react";
import type { Piece } from "../hooks/useStream";

/** The streamed text; follows the end while it grows, unless the user scrolled up. */
export function Chunks(props: { text: string; live: boolean; pieces?: Piece[] }) {
  const box = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  const length = useRef(0);
  const [each, setEach] = useState(false);
  const pieces = props.pieces ?? [];
  useEffect(() => {
    const el = box.current;
    if (props.text.length < length.current) following.current = true; // a new run
    length.current = props.text.length;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [props.text, each]);
  if (each && pieces.length)
    return (
      <ol
        className="graphnb-chunk-list"
        data-testid="run-chunk-list"
        title="click to see the text again"
        onClick={() => setEach(false)}
      >
        {pieces.slice(-500).map((p, i) => (
          <li key={i} data-node={p.node}>
            <span className="graphnb-muted">{p.node}</span> <code>{JSON.stringify(p.text)}</code>
          </li>
        ))}
      </ol>
    );
  return (
    <pre
      ref={box}
      className={`graphnb-chunks${props.live ? " graphnb-chunks-live" : ""}${pieces.length ? " graphnb-clickable" : ""}`}
      data-testid="run-chunks"
      data-chunks={pieces.length}
      title={pieces.length ? `${pieces.length} chunks: click to see each` : undefined}
      onClick={() => {
        // A click that selected text is a selection, not a request for the list.
        if (pieces.length && !window.getSelection()?.toString()) setEach(true);
      }}
      onScroll={(e) => {
        const el = e.currentTarget;
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {props.text}
    </pre>
  );
}
