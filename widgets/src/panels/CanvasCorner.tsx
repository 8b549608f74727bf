// Buttons in the canvas's top right corner: find a node, the shortcut sheet, maximise,
// and the side panel shown or hidden. Also where short messages ("copied 2 nodes") show.

import type { Room } from "../hooks/useRoom";

export function CanvasCorner(props: { room: Room; message: string; onSearch(): void; onShortcuts(): void }) {
  const { room } = props;
  return (
    <div className="graphnb-corner nodrag nopan" data-testid="canvas-corner">
      {props.message && (
        <span className="graphnb-corner-message" role="status" data-testid="editor-message">
          {props.message}
        </span>
      )}
      <button type="button" data-testid="corner-search" title="find a node (Ctrl+F)" onClick={props.onSearch}>
        ⌕
      </button>
      <button type="button" data-testid="corner-shortcuts" title="keyboard shortcuts (?)" onClick={props.onShortcuts}>
        ?
      </button>
      <button
        type="button"
        data-testid="corner-maximise"
        aria-pressed={room.maximised}
        title={room.maximised ? "back into the notebook (Escape)" : "maximise the builder"}
        onClick={room.toggleMaximised}
      >
        {room.maximised ? "⤡" : "⤢"}
      </button>
      <button
        type="button"
        data-testid="corner-side"
        aria-pressed={room.sideOpen}
        title={room.sideOpen ? "hide the side panel" : "show the side panel"}
        onClick={room.toggleSide}
      >
        {room.sideOpen ? "⇥" : "⇤"}
      </button>
    </div>
  );
}
