// Buttons in the canvas's top right corner: find a node, the shortcut sheet, maximise,
// and the side panel shown or hidden. Also where short messages ("copied 2 nodes") show.

import type { Room } from "../hooks/useRoom";

export function CanvasCorner(props: {
  room: Room;
  message: string;
  onSearch(): void;
  onShortcuts(): void;
  /** The graph is laid out left-right (else top-down). */
  leftRight: boolean;
  /** Lay the graph out again, the other way round. */
  onTurn(): void;
}) {
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
      <button
        type="button"
        data-testid="corner-direction"
        aria-pressed={props.leftRight}
        title={props.leftRight ? "lay the graph out top-down" : "lay the graph out left to right"}
        onClick={props.onTurn}
      >
        {props.leftRight ? "↓" : "→"}
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
