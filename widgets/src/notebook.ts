// The notebook holding a builder, reached through the widget manager's document context:
// the same shared model JupyterLab's own commands edit, so a cell inserted here is a real
// notebook change (undoable, saved with the notebook), never a write to the file.

import type { AnyModel } from "@anywidget/types";

type SharedCell = {
  cell_type: string;
  getSource(): string;
  getMetadata(key?: string): unknown;
  setMetadata(key: string, value: unknown): void;
};
type SharedNotebook = {
  cells: SharedCell[];
  insertCell(index: number, cell: { cell_type: "code"; source: string }): unknown;
};

/** The notebook's shared model, when the view lives in a JupyterLab (or Notebook 7) notebook. */
export function sharedNotebook(model: AnyModel<object>): SharedNotebook | null {
  const manager = (model as unknown as { widget_manager?: { context?: { model?: { sharedModel?: SharedNotebook } } } })
    .widget_manager;
  const shared = manager?.context?.model?.sharedModel;
  return shared && Array.isArray(shared.cells) && typeof shared.insertCell === "function" ? shared : null;
}

/** The index of the notebook cell whose output holds `element`; -1 when not found. */
export function cellIndexOf(element: Element): number {
  const cell = element.closest(".jp-Cell");
  const notebook = cell?.closest(".jp-Notebook");
  if (!cell || !notebook) return -1;
  const windowed = cell.getAttribute("data-windowed-list-index");
  if (windowed !== null && /^\d+$/.test(windowed)) return Number(windowed);
  return Array.from(notebook.querySelectorAll(".jp-Cell")).filter((c) => c.closest(".jp-Notebook") === notebook).indexOf(cell);
}

/** Insert a code cell holding `source` below the builder's cell; false when there is no notebook. */
export function insertCellBelow(model: AnyModel<object>, element: Element, source: string): boolean {
  const notebook = sharedNotebook(model);
  const index = cellIndexOf(element);
  if (!notebook || index < 0 || index >= notebook.cells.length) return false;
  notebook.insertCell(index + 1, { cell_type: "code", source });
  return true;
}

/** The notebook's shared cell whose output holds `element`, or null. */
export function cellOf(model: AnyModel<object>, element: Element): SharedCell | null {
  const notebook = sharedNotebook(model);
  const index = cellIndexOf(element);
  const cell = notebook && index >= 0 ? notebook.cells[index] : undefined;
  return cell && typeof cell.setMetadata === "function" && typeof cell.getMetadata === "function" ? cell : null;
}
