/** Tool calls driven entirely through the public API: approvals, client tools and signed webhooks. */
import { describe, expect, it } from "vitest";
import type { Session } from "../../../src/session-config/types";
import { call, callJson, readProblem } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, getJson, messagesOf, OBJECT_SCHEMA, post, text, toolCallsOf, toolUse, waitForStatus } from "./helpers";

interface SentToolResult {
  type: string;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
}

/** The tool_result blocks of the last request the model received. */
async function lastToolResults(model: ReturnType<typeof mockModel>): Promise<SentToolResult[]> {
  const body = (await model.requests()).at(-1)!.body as { messages: { content: SentToolResult[] | string }[] };
  const content = body.messages.at(-1)!.content;
  return typeof content === "string" ? [] : content.filter((block) => block.type === "tool_result");
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Verifies a webhook signature the way a tenant's backend would, independently of the platform's code. */
async function expectedSignature(secret: string, timestamp: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `v1=${hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`)))}`;
}

/** A receiver as the README tells tenants to write one: any `v1=` entry that matches, compared in constant time. */
async function receiverAccepts(secret: string, header: string, timestamp: string, body: string): Promise<boolean> {
  const expected = new TextEncoder().encode(await expectedSignature(secret, timestamp, body));
  return header.split(",").some((entry) => {
    const given = new TextEncoder().encode(entry.trim());
    return given.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(given, expected);
  });
}

/** Runs one webhook call through a session of `who` and returns what the receiver got. */
async function oneWebhookCall(who: Awaited<ReturnType<typeof caller>>, writeUrl: (url: string) => string = (url) => url) {
  const model = mockModel(uniqueKey("model"));
  const hook = mockHook(uniqueKey("hook"));
  await hook.script({ status: 200, body: { output: "ok" } });
  await model.script({ reply: { content: [toolUse("toolu_hook", "lookup", { order: 7 })] } }, { reply: { content: [text("done")] } });
  const session = await createSession(who, {
    input: "go",
    model: model.key,
    tools: [{ type: "webhook", name: "lookup", description: "Look up an order", input_schema: OBJECT_SCHEMA, url: writeUrl(hook.url) }],
  });
  await waitForStatus(who, session.id, ["done"]);
  return { session, hook, received: (await hook.requests())[0], calls: await toolCallsOf(who, session.id) };
}

describe("approval", () => {
  it("runs an approved call and finishes the run", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_time", "get_time", {})] } }, { reply: { content: [text("it is now")] } });
    const session = await createSession(who, {
      input: "what time is it?",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(who, session.id, ["waiting_approval"]);
    expect(await toolCallsOf(who, session.id)).toEqual([
      expect.objectContaining({ id: "toolu_time", name: "get_time", status: "waiting_approval", output: null }),
    ]);

    const res = await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_time/approve`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Session).id).toBe(session.id);
    await waitForStatus(who, session.id, ["done"]);
    const [done] = await toolCallsOf(who, session.id);
    expect(done).toMatchObject({ status: "done", is_error: false, output: expect.any(String) });
    expect(await lastToolResults(model)).toEqual([expect.objectContaining({ tool_use_id: "toolu_time", content: done!.output })]);

    // Deciding the same call twice is a state conflict, not a second run.
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_time/approve`)).status).toBe(409);
  });

  it("tells the model about a denied call, with the reason", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_x", "get_time", {})] } }, { reply: { content: [text("understood")] } });
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(who, session.id, ["waiting_approval"]);
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_x/deny`, { reason: "not now" })).status).toBe(200);
    await waitForStatus(who, session.id, ["done"]);
    expect(await lastToolResults(model)).toEqual([
      { type: "tool_result", tool_use_id: "toolu_x", content: "denied by a reviewer: not now", is_error: true },
    ]);
  });

  it("denies without a body", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_y", "get_time", {})] } });
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(who, session.id, ["waiting_approval"]);
    expect((await call(`/v1/sessions/${session.id}/tool-calls/toolu_y/deny`, { method: "POST", headers: who.headers })).status).toBe(200);
    expect((await toolCallsOf(who, session.id))[0]).toMatchObject({ status: "error", output: "denied by a reviewer" });
  });

  it("answers 404 for an unknown or malformed call id", async () => {
    const who = await caller();
    const session = await createSession(who);
    for (const callId of ["toolu_nope", "bad.id"]) {
      const res = await post(who, `/v1/sessions/${session.id}/tool-calls/${callId}/approve`);
      expect(res.status).toBe(404);
      expect((await readProblem(res)).detail).toMatch(/tool call/i);
    }
  });
});

