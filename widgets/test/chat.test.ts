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
