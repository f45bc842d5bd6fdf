/**
 * Forks through the API: at every seq of a tool-using session where a fork may end, a copy of the
 * messages and tool calls up to it; a seq between a call and its result refused; edit-and-rerun as
 * a fork with input; the source unchanged byte for byte; another tenant's or user's session 404.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { freshTenant } from "../../support/tokens";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { author, createAgent } from "../agents/helpers";
import { type Caller, caller, createSession, getJson, messagesOf, post, text, toolCallsOf, toolUse, waitForStatus } from "./helpers";
import type { Message, Session, ToolCall } from "../../../src/session-config/types";

/** A done session: input (1), an answer calling get_time (2), its result (3), the final answer (4). */
async function toolUsing(who: Caller): Promise<Session> {
  const model = mockModel(uniqueKey("model"));
  await model.script(
    { reply: { content: [text("checking"), toolUse("toolu_f1", "get_time", {})] } },
    { reply: { content: [text("it is noon")] } },
  );
  const session = await createSession(who, {
    input: "what time is it?",
    model: model.key,
    tools: [{ type: "builtin", name: "get_time" }],
    metadata: { case: "fork" },
  });
  return waitForStatus(who, session.id, ["done"]);
}

async function fork(who: Caller, id: string, body: Record<string, unknown>): Promise<Response> {
  return callJson(`/v1/sessions/${id}/fork`, "POST", body, who.headers);
}

/** The source as every read shows it, as text: compared before and after, byte for byte. */
async function snapshot(who: Caller, id: string): Promise<string> {
  const parts = await Promise.all(
    [`/v1/sessions/${id}`, `/v1/sessions/${id}/messages?limit=200`, `/v1/sessions/${id}/tool-calls`, `/v1/sessions/${id}/steps`].map(
      async (path) => (await call(path, { headers: who.headers })).text(),
    ),
  );
  return parts.join("\n");
}

