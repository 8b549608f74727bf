// What the editor's tools draw over the builder: the context menu and the dialogs (the
// shortcut sheet, a callable's source, find a node).

import type { EditorTools } from "../hooks/useEditorTools";
import type { Inspect } from "../hooks/useKernel";
import type { CallableInfo, GraphSpec } from "../protocol";
import { ContextMenu } from "./ContextMenu";
import { NodeSearch } from "./NodeSearch";
import { ShortcutSheet } from "./ShortcutSheet";
import { SourceDialog } from "./SourceDialog";

export function EditorOverlays(props: {
  tools: EditorTools;
  spec: GraphSpec;
  selected: string[];
  callables: CallableInfo[];
  inspect: Inspect;
  onSelectNode(id: string): void;
}) {
  const { tools, spec, callables } = props;
  return (
    <>
      {tools.menu && (
        <ContextMenu
          menu={tools.menu}
          spec={spec}
          selected={props.selected}
          callables={callables}
          actions={tools.actions}
          onClose={tools.closeMenu}
        />
      )}
      {tools.dialog?.kind === "shortcuts" && <ShortcutSheet onClose={tools.closeDialog} />}
      {tools.dialog?.kind === "source" && (
        <SourceDialog binding={tools.dialog.binding} callables={callables} inspect={props.inspect} onClose={tools.closeDialog} />
      )}
      {tools.dialog?.kind === "search" && (
        <NodeSearch
          spec={spec}
          onClose={tools.closeDialog}
          onPick={(id) => {
            tools.closeDialog();
            props.onSelectNode(id);
          }}
        />
      )}
    </>
  );
}
