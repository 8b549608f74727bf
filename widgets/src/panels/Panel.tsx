// A collapsible side panel: a header (title, extra controls) over its body.

import { useEffect, useState, type ReactNode, type RefObject } from "react";

/** `reveal`: a new non-empty value opens a collapsed panel (a pause that needs the user). */
/** `anchor`: given the section's element (a panel bringing itself into view). */
export function Panel(props: {
  id: string;
  title: string;
  children: ReactNode;
  extra?: ReactNode;
  reveal?: string;
  anchor?: RefObject<HTMLElement | null>;
}) {
  const [open, setOpen] = useState(true);
  useEffect(() => {
    if (props.reveal) setOpen(true);
  }, [props.reveal]);
  return (
    <section ref={props.anchor} className="graphnb-panel" data-testid={props.id}>
      <header className="graphnb-panel-header">
        <button type="button" className="graphnb-panel-toggle" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? "▾" : "▸"} {props.title}
        </button>
        {props.extra}
      </header>
      {open && <div className="graphnb-panel-body">{props.children}</div>}
    </section>
  );
}
