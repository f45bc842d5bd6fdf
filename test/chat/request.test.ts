/** What a `DefaultChatTransport` body asks: the newest user text, or answers to waiting calls. Pure. */
import { describe, expect, it } from "vitest";
import { ChatRequestSchema, readChatRequest } from "../../src/chat/request";
import { chatSessionId } from "../../src/chat/chat-session";
import { MAX_DENY_REASON_CHARS } from "../../src/limits";

const body = (messages: unknown[], trigger = "submit-message") => ChatRequestSchema.parse({ id: "c1", messages, trigger });
const user = (text: string) => ({ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] });

describe("readChatRequest", () => {
  it("reads only the newest user message as input, never the history", () => {
    const ask = readChatRequest(
      body([user("old"), { id: "a", role: "assistant", parts: [{ type: "text", text: "forged history" }] }, user("new")]),
    );
    expect(ask).toEqual({ kind: "input", text: "new" });
  });

  it("reads approval responses and client outputs of the last assistant message, not server tools' outputs", () => {
    const ask = readChatRequest(
      body([
        user("go"),
        {
          id: "a",
          role: "assistant",
          parts: [
            {
              type: "dynamic-tool",
              toolName: "wire",
              toolCallId: "t1",
              state: "approval-responded",
              input: {},
              approval: { id: "t1", approved: false, reason: "no" },
              providerExecuted: true,
            },
            { type: "dynamic-tool", toolName: "pick", toolCallId: "t2", state: "output-available", input: {}, output: { color: "teal" } },
            {
              type: "dynamic-tool",
              toolName: "get_time",
              toolCallId: "t3",
              state: "output-available",
              input: {},
              output: "12:00",
              providerExecuted: true,
            },
          ],
        },
      ]),
    );
    expect(ask).toEqual({
      kind: "answers",
      approvals: [{ callId: "t1", approved: false, reason: "no" }],
      outputs: [{ callId: "t2", output: '{"color":"teal"}', isError: false }],
    });
  });

  it("bounds an approval's reason as every protocol does", () => {
    const part = (reason: string) => ({
      id: "a",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "wire",
          toolCallId: "t1",
          state: "approval-responded",
          input: {},
          approval: { id: "t1", approved: false, reason },
        },
      ],
    });
    const raw = (reason: string) => ({ id: "c1", messages: [user("go"), part(reason)], trigger: "submit-message" });
    expect(ChatRequestSchema.safeParse(raw("n".repeat(MAX_DENY_REASON_CHARS))).success).toBe(true);
    expect(ChatRequestSchema.safeParse(raw("n".repeat(MAX_DENY_REASON_CHARS + 1))).success).toBe(false);
  });

  it("refuses regenerate, an empty user message and an assistant message that answers nothing", () => {
    expect(readChatRequest(body([user("x")], "regenerate-message"))).toMatchObject({ kind: "invalid", path: "trigger" });
    expect(readChatRequest(body([user("  ")]))).toMatchObject({ kind: "invalid", path: "messages.0.parts" });
    expect(readChatRequest(body([user("x"), { id: "a", role: "assistant", parts: [{ type: "text", text: "hi" }] }]))).toMatchObject({
      kind: "invalid",
      path: "messages.1",
    });
  });

  it("derives one session per tenant, caller, agent and chat id", async () => {
    const base = await chatSessionId({ tenantId: "t", subject: "alice" }, "agt_x", "c1");
    expect(await chatSessionId({ tenantId: "t", subject: "alice" }, "agt_x", "c1")).toBe(base);
    for (const other of [
      chatSessionId({ tenantId: "t", subject: "bob" }, "agt_x", "c1"),
      chatSessionId({ tenantId: "u", subject: "alice" }, "agt_x", "c1"),
      chatSessionId({ tenantId: "t", subject: "alice" }, "agt_y", "c1"),
      chatSessionId({ tenantId: "t", subject: "alice" }, "agt_x", "c2"),
    ]) {
      expect(await other).not.toBe(base);
    }
    expect(base).toMatch(/^ses_[A-Za-z0-9_-]{32}$/);
  });
});
