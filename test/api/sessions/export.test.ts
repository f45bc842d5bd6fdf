/**
 * `GET /v1/sessions/{id}/export`: one JSON document equal to what the session's own routes show,
 * page by page; a 1,000-step session exported whole; another tenant's or user's session 404; a
 * failure after the first bytes cuts the body off.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EXPORT_FORMAT, EXPORT_PAGE_CHARS, exportChunks, toByteStream } from "../../../src/sessions/export";
import { SessionClient } from "../../../src/sessions/client";
import type { Message, Session, Step, ToolCall } from "../../../src/session-config/types";
import { tenantIndexStub } from "../../../src/objects";
import { call, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { type Caller, caller, createSession, getJson, post, text, toolUse, waitForStatus } from "./helpers";

interface Export {
  format: string;
  exported_at: string;
  session: Session;
  messages: Message[];
  tool_calls: ToolCall[];
  steps: Step[];
}

async function exported(who: Caller, id: string): Promise<{ res: Response; doc: Export; bytes: number }> {
  const res = await call(`/v1/sessions/${id}/export`, { headers: who.headers });
  expect(res.status).toBe(200);
  const body = await res.text();
  return { res, doc: JSON.parse(body) as Export, bytes: body.length };
}

async function everyPage<T>(who: Caller, path: string, limit = 7): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: T[]; next_cursor: string | null } = await getJson(
      who,
      `${path}?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`,
    );
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

describe("session export", () => {
  it("is the session, its messages, tool calls with their decisions, and steps, as their routes show them", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUse("toolu_time", "get_time"), toolUse("toolu_ask", "ask")] } },
      { reply: { content: [text("Done.")] } },
    );
    const session = await createSession(who, {
      input: "What time is it? Then ask.",
      model: model.key,
      metadata: { customer: "c_1" },
      tools: [
        { type: "builtin", name: "get_time" },
        { type: "client", name: "ask", description: "Asks.", input_schema: { type: "object" }, requires_approval: true },
      ],
    });
    await waitForStatus(who, session.id, ["waiting_approval"]);
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_ask/approve`)).status).toBe(200);
    await waitForStatus(who, session.id, ["waiting_tool_output"]);
    expect((await post(who, `/v1/sessions/${session.id}/tool-calls/toolu_ask/output`, { output: "yes" })).status).toBe(200);
    const done = await waitForStatus(who, session.id, ["done"]);

    const { res, doc } = await exported(who, session.id);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${session.id}.json"`);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    expect(doc.format).toBe(EXPORT_FORMAT);
    expect(Date.parse(doc.exported_at)).toBeGreaterThan(Date.parse(done.created_at) - 1);
    expect(doc.session).toEqual(done);
    expect(doc.messages).toEqual(await everyPage<Message>(who, `/v1/sessions/${session.id}/messages`));
    expect(doc.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(doc.tool_calls).toEqual(await everyPage<ToolCall>(who, `/v1/sessions/${session.id}/tool-calls`));
    expect(doc.tool_calls.find((c) => c.id === "toolu_ask")).toMatchObject({ decision: "approved", decided_by: "user-1", output: "yes" });
    expect(doc.steps).toEqual(await everyPage<Step>(who, `/v1/sessions/${session.id}/steps`));
    expect(doc.steps.length).toBeGreaterThanOrEqual(3);
  });

  it("answers 404 for another tenant's session and, without tenant:admin, for another user's; the tenant admin exports it", async () => {
    const tenant = freshTenant();
    const owner = await caller(tenant, ["sessions:read", "sessions:write"], "owner");
    const session = await createSession(owner, {});
    expect((await call(`/v1/sessions/${session.id}/export`, { headers: (await caller()).headers })).status).toBe(404);
    expect(
      (await call(`/v1/sessions/${session.id}/export`, { headers: (await caller(tenant, ["sessions:read"], "colleague")).headers })).status,
    ).toBe(404);
    expect(
      (await call(`/v1/sessions/${session.id}/export`, { headers: (await caller(tenant, ["sessions:write"], "owner")).headers })).status,
    ).toBe(403);
    const admin = await exported(await caller(tenant, ["tenant:admin"], "admin"), session.id);
    expect(admin.doc).toMatchObject({ session: { id: session.id }, messages: [], tool_calls: [], steps: [] });
    expect((await call("/v1/sessions/ses_nope/export", { headers: owner.headers })).status).toBe(404);
  });

  it("is refused past the tenant's exports_per_minute with 429 and Retry-After, for every caller of the tenant", async () => {
    const tenant = freshTenant();
    const owner = await caller(tenant, ["sessions:read", "sessions:write"], "owner");
    await tenantIndexStub(env, owner.tenantId).setLimitOverrides(owner.tenantId, { exports_per_minute: 2 });
    const session = await createSession(owner, {});
    for (let i = 0; i < 2; i++) await exported(owner, session.id);
    const res = await call(`/v1/sessions/${session.id}/export`, { headers: owner.headers });
    expect(res.status).toBe(429);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/problem\+json/);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get("RateLimit")).toMatch(/exports/);
    expect((await readProblem(res)).detail).toMatch(/exports_per_minute/);
    // The window is the tenant's: its admin is refused too, while its other requests go on.
    const admin = await caller(tenant, ["tenant:admin"], "admin");
    expect((await call(`/v1/sessions/${session.id}/export`, { headers: admin.headers })).status).toBe(429);
    expect((await call(`/v1/sessions/${session.id}`, { headers: owner.headers })).status).toBe(200);
    // Another tenant is untouched.
    const other = await caller();
    await exported(other, (await createSession(other, {})).id);
  });

  it("exports a session of 1,000 steps whole", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, {
      max_steps_per_run: 1000,
      max_tokens_per_session: 10_000_000,
      requests_per_minute: 100_000,
    });
    const model = mockModel(uniqueKey("model"));
    await model.script(...Array.from({ length: 999 }, (_, i) => ({ reply: { content: [toolUse(`toolu_${i}`, "get_time")] } })), {
      reply: { content: [text("That was a lot of time.")] },
    });
    const session = await createSession(who, {
      input: "Read the clock 999 times.",
      model: model.key,
      limits: { max_steps_per_run: 1000 },
      tools: [{ type: "builtin", name: "get_time" }],
    });
    // A wait, not a speed bound: 1,000 steps take ~30 s alone and several times that beside a CPU hog.
    const done = await waitForStatus(who, session.id, ["done", "failed"], 400_000);
    expect(done, done.error ?? "").toMatchObject({ status: "done", usage: { steps: 1000 } });

    const started = Date.now();
    const { doc, bytes } = await exported(who, session.id);
    console.log(`export of 1,000 steps: ${bytes} bytes in ${Date.now() - started} ms`);
    expect(doc.messages).toHaveLength(2000);
    expect(doc.messages.map((m) => m.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    expect(doc.tool_calls).toHaveLength(999);
    expect(new Set(doc.tool_calls.map((c) => c.id)).size).toBe(999);
    // The object keeps about its newest 1,000 steps (pruned in batches); the export has each kept one once.
    expect(doc.steps).toEqual(await everyPage<Step>(who, `/v1/sessions/${session.id}/steps`, 200));
    expect(doc.steps.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(doc.steps.map((s) => s.seq)).size).toBe(doc.steps.length);
  }, 420_000);
});

describe("the export's pages", () => {
  it("are bounded in size: a session of large messages is read one bounded page at a time, the document unchanged", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const big = (letter: string) => letter.repeat(190_000);
    await model.script({ reply: { content: [text(big("a"))] } }, { reply: { content: [text(big("b"))] } });
    const session = await createSession(who, { input: big("x"), model: model.key });
    await waitForStatus(who, session.id, ["done"]);
    expect((await post(who, `/v1/sessions/${session.id}/messages`, { input: big("y") })).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);

    const client = new SessionClient(env, who.tenantId, session.id);
    const pages: number[] = [];
    const recording = {
      listMessages: async (after: number, limit: number, maxChars?: number) => {
        const page = await client.listMessages(after, limit, maxChars);
        pages.push(JSON.stringify(page.data).length);
        return page;
      },
      listToolCalls: (cursor: string | null, limit: number, maxChars?: number) => client.listToolCalls(cursor, limit, maxChars),
      listSteps: (after: number, limit: number) => client.listSteps(after, limit),
    };
    let body = "";
    for await (const chunk of exportChunks((await client.find())!, recording, "2026-01-01T00:00:00.000Z")) body += chunk;
    const doc = JSON.parse(body) as Export;
    expect(doc.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // 760 KB of messages: never read as one answer, each page at most the bound and one message past it.
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const size of pages) expect(size).toBeLessThan(EXPORT_PAGE_CHARS + 200_000);
    // The route's document is the same one, page bounds or not.
    const { doc: routed } = await exported(who, session.id);
    expect(routed.messages).toEqual(doc.messages);
    expect(routed.messages).toEqual(await everyPage<Message>(who, `/v1/sessions/${session.id}/messages`));
  });
});

describe("the export stream", () => {
  it("errors, never closes cleanly, when a page fails after the first bytes", async () => {
    const session = { id: "ses_x" } as Session;
    const failing = {
      listMessages: async () => ({ data: [{ seq: 1 } as Message], next_cursor: "1" }),
      listToolCalls: async () => Promise.reject(new Error("the object went away")),
      listSteps: async () => ({ data: [], next_cursor: null }),
    };
    const reader = toByteStream(exportChunks(session, failing as never, "2026-01-01T00:00:00.000Z")).getReader();
    const parts: string[] = [];
    const decoder = new TextDecoder();
    const read = async (): Promise<void> => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parts.push(decoder.decode(value));
      }
    };
    await expect(read()).rejects.toThrow("the object went away");
    expect(parts.join("")).toContain('"messages":[{"seq":1}');
    expect(() => JSON.parse(parts.join(""))).toThrow();
  });
});
