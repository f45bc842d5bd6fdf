/**
 * `GET /v1/agents/{agent_id}/chat/{id}/messages` in workerd: a conversation held through the chat
 * route (an approval asked, answered, and the answer going on) comes back as the page's
 * `UIMessage`s with the ids its streams gave; another caller's chat, an unknown one and a deleted
 * session are all 404.
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { call, callJson } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { caller, text, toolUse, type Caller } from "../sessions/helpers";
import { author, createAgent } from "../agents/helpers";
import type { Session } from "../../../src/session-config/types";

type Part = { type: string } & Record<string, unknown>;
type UiMessage = { id: string; role: string; parts: Part[] };

const user = (words: string) => ({ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: words }] });

async function chat(who: Caller, agentId: string, body: unknown): Promise<Part[]> {
  const res = await callJson(`/v1/agents/${agentId}/chat`, "POST", body, who.headers);
  expect(res.status).toBe(200);
  const events = (await res.text()).split("\n\n").filter((event) => event.startsWith("data: ") && event !== "data: [DONE]");
  return events.map((event) => JSON.parse(event.slice(6)) as Part);
}

function history(who: Caller, agentId: string, chatId: string): Promise<Response> {
  return call(`/v1/agents/${agentId}/chat/${encodeURIComponent(chatId)}/messages`, { headers: who.headers });
}

async function messages(who: Caller, agentId: string, chatId: string): Promise<UiMessage[]> {
  const res = await history(who, agentId, chatId);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: UiMessage[] }).messages;
}

/** An agent whose `wire` tool needs approval: it calls it, then answers once it ran. */
async function wiringAgent(who: Caller) {
  const model = mockModel(uniqueKey("model"));
  await model.script(
    { reply: { content: [text("Wiring."), toolUse("toolu_w", "get_time", {})] } },
    { reply: { content: [text("Sent.")] } },
  );
  return createAgent(who, {
    name: uniqueKey("wirer"),
    model: model.key,
    tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
  });
}

