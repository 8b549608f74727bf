import assert from "node:assert/strict";
import { test } from "node:test";
import { chatMessages } from "../src/chat";

test("a state without messages has no chat", () => {
  assert.equal(chatMessages({ topic: "x" }), null);
});

test("agent messages read with their tool calls and results", () => {
  const chat = chatMessages({
    messages: [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: null, tool_calls: [{ name: "weather", arguments: { city: "Paris" }, id: "c1" }] },
      { role: "tool", content: "sunny", tool_call_id: "c1", name: "weather" },
      "plain text",
    ],
  });
  assert.ok(chat);
  assert.deepEqual(
    chat.map((m) => [m.role, m.content]),
    [["user", "Weather in Paris?"], ["assistant", ""], ["tool", "sunny"], ["message", "plain text"]],
  );
  assert.deepEqual(chat[1].toolCalls, [{ name: "weather", arguments: { city: "Paris" }, id: "c1" }]);
  assert.equal(chat[2].toolCallId, "c1");
});

test("LangChain messages (a LangGraph MessagesState) read with their speakers and tool calls", () => {
  const chat = chatMessages({
    messages: [
      { type: "human", content: "time?", id: "h1" },
      {
        type: "ai",
        content: "",
        id: "a1",
        tool_calls: [{ name: "clock", args: { tz: "UTC" }, id: "c1", type: "tool_call" }],
        invalid_tool_calls: [],
      },
      { type: "tool", content: "noon", tool_call_id: "c1", name: "clock" },
      { type: "ai", content: "it is noon" },
    ],
  });
  assert.ok(chat);
  assert.deepEqual(
    chat.map((m) => [m.role, m.content]),
    [["user", "time?"], ["assistant", ""], ["tool", "noon"], ["assistant", "it is noon"]],
  );
  assert.deepEqual(chat[1].toolCalls, [{ name: "clock", arguments: { tz: "UTC" }, id: "c1" }]);
  assert.equal(chat[2].toolCallId, "c1");
  assert.equal(chat[2].name, "clock");
});
