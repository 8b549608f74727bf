// Groups: a selection gathered under one name that can be collapsed into a single box, to
// see a big graph by its parts. Kept in the spec's metadata (the engine ignores it); a
// collapsed group draws as one node, its members hidden, and the edges that cross its
// border are drawn to and from that box.

import type { GraphSpec, Json, XY } from "./protocol";

export const GROUPS_KEY = "graphnb.widget.groups";
export const GROUP_PREFIX = "group:";

export type Group = { id: string; label: string; nodes: string[]; collapsed: boolean };

export function groupsOf(spec: GraphSpec): Group[] {
  const stored = spec.metadata?.[GROUPS_KEY];
  if (!Array.isArray(stored)) return [];
  const ids = new Set(spec.nodes.map((n) => n.id));
  return stored
    .filter((g): g is Record<string, Json> => Boolean(g) && typeof g === "object" && !Array.isArray(g))
    .map((g) => ({
      id: String(g.id),
      label: String(g.label ?? g.id),
      nodes: (Array.isArray(g.nodes) ? g.nodes : []).map(String).filter((id) => ids.has(id)),
      collapsed: g.collapsed === true,
    }))
    .filter((g) => g.nodes.length > 0);
}

function withGroups(spec: GraphSpec, groups: Group[]): GraphSpec {
  const metadata = { ...spec.metadata };
  if (groups.length) metadata[GROUPS_KEY] = groups as unknown as Json;
  else delete metadata[GROUPS_KEY];
  return { ...spec, metadata };
}

/** The groups of `spec` with their member `from` named `to` (a rename keeps its group). */
export function renameInGroups(spec: GraphSpec, from: string, to: string): GraphSpec {
  const groups = groupsOf(spec);
  if (!groups.some((g) => g.nodes.includes(from))) return spec;
  return withGroups(
    spec,
    groups.map((g) => ({ ...g, nodes: g.nodes.map((id) => (id === from ? to : id)) })),
  );
}

/** Gather `nodes` into a new group (taking them out of any group they were in), collapsed. */
export function group(spec: GraphSpec, nodes: string[]): { spec: GraphSpec; id: string } | null {
  const members = nodes.filter((id) => spec.nodes.some((n) => n.id === id));
  if (members.length < 2) return null;
  const taken = new Set(groupsOf(spec).map((g) => g.id));
  let i = 1;
  while (taken.has(`group_${i}`)) i++;
  const id = `group_${i}`;
  const others = groupsOf(spec)
    .map((g) => ({ ...g, nodes: g.nodes.filter((n) => !members.includes(n)) }))
    .filter((g) => g.nodes.length > 0);
  return { spec: withGroups(spec, [...others, { id, label: id, nodes: members, collapsed: true }]), id };
}

export function setCollapsed(spec: GraphSpec, id: string, collapsed: boolean): GraphSpec {
  return withGroups(
    spec,
    groupsOf(spec).map((g) => (g.id === id ? { ...g, collapsed } : g)),
  );
}

export function ungroup(spec: GraphSpec, id: string): GraphSpec {
  return withGroups(
    spec,
    groupsOf(spec).filter((g) => g.id !== id),
  );
}

/** The group a node belongs to, if any. */
export function groupOfNode(spec: GraphSpec, node: string): Group | null {
  return groupsOf(spec).find((g) => g.nodes.includes(node)) ?? null;
}

/** Where a collapsed group's box sits: at its members' top left corner. */
export function groupPosition(spec: GraphSpec, g: Group): XY {
  const places = spec.nodes.filter((n) => g.nodes.includes(n.id)).map((n) => n.position ?? { x: 0, y: 0 });
  return { x: Math.min(...places.map((p) => p.x)), y: Math.min(...places.map((p) => p.y)) };
}

/** Each hidden node's stand-in: the collapsed group holding it. */
export function standIns(spec: GraphSpec): Map<string, string> {
  const map = new Map<string, string>();
  for (const g of groupsOf(spec)) if (g.collapsed) for (const n of g.nodes) map.set(n, GROUP_PREFIX + g.id);
  return map;
}
