// The state model panel: which model the graph's state is, and its fields.

import { useState } from "react";
import type { GraphSpec, ModelInfo } from "../protocol";
import { isPaletteDrag, readPaletteItem } from "./Palette";
import { Panel } from "./Panel";

export function StateModelPanel(props: { spec: GraphSpec; models: ModelInfo[]; onUse(binding: string | null): void }) {
  const { state } = props.spec;
  const known = props.models.some((m) => m.binding === state.binding);
  // A model dragged from the palette and dropped here types the graph's state.
  const [over, setOver] = useState(false);
  return (
    <div
      className={`graphnb-drop-zone${over ? " graphnb-drop-over" : ""}`}
      data-testid="state-model-drop"
      onDragOver={(e) => {
        if (!isPaletteDrag(e.dataTransfer)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        setOver(false);
        const item = readPaletteItem(e.dataTransfer);
        if (item?.kind !== "model") return;
        e.preventDefault();
        props.onUse(item.binding);
      }}
    >
    <Panel id="panel-state-model" title="State model">
      <select
        data-testid="state-model-select"
        value={state.binding ?? ""}
        onChange={(e) => props.onUse(e.target.value || null)}
      >
        <option value="">dict (untyped)</option>
        {!known && state.binding && <option value={state.binding}>{state.binding}</option>}
        {props.models.map((m) => (
          <option key={m.binding} value={m.binding}>
            {m.name}
          </option>
        ))}
      </select>
      <table className="graphnb-fields" data-testid="state-model-fields">
        <thead>
          <tr>
            <th>field</th>
            <th>type</th>
            <th>merge</th>
            <th>alias</th>
          </tr>
        </thead>
        <tbody>
          {state.fields.map((f) => (
            <tr key={f.name} data-testid={`state-model-field-${f.name}`} className={f.streaming ? "graphnb-streaming" : ""}>
              <td>
                {f.name}
                {f.required && <span title="required">*</span>}
                {f.streaming && (
                  <span className="graphnb-tag" title="receives streamed results">
                    streaming
                  </span>
                )}
              </td>
              <td>
                <code>{f.type}</code>
              </td>
              <td>{f.reducer}</td>
              <td>{f.alias ?? ""}</td>
            </tr>
          ))}
          {!state.fields.length && (
            <tr>
              <td colSpan={4} className="graphnb-muted">
                no declared fields: nodes read and write a plain dict
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </Panel>
    </div>
  );
}
