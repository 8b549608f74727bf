// A form for the run input, one field per property of the state model's JSON schema.
// A value the model would refuse (text in an integer field) is kept and flagged at its
// field, never silently dropped: the raw JSON holds what the form shows.

import { useState } from "react";
import type { Json, JsonSchema } from "../protocol";
import { numberFromText } from "../runInput";
import { JsonField } from "./JsonField";

function schemaType(schema: JsonSchema): string {
  const t = schema.type ?? schema.anyOf?.map((s) => s.type).find((x) => x && x !== "null");
  return Array.isArray(t) ? (t.find((x) => x !== "null") ?? "") : (t ?? "");
}

export function InputForm(props: {
  schema: JsonSchema;
  skip: string[];
  value: Record<string, Json>;
  /** Why a field's value would be refused, by field name. */
  errors: Record<string, string>;
  onChange(v: Record<string, Json>): void;
}) {
  // What was typed in each number field: "1." reads as 1 but must stay on screen as typed.
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const properties = props.schema.properties ?? {};
  const required = new Set(props.schema.required ?? []);
  // The streaming field is written by the run; it can still be seeded in the raw JSON.
  const names = Object.keys(properties).filter((name) => !props.skip.includes(name));
  if (!names.length) return null;
  const set = (name: string, value: Json | undefined) => {
    const next = { ...props.value };
    if (value === undefined) delete next[name];
    else next[name] = value;
    props.onChange(next);
  };
  return (
    <div className="graphnb-form" data-testid="run-input-form">
      {names.map((name) => {
        const schema = properties[name];
        const type = schemaType(schema);
        const value = props.value[name];
        const error = props.errors[name];
        const flag = {
          "aria-invalid": error ? true : undefined,
          className: error ? "graphnb-invalid" : "",
          title: error ? `${name}: ${error}` : undefined,
        };
        const label = (
          <span>
            {schema.title ?? name}
            {required.has(name) && "*"}
          </span>
        );
        const why = error && (
          <span className="graphnb-error-text" data-testid={`run-field-error-${name}`}>
            {error}
          </span>
        );
        if (type === "boolean")
          return (
            <div key={name} className="graphnb-field">
              <label className="graphnb-check">
                <input
                  type="checkbox"
                  data-testid={`run-field-${name}`}
                  {...flag}
                  checked={value === undefined ? Boolean(schema.default) : value === true}
                  onChange={(e) => set(name, e.target.checked)}
                />
                {label}
              </label>
              {why}
            </div>
          );
        if (type === "string" || type === "integer" || type === "number") {
          const numeric = type !== "string";
          const draft = drafts[name];
          // The typed text while it still reads as the input's value; else the value.
          const shown =
            numeric && draft !== undefined && numberFromText(draft) === (value ?? undefined)
              ? draft
              : value == null
                ? ""
                : typeof value === "string"
                  ? value
                  : JSON.stringify(value);
          return (
            <label key={name} className="graphnb-field">
              {label}
              <input
                type="text"
                inputMode={type === "integer" ? "numeric" : type === "number" ? "decimal" : undefined}
                data-testid={`run-field-${name}`}
                {...flag}
                placeholder={schema.default != null ? String(schema.default) : ""}
                value={shown}
                onChange={(e) => {
                  const raw = e.target.value;
                  if (numeric) setDrafts((d) => ({ ...d, [name]: raw }));
                  if (raw === "") set(name, undefined);
                  else set(name, numeric ? numberFromText(raw) : raw);
                }}
              />
              {why}
            </label>
          );
        }
        return (
          <label key={name} className="graphnb-field">
            <span>
              {label} <span className="graphnb-muted">(JSON)</span>
            </span>
            <JsonField value={value} onChange={(v) => set(name, v)} testid={`run-field-${name}`} error={error} />
            {why}
          </label>
        );
      })}
    </div>
  );
}
