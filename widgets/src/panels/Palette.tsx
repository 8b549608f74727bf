// The palette: the notebook's callables and state models, searchable, each with its
// signature. Drag a function onto the canvas for a node named after it and bound to it,
// onto a node to bind that node, onto an edge to make it conditional with that router;
// drag a model onto the state panel (or the canvas) to type the graph's state. Enter on a
// focused function adds its node without the mouse.

import { useMemo, useState } from "react";
import type { CallableInfo, ModelInfo } from "../protocol";

/** The drag payload's type: what was dragged, as JSON (see PaletteItem). */
export const PALETTE_MIME = "application/x-graphnb-palette";

export type PaletteItem = { kind: "callable" | "model"; name: string; binding: string };

export function readPaletteItem(data: DataTransfer | null): PaletteItem | null {
  const text = data?.getData(PALETTE_MIME);
  if (!text) return null;
  try {
    const item = JSON.parse(text) as PaletteItem;
    return (item.kind === "callable" || item.kind === "model") && typeof item.binding === "string" ? item : null;
  } catch {
    return null;
  }
}

export function isPaletteDrag(data: DataTransfer | null): boolean {
  return Boolean(data && Array.from(data.types).includes(PALETTE_MIME));
}

function matches(query: string, ...texts: string[]): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = texts.join(" ").toLowerCase();
  return words.every((w) => haystack.includes(w));
}

function startDrag(e: React.DragEvent, item: PaletteItem) {
  e.dataTransfer.setData(PALETTE_MIME, JSON.stringify(item));
  e.dataTransfer.setData("text/plain", item.binding);
  e.dataTransfer.effectAllowed = "copy";
}

export function Palette(props: {
  callables: CallableInfo[];
  models: ModelInfo[];
  open: boolean;
  onToggle(): void;
  /** Enter on a function: its node, placed by the builder. */
  onAdd(item: PaletteItem): void;
}) {
  const [query, setQuery] = useState("");
  const callables = useMemo(
    () => props.callables.filter((c) => matches(query, c.name, c.signature, c.doc)),
    [props.callables, query],
  );
  const models = useMemo(() => props.models.filter((m) => matches(query, m.name, m.doc)), [props.models, query]);
  if (!props.open)
    return (
      <div className="graphnb-palette graphnb-palette-closed" data-testid="palette" data-open="false">
        <button
          type="button"
          className="graphnb-palette-open"
          data-testid="palette-toggle"
          title="show the palette of the notebook's functions and state models"
          onClick={props.onToggle}
        >
          ƒ functions ({props.callables.length})
        </button>
      </div>
    );
  return (
    <div className="graphnb-palette" data-testid="palette" data-open="true">
      <div className="graphnb-palette-head">
        <input
          type="search"
          data-testid="palette-search"
          placeholder="search functions"
          aria-label="search the notebook's functions and models"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="button" data-testid="palette-toggle" title="hide the palette" onClick={props.onToggle}>
          ‹
        </button>
      </div>
      <div className="graphnb-palette-list">
        <div className="graphnb-palette-title">functions</div>
        {callables.map((c) => (
          <div
            key={c.binding}
            className="graphnb-palette-item"
            data-testid={`palette-item-${c.binding}`}
            draggable
            tabIndex={0}
            role="button"
            title={`${c.doc ? c.doc + "\n\n" : ""}drag onto the canvas for a node, onto an edge for a router; Enter adds a node`}
            onDragStart={(e) => startDrag(e, { kind: "callable", name: c.name, binding: c.binding })}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                props.onAdd({ kind: "callable", name: c.name, binding: c.binding });
              }
            }}
          >
            <span className="graphnb-palette-name">
              {c.kind === "async" || c.kind === "async-generator" ? "async " : ""}
              {c.name}
            </span>
            <code className="graphnb-palette-signature" data-testid={`palette-signature-${c.binding}`}>
              {c.signature.slice(c.name.length)}
            </code>
          </div>
        ))}
        {!callables.length && (
          <p className="graphnb-muted" data-testid="palette-empty">
            {props.callables.length ? "no function matches" : "define a function in a cell: it appears here"}
          </p>
        )}
        <div className="graphnb-palette-title">state models</div>
        {models.map((m) => (
          <div
            key={m.binding}
            className="graphnb-palette-item graphnb-palette-model"
            data-testid={`palette-model-${m.binding}`}
            draggable
            tabIndex={0}
            role="button"
            title={`${m.doc ? m.doc + "\n\n" : ""}drag onto the state model panel to type the graph's state`}
            onDragStart={(e) => startDrag(e, { kind: "model", name: m.name, binding: m.binding })}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                props.onAdd({ kind: "model", name: m.name, binding: m.binding });
              }
            }}
          >
            <span className="graphnb-palette-name">{m.name}</span>
            <code className="graphnb-palette-signature">{m.fields.map((f) => f.name).join(", ")}</code>
          </div>
        ))}
        {!models.length && <p className="graphnb-muted">{props.models.length ? "no model matches" : "no state models"}</p>}
      </div>
    </div>
  );
}
