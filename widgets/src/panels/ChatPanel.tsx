// The chat view: when the state holds a list of messages, the conversation after the last
// step (or the checkpoint shown), tool calls and their results inline, and the assistant's
// tokens as they stream during a run.

import { useMemo } from "react";
import { chatMessages } from "../chat";
import type { RunState } from "../protocol";
import { Panel } from "./Panel";
import "./debugger.css";

export function ChatPanel(props: { run: RunState; chunks: string }) {
  const { run } = props;
  const last = run.steps[run.steps.length - 1];
  const messages = useMemo(() => chatMessages(last?.state), [last]);
  if (!messages) return null;
  const streaming = run.status === "running" && props.chunks;
  return (
    <Panel id="panel-chat" title="Chat">
      <ol className="graphnb-chat" data-testid="chat-messages">
        {messages.map((m, i) => (
          <li key={i} className={`graphnb-chat-${m.role}`} data-testid={`chat-message-${i}`} data-role={m.role}>
            <span className="graphnb-chat-role">{m.role === "tool" && m.name ? `tool ${m.name}` : m.role}</span>
            {m.content && <span className="graphnb-chat-text">{m.content}</span>}
            {m.toolCalls.map((c) => (
              <code key={c.id || c.name} className="graphnb-chat-call" data-testid={`chat-call-${c.name}`}>
                {c.name}({JSON.stringify(c.arguments)})
              </code>
            ))}
          </li>
        ))}
        {streaming && (
          <li className="graphnb-chat-assistant" data-testid="chat-streaming" data-role="assistant">
            <span className="graphnb-chat-role">assistant</span>
            <span className="graphnb-chat-text">{props.chunks}</span>
          </li>
        )}
      </ol>
    </Panel>
  );
}
