// A node's retry, timeout and cache policies as the node panel edits them: text fields
// checked with the same bounds as graphnb/spec.py (RetrySpec, CacheSpec, NodeSpec.timeout),
// each bad value refused with a message naming the field and what it expects.

import type { CacheSpec, GraphSpec, NodeSpec, RetrySpec } from "./protocol";

export const RETRY_DEFAULTS: RetrySpec = {
  max_attempts: 3,
  initial_interval: 0.5,
  backoff_factor: 2,
  max_interval: 128,
  jitter: true,
  retry_on: null,
};
export const CACHE_DEFAULTS: CacheSpec = { ttl: null, version: "", fields: null };

type Bound = { min: number; strict?: boolean; integer?: boolean; optional?: boolean };

/** The bound of every numeric policy field, as the spec's pydantic fields declare it. */
export const BOUNDS: Record<string, Bound & { expects: string }> = {
  max_attempts: { min: 1, integer: true, expects: "a whole number of attempts, at least 1" },
  initial_interval: { min: 0, expects: "seconds, 0 or more" },
  backoff_factor: { min: 1, expects: "a factor of 1 or more" },
  max_interval: { min: 0, expects: "seconds, 0 or more" },
  timeout: { min: 0, strict: true, optional: true, expects: "seconds, more than 0 (empty: no limit)" },
  ttl: { min: 0, strict: true, optional: true, expects: "seconds, more than 0 (empty: kept while the graph lives)" },
};

export type Parsed = { ok: true; value: number | null } | { ok: false; error: string };

/** Read the text typed into numeric policy field `field`. */
export function parseField(field: keyof typeof BOUNDS, text: string): Parsed {
  const bound = BOUNDS[field];
  const typed = text.trim();
  if (!typed) {
    return bound.optional ? { ok: true, value: null } : { ok: false, error: `${field}: expected ${bound.expects}, got nothing` };
  }
  const value = Number(typed);
  const fails =
    !Number.isFinite(value) ||
    (bound.integer && !Number.isInteger(value)) ||
    (bound.strict ? value <= bound.min : value < bound.min);
  return fails ? { ok: false, error: `${field}: expected ${bound.expects}, got ${JSON.stringify(typed)}` } : { ok: true, value };
}

export type Policies = { retry: RetrySpec | null; timeout: number | null; cache: CacheSpec | null };

export function policiesOf(node: NodeSpec): Policies {
  return { retry: node.retry ?? null, timeout: node.timeout ?? null, cache: node.cache ?? null };
}

/** Node `id` with these policies; unset ones are left out of the JSON, as Python writes them. */
export function setPolicies(spec: GraphSpec, id: string, policies: Policies): GraphSpec {
  return {
    ...spec,
    nodes: spec.nodes.map((n) => {
      if (n.id !== id) return n;
      const { retry: _r, timeout: _t, cache: _c, ...rest } = n;
      const next: NodeSpec = { ...rest };
      if (policies.retry) next.retry = policies.retry;
      if (policies.timeout != null) next.timeout = policies.timeout;
      if (policies.cache) next.cache = policies.cache;
      return next;
    }),
  };
}
