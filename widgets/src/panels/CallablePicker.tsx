// Pick a callable for a node or a router: from the notebook's list, or typed as a binding.

import { useEffect, useState } from "react";
import type { CallableInfo } from "../protocol";

export function CallablePicker(props: {
  binding: string | null;
  callables: CallableInfo[];
  onBind(binding: string | null): void;
  testid: string;
}) {
  const [text, setText] = useState(props.binding ?? "");
  useEffect(() => setText(props.binding ?? ""), [props.binding]);
  const listed = props.callables.some((c) => c.binding === props.binding);
  return (
    <div className="graphnb-picker">
      <select
        data-testid={`${props.testid}-select`}
        value={listed ? (props.binding ?? "") : ""}
        onChange={(e) => props.onBind(e.target.value || null)}
      >
        <option value="">{props.callables.length ? "— pick a callable —" : "— no functions in the notebook —"}</option>
        {props.callables.map((c) => (
          <option key={c.binding} value={c.binding}>
            {c.signature}
          </option>
        ))}
      </select>
      <div className="graphnb-row">
        <input
          data-testid={`${props.testid}-input`}
          placeholder="module:function or notebook name"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && props.onBind(text.trim() || null)}
        />
        <button type="button" data-testid={`${props.testid}-apply`} onClick={() => props.onBind(text.trim() || null)}>
          Apply
        </button>
      </div>
    </div>
  );
}
