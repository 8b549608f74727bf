// A form field that holds any JSON value, flagged while its text does not parse or its
// value is of a type the state model refuses (`error`).

import { useState } from "react";
import type { Json } from "../protocol";

export function JsonField(props: {
  value: Json | undefined;
  onChange(v: Json | undefined): void;
  testid: string;
  error?: string;
}) {
  const [text, setText] = useState(props.value === undefined ? "" : JSON.stringify(props.value));
  const [bad, setBad] = useState(false);
  const invalid = bad || Boolean(props.error);
  return (
    <input
      data-testid={props.testid}
      className={invalid ? "graphnb-invalid" : ""}
      aria-invalid={invalid || undefined}
      title={bad ? "not JSON yet" : props.error}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        if (!e.target.value.trim()) {
          setBad(false);
          props.onChange(undefined);
          return;
        }
        try {
          props.onChange(JSON.parse(e.target.value));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}
