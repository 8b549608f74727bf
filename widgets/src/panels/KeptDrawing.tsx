// Said on the canvas when the notebook kept a drawing from before a kernel restart: it was
// restored (the builder came up empty), or the user chooses (the builder has its own).

import type { KeptChoice } from "../hooks/useKeptDrawing";

export function KeptDrawing(props: { choice: KeptChoice | null; restored: number | null; onUndo(): void; onClose(): void }) {
  const { choice, restored } = props;
  if (choice)
    return (
      <div className="graphnb-kept" role="alertdialog" data-testid="kept-drawing">
        The notebook kept an earlier drawing of this builder ({choice.kept.nodes.length} nodes, “{choice.kept.name}”),
        different from this one.
        <button type="button" data-testid="kept-restore" onClick={choice.restore}>
          Restore it
        </button>
        <button type="button" data-testid="kept-dismiss" onClick={choice.dismiss}>
          Keep this one
        </button>
      </div>
    );
  if (restored === null) return null;
  return (
    <div className="graphnb-kept" role="status" data-testid="kept-restored">
      Restored the drawing kept in the notebook ({restored} nodes).
      <button type="button" data-testid="kept-undo" onClick={props.onUndo} title="start from the empty canvas instead">
        Start empty
      </button>
      <button type="button" data-testid="kept-close" onClick={props.onClose} title="close">
        ×
      </button>
    </div>
  );
}
