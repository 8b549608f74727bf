// The canvas's context menu: right-click a node, an edge or the empty canvas. Node
// entries: rename, bind, new function, open source, duplicate, copy, set breakpoint,
// delete; edge entries: route, kind, router, open source, delete; canvas entries: add a
// node, paste, the shortcut sheet. Rename and bind open inline, inside the menu.

import { useEffect, useRef, useState } from "react";
import type { CallableInfo, EdgeSpec, GraphSpec, NodeSpec } from "../protocol";
import { GROUP_PREFIX, groupOfNode, groupsOf } from "../groups";
import * as edit from "../spec";

export type MenuTarget =
  | { kind: "node"; id: string }
  | { kind: "edge"; key: string }
  | { kind: "group"; id: string }
  | { kind: "pane" };
export type MenuState = { target: MenuTarget; x: number; y: number; client: { x: number; y: number }; mode?: "rename" | "bind" };

export type MenuActions = {
  rename(id: string, to: string): boolean;
  bind(id: string, binding: string | null): void;
  bindRouter(source: string, binding: string | null): void;
  setRoute(edge: EdgeSpec, text: string): void;
  setKind(edge: EdgeSpec, kind: EdgeSpec["kind"]): void;
  duplicate(ids: string[]): void;
  copy(ids: string[]): void;
  paste(client: { x: number; y: number }): void;
  canPaste(): boolean;
  remove(nodes: string[], edges: string[]): void;
  addNode(client: { x: number; y: number }): void;
  openSource(binding: string): void;
  newFunction(id: string): void;
  showShortcuts(): void;
  group(ids: string[]): void;
  setCollapsed(group: string, collapsed: boolean): void;
  ungroup(group: string): void;
  /**
   * Set or clear a breakpoint on a node. The debugger wires it (a prop of the builder);
   * until then the entry is shown disabled.
   */
  onBreakpoint?: (node: string) => void;
};

function Item(props: { testid: string; label: string; keys?: string; disabled?: boolean; title?: string; onClick(): void }) {
  return (
    <button
      type="button"
      role="menuitem"
      className="graphnb-menu-item"
      data-testid={props.testid}
      disabled={props.disabled}
      title={props.title}
      onClick={props.onClick}
    >
      <span>{props.label}</span>
      {props.keys && <kbd>{props.keys}</kbd>}
    </button>
  );
}

