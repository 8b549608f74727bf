// The `breakpoints` trait as a store the canvas's nodes subscribe to: a node re-renders
// only when its own breakpoint changes.

import { useModelState } from "@anywidget/react";
import { useEffect, useMemo } from "react";
import { createStore } from "../store";

export function useBreakpointStore() {
  const [breakpoints] = useModelState<Record<string, string[]>>("breakpoints");
  const store = useMemo(() => createStore<Record<string, string[]>>({}), []);
  useEffect(() => store.set(breakpoints ?? {}), [breakpoints, store]);
  return store;
}
