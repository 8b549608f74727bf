// Where the canvas is when a subgraph is open: the path from the top graph, each level a
// button that goes back up to it (Escape goes up one level).

export function ScopeBar(props: { top: string; path: string[]; onUp(depth: number): void }) {
  if (!props.path.length) return null;
  return (
    <nav className="graphnb-scope" data-testid="scope-bar" aria-label="subgraph path">
      <button type="button" className="graphnb-link" data-testid="scope-up-0" onClick={() => props.onUp(0)}>
        {props.top}
      </button>
      {props.path.map((id, i) => (
        <span key={`${i}:${id}`}>
          {" › "}
          {i === props.path.length - 1 ? (
            <strong data-testid="scope-current">{id}</strong>
          ) : (
            <button type="button" className="graphnb-link" data-testid={`scope-up-${i + 1}`} onClick={() => props.onUp(i + 1)}>
              {id}
            </button>
          )}
        </span>
      ))}
      <span className="graphnb-muted"> — editing the subgraph inside {props.top} (Esc: up)</span>
    </nav>
  );
}
