// The shortcut sheet, opened with `?`: every key the canvas answers to.

export const SHORTCUTS: [string, string][] = [
  ["?", "this sheet"],
  ["Double-click canvas", "add a node there"],
  ["Double-click a name", "rename the node"],
  ["F2", "rename the selected node (or route)"],
  ["Right-click", "menu of a node, an edge or the canvas"],
  ["Delete / Backspace", "delete the selection"],
  ["Ctrl+C / Ctrl+X", "copy / cut the selected nodes"],
  ["Ctrl+V", "paste (also from another builder)"],
  ["Ctrl+D", "duplicate the selected nodes"],
  ["Ctrl+A", "select every node"],
  ["Ctrl+G", "group the selected nodes and collapse them (▸ opens)"],
  ["Ctrl+Z / Ctrl+Shift+Z", "undo / redo"],
  ["Ctrl+F", "find a node and jump to it"],
  ["Shift+click, drag", "add to the selection / select an area"],
  ["⤢ (canvas corner)", "maximise the builder (Escape: back)"],
  ["→ / ↓ (canvas corner)", "lay the graph out left to right / top-down"],
  ["Enter on a palette entry", "add its node (or use its state model)"],
  ["Escape", "close a menu, the sheet, the maximised view"],
  ["Ctrl+S", "save the notebook (JupyterLab's)"],
];

export function ShortcutSheet(props: { onClose(): void }) {
  return (
    <div className="graphnb-dialog graphnb-shortcuts" role="dialog" aria-label="keyboard shortcuts" data-testid="shortcut-sheet">
      <header>
        <strong>Keyboard shortcuts</strong>
        <button type="button" data-testid="shortcut-sheet-close" onClick={props.onClose} title="close (Escape)">
          ×
        </button>
      </header>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <td>
                <kbd>{keys}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
