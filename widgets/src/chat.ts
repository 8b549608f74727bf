// A state's conversation, for the chat view: the first list field named like messages,
// each entry read as a message ({role, content, tool_calls, tool_call_id, name}, as the
// ReAct agent stores them, or a LangChain message as JSON: {type: "human" | "ai" |
// "tool" | "system", content, tool_calls: [{name, args, id}]}) or, when it is plain text,
// as text of an unknown speaker.

import type { Json } from "./protocol";

export type ChatToolCall = { name: string; arguments: Json; id: string };
export type ChatMessage = {
  role: string;
  content: string;
  toolCalls: ChatToolCall[];
  toolCallId: string | null;
  name: string | null;
};

const FIELDS = ["messages", "chat", "history", "conversation"];

// LangChain's message types, as the chat view names their speakers.
const LANGCHAIN_ROLES: Record<string, string> = {
  human: "user",
  ai: "assistant",
  AIMessageChunk: "assistant",
  tool: "tool",
  system: "system",
  function: "tool",
};

function role(entry: Record<string, Json>): string {
  if (typeof entry.role === "string") return entry.role;
  if (typeof entry.type === "string") return LANGCHAIN_ROLES[entry.type] ?? entry.type;
  return "message";
}

function text(value: Json | undefined): string {
  if (value == null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function chatMessages(state: Record<string, Json> | undefined): ChatMessage[] | null {
  if (!state) return null;
  const field = FIELDS.find((name) => Array.isArray(state[name]));
  if (!field) return null;
  return (state[field] as Json[]).map((entry) => {
    if (!entry || typeof entry !== "object" || Array.isArray(entry))
      return { role: "message", content: text(entry), toolCalls: [], toolCallId: null, name: null };
    const calls = Array.isArray(entry.tool_calls) ? entry.tool_calls : [];
    return {
      role: role(entry),
      content: text(entry.content),
      toolCalls: calls.map((c) => {
        const call = (c && typeof c === "object" && !Array.isArray(c) ? c : {}) as Record<string, Json>;
        return { name: text(call.name), arguments: call.arguments ?? call.args ?? {}, id: text(call.id) };
      }),
      toolCallId: typeof entry.tool_call_id === "string" ? entry.tool_call_id : null,
      name: typeof entry.name === "string" ? entry.name : null,
    };
  });
}
