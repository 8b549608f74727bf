// A tiny external store: nodes subscribe to the slice of run state they show, so a run
// update re-renders only the nodes whose status changed (not all 200 of them).

import { useSyncExternalStore } from "react";

export type Store<T> = {
  get(): T;
  set(value: T): void;
  subscribe(listener: () => void): () => void;
};

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      if (next === value) return;
      value = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Subscribe to a primitive derived from the store (compared with ===). */
export function useSelect<T, R extends string | number | boolean | null | undefined>(
  store: Store<T>,
  select: (value: T) => R,
): R {
  return useSyncExternalStore(store.subscribe, () => select(store.get()));
}