describe("client tools", () => {
  it("waits for the caller's output and hands it to the model", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUse("toolu_ask", "ask_user", { question: "color?" })] } },
      { reply: { content: [text("blue it is")] } },
    );
    const session = await createSession(who, {
      input: "pick a color",
      model: model.key,
      tools: [{ type: "client", name: "ask_user", description: "Ask the user a question", input_schema: OBJECT_SCHEMA }],
    });
    await waitForStatus(who, session.id, ["waiting_tool_output"]);
    expect((await toolCallsOf(who, session.id))[0]).toMatchObject({
      id: "toolu_ask",
      status: "waiting_tool_output",
      input: { question: "color?" },
    });

    // Approval is for calls waiting for approval; this one waits for output.
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_ask/approve`)).status).toBe(409);
    const res = await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_ask/output`, { output: "blue" });
    expect(res.status).toBe(200);
    await waitForStatus(who, session.id, ["done"]);
    expect(await lastToolResults(model)).toEqual([expect.objectContaining({ tool_use_id: "toolu_ask", content: "blue" })]);
    expect((await messagesOf(who, session.id)).at(-1)!.content).toEqual([text("blue it is")]);
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_ask/output`, { output: "again" })).status).toBe(409);
  });

  it("passes is_error through to the model", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_e", "ask_user", {})] } });
    const session = await createSession(who, {
      input: "go",
      model: model.key,
      tools: [{ type: "client", name: "ask_user", description: "d", input_schema: OBJECT_SCHEMA }],
    });
    await waitForStatus(who, session.id, ["waiting_tool_output"]);
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_e/output`, { output: "user left", is_error: true })).status).toBe(
      200,
    );
    await waitForStatus(who, session.id, ["done"]);
    expect(await lastToolResults(model)).toEqual([
      expect.objectContaining({ tool_use_id: "toolu_e", content: "user left", is_error: true }),
    ]);
  });

  it("refuses an output body without output", async () => {
    const who = await caller();
    const session = await createSession(who);
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_1/output`, { is_error: true })).status).toBe(400);
  });
});

describe("webhook tools", () => {
  it("signs each call with the tenant's secret and keys it by session and call", async () => {
    const tenantAdmin = await caller(undefined, ["tenant:admin"]);
    const model = mockModel(uniqueKey("model"));
    const hook = mockHook(uniqueKey("hook"));
    await hook.script({ status: 200, body: { output: "order 7 shipped" } });
    await model.script({ reply: { content: [toolUse("toolu_hook", "lookup", { order: 7 })] } }, { reply: { content: [text("shipped")] } });
    const session = await createSession(tenantAdmin, {
      input: "where is order 7?",
      model: model.key,
      tools: [{ type: "webhook", name: "lookup", description: "Look up an order", input_schema: OBJECT_SCHEMA, url: hook.url }],
    });
    await waitForStatus(tenantAdmin, session.id, ["done"]);

    const [received] = await hook.requests();
    const { secret } = await getJson<{ secret: string }>(tenantAdmin, "/v1/tenant/webhook-secret");
    const timestamp = received!.headers["x-webhook-timestamp"]!;
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(received!.headers["x-webhook-signature"]).toBe(await expectedSignature(secret, timestamp, received!.body_text));
    expect(received!.headers["x-webhook-signature"]).not.toBe(await expectedSignature(`${secret}x`, timestamp, received!.body_text));
    expect(received!.headers["idempotency-key"]).toBe(`${session.id}:toolu_hook`);
    expect(received!.body).toEqual({
      tenant_id: tenantAdmin.tenantId,
      session_id: session.id,
      created_by: tenantAdmin.subject,
      tool_call_id: "toolu_hook",
      name: "lookup",
      url: hook.url,
      input: { order: 7 },
    });
    expect(await lastToolResults(model)).toEqual([expect.objectContaining({ tool_use_id: "toolu_hook", content: "order 7 shipped" })]);
  });

  it("stores and echoes the URL as the parser reads it, and calls it", async () => {
    const who = await caller();
    const { session, hook, received } = await oneWebhookCall(who, (url) => " " + url.replace(/^http:\/\//, "HTTP://"));
    const tool = session.tools[0]!;
    expect(tool.type === "webhook" && tool.url).toBe(hook.url);
    expect(received!.body).toMatchObject({ url: hook.url });
  });
});

describe("webhook secret rotation", () => {
  it("signs with the new and the old secret during the grace period, newest first", async () => {
    const admin = await caller(undefined, ["tenant:admin"]);
    const before = await getJson<{ secret: string; previous_expires_at: string | null }>(admin, "/v1/tenant/webhook-secret");
    expect(before.previous_expires_at).toBeNull();
    const rotated = (await (await post(admin, "/v1/tenant/webhook-secret")).json()) as { secret: string; previous_expires_at: string };
    const graceHours = (Date.parse(rotated.previous_expires_at) - Date.now()) / 3_600_000;
    expect(graceHours).toBeGreaterThan(23.9);
    expect(graceHours).toBeLessThanOrEqual(24);

    const { received } = await oneWebhookCall(admin);
    const header = received!.headers["x-webhook-signature"]!;
    const timestamp = received!.headers["x-webhook-timestamp"]!;
    const body = received!.body_text;
    expect(header).toBe(
      `${await expectedSignature(rotated.secret, timestamp, body)},${await expectedSignature(before.secret, timestamp, body)}`,
    );
    expect(await receiverAccepts(before.secret, header, timestamp, body)).toBe(true); // knows only the old one
    expect(await receiverAccepts(rotated.secret, header, timestamp, body)).toBe(true); // knows only the new one
    expect(await receiverAccepts(`whsec_${"A".repeat(43)}`, header, timestamp, body)).toBe(false); // knows neither
  });

  it("signs with the current secret alone when there was no rotation", async () => {
    const admin = await caller(undefined, ["tenant:admin"]);
    const { received } = await oneWebhookCall(admin);
    expect(received!.headers["x-webhook-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
  });
});

describe("tenant webhook origins", () => {
  it("refuses at creation a webhook outside the allowed origins, and accepts one inside", async () => {
    const admin = await caller(undefined, ["tenant:admin"]);
    const hook = mockHook(uniqueKey("hook"));
    const res = await callJson("/v1/tenant/settings", "PUT", { webhook_origins: [new URL(hook.url).origin.toUpperCase()] }, admin.headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      webhook_origins: [new URL(hook.url).origin],
      session_retention_days: null,
      traces: null,
      redaction: null,
    });

    const writer = await caller(admin.tenantId);
    const tool = (url: string) => ({ type: "webhook", name: "lookup", description: "d", input_schema: OBJECT_SCHEMA, url });
    const outside = await callJson("/v1/sessions", "POST", { tools: [tool("http://127.0.0.2:9/hook")] }, writer.headers);
    expect(outside.status).toBe(400);
    expect((await readProblem(outside)).errors).toEqual([
      { path: "body.tools.0.url", message: expect.stringContaining("webhook_origins") },
    ]);
    expect((await callJson("/v1/sessions", "POST", { tools: [tool(hook.url)] }, writer.headers)).status).toBe(201);
  });

  it("checks again at call time, so narrowing the list stops calls of existing sessions", async () => {
    const admin = await caller(undefined, ["tenant:admin"]);
    const model = mockModel(uniqueKey("model"));
    const hook = mockHook(uniqueKey("hook"));
    await model.script({ reply: { content: [toolUse("toolu_hook", "lookup", {})] } }, { reply: { content: [text("done")] } });
    const session = await createSession(admin, {
      model: model.key,
      tools: [{ type: "webhook", name: "lookup", description: "d", input_schema: OBJECT_SCHEMA, url: hook.url }],
    });
    expect((await callJson("/v1/tenant/settings", "PUT", { webhook_origins: ["https://hooks.example.com"] }, admin.headers)).status).toBe(
      200,
    );
    expect((await post(admin, `/v1/sessions/${session.id}/messages`, { input: "go" })).status).toBe(202);
    await waitForStatus(admin, session.id, ["done"]);
    expect(await hook.requests()).toHaveLength(0);
    expect((await toolCallsOf(admin, session.id))[0]).toMatchObject({
      is_error: true,
      output: expect.stringContaining("not in the tenant's webhook_origins"),
    });
  });
});

describe("listing tool calls", () => {
  it("pages with limit and cursor in call order, like every other list", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const calls = (ids: string[]) => ({ reply: { content: ids.map((id) => toolUse(id, "get_time", {})) } });
    // Two model responses, so the order spans messages as well as places within one message.
    await model.script(calls(["toolu_a", "toolu_b", "toolu_c"]), calls(["toolu_d", "toolu_e"]), { reply: { content: [text("done")] } });
    const session = await createSession(who, { input: "go", model: model.key, tools: [{ type: "builtin", name: "get_time" }] });
    await waitForStatus(who, session.id, ["done"]);

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const query: string = cursor === null ? "limit=2" : `limit=2&cursor=${encodeURIComponent(cursor)}`;
      const body: { data: { id: string }[]; next_cursor: string | null } = await getJson(
        who,
        `/v1/sessions/${session.id}/tool-calls?${query}`,
      );
      expect(body.data.length).toBeLessThanOrEqual(2);
      seen.push(...body.data.map((c) => c.id));
      cursor = body.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(["toolu_a", "toolu_b", "toolu_c", "toolu_d", "toolu_e"]);
    expect((await toolCallsOf(who, session.id)).map((c) => c.id)).toEqual(seen);
  });

  it("answers 400, not a 500, for a cursor it did not make", async () => {
    const who = await caller();
    const session = await createSession(who);
    for (const cursor of ["nope", "Wy0xLDJd", "WyJhIiwxXQ"]) {
      const res = await call(`/v1/sessions/${session.id}/tool-calls?cursor=${cursor}`, { headers: who.headers });
      expect(res.status, cursor).toBe(400);
      expect((await readProblem(res)).code).toBe("validation_failed");
    }
  });
});