export function ContextMenu(props: {
  menu: MenuState;
  spec: GraphSpec;
  /** The selected node ids: duplicate, copy and delete act on all of them when the node is one. */
  selected: string[];
  callables: CallableInfo[];
  actions: MenuActions;
  onClose(): void;
}) {
  const { menu, spec, actions, onClose } = props;
  const [mode, setMode] = useState(menu.mode ?? null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const away = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) onClose();
    };
    document.addEventListener("mousedown", away, true);
    return () => document.removeEventListener("mousedown", away, true);
  }, [onClose]);
  useEffect(() => {
    // After the right-click's own focus change (React Flow focuses the node it selects).
    if (mode) return;
    const frame = requestAnimationFrame(() =>
      box.current?.querySelector<HTMLElement>("button:not(:disabled)")?.focus({ preventScroll: true }),
    );
    return () => cancelAnimationFrame(frame);
  }, [mode]);
  const close = (then: () => void) => () => {
    onClose();
    then();
  };
  const keys = (e: React.KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === "Escape") onClose();
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const items = Array.from(box.current?.querySelectorAll<HTMLElement>("button:not(:disabled)") ?? []);
      const at = items.indexOf(document.activeElement as HTMLElement);
      items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
    }
  };
  let body: React.ReactNode = null;
  const target = menu.target;
  if (target.kind === "node") {
    const node = spec.nodes.find((n) => n.id === target.id);
    if (!node) return null;
    const group = props.selected.includes(node.id) ? props.selected.filter((id) => !id.startsWith(GROUP_PREFIX)) : [node.id];
    const inGroup = groupOfNode(spec, node.id);
    body =
      mode === "rename" ? (
        <RenameField initial={node.id} onDone={(to) => (to === null || actions.rename(node.id, to) ? onClose() : false)} />
      ) : mode === "bind" ? (
        <BindList node={node} callables={props.callables} onBind={close2(onClose, (b) => actions.bind(node.id, b))} />
      ) : (
        <>
          <div className="graphnb-menu-title">{node.id}</div>
          <Item testid="menu-rename" label="Rename…" keys="F2" onClick={() => setMode("rename")} />
          <Item testid="menu-bind" label="Bind to…" onClick={() => setMode("bind")} />
          <Item
            testid="menu-new-function"
            label="New function"
            title="a stub in a new cell below the builder, bound to this node"
            onClick={close(() => actions.newFunction(node.id))}
          />
          <Item
            testid="menu-source"
            label="Open source"
            disabled={!node.binding}
            title={node.binding ? `the source of ${node.binding}` : "the node is not bound"}
            onClick={close(() => node.binding && actions.openSource(node.binding))}
          />
          <hr />
          {group.length > 1 && (
            <Item testid="menu-group" label={`Group ${group.length} and collapse`} keys="Ctrl+G" onClick={close(() => actions.group(group))} />
          )}
          {inGroup && (
            <Item testid="menu-collapse" label={`Collapse ${inGroup.label}`} onClick={close(() => actions.setCollapsed(inGroup.id, true))} />
          )}
          <Item testid="menu-duplicate" label={group.length > 1 ? `Duplicate ${group.length}` : "Duplicate"} keys="Ctrl+D" onClick={close(() => actions.duplicate(group))} />
          <Item testid="menu-copy" label={group.length > 1 ? `Copy ${group.length}` : "Copy"} keys="Ctrl+C" onClick={close(() => actions.copy(group))} />
          <Item
            testid="menu-breakpoint"
            label="Set breakpoint"
            disabled={!actions.onBreakpoint}
            title={actions.onBreakpoint ? "pause runs before this node" : "breakpoints are not available in this builder"}
            onClick={close(() => actions.onBreakpoint?.(node.id))}
          />
          <hr />
          <Item testid="menu-delete" label={group.length > 1 ? `Delete ${group.length}` : "Delete"} keys="Del" onClick={close(() => actions.remove(group, []))} />
        </>
      );
  } else if (target.kind === "edge") {
    const edge = spec.edges.find((e) => edit.edgeKey(e) === target.key);
    if (!edge) return null;
    const router = spec.routers[edge.source] ?? null;
    const name = (id: string) => (id === "__start__" ? "START" : id === "__end__" ? "END" : id);
    body =
      mode === "rename" ? (
        <RenameField
          initial={edit.routeText(edge)}
          label="route"
          onDone={(to) => {
            if (to !== null) actions.setRoute(edge, to);
            onClose();
          }}
        />
      ) : mode === "bind" ? (
        <BindList node={null} callables={props.callables} onBind={close2(onClose, (b) => actions.bindRouter(edge.source, b))} />
      ) : (
        <>
          <div className="graphnb-menu-title">
            {name(edge.source)} → {name(edge.target)}
          </div>
          {edge.kind === "conditional" ? (
            <>
              <Item testid="menu-rename" label="Rename route…" keys="F2" onClick={() => setMode("rename")} />
              <Item testid="menu-edge-kind" label="Make direct" onClick={close(() => actions.setKind(edge, "direct"))} />
            </>
          ) : (
            <Item
              testid="menu-edge-kind"
              label="Make conditional"
              disabled={edge.source === "__start__"}
              onClick={close(() => actions.setKind(edge, "conditional"))}
            />
          )}
          <Item testid="menu-bind" label="Bind router…" disabled={edge.source === "__start__"} onClick={() => setMode("bind")} />
          <Item
            testid="menu-source"
            label="Open router source"
            disabled={!router}
            onClick={close(() => router && actions.openSource(router))}
          />
          <hr />
          <Item testid="menu-delete" label="Delete" keys="Del" onClick={close(() => actions.remove([], [target.key]))} />
        </>
      );
  } else if (target.kind === "group") {
    const g = groupsOf(spec).find((x) => x.id === target.id);
    if (!g) return null;
    body = (
      <>
        <div className="graphnb-menu-title">
          {g.label}: {g.nodes.length} nodes
        </div>
        <Item testid="menu-expand" label="Open the group" onClick={close(() => actions.setCollapsed(g.id, false))} />
        <Item testid="menu-ungroup" label="Ungroup" onClick={close(() => actions.ungroup(g.id))} />
      </>
    );
  } else {
    body = (
      <>
        <Item testid="menu-add-node" label="Add a node here" onClick={close(() => actions.addNode(menu.client))} />
        <Item testid="menu-paste" label="Paste here" keys="Ctrl+V" disabled={!actions.canPaste()} onClick={close(() => actions.paste(menu.client))} />
        <hr />
        <Item testid="menu-shortcuts" label="Keyboard shortcuts" keys="?" onClick={close(actions.showShortcuts)} />
      </>
    );
  }
  return (
    <div
      ref={box}
      className="graphnb-menu nodrag nopan"
      role="menu"
      data-testid="context-menu"
      data-lm-suppress-shortcuts="true"
      data-jp-suppress-context-menu="true"
      style={{ left: menu.x, top: menu.y }}
      onKeyDown={keys}
      onContextMenu={(e) => e.preventDefault()}
    >
      {body}
    </div>
  );
}

function close2(onClose: () => void, then: (binding: string | null) => void) {
  return (binding: string | null) => {
    onClose();
    then(binding);
  };
}

function RenameField(props: { initial: string; label?: string; onDone(to: string | null): boolean | void }) {
  const [text, setText] = useState(props.initial);
  const [rejected, setRejected] = useState(false);
  return (
    <label className="graphnb-menu-field">
      {props.label ?? "name"}
      <input
        data-testid="menu-rename-input"
        className={rejected ? "graphnb-invalid" : ""}
        value={text}
        autoFocus
        onFocus={(e) => e.target.select()}
        onChange={(e) => {
          setText(e.target.value);
          setRejected(false);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && props.onDone(text.trim()) === false) setRejected(true);
          if (e.key === "Escape") props.onDone(null);
        }}
      />
      {rejected && <span className="graphnb-error-text">taken or not a name</span>}
    </label>
  );
}

function BindList(props: { node: NodeSpec | null; callables: CallableInfo[]; onBind(binding: string | null): void }) {
  const [query, setQuery] = useState("");
  const shown = props.callables.filter((c) => c.signature.toLowerCase().includes(query.toLowerCase()));
  return (
    <div className="graphnb-menu-bind">
      <input
        data-testid="menu-bind-search"
        placeholder="search functions"
        value={query}
        autoFocus
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => e.key === "Enter" && shown.length > 0 && props.onBind(shown[0].binding)}
      />
      {shown.map((c) => (
        <button
          type="button"
          role="menuitem"
          key={c.binding}
          className="graphnb-menu-item"
          data-testid={`menu-bind-${c.binding}`}
          onClick={() => props.onBind(c.binding)}
        >
          <code>{c.signature}</code>
        </button>
      ))}
      {!shown.length && <p className="graphnb-muted">no function matches</p>}
      {props.node?.binding && (
        <button type="button" className="graphnb-menu-item" data-testid="menu-unbind" onClick={() => props.onBind(null)}>
          unbind
        </button>
      )}
    </div>
  );
}