describe("POST /v1/sessions/{id}/fork", () => {
  it("copies the messages and tool calls up to every seq that ends a whole exchange, and leaves the source as it was", async () => {
    const who = await caller();
    const source = await toolUsing(who);
    const before = await snapshot(who, source.id);
    const all = await messagesOf(who, source.id);
    const calls = await toolCallsOf(who, source.id);
    expect(all.map((message) => message.seq)).toEqual([1, 2, 3, 4]);

    for (const at of [0, 1, 3, 4]) {
      const res = await fork(who, source.id, { at_seq: at });
      expect(res.status, `at ${at}`).toBe(201);
      const copy = (await res.json()) as Session;
      expect(res.headers.get("Location")).toBe(`/v1/sessions/${copy.id}`);
      expect(copy).toMatchObject({
        status: "idle",
        forked_from: { session_id: source.id, seq: at },
        model: source.model,
        tools: source.tools,
        metadata: { case: "fork" },
        created_by: who.subject,
      });
      expect(copy.usage.steps).toBe(0);
      const copied = await messagesOf(who, copy.id);
      expect(copied, `at ${at}`).toEqual(all.filter((message: Message) => message.seq <= at));
      const copiedCalls = await toolCallsOf(who, copy.id);
      expect(copiedCalls, `at ${at}`).toEqual(calls.filter((_call: ToolCall) => at >= 3));
    }
    const whole = (await (await fork(who, source.id, {})).json()) as Session;
    expect(whole.forked_from).toEqual({ session_id: source.id, seq: 4 });
    expect(await snapshot(who, source.id)).toBe(before);
  });

  it("refuses a seq between a call and its result, or after the last message, at body.at_seq", async () => {
    const who = await caller();
    const source = await toolUsing(who);
    for (const [at, detail] of [
      [2, "Message 2 asks for tool calls whose results come after it: fork at the result, or before the call."],
      [5, "at_seq 5 is after the session's last message (4)."],
    ] as const) {
      const res = await fork(who, source.id, { at_seq: at });
      expect(res.status).toBe(400);
      expect((await readProblem(res)).errors).toEqual([{ path: "body.at_seq", message: detail }]);
    }
    for (const body of [{ at_seq: -1 }, { at_seq: 1.5 }, { at_seq: "2" }, { extra: true }]) {
      expect((await fork(who, source.id, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it("edits a message and runs again: a fork at the seq before it, with the new text, runs on what came before", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [text("Paris")] } },
      { reply: { content: [text("about 2.1 million")] } },
      { reply: { content: [text("about 67 million")] } },
    );
    const session = await createSession(who, { input: "capital of France?", model: model.key });
    await waitForStatus(who, session.id, ["done"]);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: "its population?" })).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);

    // Edit message 3 ("its population?"): fork at 2 with the edited text.
    const res = await fork(who, session.id, { at_seq: 2, input: "the population of France?" });
    expect(res.status).toBe(201);
    const edited = await waitForStatus(who, ((await res.json()) as Session).id, ["done"]);
    const texts = (await messagesOf(who, edited.id)).map((message) => [message.seq, (message.content[0] as { text: string }).text]);
    expect(texts).toEqual([
      [1, "capital of France?"],
      [2, "Paris"],
      [3, "the population of France?"],
      [4, "about 67 million"],
    ]);
    const requests = await model.requests();
    const last = requests[requests.length - 1]!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(last.messages)).toContain("capital of France?");
    expect(JSON.stringify(last.messages)).not.toContain("its population?");
    expect((await messagesOf(who, session.id)).map((message) => message.seq)).toEqual([1, 2, 3, 4]);
  });

  it("keeps the source's agent version, and the fork is the caller's", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "forked-agent", system: "v1" });
    const session = await createSession(who, { agent: agent.id });
    const res = await fork(who, session.id, { metadata: { branch: "b" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      agent: { id: agent.id, version: 1 },
      system: "v1",
      metadata: { branch: "b" },
      forked_from: { session_id: session.id, seq: 0 },
    });
  });

  it("refuses what a creation would refuse now: an archived agent's session, a model the tenant dropped, a memory grant without the scopes", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "soon-archived" });
    const fromAgent = await createSession(who, { agent: agent.id });
    expect((await call(`/v1/agents/${agent.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    const archived = await fork(who, fromAgent.id, {});
    expect(archived.status).toBe(409);
    expect((await readProblem(archived)).detail).toContain("archived");

    const plain = await createSession(who, { model: "claude-haiku-4-5" });
    await tenantIndexStub(env, who.tenantId).setAllowedModels(who.tenantId, ["claude-sonnet-4-5"]);
    const dropped = await fork(who, plain.id, {});
    expect(dropped.status).toBe(400);
    expect((await readProblem(dropped)).errors).toEqual([
      { path: "body", message: 'The source\'s model "claude-haiku-4-5" is no longer available to this tenant.' },
    ]);

    const tenant = freshTenant();
    const keeper = await caller(tenant, ["sessions:read", "sessions:write", "memory:read"], "keeper");
    const withMemory = await createSession(keeper, { memory: { namespaces: [["team"]] } });
    const narrowed = await caller(tenant, ["sessions:read", "sessions:write"], "keeper");
    expect((await fork(narrowed, withMemory.id, {})).status).toBe(403);
    expect((await fork(keeper, withMemory.id, {})).status).toBe(201);
  });

  it("answers 404 for another tenant's session and, without tenant:admin, for another user's", async () => {
    const who = await caller();
    const source = await toolUsing(who);
    const stranger = await caller();
    expect((await fork(stranger, source.id, {})).status).toBe(404);
    const colleague = await caller(who.tenantId, ["sessions:read", "sessions:write"], "user-2");
    expect((await fork(colleague, source.id, {})).status).toBe(404);
    const admin = await caller(who.tenantId, ["tenant:admin"], "admin-1");
    const res = await fork(admin, source.id, { at_seq: 4 });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Session).created_by).toBe("admin-1");
    expect((await fork(who, "ses_not_a_real_one", {})).status).toBe(404);
    expect((await getJson<Session>(who, `/v1/sessions/${source.id}`)).forked_from).toBeNull();
  });
});
