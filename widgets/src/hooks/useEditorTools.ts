// The editor's tools around the canvas: the context menu, copy/paste/duplicate, the
// shortcut sheet, the source dialog, "new function", and the keys that open them. The
// canvas component needs no change: menus and drops listen on its element.

import type { AnyModel } from "@anywidget/types";
import { useReactFlow, useStoreApi } from "@xyflow/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { addBoundNode, CLIP_KEY, copySelection, functionStub, parseClip, pasteClip } from "../clip";
import * as groups from "../groups";
import { GROUP_PREFIX } from "../groups";
import { insertCellBelow } from "../notebook";
import type { MenuActions, MenuState, MenuTarget } from "../panels/ContextMenu";
import type { PaletteItem } from "../panels/Palette";
import type { EdgeSpec, GraphSpec } from "../protocol";
import * as edit from "../spec";
import type { CanvasEditing } from "./useCanvasEditing";
import type { HistoryControls } from "./useHistory";

export type Dialog = { kind: "source"; binding: string } | { kind: "shortcuts" } | { kind: "search" } | null;

function readClip() {
  try {
    return parseClip(window.localStorage.getItem(CLIP_KEY));
  } catch {
    return null; // storage refused (a sandboxed page): nothing to paste
  }
}

export function useEditorTools(opts: {
  model: AnyModel<object>;
  root: React.RefObject<HTMLDivElement | null>;
  spec: GraphSpec;
  history: HistoryControls;
  editing: CanvasEditing;
  editable: boolean;
  keepFocus(): void;
  useModel(binding: string): void;
  onBreakpoint?: (node: string) => void;
  /** A stub for node `node`'s function `name` was put in a cell below (see useStubCells). */
  onStub?: (node: string, name: string) => void;
}) {
  const { spec, history, editing, root } = opts;
  const flow = useReactFlow();
  const store = useStoreApi();
  const [menu, setMenu] = useState<MenuState | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [message, setMessage] = useState("");
  const latest = useRef(opts);
  latest.current = opts;

  const select = useCallback(
    (ids: string[]) => {
      // The new nodes are drawn on the next render: select them then.
      window.setTimeout(() => {
        const state = store.getState();
        state.resetSelectedElements();
        state.addSelectedNodes(ids);
      }, 30);
    },
    [store],
  );
  const toFlow = useCallback((client: { x: number; y: number }) => flow.screenToFlowPosition(client), [flow]);
  const centre = useCallback(() => {
    const box = editing.wrapper.current?.getBoundingClientRect();
    return box ? { x: box.left + box.width / 2, y: box.top + box.height / 2 } : { x: 0, y: 0 };
  }, [editing.wrapper]);

  const copy = useCallback(
    (ids: string[]) => {
      const clip = copySelection(spec, ids);
      if (!clip) return false;
      const text = JSON.stringify(clip);
      try {
        window.localStorage.setItem(CLIP_KEY, text);
      } catch {
        /* storage refused: the system clipboard below may still take it */
      }
      // Best effort: lets the selection be pasted as text elsewhere; refused without focus.
      navigator.clipboard?.writeText(text).catch(() => undefined);
      setMessage(`copied ${clip.nodes.length} node${clip.nodes.length > 1 ? "s" : ""}`);
      return true;
    },
    [spec],
  );
  const paste = useCallback(
    (client?: { x: number; y: number }) => {
      const clip = readClip();
      if (!clip || !latest.current.editable) return;
      const pasted = pasteClip(spec, clip, client ? { at: toFlow(client) } : { offset: { x: 40, y: 40 } });
      history.commit(pasted.spec);
      select(pasted.ids);
      opts.keepFocus();
    },
    [spec, history, toFlow, select, opts],
  );
  const duplicate = useCallback(
    (ids: string[]) => {
      const clip = copySelection(spec, ids);
      if (!clip || !latest.current.editable) return;
      const pasted = pasteClip(spec, clip, { offset: { x: 40, y: 40 } });
      history.commit(pasted.spec);
      select(pasted.ids);
      opts.keepFocus();
    },
    [spec, history, select, opts],
  );
  const newFunction = useCallback(
    (id: string) => {
      const node = spec.nodes.find((n) => n.id === id);
      if (!node || !root.current) return;
      const name = edit.cleanId(node.binding && !node.binding.includes(":") ? node.binding : id);
      const state = spec.state.binding && !spec.state.binding.includes(":") ? spec.state.binding : null;
      const stub = functionStub(name, state);
      if (insertCellBelow(opts.model, root.current, stub)) {
        history.commit(edit.bindNode(spec, id, name));
        opts.onStub?.(id, name);
        setMessage(`${name}: a stub below the builder; run its cell to bind it`);
      } else {
        navigator.clipboard?.writeText(stub).catch(() => undefined);
        setMessage("no notebook to add a cell to: the stub is on the clipboard");
      }
    },
    [spec, history, root, opts.model, opts.onStub],
  );

  const openMenu = useCallback(
    (target: MenuTarget, client: { x: number; y: number }, mode?: MenuState["mode"]) => {
      const box = root.current?.getBoundingClientRect();
      if (!box) return;
      // Keep the menu inside the builder.
      const x = Math.min(client.x - box.left, Math.max(0, box.width - 230));
      const y = Math.min(client.y - box.top, Math.max(0, box.height - 280));
      setMenu({ target, x, y, client, mode });
    },
    [root],
  );
  // Right-clicks on the canvas, resolved to a node, an edge or the empty canvas.
  useEffect(() => {
    const el = editing.wrapper.current;
    if (!el) return;
    const onContext = (e: MouseEvent) => {
      if (!latest.current.editable) return;
      const t = e.target as Element;
      if (t.closest("input, textarea, .react-flow__controls, .react-flow__minimap")) return;
      e.preventDefault();
      const node = t.closest(".react-flow__node")?.getAttribute("data-id");
      const edge = t.closest(".react-flow__edge")?.getAttribute("data-id");
      const target: MenuTarget =
        node?.startsWith(GROUP_PREFIX)
          ? { kind: "group", id: node.slice(GROUP_PREFIX.length) }
          : node && node !== "__start__" && node !== "__end__"
          ? { kind: "node", id: node }
          : edge
            ? { kind: "edge", key: edge }
            : { kind: "pane" };
      openMenu(target, { x: e.clientX, y: e.clientY });
    };
    // JupyterLab opens its own cell menu on top of ours unless told the canvas has one.
    el.setAttribute("data-jp-suppress-context-menu", "true");
    el.addEventListener("contextmenu", onContext);
    return () => el.removeEventListener("contextmenu", onContext);
  }, [editing.wrapper, openMenu]);

  const actions: MenuActions = {
    rename: editing.rename,
    bind: (id, binding) => history.commit(edit.bindNode(spec, id, binding)),
    bindRouter: (source, binding) => {
      const routed = spec.edges.some((e) => e.source === source && e.kind === "conditional");
      const first = spec.edges.find((e) => e.source === source);
      const base = routed || !first ? spec : edit.setEdgeKind(spec, edit.edgeKey(first), "conditional");
      history.commit(edit.bindRouter(base, source, binding));
    },
    setRoute: (edge: EdgeSpec, text: string) => editing.setRoute(edge.source, edge.target, text),
    setKind: (edge, kind) => history.commit(edit.setEdgeKind(spec, edit.edgeKey(edge), kind)),
    duplicate,
    copy: (ids) => void copy(ids),
    paste,
    canPaste: () => readClip() !== null,
    remove: (nodes, edges) => editing.deleteSelected(nodes, edges),
    addNode: (client) => {
      const at = toFlow(client);
      history.commit(edit.addNode(spec, { x: Math.round(at.x - 80), y: Math.round(at.y - 25) }));
    },
    openSource: (binding) => setDialog({ kind: "source", binding }),
    newFunction,
    showShortcuts: () => setDialog({ kind: "shortcuts" }),
    group: (ids) => {
      const made = groups.group(spec, ids);
      if (made) history.commit(made.spec);
    },
    setCollapsed: (id, collapsed) => history.commit(groups.setCollapsed(spec, id, collapsed)),
    ungroup: (id) => history.commit(groups.ungroup(spec, id)),
    onBreakpoint: opts.onBreakpoint,
  };

  /** Enter on a palette item: its node near the middle of the view, or the state model. */
  const addFromPalette = useCallback(
    (item: PaletteItem) => {
      if (!latest.current.editable) return;
      if (item.kind === "model") {
        latest.current.useModel(item.binding);
        return;
      }
      const at = toFlow(centre());
      const spot = edit.freeSpot(spec, { x: at.x - 80, y: at.y - 25 });
      history.commit(addBoundNode(spec, item.name, item.binding, spot).spec);
    },
    [spec, history, toFlow, centre],
  );

  const closeMenu = useCallback(() => {
    setMenu(null);
    opts.keepFocus();
  }, [opts]);
  const closeDialog = useCallback(() => {
    setDialog(null);
    opts.keepFocus();
  }, [opts]);

  /** Keys: ? F2 Escape, Ctrl+C/X/V/D/A/F. Text fields keep theirs. */
  const onKeyDown = useCallback(
    (e: React.KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      const nodes = editing.selection.nodes.filter((id) => id !== "__start__" && id !== "__end__" && !id.startsWith(GROUP_PREFIX));
      if (e.key === "Escape" && (menu || dialog)) {
        setMenu(null);
        setDialog(null);
        return;
      }
      if (!mod && e.key === "?") {
        e.preventDefault();
        setDialog((d) => (d?.kind === "shortcuts" ? null : { kind: "shortcuts" }));
        return;
      }
      if (!mod && e.key === "F2" && latest.current.editable) {
        const id = nodes[0];
        const edgeKey = editing.selection.edges[0];
        const el = id
          ? editing.wrapper.current?.querySelector(`.react-flow__node[data-id="${CSS.escape(id)}"]`)
          : edgeKey
            ? editing.wrapper.current?.querySelector(`.react-flow__edge[data-id="${CSS.escape(edgeKey)}"]`)
            : null;
        const box = el?.getBoundingClientRect();
        if (!box) return;
        e.preventDefault();
        const client = { x: box.left + box.width / 2, y: box.top + box.height / 2 };
        openMenu(id ? { kind: "node", id } : { kind: "edge", key: edgeKey }, client, "rename");
        return;
      }
      if (!mod || e.shiftKey || e.altKey) return;
      // Text selected on the page (a traceback, a state value): Ctrl+C copies that text.
      const textSelected = Boolean(window.getSelection()?.toString());
      if ((key === "c" || key === "x") && textSelected) return;
      if (key === "c" && nodes.length) {
        e.preventDefault();
        copy(nodes);
      } else if (key === "x" && nodes.length && latest.current.editable) {
        e.preventDefault();
        if (copy(nodes)) editing.deleteSelected(nodes, []);
      } else if (key === "v" && latest.current.editable) {
        e.preventDefault();
        paste();
      } else if (key === "d" && nodes.length && latest.current.editable) {
        e.preventDefault();
        duplicate(nodes);
      } else if (key === "g" && nodes.length > 1 && latest.current.editable) {
        e.preventDefault();
        const made = groups.group(spec, nodes);
        if (made) history.commit(made.spec);
      } else if (key === "a") {
        e.preventDefault();
        const state = store.getState();
        state.addSelectedNodes(spec.nodes.map((n) => n.id));
      } else if (key === "f") {
        e.preventDefault();
        setDialog({ kind: "search" });
      }
    },
    [editing, menu, dialog, copy, paste, duplicate, store, spec, openMenu, history],
  );

  // A message ("copied 2 nodes") fades after a few seconds.
  useEffect(() => {
    if (!message) return;
    const timer = window.setTimeout(() => setMessage(""), 4000);
    return () => window.clearTimeout(timer);
  }, [message]);

  return { menu, closeMenu, actions, dialog, setDialog, closeDialog, onKeyDown, addFromPalette, message };
}

export type EditorTools = ReturnType<typeof useEditorTools>;
