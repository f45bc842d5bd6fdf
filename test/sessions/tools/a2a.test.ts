/**
 * `a2a` tools in the loop, against a real A2A agent (`@a2a-js/sdk`'s server, test/support/node/a2a-server.ts):
 * a completed, a failed and an input-required task, at most once across a crash, and the vault
 * credential sent only where it is allowed.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { vaultStub } from "../../../src/objects";
import { A2A_TASK_PREFIX, type RemoteTask } from "../../../src/sessions/object/store/remote-tasks";
import { A2A_MAX_ID_CHARS, readAnswer } from "../../../src/sessions/object/tools/a2a/protocol";
import type { A2aToolSpec } from "../../../src/session-config/types";
import type { PutCredential } from "../../../src/vault/types";
import { uniqueKey } from "../../support/mock-client";
import { createAndStart, newTestSession, toolCalls, unwrap, waitForStatus, type TestSession } from "../../support/agent-session";
import type { RecordedA2aRequest } from "../../support/node/a2a-server";

const toolUse = (id: string, message: string) => ({ type: "tool_use", id, name: "remote", input: { message } });
const text = (t: string) => ({ type: "text", text: t });
const SECRET = "a2a-secret-token-0123456789";

/** One key of the test agent: its card, what it received, and the release of held messages. */
function remoteAgent(prefix: string, card = "card.json") {
  const base = `${inject("a2aUrl")}/a2a/${uniqueKey(prefix)}`;
  return {
    origin: new URL(base).origin,
    tool: (extra: Partial<A2aToolSpec> = {}): A2aToolSpec => ({
      type: "a2a",
      name: "remote",
      description: "a remote agent",
      agent_card_url: `${base}/${card}`,
      ...extra,
    }),
    all: async (): Promise<RecordedA2aRequest[]> => (await fetch(`${base}/requests`)).json(),
    async requests(): Promise<RecordedA2aRequest[]> {
      return (await this.all()).filter((r) => r.method !== "card");
    },
    release: async () => void (await fetch(`${base}/release`, { method: "POST" })),
    async waitForRequests(n: number): Promise<void> {
      for (let i = 0; i < 500; i++) {
        if ((await this.requests()).length >= n) return;
        await scheduler.wait(20);
      }
      throw new Error(`the agent did not get ${n} requests`);
    },
  };
}

/** The tool_result blocks the model was sent in its last request. */
async function lastToolResults(t: TestSession) {
  const body = (await t.model.requests()).at(-1)!.body as { messages: { content: { type: string; content?: string }[] }[] };
  return body.messages.at(-1)!.content.filter((b) => b.type === "tool_result");
}

/** The session's remote tasks, by tool call id (one key each). */
const remoteTasks = (t: TestSession) =>
  runInDurableObject(t.stub, (_instance, state) => {
    const entries = [...state.storage.kv.list<RemoteTask>({ prefix: A2A_TASK_PREFIX })];
    return Object.fromEntries(entries.map(([key, task]) => [key.slice(A2A_TASK_PREFIX.length), task]));
  });

const sentText = (request: RecordedA2aRequest) =>
  (request.body as { params: { message: { parts: { text: string }[]; taskId?: string; messageId: string } } }).params.message;