describe("GET /v1/agents/{agent_id}/chat/{id}/messages", () => {
  it("gives back the conversation with its approval, under the ids the streams gave", async () => {
    const who = await author();
    const agent = await wiringAgent(who);
    const first = await chat(who, agent.id, { id: "c1", messages: [user("wire 5")], trigger: "submit-message" });
    expect(first[0]).toEqual({ type: "start", messageId: expect.any(String) });
    const answerId = first[0]!.messageId as string;
    expect(first).toContainEqual({ type: "tool-approval-request", approvalId: "toolu_w", toolCallId: "toolu_w" });

    const waiting = await messages(who, agent.id, "c1");
    expect(waiting.map((message) => [message.role, message.id])).toEqual([
      ["user", expect.any(String)],
      ["assistant", answerId],
    ]);
    expect(waiting[0]!.parts).toEqual([{ type: "text", text: "wire 5" }]);
    expect(waiting[1]!.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Wiring.", state: "done" },
      {
        type: "dynamic-tool",
        toolCallId: "toolu_w",
        toolName: "get_time",
        state: "approval-requested",
        input: {},
        providerExecuted: true,
        approval: { id: "toolu_w" },
      },
    ]);

    // The page answers as `addToolApprovalResponse` leaves the message; the turn goes on in it.
    const answered = {
      ...waiting[1]!,
      parts: waiting[1]!.parts.map((part) =>
        part.type === "dynamic-tool" ? { ...part, state: "approval-responded", approval: { id: "toolu_w", approved: true } } : part,
      ),
    };
    const second = await chat(who, agent.id, { id: "c1", messages: [...waiting.slice(0, 1), answered], trigger: "submit-message" });
    expect(second[0]).toEqual({ type: "start" });
    expect(second.at(-1)).toEqual({ type: "finish", finishReason: "stop" });

    const done = await messages(who, agent.id, "c1");
    expect(done).toHaveLength(2);
    expect(done[1]!.id).toBe(answerId);
    expect(done[1]!.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Wiring.", state: "done" },
      expect.objectContaining({
        type: "dynamic-tool",
        toolCallId: "toolu_w",
        state: "output-available",
        approval: { id: "toolu_w", approved: true },
      }),
      { type: "step-start" },
      { type: "text", text: "Sent.", state: "done" },
    ]);
  });

  it("resumes, after a reload, the turn under way of a chat with earlier turns, under the answer id the history will give", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("First answer.")] } }, { reply: { content: [text("Second answer.")] }, delay_ms: 1_500 });
    const agent = await createAgent(who, { name: uniqueKey("slow"), model: model.key });
    await chat(who, agent.id, { id: "c2", messages: [user("one")], trigger: "submit-message" });
    const turn = await callJson(
      `/v1/agents/${agent.id}/chat`,
      "POST",
      { id: "c2", messages: [user("two")], trigger: "submit-message" },
      who.headers,
    );
    await turn.body?.cancel();

    // The page reloads while the model writes: the history has the new input, then the stream replays the answer.
    const restored = await messages(who, agent.id, "c2");
    expect(restored.map((message) => message.id)).toEqual(["user-1", "answer-1", "user-3"]);
    const res = await call(`/v1/agents/${agent.id}/chat/c2/stream`, { headers: who.headers });
    expect(res.status).toBe(200);
    const resumed = (await res.text())
      .split("\n\n")
      .filter((event) => event.startsWith("data: {"))
      .map((event) => JSON.parse(event.slice(6)) as Part);
    expect(resumed[0]).toEqual({ type: "start", messageId: "answer-3" });
    expect(
      resumed
        .filter((part) => part.type === "text-delta")
        .map((part) => part.delta)
        .join(""),
    ).toBe("Second answer.");
    expect(resumed.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect((await messages(who, agent.id, "c2")).at(-1)).toMatchObject({
      id: "answer-3",
      parts: [{ type: "step-start" }, { type: "text", text: "Second answer." }],
    });
  });

  it("resumes an answer that went on after its approval as the whole answer, the message the history then gives", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [text("Wiring."), toolUse("toolu_r", "get_time", {})] } },
      { reply: { content: [text("Sent.")] }, delay_ms: 1_500 },
    );
    const agent = await createAgent(who, {
      name: uniqueKey("wirer"),
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await chat(who, agent.id, { id: "c3", messages: [user("wire")], trigger: "submit-message" });
    const waiting = await messages(who, agent.id, "c3");
    const answered = {
      ...waiting[1]!,
      parts: waiting[1]!.parts.map((part) =>
        part.type === "dynamic-tool" ? { ...part, state: "approval-responded", approval: { id: "toolu_r", approved: true } } : part,
      ),
    };
    const turn = await callJson(
      `/v1/agents/${agent.id}/chat`,
      "POST",
      { id: "c3", messages: [waiting[0], answered], trigger: "submit-message" },
      who.headers,
    );
    await turn.body?.cancel();

    // Reloaded while the model writes the last step: the replay is the whole answer, approval included.
    const res = await call(`/v1/agents/${agent.id}/chat/c3/stream`, { headers: who.headers });
    expect(res.status).toBe(200);
    const chunks = (await res.text())
      .split("\n\n")
      .filter((event) => event.startsWith("data: {"))
      .map((event) => JSON.parse(event.slice(6)) as UIMessageChunk);
    expect(chunks[0]).toEqual({ type: "start", messageId: "answer-1" });
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        chunks.forEach((chunk) => controller.enqueue(chunk));
        controller.close();
      },
    });
    let resumed: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream, onError: (error) => expect.fail(String(error)) })) resumed = message;
    const history = await messages(who, agent.id, "c3");
    expect(JSON.parse(JSON.stringify(resumed))).toEqual({ ...history[1], metadata: undefined });
    expect(history[1]!.parts.at(-1)).toMatchObject({ type: "text", text: "Sent." });
    expect(history[1]!.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({
      state: "output-available",
      approval: { id: "toolu_r", approved: true },
    });
  });

  it("answers 404 for another caller's chat id, another tenant's, and one never used", async () => {
    const tenant = freshTenant();
    const alice = await author(tenant);
    const bob = await caller(tenant, ["sessions:read", "sessions:write"], "bob");
    const agent = await wiringAgent(alice);
    await chat(alice, agent.id, { id: "mine", messages: [user("wire 5")], trigger: "submit-message" });
    expect((await messages(alice, agent.id, "mine")).length).toBe(2);
    for (const [who, id] of [
      [bob, "mine"],
      [await author(), "mine"],
      [alice, "never-used"],
    ] as const) {
      const res = await history(who, agent.id, id);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
    expect((await history(alice, "agt_unknown", "mine")).status).toBe(404);
  });

  it("answers 404 once the chat's session is deleted", async () => {
    const who = await author();
    const agent = await wiringAgent(who);
    await chat(who, agent.id, { id: "gone", messages: [user("wire 5")], trigger: "submit-message" });
    const listed = (await (await call("/v1/sessions", { headers: who.headers })).json()) as { data: Session[] };
    const session = listed.data.find((s) => s.metadata?.chat_id === "gone") ?? listed.data[0]!;
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await history(who, agent.id, "gone")).status).toBe(404);
  });

  it("needs sessions:read", async () => {
    const who = await author();
    const agent = await wiringAgent(who);
    const writer = await caller(who.tenantId, ["sessions:write"]);
    expect((await history(writer, agent.id, "c")).status).toBe(403);
  });
});
