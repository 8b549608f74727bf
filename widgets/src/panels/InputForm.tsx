// A form for the run input, one field per property of the state model's JSON schema.

import type { Json, JsonSchema } from "../protocol";
import { JsonField } from "./JsonField";

function schemaType(schema: JsonSchema): string {
  const t = schema.type ?? schema.anyOf?.map((s) => s.type).find((x) => x && x !== "null");
  return Array.isArray(t) ? (t.find((x) => x !== "null") ?? "") : (t ?? "");
}

export function InputForm(props: {
  schema: JsonSchema;
  skip: string[];
  value: Record<string, Json>;
  onChange(v: Record<string, Json>): void;
}) {
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
        const label = (
          <span>
            {schema.title ?? name}
            {required.has(name) && "*"}
          </span>
        );
        if (type === "boolean")
          return (
            <label key={name} className="graphnb-field graphnb-check">
              <input
                type="checkbox"
                data-testid={`run-field-${name}`}
                checked={Boolean(value ?? schema.default)}
                onChange={(e) => set(name, e.target.checked)}
              />
              {label}
            </label>
          );
        if (type === "string" || type === "integer" || type === "number")
          return (
            <label key={name} className="graphnb-field">
              {label}
              <input
                type={type === "string" ? "text" : "number"}
                data-testid={`run-field-${name}`}
                placeholder={schema.default != null ? String(schema.default) : ""}
                value={value == null ? "" : String(value)}
                onChange={(e) => {
                  const raw = e.target.value;
                  if (raw === "") set(name, undefined);
                  else set(name, type === "string" ? raw : Number(raw));
                }}
              />
            </label>
          );
        return (
          <label key={name} className="graphnb-field">
            {label} <span className="graphnb-muted">(JSON)</span>
            <JsonField value={value} onChange={(v) => set(name, v)} testid={`run-field-${name}`} />
          </label>
        );
      })}
    </div>
  );
}
