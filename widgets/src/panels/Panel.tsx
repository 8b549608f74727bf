// A collapsible side panel: a header (title, extra controls) over its body.

import { useState, type ReactNode } from "react";

export function Panel(props: { id: string; title: string; children: ReactNode; extra?: ReactNode }) {
  const [open, setOpen] = useState(true);
  return (
    <section className="graphnb-panel" data-testid={props.id}>
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
