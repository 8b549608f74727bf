// Find a node by name or binding and jump to it (Ctrl+F, or ⌕ in the canvas corner).

import { useState } from "react";
import type { GraphSpec } from "../protocol";

export function NodeSearch(props: { spec: GraphSpec; onPick(id: string): void; onClose(): void }) {
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState(0);
  const q = query.trim().toLowerCase();
  const found = props.spec.nodes
    .filter((n) => !q || n.id.toLowerCase().includes(q) || (n.binding ?? "").toLowerCase().includes(q))
    .slice(0, 50);
  const pick = (id: string | undefined) => {
    if (id) props.onPick(id);
  };
  return (
    <div className="graphnb-dialog graphnb-search" role="dialog" aria-label="find a node" data-testid="node-search">
      <input
        data-testid="node-search-input"
        placeholder={`find among ${props.spec.nodes.length} nodes`}
        value={query}
        autoFocus
        onChange={(e) => {
          setQuery(e.target.value);
          setChosen(0);
        }}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape") props.onClose();
          if (e.key === "ArrowDown") setChosen((c) => Math.min(c + 1, found.length - 1));
          if (e.key === "ArrowUp") setChosen((c) => Math.max(c - 1, 0));
          if (e.key === "Enter") pick(found[chosen]?.id);
        }}
      />
      <ul>
        {found.map((n, i) => (
          <li key={n.id}>
            <button
              type="button"
              className={i === chosen ? "graphnb-search-chosen" : ""}
              data-testid={`node-search-${n.id}`}
              onClick={() => pick(n.id)}
            >
              {n.id}
              {n.binding && n.binding !== n.id && <code> {n.binding}</code>}
            </button>
          </li>
        ))}
        {!found.length && <li className="graphnb-muted">no node matches</li>}
      </ul>
    </div>
  );
}
