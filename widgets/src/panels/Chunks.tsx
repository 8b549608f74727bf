// The streamed text of a run.

import { useEffect, useRef } from "react";

/** The streamed text; follows the end while it grows, unless the user scrolled up. */
export function Chunks(props: { text: string; live: boolean }) {
  const box = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  const length = useRef(0);
  useEffect(() => {
    const el = box.current;
    if (props.text.length < length.current) following.current = true; // a new run
    length.current = props.text.length;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [props.text]);
  return (
    <pre
      ref={box}
      className={`graphnb-chunks${props.live ? " graphnb-chunks-live" : ""}`}
      data-testid="run-chunks"
      onScroll={(e) => {
        const el = e.currentTarget;
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {props.text}
    </pre>
  );
}
