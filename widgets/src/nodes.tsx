// The node components the canvas draws: a step (a graph node) and the START/END terminals.

import { Handle, Position, type NodeProps, type Node } from "@xyflow/react";
import { memo, useEffect, useRef, useState } from "react";
import type { NodeStatus } from "./protocol";
import { STATUS_ICON, STOPPED_TEXT } from "./runStatus";
import { Elapsed } from "./Elapsed";
import { GroupNodeView } from "./GroupNode";
import { useCanvas } from "./canvasContext";
import { formatDuration } from "./format";
import { createStore, type Store, useSelect } from "./store";
import { RunBadges } from "./RunBadges";
import { WAITING } from "./hooks/useStubCells";

/** `code`: the node runs a callable given in code (a lambda, a closure), not a binding. */
/** `lr`: the graph is laid out left-right: handles on the left and right sides. */
export type StepData = { label: string; binding: string | null; code: boolean; lr?: boolean };

/**
 * The card's second line: the binding when it says more than the node's name ("research"
 * bound to `research` shows nothing), "in code" for a callable given in code, else "unbound".
 */
export function bindingText(id: string, data: Pick<StepData, "binding" | "code">): string {
  if (data.binding) return data.binding === id ? "" : data.binding;
  return data.code ? "in code" : "unbound";
}
export type StepNode = Node<StepData, "step">;
export type TerminalNode = Node<{ label: string; lr?: boolean }, "terminal">;

const NO_BREAKPOINTS = createStore<Record<string, string[]>>({});



function Step({ id, data, selected }: NodeProps<StepNode>) {
  const canvas = useCanvas();
  const status = useSelect(canvas.run, (r) => (r.nodes[id]?.status ?? "idle") as NodeStatus);
  const duration = useSelect(canvas.run, (r) => r.nodes[id]?.duration ?? null);
  const runs = useSelect(canvas.run, (r) => r.nodes[id]?.runs ?? 0);
  const failed = useSelect(canvas.run, (r) => (r.error?.node === id ? r.error.message : null));
  // A node whose function's cell has not run yet is waiting, not broken (useStubCells).
  const waiting = useSelect(canvas.problems, (p) => p[id]?.some((x) => x.code === WAITING) ?? false);
  const problem = useSelect(canvas.problems, (p) => {
    const found = p[id]?.filter((x) => x.code !== WAITING);
    return found?.length ? `${found[0].code}\u0000${found.map((x) => x.message).join("\n")}` : null;
  });
  const [code, message] = problem ? problem.split("\u0000") : [null, null];
  const pause = useSelect(canvas.breakpoints ?? NO_BREAKPOINTS, (b) => b[id]?.join(" ") || null);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(data.label);
  const [rejected, setRejected] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  const commit = () => {
    if (canvas.rename(id, draft)) {
      setEditing(false);
      setRejected(false);
    } else setRejected(true);
  };

  const classes = ["graphnb-node", `graphnb-status-${status}`];
  if (status === "running") classes.push("graphnb-active");
  if (code) classes.push("graphnb-has-problem");
  if (waiting) classes.push("graphnb-waiting");
  if (selected) classes.push("graphnb-selected");
  return (
    <div
      className={classes.join(" ")}
      data-testid={`node-${id}`}
      data-status={status}
      data-problem={code ?? undefined}
      data-waiting={waiting || undefined}
      title={
        message ??
        failed ??
        (data.binding
          ? `runs ${data.binding}`
          : data.code
            ? "runs the callable it was given in code"
            : "not bound: select the node and pick a callable")
      }
    >
      <Handle type="target" position={data.lr ? Position.Left : Position.Top} />
      {editing ? (
        <input
          ref={input}
          className={`graphnb-rename nodrag${rejected ? " graphnb-invalid" : ""}`}
          data-testid="node-rename-input"
          value={draft}
          autoFocus
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === "Enter") commit();
            if (e.key === "Escape") setEditing(false);
          }}
          onBlur={() => setEditing(false)}
        />
      ) : (
        <div
          className="graphnb-node-label"
          data-testid={`node-label-${id}`}
          onDoubleClick={(e) => {
            e.stopPropagation();
            setDraft(data.label);
            setRejected(false);
            setEditing(true);
          }}
        >
          {data.label}
        </div>
      )}
      <div className="graphnb-node-meta">
        <span className="graphnb-node-binding" data-testid={`node-binding-${id}`}>
          {status !== "idle" && <span className={`graphnb-status-icon graphnb-icon-${status}`}>{STATUS_ICON[status]}</span>}
          {waiting ? "runs once its cell runs" : bindingText(id, data)}
        </span>
        {status === "running" && <Elapsed testid={`node-elapsed-${id}`} />}
        {STOPPED_TEXT[status] && (
          <span className={`graphnb-node-stopped graphnb-status-text-${status}`} data-testid={`node-stopped-${id}`}>
            {STOPPED_TEXT[status]}
          </span>
        )}
        {status !== "running" && !STOPPED_TEXT[status] && duration != null && (
          <span className="graphnb-node-duration" data-testid={`node-duration-${id}`}>
            {formatDuration(duration)}
            {runs > 1 ? ` ×${runs}` : ""}
          </span>
        )}
      </div>
      <RunBadges run={canvas.run} id={id} />
      {failed && (
        <div className="graphnb-node-error" data-testid={`node-error-${id}`}>
          {failed}
        </div>
      )}
      {code && <span className="graphnb-node-badge" aria-label={message ?? ""}>!</span>}
      {pause && (
        <span className="graphnb-breakpoint" data-testid={`breakpoint-${id}`} data-when={pause} title={`runs pause ${pause.replace(" ", " and ")} ${id}`}>
          {pause.includes("before") && <i className="graphnb-mark-pause" />}
          {pause.includes("after") && <i className="graphnb-mark-play" />}
        </span>
      )}
      <Handle type="source" position={data.lr ? Position.Right : Position.Bottom} />
    </div>
  );
}

function Terminal({ id, data }: NodeProps<TerminalNode>) {
  const isStart = data.label === "START";
  return (
    <div className={`graphnb-terminal ${isStart ? "graphnb-start" : "graphnb-end"}`} data-testid={`node-${id}`}>
      {!isStart && <Handle type="target" position={data.lr ? Position.Left : Position.Top} />}
      {data.label}
      {isStart && <Handle type="source" position={data.lr ? Position.Right : Position.Bottom} />}
    </div>
  );
}

export const nodeTypes = { step: memo(Step), terminal: memo(Terminal), collapsed: GroupNodeView };
