// What the canvas's nodes and edges read besides their own data (run state, problems,
// editing callbacks). Kept apart from nodes.tsx so GroupNode.tsx and nodes.tsx do not import
// each other.

import { createContext, useContext } from "react";
import type { ProblemInfo, RunState } from "./protocol";
import type { Store } from "./store";

/** What nodes read besides their own data: run state, problems, and how to rename. */
export type CanvasContext = {
  run: Store<RunState>;
  problems: Store<Record<string, ProblemInfo[]>>;
  rename(from: string, to: string): boolean;
  setRoute(source: string, target: string, route: string): void;
  /** Open a collapsed group (see groups.ts). */
  expandGroup?(id: string): void;
  /** Where runs pause: node -> "before" / "after" (panels/DebugPanels.tsx). */
  breakpoints?: Store<Record<string, string[]>>;
};

export const Canvas = createContext<CanvasContext | null>(null);

export function useCanvas(): CanvasContext {
  const context = useContext(Canvas);
  if (!context) throw new Error("[graphnb] node rendered outside the canvas");
  return context;
}