describe("an a2a tool", () => {
  it("sends message/send to the endpoint the card names and gives the completed task's artifacts to the model", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-done");
    await t.model.script({ reply: { content: [toolUse("toolu_a", "hello")] } }, { reply: { content: [text("it said hello")] } });
    await createAndStart(t, "ask it", { tools: [agent.tool()] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", is_error: false, output: "echo: hello" });
    expect(await lastToolResults(t)).toEqual([{ type: "tool_result", tool_use_id: "toolu_a", content: "echo: hello" }]);
    const [sent] = await agent.requests();
    expect(sent!.method).toBe("message/send");
    expect(sentText(sent!)).toMatchObject({ role: "user", messageId: `${t.sessionId}:toolu_a`, parts: [{ kind: "text", text: "hello" }] });
  });

  it("reads a 0.3 card's url as well", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-legacy", "legacy-card.json");
    await t.model.script({ reply: { content: [toolUse("toolu_l", "hi")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "ask it", { tools: [agent.tool()] });
    await waitForStatus(t, ["done", "failed"]);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "echo: hi" });
  });

  it("gives a failed task to the model as an error result, with the remote's reason", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-fail");
    await t.model.script({ reply: { content: [toolUse("toolu_f", "fail")] } }, { reply: { content: [text("it failed")] } });
    await createAndStart(t, "ask it", { tools: [agent.tool()] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect((await toolCalls(t))[0]).toMatchObject({
      status: "error",
      is_error: true,
      output: "the remote task ended failed: cannot do that",
    });
  });

  it("waits for the output of a task that asks for input, then sends the answer on that task", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-ask");
    await t.model.script({ reply: { content: [toolUse("toolu_q", "ask")] } }, { reply: { content: [text("sunny in Paris")] } });
    await createAndStart(t, "weather?", { tools: [agent.tool()] });
    await waitForStatus(t, ["waiting_tool_output"]);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "waiting_tool_output", output: "Which city?", is_error: false });

    unwrap(await t.stub.submitToolOutput("toolu_q", "Paris", false));
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: 'weather in Paris: sunny\n{"city":"Paris"}' });
    const [first, second] = await agent.requests();
    const answer = sentText(second!);
    expect(answer).toMatchObject({ parts: [{ kind: "text", text: "Paris" }], messageId: `${t.sessionId}:toolu_q:2` });
    expect(answer.taskId).toBeTruthy();
    expect(first).toBeDefined();
    expect(await t.stub.submitToolOutput("toolu_q", "again", false)).toMatchObject({ ok: false, reason: "tool_call_not_waiting" });
    expect(await remoteTasks(t)).toEqual({});
  });

  it("keeps each waiting call's answer under its own key, cut to max_tool_output_chars", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-big");
    await t.model.script(
      { reply: { content: [toolUse("toolu_x", "ask"), toolUse("toolu_y", "ask")] } },
      { reply: { content: [text("ok")] } },
    );
    await createAndStart(t, "weather?", { tools: [agent.tool()] });
    await waitForStatus(t, ["waiting_tool_output"]);
    expect(Object.keys(await remoteTasks(t)).sort()).toEqual(["toolu_x", "toolu_y"]);
    const huge = "x".repeat(3 * 1024 * 1024);
    // A 3 MiB answer: stored whole it would pass a value's 2 MiB limit and fail the request.
    unwrap(await t.stub.submitToolOutput("toolu_x", huge, false));
    const kept = (await remoteTasks(t))["toolu_x"]!;
    expect(kept.answer!.length).toBeLessThanOrEqual(8000);
    expect(kept.answer).toContain("[output cut: 3145728 characters, limit 8000]");
  });

  it("refuses a remote task whose ids are over the bound", () => {
    const long = "t".repeat(A2A_MAX_ID_CHARS + 1);
    const answer = (id: string, contextId: string) =>
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: { kind: "task", id, contextId, status: { state: "input-required" } } });
    expect(readAnswer(answer(long, "c")).kind).toBe("invalid");
    expect(readAnswer(answer("t", long)).kind).toBe("invalid");
    expect(readAnswer(answer("t", "c")).kind).toBe("input_required");
  });

  it("keeps no remote task of a call a cancel closed while it waited", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-cancel");
    await t.model.script({ reply: { content: [toolUse("toolu_1", "ask")] } });
    await createAndStart(t, "weather?", { tools: [agent.tool()] });
    await waitForStatus(t, ["waiting_tool_output"]);
    expect(Object.keys(await remoteTasks(t))).toEqual(["toolu_1"]);
    unwrap(await t.stub.cancel());
    // Gone with the call itself, not at some later call's write.
    expect(await remoteTasks(t)).toEqual({});
  });

  it("keeps the remote task before it waits, so a crash mid-wait asks after it instead of sending again", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-once");
    await t.model.script({ reply: { content: [toolUse("toolu_o", "hold once")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [agent.tool()] });
    await agent.waitForRequests(2);
    expect((await toolCalls(t))[0]!.status).toBe("running");
    expect((await remoteTasks(t))["toolu_o"]).toMatchObject({ polling: true, turns: 1 });
    await abortAllDurableObjects();
    await agent.release();
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "released: hold once" });
    const sends = (await agent.requests()).filter((r) => r.method === "message/send");
    expect(sends.map((r) => sentText(r).messageId)).toEqual([`${t.sessionId}:toolu_o`]);
    expect(await remoteTasks(t)).toEqual({});
  });

  it("cancels the remote task of a call the session's cancel stops while it waits", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-stop");
    await t.model.script({ reply: { content: [toolUse("toolu_s", "hold stop")] } });
    await createAndStart(t, "go", { tools: [agent.tool()] });
    await agent.waitForRequests(2);
    unwrap(await t.stub.cancel());
    for (let i = 0; i < 250 && !(await agent.requests()).some((r) => r.method === "tasks/cancel"); i++) await scheduler.wait(20);
    const cancel = (await agent.requests()).find((r) => r.method === "tasks/cancel");
    const sent = (await agent.requests()).find((r) => r.method === "message/send");
    expect(cancel).toBeDefined();
    expect(sentText(sent!)).toMatchObject({ messageId: `${t.sessionId}:toolu_s` });
    expect(await remoteTasks(t)).toEqual({});
    await agent.release();
  });
});

describe("an a2a tool's credential", () => {
  const put = (tenant: string, allowedOrigins: string[]): PutCredential => ({
    subject: null,
    name: "partner",
    type: "bearer",
    header: "authorization",
    secrets: { value: SECRET },
    expiresAt: null,
    tokenUrl: null,
    clientId: null,
    allowedOrigins,
    max: 50,
    now: Date.now(),
  });

  it("goes to the card and the endpoint of an allowed origin, and appears in no result", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-cred");
    expect((await vaultStub(env, t.tenantId).put(t.tenantId, put(t.tenantId, [agent.origin]))).ok).toBe(true);
    await t.model.script({ reply: { content: [toolUse("toolu_c", "with key")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [agent.tool({ auth: { credential: "partner" } })] });
    await waitForStatus(t, ["done", "failed"]);
    expect((await agent.all()).map((r) => [r.method, r.authorization])).toEqual([
      ["card", `Bearer ${SECRET}`],
      ["message/send", `Bearer ${SECRET}`],
    ]);
    expect(JSON.stringify(await toolCalls(t))).not.toContain("a2a-secret-token");
  });

  it("is not sent to an origin its allowed_origins does not list", async () => {
    const t = newTestSession();
    const agent = remoteAgent("a2a-nocred");
    expect((await vaultStub(env, t.tenantId).put(t.tenantId, put(t.tenantId, ["https://partner.example.com"]))).ok).toBe(true);
    await t.model.script({ reply: { content: [toolUse("toolu_n", "no key")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [agent.tool({ auth: { credential: "partner" } })] });
    await waitForStatus(t, ["done", "failed"]);
    expect((await agent.all()).map((r) => r.authorization)).toEqual([null, null]);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "echo: no key" });
  });
});
