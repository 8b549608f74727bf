// The toolbar: the graph's name, adding and deleting, undo/redo, layout, run, export.

import type { HistoryControls } from "./hooks/useHistory";
import type { GraphSpec, RunState } from "./protocol";
import type { RunBlock } from "./runInput";
import { runSummary } from "./runStatus";
import * as edit from "./spec";

export function Toolbar(props: {
  /** False while the view cannot reach its kernel: every control is disabled. */
  editable: boolean;
  spec: GraphSpec;
  history: HistoryControls;
  nothingSelected: boolean;
  running: boolean;
  /** The run the canvas shows: its status is said beside Run and Stop. */
  run: RunState;
  /** Why Run cannot start (the graph's problems, the run panel's input), or null. */
  blocked: RunBlock | null;
  exportStatus: string;
  notice: string;
  onAddNode(): void;
  onDelete(): void;
  onLayout(): void;
  onFit(): void;
  onRun(): void;
  onStop(): void;
  /** Export: `overwrite` replaces an existing file (after the user confirmed it). */
  /** Export the graph as a module; ``serve``: for ``graphnb serve``, told the command. */
  onExport(serve: boolean): void;
  /** Replace the file the last export found, as that export asked. */
  onOverwriteExport(): void;
  /** The file an export would replace, awaiting a choice; null when none. */
  exportExists: string | null;
  onCancelExport(): void;
}) {
  const { spec, history, running, blocked, exportStatus, notice } = props;
  const summary = runSummary(props.run);
  return (
    <div className="graphnb-toolbar" role="toolbar">
      <fieldset className="graphnb-editable" disabled={!props.editable}>
      <input
        className="graphnb-name"
        aria-label="graph name"
        data-testid="graph-name"
        defaultValue={spec.name}
        key={spec.name}
        onBlur={(e) => e.target.value !== spec.name && history.commit(edit.rename(spec, edit.cleanId(e.target.value)))}
        onKeyDown={(e) => e.key === "Enter" && (e.target as HTMLInputElement).blur()}
      />
      <button type="button" data-testid="toolbar-add-node" onClick={props.onAddNode} title="add a node">
        + Node
      </button>
      <button
        type="button"
        data-testid="toolbar-delete"
        disabled={props.nothingSelected}
        onClick={props.onDelete}
        title="delete the selection (Delete)"
      >
        Delete
      </button>
      <span className="graphnb-sep" />
      <button type="button" data-testid="toolbar-undo" disabled={!history.canUndo} onClick={history.undo} title="undo (Ctrl+Z)">
        ↶
      </button>
      <button type="button" data-testid="toolbar-redo" disabled={!history.canRedo} onClick={history.redo} title="redo (Ctrl+Shift+Z)">
        ↷
      </button>
      <span className="graphnb-sep" />
      <button type="button" data-testid="toolbar-layout" onClick={props.onLayout} title="auto-layout">
        Layout
      </button>
      </fieldset>
      {/* Fit only moves the view: a read-only (disconnected) view can still be looked over. */}
      <button type="button" data-testid="toolbar-fit" onClick={props.onFit} title="fit the graph in view">
        Fit
      </button>
      <fieldset className="graphnb-editable" disabled={!props.editable}>
      <span className="graphnb-sep" />
      <button
        type="button"
        className="graphnb-primary"
        data-testid="toolbar-run"
        disabled={running || blocked !== null}
        onClick={props.onRun}
        title={blocked ? blocked.reason : running ? "a run is in progress" : "run with the input of the run panel"}
      >
        ▶ Run
      </button>
      {blocked && !running && (
        // Said on screen, not only on hover: a disabled button shows no tooltip on touch.
        <span className="graphnb-run-why" data-testid="toolbar-run-why" title={blocked.reason}>
          can't run: {blocked.short}
        </span>
      )}
      <button type="button" data-testid="toolbar-stop" disabled={!running} onClick={props.onStop} title="stop the run">
        ■ Stop
      </button>
      {summary && (
        <span
          className={`graphnb-run-summary graphnb-run-${summary.tone}`}
          data-testid="toolbar-run-status"
          data-status={summary.tone}
          role="status"
          title={summary.text}
        >
          {summary.text}
        </span>
      )}
      <span className="graphnb-sep" />
      <button type="button" data-testid="toolbar-export" onClick={() => props.onExport(false)} title="export as a Python module">
        Export
      </button>
      <button
        type="button"
        data-testid="toolbar-export-serve"
        onClick={() => props.onExport(true)}
        title="export as a module for graphnb serve, and show the command that serves it"
      >
        Serve
      </button>
      {props.exportExists !== null ? (
        // Never replace a file unasked: the user chooses, here, each time.
        <span className="graphnb-confirm" data-testid="export-confirm" role="alertdialog" title={props.exportExists}>
          {baseName(props.exportExists)} exists; replace it?
          <button type="button" data-testid="export-overwrite" onClick={props.onOverwriteExport}>
            Overwrite
          </button>
          <button type="button" data-testid="export-cancel" onClick={props.onCancelExport}>
            Cancel
          </button>
        </span>
      ) : (
        <span className="graphnb-export-status" data-testid="export-status" title={exportStatus}>
          {exportStatus}
        </span>
      )}
      </fieldset>
      {notice && (
        <span className="graphnb-notice" data-testid="notice" role="alert" title={notice}>
          {notice}
        </span>
      )}
    </div>
  );
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}
