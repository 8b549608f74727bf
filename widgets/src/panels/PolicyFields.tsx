// The node panel's policies: retry (attempts, backoff, jitter), timeout and cache (time to
// live, version). A field commits on Enter or when it loses focus, and only a valid value:
// a bad one stays in the field, marked, with a message saying what the field expects.

import { useEffect, useState } from "react";
import { BOUNDS, CACHE_DEFAULTS, RETRY_DEFAULTS, parseField, policiesOf, type Policies } from "../policy";
import type { NodeSpec } from "../protocol";
import { Panel } from "./Panel";

type NumberField = keyof typeof BOUNDS;

function NumberInput(props: {
  field: NumberField;
  label: string;
  value: number | null;
  onCommit(value: number | null): void;
  onError(field: string, error: string | null): void;
}) {
  const shown = props.value == null ? "" : String(props.value);
  const [draft, setDraft] = useState(shown);
  const [bad, setBad] = useState(false);
  useEffect(() => {
    setDraft(shown);
    setBad(false);
  }, [shown]);
  const commit = () => {
    const parsed = parseField(props.field, draft);
    if (!parsed.ok) {
      setBad(true);
      props.onError(props.field, parsed.error);
      return;
    }
    setBad(false);
    props.onError(props.field, null);
    if (parsed.value !== props.value) props.onCommit(parsed.value);
  };
  return (
    <label className="graphnb-field graphnb-policy-field">
      {props.label}
      <input
        data-testid={`policy-${props.field}`}
        className={bad ? "graphnb-invalid" : undefined}
        inputMode="decimal"
        value={draft}
        placeholder={BOUNDS[props.field].optional ? "none" : undefined}
        title={BOUNDS[props.field].expects}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") commit();
          if (e.key === "Escape") {
            setDraft(shown);
            setBad(false);
            props.onError(props.field, null);
          }
        }}
      />
    </label>
  );
}

export function PolicyFields(props: { node: NodeSpec; onChange(policies: Policies): void }) {
  const { node } = props;
  const policies = policiesOf(node);
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => setErrors({}), [node.id]);
  const onError = (field: string, error: string | null) =>
    setErrors((all) => {
      const next = { ...all };
      if (error) next[field] = error;
      else delete next[field];
      return next;
    });
  const change = (patch: Partial<Policies>) => props.onChange({ ...policies, ...patch });
  const retry = policies.retry;
  const cache = policies.cache;
  return (
    <Panel id="panel-policies" title="Policies">
      <div className="graphnb-policies" data-testid={`policies-${node.id}`}>
        <label className="graphnb-check">
          <input
            type="checkbox"
            data-testid="policy-retry"
            checked={retry !== null}
            onChange={(e) => change({ retry: e.target.checked ? { ...RETRY_DEFAULTS } : null })}
          />
          retry a failed run
        </label>
        {retry && (
          <div className="graphnb-policy-group">
            <NumberInput field="max_attempts" label="attempts" value={retry.max_attempts} onError={onError} onCommit={(v) => change({ retry: { ...retry, max_attempts: v ?? 1 } })} />
            <NumberInput field="initial_interval" label="first wait (s)" value={retry.initial_interval} onError={onError} onCommit={(v) => change({ retry: { ...retry, initial_interval: v ?? 0 } })} />
            <NumberInput field="backoff_factor" label="backoff ×" value={retry.backoff_factor} onError={onError} onCommit={(v) => change({ retry: { ...retry, backoff_factor: v ?? 1 } })} />
            <NumberInput field="max_interval" label="longest wait (s)" value={retry.max_interval} onError={onError} onCommit={(v) => change({ retry: { ...retry, max_interval: v ?? 0 } })} />
            <label className="graphnb-check">
              <input type="checkbox" data-testid="policy-jitter" checked={retry.jitter} onChange={(e) => change({ retry: { ...retry, jitter: e.target.checked } })} />
              jitter
            </label>
          </div>
        )}
        <NumberInput field="timeout" label="timeout (s)" value={policies.timeout} onError={onError} onCommit={(v) => change({ timeout: v })} />
        <label className="graphnb-check">
          <input
            type="checkbox"
            data-testid="policy-cache"
            checked={cache !== null}
            onChange={(e) => change({ cache: e.target.checked ? { ...CACHE_DEFAULTS } : null })}
          />
          cache results
        </label>
        {cache && (
          <div className="graphnb-policy-group">
            <label className="graphnb-field graphnb-policy-field">
              kept in
              <select
                data-testid="policy-store"
                value={cache.store ?? "memory"}
                title="memory: while the compiled graph lives; saver: in the checkpointer's database, shared by every run and process using it"
                onChange={(e) => {
                  const { store: _old, ...rest } = cache;
                  change({ cache: e.target.value === "saver" ? { ...rest, store: "saver" } : rest });
                }}
              >
                <option value="memory">memory</option>
                <option value="saver">the saver</option>
              </select>
            </label>
            <NumberInput field="ttl" label="keep for (s)" value={cache.ttl} onError={onError} onCommit={(v) => change({ cache: { ...cache, ttl: v } })} />
            <label className="graphnb-field graphnb-policy-field">
              version
              <input
                data-testid="policy-version"
                defaultValue={cache.version}
                key={`${node.id}:${cache.version}`}
                title="part of the cache key: change it to drop the results kept so far"
                onBlur={(e) => e.target.value !== cache.version && change({ cache: { ...cache, version: e.target.value } })}
                onKeyDown={(e) => {
                  if (e.key === "Enter") (e.target as HTMLInputElement).blur();
                }}
              />
            </label>
          </div>
        )}
        {Object.values(errors).map((error) => (
          <p key={error} className="graphnb-error-text" data-testid="policy-error" role="alert">
            {error}
          </p>
        ))}
      </div>
    </Panel>
  );
}
