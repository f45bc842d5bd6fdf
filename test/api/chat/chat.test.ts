/**
 * The chat routes in workerd: the transport's body checked (400 with paths), a chat id that can
 * only ever reach the caller's own session, scopes, answers for a chat with nothing waiting, and
 * the stream's headers and parts as the `ai` package's transport reads them.
 */
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { caller, getJson, text, type Caller } from "../sessions/helpers";
import { author, createAgent } from "../agents/helpers";
import type { Session } from "../../../src/session-config/types";

const user = (words: string) => ({ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: words }] });

async function chat(who: Caller, agentId: string, body: unknown): Promise<Response> {
  return callJson(`/v1/agents/${agentId}/chat`, "POST", body, who.headers);
}

/** The `data:` payloads of a UI message stream. */
async function parts(res: Response): Promise<unknown[]> {
  const body = await res.text();
  return body
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice(6))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));
}

function answerText(sent: unknown[]): string {
  return sent
    .flatMap((part) =>
      typeof part === "object" && part !== null && (part as { type: string }).type === "text-delta"
        ? [(part as { delta: string }).delta]
        : [],
    )
    .join("");
}

async function agentAnswering(who: Caller, ...answers: string[]) {
  const model = mockModel(uniqueKey("model"));
  for (const answer of answers) await model.script({ reply: { content: [text(answer)] } });
  return createAgent(who, { name: uniqueKey("helper"), model: model.key });
}

describe("POST /v1/agents/{agent_id}/chat", () => {
  it("answers a turn as a UI message stream with the transport's header", async () => {
    const who = await author();
    const agent = await agentAnswering(who, "hello there");
    const res = await chat(who, agent.id, { id: "c1", messages: [user("hi")], trigger: "submit-message" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const sent = await parts(res);
    expect(sent[0]).toEqual({ type: "start", messageId: expect.stringMatching(/^answer-/) });
    expect(sent).toContainEqual(expect.objectContaining({ type: "text-delta" }));
    expect(sent.slice(-2)).toEqual([{ type: "finish", finishReason: "stop" }, "[DONE]"]);
  });

  it("answers a body that is not the transport's shape with 400 and paths", async () => {
    const who = await author();
    const agent = await agentAnswering(who);
    for (const [body, path] of [
      [{ messages: [user("hi")], trigger: "submit-message" }, "body.id"],
      [{ id: "c", messages: [{ role: "user", parts: "hi" }], trigger: "submit-message" }, "body.messages.0.id"],
      [{ id: "c", messages: [user("hi")], trigger: "resume" }, "body.trigger"],
      [{ id: "x".repeat(129), messages: [user("hi")], trigger: "submit-message" }, "body.id"],
      [{ id: "c", messages: [user("hi")], trigger: "regenerate-message" }, "body.trigger"],
    ] as const) {
      const res = await chat(who, agent.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await readProblem(res)).errors?.map((error) => error.path)).toContain(path);
    }
  });

  it("gives each caller its own session for the same chat id, and never another tenant's", async () => {
    const tenant = freshTenant();
    const alice = await author(tenant);
    const bob = await caller(tenant, ["sessions:read", "sessions:write"], "bob");
    const agent = await agentAnswering(alice, "for alice", "for bob");
    expect((await chat(alice, agent.id, { id: "shared", messages: [user("hi")], trigger: "submit-message" })).status).toBe(200);
    const bobs = await chat(bob, agent.id, { id: "shared", messages: [user("hi")], trigger: "submit-message" });
    expect(bobs.status).toBe(200);
    expect(answerText(await parts(bobs))).toBe("for bob");
    const own = await getJson<{ data: Session[] }>(bob, "/v1/sessions");
    expect(own.data).toHaveLength(1);
    const stranger = await author();
    expect((await chat(stranger, agent.id, { id: "shared", messages: [user("hi")], trigger: "submit-message" })).status).toBe(404);
  });

  it("refuses a caller without sessions:write, and answers for a chat that waits for nothing with 409", async () => {
    const who = await author();
    const agent = await agentAnswering(who);
    const reader = await caller(who.tenantId, ["sessions:read"]);
    expect((await chat(reader, agent.id, { id: "c", messages: [user("hi")], trigger: "submit-message" })).status).toBe(403);
    const answer = {
      id: "a",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "x",
          toolCallId: "t1",
          state: "approval-responded",
          input: {},
          approval: { id: "t1", approved: true },
        },
      ],
    };
    const res = await chat(who, agent.id, { id: "nothing", messages: [user("hi"), answer], trigger: "submit-message" });
    expect(res.status).toBe(409);
  });
});

describe("GET /v1/agents/{agent_id}/chat/{id}/stream", () => {
  it("answers 204 when no turn is under way or the chat does not exist", async () => {
    const who = await author();
    const agent = await agentAnswering(who, "done");
    expect((await call(`/v1/agents/${agent.id}/chat/none/stream`, { headers: who.headers })).status).toBe(204);
    await parts(await chat(who, agent.id, { id: "c1", messages: [user("hi")], trigger: "submit-message" }));
    expect((await call(`/v1/agents/${agent.id}/chat/c1/stream`, { headers: who.headers })).status).toBe(204);
  });
});
