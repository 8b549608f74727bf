// A node's interrupt(value), waiting for an answer: the value rendered (text, JSON, or a
// form when it carries a JSON schema under "schema"), and a form for the answer, which
// resumes the thread with Command(resume=...). Each pending interrupt is answered on its
// own; the others stay pending (parallel branches ask one by one).

import { useMemo, useState } from "react";
import type { Json, JsonSchema } from "../protocol";
import { fieldErrors, parseRunInput } from "../runInput";
import { InputForm } from "./InputForm";

type Pending = { node: string; when: string; value: Json; id: string };

/** The JSON schema an interrupt's value carries (`{"schema": {...}}`), if any. */
export function schemaOf(value: Json): JsonSchema | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const schema = value.schema ?? value.json_schema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return null;
  return (schema as { properties?: unknown }).properties ? (schema as JsonSchema) : null;
}

function question(value: Json): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const text = value.question ?? value.prompt ?? value.message;
    if (typeof text === "string") return text;
  }
  return null;
}

export function InterruptAnswer(props: { pending: Pending; disabled: boolean; onAnswer(answer: Json): void }) {
  const { pending } = props;
  const schema = useMemo(() => schemaOf(pending.value), [pending.value]);
  const [text, setText] = useState("");
  const [form, setForm] = useState<Record<string, Json>>({});
  const errors = useMemo(() => (schema ? fieldErrors(schema, form) : {}), [schema, form]);
  const asked = question(pending.value);
  const submit = () => {
    if (schema) {
      if (!Object.keys(errors).length) props.onAnswer(form);
      return;
    }
    // Text is sent as text; something that reads as JSON (a number, a list) as that.
    const trimmed = text.trim();
    const parsed = trimmed.startsWith("{") ? parseRunInput(trimmed) : null;
    if (parsed?.value) return props.onAnswer(parsed.value);
    try {
      const value = JSON.parse(trimmed) as Json;
      props.onAnswer(typeof value === "object" || typeof value === "number" || typeof value === "boolean" ? value : text);
    } catch {
      props.onAnswer(text);
    }
  };
  // Keys: Enter answers (Shift+Enter: a new line in the text box), Escape leaves the form
  // for the canvas.
  return (
    <form
      className="graphnb-interrupt"
      data-testid={`interrupt-${pending.node}`}
      data-interrupt={pending.id}
      onSubmit={(e) => {
        e.preventDefault();
        if (!props.disabled) submit();
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          (e.currentTarget.closest(".graphnb-builder") as HTMLElement | null)?.focus({ preventScroll: true });
        } else if (e.key === "Enter" && !e.shiftKey && (e.target as HTMLElement).matches("input:not([type=checkbox])")) {
          // Said here, not left to the browser: inside JupyterLab its implicit submission
          // never comes (the page handles the key press).
          e.preventDefault();
          if (!props.disabled) submit();
        }
      }}
    >
      <p>
        <strong>{pending.node}</strong> asks:
      </p>
      {asked !== null ? (
        <p className="graphnb-interrupt-question" data-testid={`interrupt-question-${pending.node}`}>
          {asked}
        </p>
      ) : null}
      {(asked === null || typeof pending.value === "object") && pending.value !== null && !schema && (
        <pre className="graphnb-interrupt-value" data-testid={`interrupt-value-${pending.node}`}>
          {JSON.stringify(pending.value, null, 2)}
        </pre>
      )}
      {schema ? (
        <div data-testid={`interrupt-form-${pending.node}`}>
          <InputForm schema={schema} skip={[]} value={form} errors={errors} onChange={setForm} />
        </div>
      ) : (
        <textarea
          data-testid={`interrupt-answer-${pending.node}`}
          aria-label={`answer to ${pending.node}`}
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              if (!props.disabled) submit();
            }
          }}
        />
      )}
      <button type="submit" data-testid={`interrupt-submit-${pending.node}`} disabled={props.disabled}>
        Answer and resume
      </button>
    </form>
  );
}
